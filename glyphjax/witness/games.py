"""The 47 WITNESS games as declarations: split, primitives in introduction order, hidden mapping.

Splits (witness.md §4, ours where the paper is silent): training uses walls, hexagons, coloured
squares and triangles; validation has 4 new compositions of those (subset `composition`) and 4
games with stars or hints, absent from training (`novel`); every test game has at least one of
polyomino, symmetry or eliminator, which no other split uses. Ids: `witness/<split>/<game>`.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable

from glyphjax.witness.layout import MAX_LEVELS
from glyphjax.witness.primitives.mapping import PERMUTATIONS

TRAIN, VAL, TEST = "train", "val", "test"
SPLITS = (TRAIN, VAL, TEST)
TRAIN_PRIMITIVES = ("walls", "hexagon", "squares", "triangles")
TEST_PRIMITIVES = ("polyomino", "symmetry", "eliminator")
NEEDS_PARTNER = ("hints", "eliminator", "symmetry")  # introduced together with an earlier primitive of the game


@dataclasses.dataclass(frozen=True)
class GameDef:
    name: str
    split: str
    primitives: tuple[str, ...]  # in introduction order
    sigma: tuple[int, ...]  # action a moves in direction sigma[a]
    subset: str = ""  # validation: composition | novel

    @property
    def task_id(self) -> str:
        return f"witness/{self.split}/{self.name}"


def _sigma(i: int) -> tuple[int, ...]:
    return PERMUTATIONS[1 + (7 * i) % 23]  # never the identity


_TRAIN_SETS = [("walls",), ("hexagon",), ("squares",), ("triangles",), ("walls", "hexagon"),
               ("walls", "squares"), ("walls", "triangles"), ("hexagon", "squares"),
               ("hexagon", "triangles"), ("squares", "triangles"), ("walls", "hexagon", "squares")]
_VAL_SETS = [(("hexagon", "squares", "triangles"), "composition"),
             (("walls", "squares", "triangles"), "composition"),
             (("walls", "hexagon", "triangles"), "composition"),
             (("walls", "hexagon", "squares", "triangles"), "composition"),
             (("stars",), "novel"), (("squares", "stars"), "novel"), (("hexagon", "hints"), "novel"),
             (("walls", "triangles", "hints"), "novel")]
_TEST_SETS = [("polyomino",), ("walls", "polyomino"), ("squares", "polyomino"), ("walls", "hexagon", "symmetry"),
              ("hexagon", "symmetry"), ("walls", "symmetry"), ("triangles", "symmetry"),
              ("hexagon", "eliminator"), ("squares", "eliminator"), ("triangles", "eliminator"),
              ("stars", "eliminator"), ("stars", "polyomino"), ("squares", "symmetry"),
              ("polyomino", "eliminator"), ("stars", "symmetry"), ("hexagon", "polyomino"),
              ("hexagon", "squares", "eliminator")]


def _name(prims: tuple[str, ...], variant: str = "") -> str:
    return "-".join(prims) + variant


def _declare() -> tuple[GameDef, ...]:
    games, i = [], 0
    for prims in _TRAIN_SETS:
        for variant in ("-a", "-b"):
            games.append(GameDef(_name(prims, variant), TRAIN, prims, _sigma(i)))
            i += 1
    for prims, subset in _VAL_SETS:
        games.append(GameDef(_name(prims), VAL, prims, _sigma(i), subset))
        i += 1
    for prims in _TEST_SETS:
        games.append(GameDef(_name(prims), TEST, prims, _sigma(i)))
        i += 1
    return tuple(games)


GAMES = _declare()
BY_ID = {g.task_id: g for g in GAMES}


@dataclasses.dataclass(frozen=True)
class Slot:
    """One level of a game's curriculum: its phase, active primitives and board size."""

    phase: str  # introduce | accumulate | reinforce
    rules: tuple[str, ...]
    size: tuple[int, int]


def _partner(earlier: tuple[str, ...], p: str) -> str:
    """The earlier primitive a NEEDS_PARTNER primitive is introduced with: the game's first, except
    that hints need symbols to hide, which walls have none of (the latest earlier symbol rule)."""
    if p == "hints":
        return next((q for q in reversed(earlier) if q != "walls"), earlier[0])
    return earlier[0]


def curriculum(game: GameDef, levels: int | None = None) -> tuple[Slot, ...]:
    """Introduce -> Accumulate -> Reinforce: primitive i is introduced on a small board (with its
    partner if it needs one), followed by one level of everything so far (reinforce for the first
    primitive, accumulate after), then one reinforce level of all, on full-size boards: 2n + 1
    slots for n primitives. With `levels` (up to MAX_LEVELS), the phases after each introduction
    get more levels, spread evenly (the final reinforce phase takes the remainder), so no
    primitive is introduced sooner than in the short schedule."""
    prims = game.primitives
    base = 2 * len(prims) + 1
    levels = base if levels is None else levels
    if not base <= levels <= MAX_LEVELS:
        raise ValueError(f"{game.name}: a curriculum has {base}..{MAX_LEVELS} levels for its "
                         f"{len(prims)} primitives, got {levels}")
    blocks = len(prims) + 1  # the phase after each introduction, then the final reinforce
    extra = [(levels - base) // blocks] * blocks
    extra[-1] += (levels - base) % blocks
    slots = []
    for i, p in enumerate(prims):
        intro = (_partner(prims[:i], p), p) if p in NEEDS_PARTNER and i > 0 else (p,)
        slots.append(Slot("introduce", intro, (4, 5)))
        slots += [Slot("reinforce" if i == 0 else "accumulate", prims[:i + 1], (5, 5))] * (1 + extra[i])
    slots += [Slot("reinforce", prims, (5, 5))] * (1 + extra[-1])
    return tuple(slots)


def split_of(task_id: str) -> str | None:
    """The split of a witness id (`witness/<split>/<game>`), None for other suites."""
    parts = task_id.split("/")
    return parts[1] if parts[0] == "witness" and len(parts) == 3 else None


def check_training_ids(task_ids: Iterable[str], allowed: Iterable[str] = (TRAIN,)) -> None:
    """Raise if a training task set selects a witness game outside the training split."""
    allowed = tuple(allowed)
    bad = [t for t in task_ids if split_of(t) not in (None, *allowed)]
    if bad:
        splits = sorted({split_of(t) for t in bad})
        raise ValueError(f"training may not use WITNESS games of the {', '.join(splits)} split: "
                         f"{', '.join(bad[:5])}{' ...' if len(bad) > 5 else ''}; training games are "
                         f"witness/{'|'.join(allowed)}/* (validation and test games are for evaluation)")
