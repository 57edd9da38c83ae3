"""Extend the level bank to longer curricula (up to 20 levels per game) from its certified levels.

`python -m glyphjax.witness.extend --levels 20` fills each slot of `games.curriculum(game, 20)`
with a level whose active rules equal the slot's: first the game's shipped levels with those rules
(in bank order), then their images under the 7 non-identity symmetries of the rectangle's
dihedral group (rotations, reflections; every shipped level once per symmetry before the next).
ours: a rotated or reflected board is a new layout of the same rule set. Every filter's quantity is
invariant under the symmetry (it maps paths to paths and directions to directions): structure,
the optimal depth (the mapped solution is optimal), necessity, the greedy walk over all 24
tie-break orders (the set of orders maps onto itself) and the uniform random walk's win
probability (a permutation of uniform directions is uniform). So an image is kept after the
dedupe alone. Its random-play filter is played through `probe_sigma` (the transform's direction
map as the action mapping), under which every seed's episode is the image of the original's, so
the image's 2,000-seed win count equals the original's (which passed); `--recheck` instead runs
every forge filter on each image from scratch (random play through the identity mapping, whose
count differs from the original's by sampling) and keeps only passing ones. A slot whose pool runs
out stays empty, unless `--top-up` forges new levels for it: candidates seeded (game index, slot,
j, TOPUP_TAG) go through every forge filter, and a passing one joins the game's forged levels (its
images refill the pool). The bank records each level's origin, the extension's per-filter removal
counts and the top-up levels' seeds (`top_up.forged`). Deterministic: no random draws beyond the
seeded candidates and the forge's fixed random-play seeds.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import fnmatch
import json
import time
from pathlib import Path

from glyphjax.core.grid import DIR_OFFSETS
from glyphjax.witness import forge
from glyphjax.witness.bank import BANK
from glyphjax.witness.games import GAMES, GameDef, curriculum
from glyphjax.witness.layout import Level

TRANSFORMS = ("identity", "rot90", "rot180", "rot270", "flip-cols", "flip-rows", "transpose", "anti-transpose")
SHIPPED = "shipped"


def _cell_map(t: int, rows: int, cols: int):
    """(r, c) -> its image under transform t on a rows x cols board, and the image's dims."""
    maps = (lambda r, c: (r, c), lambda r, c: (c, rows - 1 - r), lambda r, c: (rows - 1 - r, cols - 1 - c),
            lambda r, c: (cols - 1 - c, r), lambda r, c: (r, cols - 1 - c), lambda r, c: (rows - 1 - r, c),
            lambda r, c: (c, r), lambda r, c: (cols - 1 - c, rows - 1 - r))
    swaps = t in (1, 3, 6, 7)
    return maps[t], ((cols, rows) if swaps else (rows, cols)), swaps


def _direction_map(t: int) -> list[int]:
    """dmap[d]: the direction that direction d becomes under transform t."""
    f, _, _ = _cell_map(t, 9, 9)
    o = f(0, 0)
    return [DIR_OFFSETS.index((f(dr, dc)[0] - o[0], f(dr, dc)[1] - o[1])) for dr, dc in DIR_OFFSETS]


def probe_sigma(origin: str) -> tuple[int, ...]:
    """The action mapping a level's random-play filter is probed with: the identity for a forged
    level, the transform's direction map for an image (`rot90 of level 3`)."""
    if origin == SHIPPED:
        return (0, 1, 2, 3)
    return tuple(_direction_map(TRANSFORMS.index(origin.split(" of level ")[0])))


