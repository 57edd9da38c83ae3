"""Registry entries `witness/<split>/<game>`: each game's card text, rule card and params built
from the shipped level bank; split checks for training configs."""

from __future__ import annotations

import fnmatch
from glyphjax.core.registry import register
from glyphjax.witness.bank import load_bank
from glyphjax.witness.engine import Witness
from glyphjax.witness.games import BY_ID, GAMES, SPLITS, GameDef
from glyphjax.witness.layout import BUDGET, game_params
from glyphjax.witness.primitives import ALL

DIRECTIONS = ("up", "down", "left", "right")
RULES = (
    "A path puzzle. The board is a grid of cells, (0,0) at the top left. Your path starts on S "
    "and you extend it one cell at a time with A1-A4; each of the four moves goes in a fixed "
    "direction that you must find out. Moving back onto the previous path cell retracts the last "
    "step. Moves off the board, into walls, into your own path, or that the puzzle forbids are "
    "refused (nothing changes, the action still counts). RESET clears the path back to S. "
    "CONFIRM submits the path: it is accepted if it ends on an exit E and breaks none of the "
    "puzzle's hidden rules; a rejected path stays, with the offending cells marked ! in the next "
    "view. The symbols on the board matter, and what they demand is for you to discover; the "
    "same rules hold across the levels of a game. Each level allows {budget} actions; running "
    "out ends the game. A game has {n} levels.")


def rule_card(game: GameDef) -> str:
    """The ground-truth rules of a game, its action mapping included (the rule-card probe only)."""
    mapping = ", ".join(f"A{a + 1} moves {DIRECTIONS[d]}" for a, d in enumerate(game.sigma))
    lines = [f"Action mapping: {mapping}."]
    for name in game.primitives:
        lines.append(f"- {ALL[name].__doc__.strip().splitlines()[0]}")
    return "\n".join(lines)


def make_game(task_id: str) -> Witness:
    game = BY_ID[task_id]
    bank = load_bank()
    if game.name not in bank:
        raise RuntimeError(f"{task_id}: the level bank has no levels for game {game.name!r}; rebuild it with "
                           "`python -m glyphjax.witness.forge`")
    levels = bank[game.name]
    notes = f"split {game.split}" + (f" ({game.subset})" if game.subset else "")
    return Witness(task_id, game_params(levels, game.sigma), RULES.format(budget=BUDGET, n=len(levels)), notes)


def register_all() -> None:
    """Register every game the shipped bank has levels for (all 47 in a complete bank)."""
    try:
        present = {name for name, levels in load_bank().items() if levels}
    except FileNotFoundError:
        present = set()
    for game in GAMES:
        if game.name in present:
            register(game.task_id, lambda t=game.task_id: make_game(t))


def split_ids(split: str) -> list[str]:
    """The registered ids of a split (games the bank has levels for)."""
    if split not in SPLITS:
        raise ValueError(f"unknown WITNESS split {split!r}; use one of {', '.join(SPLITS)}")
    built = {name for name, levels in load_bank().items() if levels}
    return [g.task_id for g in GAMES if fnmatch.fnmatch(g.split, split) and g.name in built]


register_all()
