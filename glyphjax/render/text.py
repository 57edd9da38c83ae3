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


def assemble(legend: str, hud: str, grid: str, message: str) -> str:
    """The observation text: its [Legend], [HUD], [Grid] and [Message] sections, blank-line
    separated; an empty legend, HUD or message is left out, the grid never is."""
    return ((f"[Legend]\n{legend}\n\n" if legend else "") + (f"[HUD]\n{hud}\n\n" if hud else "")
            + f"[Grid]\n{grid}" + (f"\n\n[Message]\n{message}" if message else ""))


@dataclasses.dataclass(frozen=True)
class TextObservation:
    legend: str
    hud: str
    grid: str
    message: str

    def render(self) -> str:
        return assemble(self.legend, self.hud, self.grid, self.message)

    def __str__(self) -> str:
        return self.render()


@lru_cache(maxsize=None)
def _glyph_table(card: TaskCard) -> tuple[np.ndarray, tuple[str, ...]]:
    """Sorted code points of the card's glyphs and their legend lines (same order)."""
    items = sorted((ord(g), f"{g} — {m}") for g, m in card.glyphs.items())
    return np.array([c for c, _ in items], np.uint32), tuple(line for _, line in items)


@dataclasses.dataclass(frozen=True)
class _CardText:
    """A card's host-side text tables: code point -> glyph index lookup (index n for a code point
    the card lacks, also every one past the table, by clipping), legend lines as an object
    array, and caches of joined legends (by glyph mask, or presence row bytes for cards of 64 or
    more glyphs) and formatted HUD lines (by row bytes)."""

    lookup: np.ndarray
    lines: np.ndarray
    hud_fields: tuple[str, ...]
    legends: dict
    huds: dict
    bits: np.ndarray | None  # uint64 1 << (glyph index) per code point, for cards of < 64 glyphs


@lru_cache(maxsize=None)
def _card_text(card: TaskCard) -> _CardText:
    codes, lines = _glyph_table(card)
    n = len(codes)
    lookup = np.full(int(codes.max(initial=0)) + 2, n, np.uint8 if n < 255 else np.uint32)
    lookup[codes] = np.arange(n)
    bits = np.left_shift(np.uint64(1), lookup.astype(np.uint64)) if n < 64 else None
    return _CardText(lookup, np.array(lines, dtype=object), ("step", *card.hud_fields), {}, {}, bits)


def _glyph_masks(tables: _CardText, flat: np.ndarray) -> list[int]:
    """Per row of code points `flat` [B, N]: the glyphs it shows as an int, bit i for glyph i and
    bit n for a code point the card does not name (cards of < 64 glyphs: `tables.bits`)."""
    return np.bitwise_or.reduce(tables.bits.take(flat, mode="clip"), axis=1).tolist()


def _mask_legend(card: TaskCard, tables: _CardText, mask: int, flat: np.ndarray) -> str:
    """The legend of glyph mask `mask` (`_glyph_masks`), joined once per card and kept."""
    n = len(tables.lines)
    row = np.array([(mask >> i) & 1 for i in range(n + 1)], bool)
    return _legend(card, tables, mask, row, flat)


LEGEND_CACHE_SIZE = 4096  # distinct glyph sets (and distinct HUD rows) kept per card


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


def _presence(tables: _CardText, flat: np.ndarray) -> np.ndarray:
    """bool [B, n_glyphs + 1]: which glyphs each row of code points `flat` [B, N] shows; the
    last column marks a code point the card does not name."""
    idx = tables.lookup.take(flat, mode="clip")
    present = np.zeros((flat.shape[0], len(tables.lines) + 1), bool)
    present[np.arange(flat.shape[0])[:, None], idx] = True
    return present


def _unknown_glyphs_error(card: TaskCard, flat: np.ndarray) -> ValueError:
    codes, _ = _glyph_table(card)
    bad = sorted({chr(c) for c in np.setdiff1d(flat, codes).tolist()})
    return ValueError(f"{card.id}: grid draws glyphs with no legend entry: {bad}")


def glyph_presence(card: TaskCard, grid: np.ndarray) -> np.ndarray:
    """bool [B, n_glyphs]: which of the card's glyphs appear in each grid. Raises if a grid holds
    a code point the card does not name (a renderer bug: every glyph must have a meaning)."""
    grid = np.asarray(grid, np.uint32)
    if grid.ndim == 2:
        grid = grid[None]
    flat = grid.reshape(grid.shape[0], -1)
    present = _presence(_card_text(card), flat)
    if present[:, -1].any():
        raise _unknown_glyphs_error(card, flat)
    return present[:, :-1]


def _row_keys(rows: np.ndarray) -> list[bytes]:
    """The bytes of every row of a 2-D array (one view, no loop over rows in numpy)."""
    rows = np.ascontiguousarray(rows)
    return rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).ravel().tolist()


def _legend(card: TaskCard, tables: _CardText, key: bytes | int, row: np.ndarray, flat: np.ndarray) -> str:
    """The legend of presence row `row` (`key` its bytes or glyph mask), joined once per card and kept."""
    legend = tables.legends.get(key)
    if legend is None:
        if row[-1]:
            raise _unknown_glyphs_error(card, flat)
        if len(tables.legends) >= LEGEND_CACHE_SIZE:
            tables.legends.clear()
        legend = tables.legends[key] = "\n".join(tables.lines[row[:-1]])
    return legend