def transform_level(level: Level, t: int) -> Level:
    """The level's image under dihedral transform t (0 = identity): board, hidden cells, blocked
    edges and solution moves mapped; the symmetry axis swaps vertical/horizontal when rows and
    columns swap. The rules are unchanged."""
    f, (rows, cols), swaps = _cell_map(t, level.rows, level.cols)
    grid = [["."] * cols for _ in range(rows)]
    for r in range(level.rows):
        for c in range(level.cols):
            nr, nc = f(r, c)
            grid[nr][nc] = level.at(r, c)
    dmap = _direction_map(t)
    axis = {0: 1, 1: 0}.get(level.axis, level.axis) if swaps else level.axis
    return Level(board=tuple("".join(row) for row in grid), rules=level.rules,
                 hidden=tuple(sorted(f(r, c) for r, c in level.hidden)),
                 edges=tuple(sorted((*f(r, c), dmap[d]) for r, c, d in level.edges)), axis=axis,
                 solution=tuple(dmap[d] for d in level.solution))


def pools(base: tuple[Level, ...]) -> dict[frozenset, list[tuple[Level, str]]]:
    """Per rule set, the ordered candidates: the shipped levels, then each transform of each."""
    by_rules: dict[frozenset, list[int]] = collections.defaultdict(list)
    for k, lv in enumerate(base):
        by_rules[frozenset(lv.rules)].append(k)
    out = {}
    for key, ks in by_rules.items():
        out[key] = [(base[k], SHIPPED) for k in ks]
        out[key] += [(transform_level(base[k], t), f"{TRANSFORMS[t]} of level {k + 1}")
                     for t in range(1, len(TRANSFORMS)) for k in ks]
    return out


@dataclasses.dataclass
class Pick:
    game: str
    slot: int
    level: Level
    origin: str


def _next_passing(queue: list, seen: set[str], log: forge.ForgeLog, recheck: bool) -> tuple[Level, str] | None:
    """Pop candidates until one passes the dedupe (with `recheck`, every host filter); shipped
    levels were certified when forged and are taken as they are. None when the pool is empty."""
    while queue:
        level, origin = queue.pop(0)
        if origin == SHIPPED:
            seen.add(level.canonical_hash())
            return level, origin
        log.candidates += 1
        if not recheck:
            if level.canonical_hash() in seen:
                log.removed["dedupe"] += 1
                continue
            seen.add(level.canonical_hash())
            return level, origin
        failed, sol = forge.first_failed_filter(dataclasses.replace(level, solution=()), seen)
        if failed:
            log.removed[failed] += 1
            continue
        seen.add(level.canonical_hash())
        return dataclasses.replace(level, solution=tuple(sol)), origin
    return None


