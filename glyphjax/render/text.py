"""Frames -> text, vectorised on the host.

A batch of frames comes off the device as one uint32 array [B, H, W]; grids become strings by a
single numpy view (no Python loop over cells), legends by a presence matrix [B, n_glyphs]. The
observation text has the sections `[Legend]`, `[HUD]`, `[Grid]`, `[Message]` in that order, blank
line separated, an empty HUD or message omitted (the GlyphBench layout).
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np

from glyphjax.core.types import Frame, TaskCard


@dataclasses.dataclass(frozen=True)
class TextObservation:
    legend: str
    hud: str
    grid: str
    message: str

    def render(self) -> str:
        parts = [f"[Legend]\n{self.legend}"] if self.legend else []
        if self.hud:
            parts.append(f"[HUD]\n{self.hud}")
        parts.append(f"[Grid]\n{self.grid}")
        if self.message:
            parts.append(f"[Message]\n{self.message}")
        return "\n\n".join(parts)

    def __str__(self) -> str:
        return self.render()


@lru_cache(maxsize=None)
def _glyph_table(card: TaskCard) -> tuple[np.ndarray, tuple[str, ...]]:
    """Sorted code points of the card's glyphs and their legend lines (same order)."""
    items = sorted((ord(g), f"{g} — {m}") for g, m in card.glyphs.items())
    return np.array([c for c, _ in items], np.uint32), tuple(line for _, line in items)


def grid_strings(grid: np.ndarray, labels: bool = False) -> np.ndarray:
    """uint32 [B, H, W] code points -> numpy array [B] of '\\n'-joined row strings.

    With `labels`, a header of column numbers (mod 10) and row numbers on the left are added
    (used by tasks whose actions name cells; see TaskCard.grid_labels).
    """
    grid = np.asarray(grid, np.uint32)
    if grid.ndim == 2:
        grid = grid[None]
    b, h, w = grid.shape
    if labels:
        digits = np.uint32(ord("0")) + (np.arange(w, dtype=np.uint32) % 10)
        row_w = len(str(h - 1))
        pad = np.full((row_w + 1,), ord(" "), np.uint32)
        header = np.concatenate([pad, digits])
        row_labels = np.array([[ord(c) for c in str(r).rjust(row_w) + " "] for r in range(h)], np.uint32)
        body = np.concatenate([np.broadcast_to(row_labels, (b, h, row_w + 1)), grid], axis=2)
        grid = np.concatenate([np.broadcast_to(header, (b, 1, header.size)), body], axis=1)
        h, w = grid.shape[1], grid.shape[2]
    newline = np.full((b, h, 1), ord("\n"), np.uint32)
    flat = np.ascontiguousarray(np.concatenate([grid, newline], axis=2).reshape(b, -1)[:, :-1])
    return flat.view(f"<U{flat.shape[1]}").reshape(b)


def glyph_presence(card: TaskCard, grid: np.ndarray) -> np.ndarray:
    """bool [B, n_glyphs]: which of the card's glyphs appear in each grid. Raises if a grid holds
    a code point the card does not name (a renderer bug: every glyph must have a meaning)."""
    codes, _ = _glyph_table(card)
    grid = np.asarray(grid, np.uint32)
    if grid.ndim == 2:
        grid = grid[None]
    b = grid.shape[0]
    flat = grid.reshape(b, -1)
    idx = np.searchsorted(codes, flat)
    idx_c = np.minimum(idx, len(codes) - 1)
    known = codes[idx_c] == flat
    if not known.all():
        bad = sorted({chr(c) for c in flat[~known].tolist()})
        raise ValueError(f"{card.id}: grid draws glyphs with no legend entry: {bad}")
    present = np.zeros((b, len(codes)), bool)
    present[np.repeat(np.arange(b), flat.shape[1]), idx_c.ravel()] = True
    return present


def legend_strings(card: TaskCard, grid: np.ndarray) -> list[str]:
    """Legend per frame: exactly the glyphs on screen, sorted by code point."""
    _, lines = _glyph_table(card)
    present = glyph_presence(card, grid)
    lines_arr = np.array(lines, dtype=object)
    return ["\n".join(lines_arr[row]) for row in present]


def hud_strings(card: TaskCard, hud: np.ndarray) -> list[str]:
    """HUD per frame from the card template; hud[:, 0] is the step counter."""
    hud = np.asarray(hud)
    if hud.ndim == 1:
        hud = hud[None]
    if not card.hud:
        return [""] * hud.shape[0]
    fields = ("step", *card.hud_fields)
    if hud.shape[1] != len(fields):
        raise ValueError(f"{card.id}: HUD has {hud.shape[1]} values for fields {fields}")
    enums = card.hud_enums
    out = []
    for row in hud.tolist():
        values = {name: (enums[name][v] if name in enums else v) for name, v in zip(fields, row)}
        out.append(card.hud.format(max_steps=card.max_steps, **values))
    return out


def message_strings(card: TaskCard, event: np.ndarray) -> list[str]:
    return [card.events[e] for e in np.atleast_1d(np.asarray(event)).tolist()]


def render_batch(card: TaskCard, frames: Frame) -> list[TextObservation]:
    """A batch of frames (leading batch axis, host or device arrays) -> text observations."""
    grid = np.asarray(frames.grid)
    grids = grid_strings(grid, labels=card.grid_labels)
    legends = legend_strings(card, grid)
    huds = hud_strings(card, np.asarray(frames.hud))
    messages = message_strings(card, np.asarray(frames.event))
    return [TextObservation(lg, hd, str(gr), ms) for lg, hd, gr, ms in zip(legends, huds, grids, messages)]


def render_text(card: TaskCard, frame: Frame) -> TextObservation:
    """One frame (no batch axis) -> text observation."""
    seat = None if frame.seat is None else np.asarray(frame.seat).reshape(1)
    batched = Frame(grid=np.asarray(frame.grid)[None], hud=np.asarray(frame.hud)[None],
                    event=np.asarray(frame.event).reshape(1), seat=seat)
    return render_batch(card, batched)[0]
