"""The game-side held-out set of the zero-sum corpus (gamesmith.md §6.2) and the check that
training never selects it.

The paper holds out one encoding, one rule and one size variant for each of 18 of its families.
**Ours** (the paper does not list them): of the families that have all three kinds of variant,
in name order, 18 evenly spaced ones; from each, the last rule variant, the last size variant and
the last encoding variant in name order. `conf/tasks/zerosum_heldout.yaml` lists these ids and
`conf/tasks/zerosum_train.yaml` excludes them (a test keeps both equal to `heldout_ids()`).
"""

from __future__ import annotations

from typing import Iterable

HELD_OUT_FAMILIES = 18
KINDS = ("rule", "size", "enc")


def heldout_ids(task_ids: Iterable[str]) -> list[str]:
    """The held-out variants among the registered `zerosum/<family>/<variant>` ids."""
    by_family: dict[str, dict[str, list[str]]] = {}
    for t in task_ids:
        parts = t.split("/")
        if len(parts) != 3 or parts[0] != "zerosum":
            continue
        kind = parts[2].split("-", 1)[0]
        by_family.setdefault(parts[1], {}).setdefault(kind, []).append(t)
    eligible = sorted(f for f, kinds in by_family.items() if all(kinds.get(k) for k in KINDS))
    n = min(HELD_OUT_FAMILIES, len(eligible))
    picked = [eligible[i * len(eligible) // n] for i in range(n)] if n else []
    return sorted(max(by_family[f][k]) for f in picked for k in KINDS)


def check_not_heldout(task_ids: Iterable[str]) -> None:
    """Raise ValueError naming the ids if a training set selects held-out zero-sum variants."""
    import glyphjax
    ids = list(task_ids)
    held = set(heldout_ids(glyphjax.task_ids("zerosum/*"))) if any(t.startswith("zerosum/") for t in ids) else set()
    bad = [t for t in ids if t in held]
    if bad:
        raise ValueError(f"training may not use the held-out zero-sum variants {', '.join(bad[:5])}"
                         f"{' ...' if len(bad) > 5 else ''}; use tasks=zerosum_train (the held-out set "
                         f"tasks=zerosum_heldout is for the game-side evaluation)")
