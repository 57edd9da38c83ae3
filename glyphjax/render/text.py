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


@lru_cache(maxsize=None)
def _legend_lines(card: TaskCard) -> np.ndarray:
    """The card's legend lines as an object array (indexable by a presence mask)."""
    return np.array(_glyph_table(card)[1], dtype=object)


@lru_cache(maxsize=None)
def _hud_fields(card: TaskCard) -> tuple[str, ...]:
    return ("step", *card.hud_fields)


@lru_cache(maxsize=64)
def _grid_labels(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Code points of the column header [W + pad] and of the row labels [H, pad] of an H x W grid."""
    digits = np.uint32(ord("0")) + (np.arange(w, dtype=np.uint32) % 10)
    row_w = len(str(h - 1))
    header = np.concatenate([np.full((row_w + 1,), ord(" "), np.uint32), digits])
    row_labels = np.array([[ord(c) for c in str(r).rjust(row_w) + " "] for r in range(h)], np.uint32)
    return header, row_labels


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
        header, row_labels = _grid_labels(h, w)
        body = np.concatenate([np.broadcast_to(row_labels, (b, h, row_labels.shape[1])), grid], axis=2)
        grid = np.concatenate([np.broadcast_to(header, (b, 1, header.size)), body], axis=1)
        h, w = grid.shape[1], grid.shape[2]
    newline = np.full((b, h, 1), ord("\n"), np.uint32)
    flat = np.ascontiguousarray(np.concatenate([grid, newline], axis=2).reshape(b, -1)[:, :-1])
    return flat.view(f"<U{flat.shape[1]}").reshape(b)


def _glyph_indices(card: TaskCard, codes: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """Index into `codes` of every code point of `flat`; ValueError naming any the card lacks."""
    idx = np.minimum(np.searchsorted(codes, flat), len(codes) - 1)
    known = codes[idx] == flat
    if not known.all():
        bad = sorted({chr(c) for c in flat[~known].tolist()})
        raise ValueError(f"{card.id}: grid draws glyphs with no legend entry: {bad}")
    return idx


def glyph_presence(card: TaskCard, grid: np.ndarray) -> np.ndarray:
    """bool [B, n_glyphs]: which of the card's glyphs appear in each grid. Raises if a grid holds
    a code point the card does not name (a renderer bug: every glyph must have a meaning)."""
    codes, _ = _glyph_table(card)
    grid = np.asarray(grid, np.uint32)
    if grid.ndim == 2:
        grid = grid[None]
    b = grid.shape[0]
    flat = grid.reshape(b, -1)
    idx_c = _glyph_indices(card, codes, flat)
    present = np.zeros((b, len(codes)), bool)
    present[np.repeat(np.arange(b), flat.shape[1]), idx_c.ravel()] = True
    return present


def legend_strings(card: TaskCard, grid: np.ndarray) -> list[str]:
    """Legend per frame: exactly the glyphs on screen, sorted by code point (each distinct set of
    glyphs joined once per card and kept: a task shows few distinct sets)."""
    present = glyph_presence(card, grid)
    cache = _LEGENDS.setdefault(card, {})
    if len(cache) > LEGEND_CACHE_SIZE:
        cache.clear()
    lines_arr = _legend_lines(card)
    out = []
    for key, row in zip(map(bytes, np.packbits(present, axis=1)), present):
        legend = cache.get(key)
        if legend is None:
            legend = cache[key] = "\n".join(lines_arr[row])
        out.append(legend)
    return out


LEGEND_CACHE_SIZE = 4096  # distinct glyph sets kept per card
_LEGENDS: dict[TaskCard, dict[bytes, str]] = {}


def hud_strings(card: TaskCard, hud: np.ndarray) -> list[str]:
    """HUD per frame from the card template; hud[:, 0] is the step counter."""
    hud = np.asarray(hud)
    if hud.ndim == 1:
        hud = hud[None]
    if not card.hud:
        return [""] * hud.shape[0]
    fields = _hud_fields(card)
    if hud.shape[1] != len(fields):
        raise ValueError(f"{card.id}: HUD has {hud.shape[1]} values for fields {fields}")
    lines: dict[tuple, str] = {}  # a batch repeats rows (same step, same score): format each once
    out = []
    for row in hud.tolist():
        key = tuple(row)
        line = lines.get(key)
        if line is None:
            line = lines[key] = _hud_line(card, fields, row)
        out.append(line)
    return out


def _hud_line(card: TaskCard, fields: tuple[str, ...], row: list[int]) -> str:
    enums = card.hud_enums
    values = {name: (enums[name][v] if name in enums else v) for name, v in zip(fields, row)}
    return card.hud.format(max_steps=card.max_steps, **values)


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
    """One frame (no batch axis) -> text observation, equal to `render_batch` of a batch holding it.

    The single-frame path: no batch axis, cached label and legend tables, one pass per section."""
    grid = np.asarray(frame.grid, np.uint32)
    if grid.ndim != 2:
        raise ValueError(f"{card.id}: render_text takes one frame (grid [H, W]), got grid shape "
                         f"{grid.shape}; use render_batch for a batch")
    codes, lines = _glyph_table(card)
    flat = grid.ravel()
    present = np.zeros(len(codes), bool)
    present[_glyph_indices(card, codes, flat)] = True
    legend = "\n".join([lines[i] for i in np.flatnonzero(present).tolist()])
    return TextObservation(legend, _single_hud(card, frame.hud), _grid_string(grid, card.grid_labels),
                           card.events[np.asarray(frame.event).item()])


def _single_hud(card: TaskCard, hud: np.ndarray) -> str:
    if not card.hud:
        return ""
    fields = _hud_fields(card)
    row = np.asarray(hud).reshape(-1).tolist()
    if len(row) != len(fields):
        raise ValueError(f"{card.id}: HUD has {len(row)} values for fields {fields}")
    return _hud_line(card, fields, row)


def _grid_string(grid: np.ndarray, labels: bool) -> str:
    """uint32 [H, W] code points -> the '\\n'-joined rows (as `grid_strings` draws them)."""
    h, w = grid.shape
    if labels:
        header, row_labels = _grid_labels(h, w)
        grid = np.concatenate([header[None], np.concatenate([row_labels, grid], axis=1)], axis=0)
        h, w = grid.shape
    out = np.empty((h, w + 1), np.uint32)
    out[:, :w] = grid
    out[:, w] = ord("\n")
    return str(out.reshape(-1)[:-1].view(f"<U{h * (w + 1) - 1}")[0])