def legend_strings(card: TaskCard, grid: np.ndarray) -> list[str]:
    """Legend per frame: exactly the glyphs on screen, sorted by code point (each distinct set of
    glyphs joined once per card and kept: a task shows few distinct sets). Raises on a code
    point the card does not name."""
    grid = np.asarray(grid, np.uint32)
    if grid.ndim == 2:
        grid = grid[None]
    flat = grid.reshape(grid.shape[0], -1)
    tables = _card_text(card)
    legends = tables.legends
    if tables.bits is not None:  # one int per frame as the key: no presence matrix
        out = []
        for mask in _glyph_masks(tables, flat):
            legend = legends.get(mask)
            out.append(_mask_legend(card, tables, mask, flat) if legend is None else legend)
        return out
    present = _presence(tables, flat)
    out = []
    for key, row in zip(_row_keys(present), present):
        legend = legends.get(key)
        out.append(_legend(card, tables, key, row, flat) if legend is None else legend)
    return out


def hud_strings(card: TaskCard, hud: np.ndarray) -> list[str]:
    """HUD per frame from the card template; hud[:, 0] is the step counter."""
    hud = np.asarray(hud)
    if hud.ndim == 1:
        hud = hud[None]
    if not card.hud:
        return [""] * hud.shape[0]
    tables = _card_text(card)
    if hud.shape[1] != len(tables.hud_fields):
        raise ValueError(f"{card.id}: HUD has {hud.shape[1]} values for fields {tables.hud_fields}")
    if hud.dtype != np.int32:  # keys are int32 rows; any other dtype is formatted without the cache
        return [_hud_line(card, tables.hud_fields, row) for row in hud.tolist()]
    lines = tables.huds
    out = []
    for key, row in zip(_row_keys(hud), hud):
        line = lines.get(key)
        if line is None:
            if len(lines) >= LEGEND_CACHE_SIZE:
                lines.clear()
            line = lines[key] = _hud_line(card, tables.hud_fields, row.tolist())
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


def observation_strings(card: TaskCard, frames: Frame) -> list[str]:
    """A batch of frames -> the observation text of each, equal to `[o.render() for o in
    render_batch(card, frames)]`, assembled from the section strings without building
    `TextObservation`s (the batched path of a rollout that only needs the text)."""
    grid = np.asarray(frames.grid)
    grids = grid_strings(grid, labels=card.grid_labels).tolist()
    return [assemble(lg, hd, gr, ms) for lg, hd, gr, ms in
            zip(legend_strings(card, grid), hud_strings(card, np.asarray(frames.hud)), grids,
                message_strings(card, frames.event))]


def _single_sections(card: TaskCard, frame: Frame) -> tuple[str, str, str]:
    """Legend, HUD and grid strings of one frame (no batch axis), from the card's caches."""
    grid = np.asarray(frame.grid, np.uint32)
    if grid.ndim != 2:
        raise ValueError(f"{card.id}: render_text takes one frame (grid [H, W]), got grid shape "
                         f"{grid.shape}; use render_batch for a batch")
    tables = _card_text(card)
    flat = grid.reshape(-1)
    if tables.bits is not None:
        mask = int(np.bitwise_or.reduce(tables.bits.take(flat, mode="clip")))
        legend = tables.legends.get(mask)
        if legend is None:
            legend = _mask_legend(card, tables, mask, flat)
    else:
        present = np.bincount(tables.lookup.take(flat, mode="clip"), minlength=len(tables.lines) + 1).astype(bool)
        key = present.tobytes()
        legend = tables.legends.get(key)
        if legend is None:
            legend = _legend(card, tables, key, present, flat)
    return legend, _single_hud(card, tables, frame.hud), _grid_string(grid, card.grid_labels)


def render_text(card: TaskCard, frame: Frame) -> TextObservation:
    """One frame (no batch axis) -> text observation, equal to `render_batch` of a batch holding it.

    The single-frame path: no batch axis; legends and HUD lines come from the card's caches."""
    return TextObservation(*_single_sections(card, frame), card.events[int(frame.event)])


def observation_text(card: TaskCard, frame: Frame) -> str:
    """One frame (no batch axis) -> its observation text, equal to `render_text(card, frame).render()`
    and to `observation_strings` of a batch holding it, without building a `TextObservation` (the
    single-frame path of a turn that only needs the text)."""
    return assemble(*_single_sections(card, frame), card.events[int(frame.event)])


def _single_hud(card: TaskCard, tables: _CardText, hud: np.ndarray) -> str:
    """The HUD line of one frame's HUD row (from the card's cache when the row is int32)."""
    if not card.hud:
        return ""
    hud = np.asarray(hud)
    line = tables.huds.get(hud.tobytes()) if hud.dtype == np.int32 and hud.ndim == 1 else None
    return hud_strings(card, hud.reshape(1, -1))[0] if line is None else line


@lru_cache(maxsize=64)
def _grid_template(h: int, w: int, labels: bool) -> tuple[np.ndarray, int, int]:
    """The code points around an H x W grid's cells, read-only: uint32 [rows, columns + 1] with the
    newline column (and with `labels` the header row and row labels) filled in, and the row and
    column where the cells go."""
    if labels:
        header, row_labels = _grid_labels(h, w)
        pad = row_labels.shape[1]
        template = np.empty((h + 1, pad + w + 1), np.uint32)
        template[0, :-1] = header
        template[1:, :pad] = row_labels
        top, left = 1, pad
    else:
        template, top, left = np.empty((h, w + 1), np.uint32), 0, 0
    template[:, -1] = ord("\n")
    template.flags.writeable = False
    return template, top, left


def _grid_string(grid: np.ndarray, labels: bool) -> str:
    """uint32 [H, W] code points -> the '\\n'-joined rows (as `grid_strings` draws them)."""
    h, w = grid.shape
    template, top, left = _grid_template(h, w, labels)
    out = template.copy()
    out[top:, left:left + w] = grid
    return str(out.reshape(-1)[:-1].view(f"<U{out.size - 1}")[0])
