"""The shipped WITNESS level bank (`data/bank.json`, written by `python -m glyphjax.witness.forge`
and extended to 20-level curricula by `python -m glyphjax.witness.extend`)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from glyphjax.witness.layout import Level

BANK = Path(__file__).parent / "data" / "bank.json"


@functools.cache
def load_bank(path: Path = BANK) -> dict[str, tuple[Level, ...]]:
    """{game name: its levels in curriculum order}."""
    if not path.exists():
        raise FileNotFoundError(f"WITNESS level bank {path} is missing; build it with "
                                "`python -m glyphjax.witness.forge`")
    data = json.loads(path.read_text())
    return {name: tuple(Level.from_json(d) for d in levels) for name, levels in data["games"].items()}


def ref_source(path: Path = BANK) -> str:
    """Where the bank's reference action counts come from (`solver_optimal` or `human_mean`)."""
    return json.loads(path.read_text())["ref_source"]


def unbuilt_games(path: Path = BANK) -> list[str]:
    """Declared games the bank has no levels for (not registered; empty in a complete bank)."""
    return list(json.loads(path.read_text()).get("unbuilt", []))


def curriculum_levels(path: Path = BANK) -> int | None:
    """The curriculum length the bank was built for (`games.curriculum(game, n)`); None: 2n + 1."""
    return json.loads(path.read_text()).get("curriculum_levels")


def origins(path: Path = BANK) -> dict[str, list[str]]:
    """{game: per level, `shipped` (forged) or the symmetry image it is (`rot90 of level 3`)}."""
    doc = json.loads(path.read_text())
    return doc.get("origins") or {name: ["shipped"] * len(levels) for name, levels in doc["games"].items()}