def extend(games: list[GameDef], base: dict[str, tuple[Level, ...]], levels: int,
           log: forge.ForgeLog, recheck: bool = False) -> dict[str, list[Pick]]:
    """Every game's picks for curriculum(game, levels). With `recheck`, random play is checked in
    batches over all games, and a pick it beats is replaced by its pool's next passing one."""
    queues = {g.name: pools(base.get(g.name, ())) for g in games}
    todo = [(g.name, k, frozenset(s.rules)) for g in games for k, s in enumerate(curriculum(g, levels))]
    chosen: dict[tuple[str, int], Pick] = {}
    seen = {lv.canonical_hash() for lvs in base.values() for lv in lvs}
    while todo:
        fresh = []
        for name, k, key in todo:
            got = _next_passing(queues[name].get(key, []), seen, log, recheck)
            if got is not None:
                fresh.append((Pick(name, k, *got), key))
        check = [p for p, _ in fresh if p.origin != SHIPPED] if recheck else []
        wins = iter(forge.screened_win_counts([p.level for p in check]) if check else [])
        todo = []
        for p, key in fresh:
            if check and p.origin != SHIPPED and next(wins) > forge.RANDOM_MAX_WINS:
                log.removed["random"] += 1
                todo.append((p.game, p.slot, key))
            else:
                chosen[(p.game, p.slot)] = p
    out = {g.name: [] for g in games}
    for (name, k), p in sorted(chosen.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        out[name].append(p)
    for g in games:
        log.unfilled += [(g.name, k) for k in range(len(curriculum(g, levels))) if (g.name, k) not in chosen]
    return out


TOPUP_TAG = 20  # seed tail of top-up candidates: (game index, slot k of curriculum(game, 20), j, 20)
TRAP_TAG = 21  # seed tail of top-up candidates drawn by `trap.trap_candidate` (--generator trap)
TOPUP_CANDIDATES = 3000  # per empty slot, before it is left empty


def drawer(tail: int):
    """The candidate generator a top-up seed tail stands for: `forge.make_candidate` (uniform or
    planted, TOPUP_TAG) or `trap.trap_candidate` (TRAP_TAG)."""
    from glyphjax.witness.trap import trap_candidate
    return {TOPUP_TAG: forge.make_candidate, TRAP_TAG: trap_candidate}[tail]


def empty_slots(game: GameDef, base: dict[str, tuple[Level, ...]], levels: int) -> list[int]:
    """The slots of curriculum(game, levels) that extending `base` leaves empty."""
    picks = extend([game], base, levels, forge.ForgeLog())[game.name]
    return [k for k in range(len(curriculum(game, levels))) if k not in {p.slot for p in picks}]


def top_up(games: list[GameDef], base: dict[str, tuple[Level, ...]], levels: int, log: forge.ForgeLog,
           max_candidates: int = TOPUP_CANDIDATES, seen: set[str] | None = None,
           tail: int = TOPUP_TAG) -> dict[str, tuple[Level, ...]]:
    """Forge new levels for the slots the pools leave empty: while a game has an empty slot, the
    first one's next candidates (seeded (game index, slot, j, tail), apart from the base forge's
    seeds; drawn by `drawer(tail)`) go through every forge filter (`forge.forge_slot`, dedupe
    against `seen` and every level and image so far), and a passing level joins the game's forged
    levels, so its images refill the pool. Log entries: [game, slot, j] (TOPUP_TAG) or
    [game, slot, j, tail]. Deterministic; a slot whose max_candidates all fail stays empty."""
    base = {n: tuple(v) for n, v in base.items()}
    seen = set(seen or ())
    for lvs in base.values():
        seen |= {transform_level(lv, t).canonical_hash() for lv in lvs for t in range(len(TRANSFORMS))}
    for gi, game in enumerate(GAMES):
        if game not in games:
            continue
        slots, tries = curriculum(game, levels), collections.Counter()
        while True:
            open_ = [k for k in empty_slots(game, base, levels) if tries[k] < max_candidates]
            if not open_:
                break
            k, t0 = open_[0], time.time()
            level = forge.forge_slot(gi, k, slots[k], seen, log, tries, max_candidates, (tail,), drawer(tail))
            print(f"  top-up {game.name} slot {k} {'+'.join(slots[k].rules)}: "
                  f"{'forged' if level else 'none'} after {tries[k]} candidates ({time.time() - t0:.0f} s)", flush=True)
            if level is not None:
                log.forged.append([game.name, k, tries[k] - 1] + ([tail] if tail != TOPUP_TAG else []))
                base[game.name] = base.get(game.name, ()) + (level,)
                seen |= {transform_level(level, t).canonical_hash() for t in range(len(TRANSFORMS))}
    return base


def write(path: Path, base_doc: dict, picks: dict[str, list[Pick]], levels: int, log: forge.ForgeLog,
          wall_s: float, recheck: bool, topup: forge.ForgeLog | None = None) -> None:
    """The extended bank: the base document with the longer games, each level's origin, and the
    extension's filter counts beside the base forge's."""
    doc = dict(base_doc)
    old_origins = base_doc.get("origins") or {n: [SHIPPED] * len(v) for n, v in base_doc["games"].items()}
    order = [g.name for g in GAMES if picks.get(g.name) or g.name in base_doc["games"]]
    # games outside the selection keep their levels
    doc["games"] = {n: [p.level.to_json() for p in picks[n]] if n in picks else base_doc["games"][n] for n in order}
    doc["origins"] = {n: [p.origin for p in picks[n]] if n in picks else old_origins[n] for n in order}
    doc["curriculum_levels"] = levels
    doc["unbuilt"] = [g.name for g in GAMES if g.name not in doc["games"]]
    kept = log.candidates - sum(log.removed.values())
    doc["extension"] = {"candidates": log.candidates, "kept": kept, "wall_s": round(wall_s, 1), "recheck": recheck,
                        "removed": {f: log.removed[f] for f in forge.FILTERS},
                        "unfilled": [list(u) for u in log.unfilled]}
    if topup is not None:  # this run's top-up added to the base bank's records
        old = base_doc.get("top_up", {})
        removed = {f: topup.removed[f] + old.get("removed", {}).get(f, 0) for f in forge.FILTERS}
        candidates = topup.candidates + old.get("candidates", 0)
        doc["top_up"] = {**old, "seed_tail": TOPUP_TAG, "forged": old.get("forged", []) + topup.forged,
                         "note": "each forged level is candidate j of (game index, slot, j, tail): [game, slot, j] "
                                 "has tail seed_tail (drawn by forge.make_candidate), [game, slot, j, 21] tail 21 "
                                 "(trap.trap_candidate); every filter passed",
                         "candidates": candidates, "kept": candidates - sum(removed.values()), "removed": removed}
    elif "top_up" in base_doc:
        doc["top_up"] = base_doc["top_up"]
    path.write_text(json.dumps(doc, indent=1) + "\n")


def forged_levels(path: Path) -> dict[str, tuple[Level, ...]]:
    """A bank's forged levels per game (an extended bank's images left out), so extending the
    shipped bank again rebuilds it."""
    from glyphjax.witness.bank import load_bank, origins
    where = origins(path)
    return {n: tuple(lv for lv, o in zip(lvs, where[n]) if o == SHIPPED) for n, lvs in load_bank(path).items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Extend the WITNESS level bank to N-level curricula (deterministic).")
    ap.add_argument("--levels", type=int, default=20)
    ap.add_argument("--base", type=Path, default=BANK, help="bank of certified levels to extend")
    ap.add_argument("--out", type=Path, default=BANK)
    ap.add_argument("--games", default="*", help="glob over game names")
    ap.add_argument("--recheck", action="store_true", help="run every forge filter on each image (slow)")
    ap.add_argument("--top-up", action="store_true",
                    help="forge new levels (every filter) for the slots the pools leave empty")
    ap.add_argument("--top-up-candidates", type=int, default=TOPUP_CANDIDATES)
    ap.add_argument("--generator", choices=("planted", "trap"), default="planted",
                    help="top-up candidates: forge.make_candidate (seed tail 20) or trap.trap_candidate (21)")
    args = ap.parse_args(argv)
    from glyphjax.core.compiled import use_persistent_cache
    use_persistent_cache()  # the random-play probe compiles once across runs (minutes on a loaded machine)
    base_doc = json.loads(args.base.read_text())
    base = forged_levels(args.base)
    games = [g for g in GAMES if fnmatch.fnmatch(g.name, args.games)]
    t0 = time.time()
    topup = None
    if args.top_up:
        topup = forge.ForgeLog()
        base = top_up(games, base, args.levels, topup, args.top_up_candidates,
                      tail=TRAP_TAG if args.generator == "trap" else TOPUP_TAG)
        # the forged levels in the order the extended bank lists them, so extending it again
        # (without --top-up) rebuilds it identically, origins included
        picks = extend(games, base, args.levels, forge.ForgeLog())
        base = {**base, **{n: tuple(p.level for p in ps if p.origin == SHIPPED) for n, ps in picks.items()}}
        print(topup.report())
    log = forge.ForgeLog()
    picks = extend(games, base, args.levels, log, args.recheck)
    wall = time.time() - t0
    write(args.out, base_doc, picks, args.levels, log, wall, args.recheck, topup)
    print(log.report())
    print(f"{sum(len(v) for v in picks.values())} levels in {len(picks)} games -> {args.out} ({wall:.0f} s)")


if __name__ == "__main__":
    main()
