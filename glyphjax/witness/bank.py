"""The shipped WITNESS level bank (`data/bank.json`, written by `python -m glyphjax.witness.forge`)."""

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
