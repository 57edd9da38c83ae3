"""WitnessForge: generate candidate levels per curriculum slot, keep those passing every filter
(witness.md §5), and write the level bank. `python -m glyphjax.witness.forge [--out F]`.

Deterministic: candidate j of slot k of a game comes from numpy's PCG64 seeded with
(game index, k, j). Filters, in order (removal counts are reported per filter):
structure (start != exit, exits reachable, symbols on free cells), depth (an accepted path exists
and the optimum, CONFIRM included, is >= 5 actions), necessity (every active primitive: without
it some path is accepted that the full level rejects or refuses), greedy (none of the 24
tie-break orders of the rule-blind greedy walk is accepted), random (uniform play over the 6
actions wins <= 0.4% of 2,000 vmapped episodes) and dedupe (canonical hash unseen).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import functools
import itertools
import json
import time
from pathlib import Path

import numpy as np

from glyphjax.witness import solver
from glyphjax.witness.bank import BANK
from glyphjax.witness.games import GAMES, GameDef, Slot, curriculum
from glyphjax.witness.layout import COLOURS, PIECES, Level, with_edges_both_ways
from glyphjax.witness.planted import planted_candidate
from glyphjax.witness.reference import mirror_rc

MIN_DEPTH = 5
RANDOM_EPISODES = 2000
RANDOM_MAX_WINS = 8  # 0.4% of 2,000
MAX_CANDIDATES = 400  # per slot, before giving up on the slot
FILTERS = ("structure", "depth", "necessity", "greedy", "dedupe", "random")
ORDERS = tuple(itertools.permutations(range(4)))


def _place(grid: list[list[str]], rng: np.random.Generator, ch: str, n: int) -> list[tuple[int, int]]:
    free = [(r, c) for r in range(len(grid)) for c in range(len(grid[0])) if grid[r][c] == "."]
    picks = [free[i] for i in rng.choice(len(free), size=min(n, len(free)), replace=False)]
    for r, c in picks:
        grid[r][c] = ch if len(ch) == 1 else ch[rng.integers(len(ch))]
    return picks


def candidate(slot: Slot, rng: np.random.Generator) -> Level:
    """A random level for the slot: start and exit(s), then each primitive's symbols."""
    rows, cols = slot.size
    grid = [["."] * cols for _ in range(rows)]
    rules = set(slot.rules)
    axis = int(rng.integers(3)) if "symmetry" in rules else 0
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    if "symmetry" in rules:  # both heads must end on an exit; the shadow's start stays clear
        ends = [x for x in cells if mirror_rc(rows, cols, axis, x) != x]
        s = ends[rng.integers(len(ends))]
        ends = [x for x in ends if x not in (s, mirror_rc(rows, cols, axis, s))]
        def reach(x):  # the head may end on either exit of the pair
            m = mirror_rc(rows, cols, axis, x)
            return min(abs(x[0] - s[0]) + abs(x[1] - s[1]), abs(m[0] - s[0]) + abs(m[1] - s[1]))
        far = max(reach(x) for x in ends)
        ends = [x for x in ends if reach(x) >= far - 1]
        e = ends[rng.integers(len(ends))]
        for x, ch in ((mirror_rc(rows, cols, axis, e), "E"), (mirror_rc(rows, cols, axis, s), "x")):
            grid[x[0]][x[1]] = ch
    else:
        corners = [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)]
        s = corners[rng.integers(4)]
        e = (rows - 1 - s[0], cols - 1 - s[1])
    grid[s[0]][s[1]], grid[e[0]][e[1]] = "S", "E"
    colours = COLOURS[:2] if rng.random() < 0.7 else COLOURS[:3]
    if "walls" in rules:
        _place(grid, rng, "#", int(rng.integers(3, 8)))
    if "hexagon" in rules:
        _place(grid, rng, "H", int(rng.integers(1, 4)))
    if "squares" in rules:
        _place(grid, rng, colours, int(rng.integers(2, 5)))
    if "stars" in rules:
        for colour in colours[:int(rng.integers(1, 3))]:  # stars come in pairs of a colour
            _place(grid, rng, colour.lower(), 2)
    if "triangles" in rules:
        _place(grid, rng, "123", int(rng.integers(1, 4)))
    if "polyomino" in rules:
        _place(grid, rng, PIECES, int(rng.integers(1, 3)))
    if "eliminator" in rules:
        _place(grid, rng, "%", 1)
    grid = [["." if ch == "x" else ch for ch in row] for row in grid]
    symbols = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] not in ".#SE"]
    hidden = ()
    if "hints" in rules and symbols:
        hidden = tuple(sorted(symbols[i] for i in rng.choice(len(symbols), size=min(2, len(symbols)), replace=False)))
    edges = ()
    if "walls" in rules:
        edges = tuple((int(rng.integers(rows - 1)), int(rng.integers(cols)), 1) for _ in range(rng.integers(0, 4)))
        edges = with_edges_both_ways(edges)
    return Level(board=tuple("".join(r) for r in grid), rules=tuple(sorted(rules)), hidden=hidden,
                 edges=edges, axis=axis)


PLANTED = ("symmetry", "eliminator")  # slots with these rules are drawn around a planted path


def make_candidate(slot: Slot, rng: np.random.Generator) -> Level | None:
    """The slot's candidate: planted (`planted.planted_candidate`) when the slot has a rule of
    PLANTED, whose uniform placements almost never pass the filters; else `candidate`."""
    if any(r in PLANTED for r in slot.rules):
        return planted_candidate(slot, rng)
    return candidate(slot, rng)


def structure_ok(level: Level) -> bool:
    """Start != exit, some exit reachable ignoring every rule, symbols on free cells, hidden cells
    holding symbols."""
    exits = {(r, c) for r in range(level.rows) for c in range(level.cols) if level.at(r, c) == "E"}
    if not exits or level.start in exits:
        return False
    if any(level.at(r, c) in ".#SE" for r, c in level.hidden):
        return False
    open_level = dataclasses.replace(level, rules=())
    return any(True for _ in solver.paths_to_exits(open_level, 24, limit=50_000))


def greedy_wins(level: Level) -> int:
    """How many of the 24 tie-break orders of the rule-blind greedy walk are accepted."""
    from glyphjax.witness.reference import violations
    return sum(not violations(level, solver.greedy_path(level, order)) for order in ORDERS)


NECESSARY = ("walls", "hexagon", "squares", "stars", "triangles", "polyomino", "symmetry", "eliminator")


def hint_needed(level: Level) -> bool:
    """With the hidden symbols blanked, some accepted path is rejected by the real level."""
    from glyphjax.witness.reference import violations
    board = [list(row) for row in level.board]
    for r, c in level.hidden:
        board[r][c] = "."
    blind = dataclasses.replace(level, board=tuple("".join(r) for r in board), hidden=())
    return solver.first_path(blind, lambda p: not violations(blind, p) and bool(violations(level, p))) is not None


def first_failed_filter(level: Level, seen: set[str]) -> tuple[str | None, list[int] | None]:
    """The first filter (before the batched random-play one) the level fails, and its solution."""
    if not structure_ok(level):
        return "structure", None
    sol = solver.solve(level)
    if sol is None or len(sol) + 1 < MIN_DEPTH:
        return "depth", None
    known = solver.cells_of(level, sol)
    for rule in level.rules:
        if rule in NECESSARY and solver.necessity(level, rule, known=known) is None:
            return "necessity", None
    if "hints" in level.rules and not hint_needed(level):
        return "necessity", None
    if greedy_wins(level):
        return "greedy", None
    if level.canonical_hash() in seen:
        return "dedupe", None
    return None, sol


PROBE_CHUNK = 8  # levels per random-play call (a fixed shape: one compile)


@functools.cache
def _random_probe(episodes: int):
    import jax
    import jax.numpy as jnp

    from glyphjax.core.rollout import random_policy, rollout
    from glyphjax.witness.engine import Witness
    from glyphjax.witness.layout import game_params

    env = Witness("witness/forge-probe", game_params([Level(board=("SE", ".."), rules=())], (0, 1, 2, 3)),
                  "random-play probe")
    seeds = jnp.arange(episodes, dtype=jnp.uint32)

    @jax.jit
    def wins(stacked):
        result = jax.vmap(lambda p: rollout(env, random_policy(6), seeds, p))(stacked)
        return (result.returns > 0).sum(axis=1)
    return wins


def random_win_counts(levels: list[Level], episodes: int = RANDOM_EPISODES,
                      sigmas: list[tuple[int, ...]] | None = None) -> list[int]:
    """Wins of uniform random play (6 actions, one level's budget) per level, vmapped over
    PROBE_CHUNK levels x `episodes` seeds per call. `sigmas[i]`: the action mapping level i is
    probed with (default the identity; the win rate does not depend on it, the sample does)."""
    import jax
    import jax.numpy as jnp

    from glyphjax.witness.layout import game_params

    sigmas = list(sigmas) if sigmas is not None else [(0, 1, 2, 3)] * len(levels)
    out = []
    for i in range(0, len(levels), PROBE_CHUNK):
        chunk = list(zip(levels[i:i + PROBE_CHUNK], sigmas[i:i + PROBE_CHUNK]))
        width = 1 << (len(chunk) - 1).bit_length()  # pad to a power of two: few compiled shapes
        padded = chunk + [chunk[-1]] * (width - len(chunk))
        stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *[game_params([lv], sg) for lv, sg in padded])
        out += [int(x) for x in np.asarray(_random_probe(episodes)(stacked))[:len(chunk)]]
    return out


PRESCREEN_EPISODES = 250  # seeds 0..249 are a subset of the filter's 0..1999


def screened_win_counts(levels: list[Level], sigmas: list[tuple[int, ...]] | None = None) -> list[int]:
    """Random-play wins per level with the filter's verdict unchanged but cheaper: a level already
    won more than RANDOM_MAX_WINS times on the first PRESCREEN_EPISODES seeds fails the full run
    too (those seeds are among its seeds), so only the others play all RANDOM_EPISODES."""
    sigmas = list(sigmas) if sigmas is not None else [(0, 1, 2, 3)] * len(levels)
    first = random_win_counts(levels, PRESCREEN_EPISODES, sigmas)
    keep = [i for i, w in enumerate(first) if w <= RANDOM_MAX_WINS]
    full = iter(random_win_counts([levels[i] for i in keep], RANDOM_EPISODES, [sigmas[i] for i in keep])
                if keep else [])
    return [w if w > RANDOM_MAX_WINS else next(full) for w in first]


@dataclasses.dataclass
class ForgeLog:
    candidates: int = 0
    removed: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    unfilled: list = dataclasses.field(default_factory=list)
    forged: list = dataclasses.field(default_factory=list)  # extend --top-up: [game, slot, j] of each kept level

    def report(self) -> str:
        kept = self.candidates - sum(self.removed.values())
        lines = [f"candidates {self.candidates}, kept {kept}"]
        lines += [f"  removed by {f:<10} {self.removed[f]}" for f in FILTERS]
        if self.unfilled:
            lines.append(f"  slots left empty (no candidate passed): {self.unfilled}")
        return "\n".join(lines)


def _host_passing(gi: int, k: int, slot: Slot, tries: dict, seen: set[str], n: int, max_candidates: int,
                  seed_tail: tuple[int, ...] = (), draw=None) -> tuple[list[tuple[int, Level, collections.Counter]], collections.Counter]:
    """The next (up to n) candidates of slot k passing every filter but random play, each with the
    removal counts of the failed candidates drawn before it; and the counts of those drawn after.
    Candidate j is `draw(slot, rng)` (default `make_candidate`) with rng PCG64 seeded with
    (gi, k, j, *seed_tail)."""
    draw = draw or make_candidate
    out, fails = [], collections.Counter()
    while len(out) < n and tries[k] < max_candidates:
        j = tries[k]
        tries[k] += 1
        level = draw(slot, np.random.default_rng([gi, k, j, *seed_tail]))
        failed, sol = ("structure", None) if level is None else first_failed_filter(level, seen)
        if failed:
            fails[failed] += 1
            continue
        seen.add(level.canonical_hash())
        out.append((j, dataclasses.replace(level, solution=tuple(sol)), fails))
        fails = collections.Counter()
    return out, fails


def _settle(batch, trailing, wins, tries: dict, k: int, seen: set[str], log: ForgeLog) -> Level | None:
    """The first candidate of a slot's batch that random play does not beat; the log counts the
    candidates up to it, exactly as if they had been drawn one at a time (later ones are undone)."""
    for i, ((j, level, fails), w) in enumerate(zip(batch, wins)):
        log.candidates += sum(fails.values()) + 1
        log.removed.update(fails)
        if w <= RANDOM_MAX_WINS:
            tries[k] = j + 1
            for _, later, _ in batch[i + 1:]:
                seen.discard(later.canonical_hash())
            return level
        log.removed["random"] += 1
        seen.discard(level.canonical_hash())
    log.candidates += sum(trailing.values())
    log.removed.update(trailing)
    return None


def forge_slot(gi: int, k: int, slot: Slot, seen: set[str], log: ForgeLog, tries: dict, max_candidates: int,
               seed_tail: tuple[int, ...] = (), draw=None) -> Level | None:
    """The next candidate of slot k (from tries[k] on, drawn by `draw`, default `make_candidate`)
    passing every filter, random play checked for PROBE_CHUNK candidates per call; None once
    max_candidates have been drawn."""
    while tries[k] < max_candidates:
        batch, trailing = _host_passing(gi, k, slot, tries, seen, PROBE_CHUNK, max_candidates, seed_tail, draw)
        wins = screened_win_counts([lv for _, lv, _ in batch]) if batch else []
        level = _settle(batch, trailing, wins, tries, k, seen, log)
        if level is not None:
            return level
    return None


def forge_game(gi: int, game: GameDef, seen: set[str], log: ForgeLog,
               max_candidates: int = MAX_CANDIDATES, levels: int | None = None) -> list[Level]:
    """The levels of one game: each open slot's next candidates passing the host filters, random
    play checked for PROBE_CHUNK of them per call (spread over the open slots), until every slot
    is filled or out of candidates."""
    slots = curriculum(game, levels)
    chosen: dict[int, Level] = {}
    tries = {k: 0 for k in range(len(slots))}
    while True:
        open_slots = [k for k in range(len(slots)) if k not in chosen and tries[k] < max_candidates]
        if not open_slots:
            break
        per_slot = max(1, PROBE_CHUNK // len(open_slots))
        batches = {k: _host_passing(gi, k, slots[k], tries, seen, per_slot, max_candidates) for k in open_slots}
        levels = [lv for k in open_slots for _, lv, _ in batches[k][0]]
        wins = screened_win_counts(levels) if levels else []
        at = 0
        for k in open_slots:
            batch, trailing = batches[k]
            level = _settle(batch, trailing, wins[at:at + len(batch)], tries, k, seen, log)
            at += len(batch)
            if level is not None:
                chosen[k] = level
    log.unfilled += [(game.name, k) for k in range(len(slots)) if k not in chosen]
    return [chosen[k] for k in sorted(chosen)]


def forge(games=GAMES, out: Path | None = None, max_candidates: int = MAX_CANDIDATES,
          levels: int | None = None) -> tuple[dict, ForgeLog]:
    """Every game's levels (in GAMES order, so seeds do not depend on the selection); with `out`
    the bank is rewritten after each game, so an interrupted run keeps what it finished.
    `levels`: curriculum length per game (default 2n + 1 for n primitives; at most 20)."""
    log, seen, bank = ForgeLog(), set(), {}
    for gi, game in enumerate(GAMES):
        if game not in games:
            continue
        t0 = time.time()
        bank[game.name] = [lv.to_json() for lv in forge_game(gi, game, seen, log, max_candidates, levels)]
        print(f"{game.task_id}: {len(bank[game.name])}/{len(curriculum(game, levels))} levels "
              f"({time.time() - t0:.0f} s)", flush=True)
        if out is not None:
            write_bank(out, bank, log)
    return bank, log


def write_bank(path: Path, bank: dict, log: ForgeLog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = log.candidates - sum(log.removed.values())
    unbuilt = [g.name for g in GAMES if not bank.get(g.name)]  # declared games without levels
    doc = {"ref_source": "solver_optimal", "filters": {"candidates": log.candidates, "kept": kept,
                                                       "removed": {f: log.removed[f] for f in FILTERS}},
           "unbuilt": unbuilt, "games": {n: v for n, v in bank.items() if v}}
    path.write_text(json.dumps(doc, indent=1) + "\n")


def merge_banks(parts: list[Path], out: Path) -> None:
    """One bank from banks built over disjoint game selections (filter counts summed; the
    canonical-hash dedupe re-applied across parts)."""
    docs = [json.loads(p.read_text()) for p in parts]
    games, seen, dropped = {}, set(), 0
    for doc in docs:
        for name, levels in doc["games"].items():
            if name in games:  # built by two parts: the first one counts
                continue
            keep = []
            for d in levels:
                h = Level.from_json(d).canonical_hash()
                dropped += h in seen
                if h not in seen:
                    keep.append(d)
                seen.add(h)
            games[name] = keep
    order = [g.name for g in GAMES if g.name in games]
    log = ForgeLog(candidates=sum(d["filters"]["candidates"] for d in docs))
    for d in docs:
        log.removed.update(d["filters"]["removed"])
    log.removed["dedupe"] += dropped
    write_bank(out, {n: games[n] for n in order}, log)


def verify(path: Path = BANK, games: str = "*") -> dict[str, int]:
    """Re-check every level of a bank (of the games matching the glob `games`) from scratch, game by
    game: every filter, random play included (2,000 episodes each, every symmetry image probed
    through its transform's mapping, `extend.probe_sigma`), the optimum equal to the stored
    solution's length, and the stored solution replayed by the JAX engine: {filter, 'optimum' or
    'replay': levels failing it}. Hashes are deduplicated over the whole bank. Prints a line per
    game (so a partial run says what it covered) and each failing level."""
    import fnmatch

    from glyphjax.witness.bank import load_bank, origins
    from glyphjax.witness.extend import probe_sigma
    failures: collections.Counter = collections.Counter()
    bank = load_bank(path)
    where = origins(path)
    hashes = collections.Counter(lv.canonical_hash() for lvs in bank.values() for lv in lvs)
    bank = {n: lvs for n, lvs in bank.items() if fnmatch.fnmatch(n, games)}
    most_wins = 0
    for game, lvs in bank.items():
        t0, mine = time.time(), collections.Counter()
        mine["dedupe"] = sum(hashes[lv.canonical_hash()] > 1 for lv in lvs)
        for k, lv in enumerate(lvs):
            failed, sol = first_failed_filter(dataclasses.replace(lv, solution=()), set())
            if failed is None and len(sol) != len(lv.solution):
                failed = "optimum"
            if failed:
                mine[failed] += 1
                print(f"  {game} level {k + 1}: fails {failed}", flush=True)
        wins = random_win_counts(list(lvs), RANDOM_EPISODES, [probe_sigma(o) for o in where[game]])
        for k, w in enumerate(wins):
            if w > RANDOM_MAX_WINS:
                mine["random"] += 1
                print(f"  {game} level {k + 1}: random play won {w} of {RANDOM_EPISODES}", flush=True)
        mine["replay"] = replay_failures({game: lvs})
        most_wins = max(most_wins, *wins)
        failures.update(mine)
        print(f"{game}: {len(lvs)} levels, failures {sum(mine.values())}, most random wins {max(wins)} "
              f"({time.time() - t0:.0f} s)", flush=True)
    return {"levels": sum(len(v) for v in bank.values()), "max_random_wins": most_wins,
            **{k: failures[k] for k in (*FILTERS, "optimum", "replay")}}


def replay_failures(bank: dict[str, tuple[Level, ...]]) -> int:
    """Levels whose stored solution, played by the JAX engine's scripted policy (every game in one
    vmapped rollout, with its real action mapping), is not an accepted CONFIRM in exactly
    len(solution) + 1 actions."""
    import jax
    import jax.numpy as jnp

    from glyphjax.core.rollout import rollout
    from glyphjax.witness.engine import Witness
    from glyphjax.witness.games import GAMES as ALL_GAMES
    from glyphjax.witness.layout import game_params

    games = [g for g in ALL_GAMES if bank.get(g.name)]
    params = [game_params(list(bank[g.name]), g.sigma) for g in games]
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *params)
    env = Witness("witness/verify", params[0], "bank replay")
    res = rollout(env, env.scripted_policy, jnp.zeros(len(games), jnp.uint32), stacked,
                  batched_params=True, keep_state=True)
    state = jax.device_get(res.final_state)
    bad = 0
    for i, g in enumerate(games):
        want = np.array([len(lv.solution) + 1 for lv in bank[g.name]])
        n = len(want)
        bad += int(np.sum(~state.solved[i, :n] | (state.actions_at_solve[i, :n] != want)))
    return bad


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Build the WITNESS level bank (deterministic).")
    ap.add_argument("--out", type=Path, default=BANK)
    ap.add_argument("--games", default="*", help="glob over game names (default: all)")
    ap.add_argument("--part", default="0/1", help="i/n: build every n-th game from the i-th (parallel builds)")
    ap.add_argument("--max-candidates", type=int, default=MAX_CANDIDATES, help="candidates per slot before it is left empty")
    ap.add_argument("--search-limit", type=int, default=solver.SEARCH_LIMIT, help="path prefixes per exact search")
    ap.add_argument("--index", default=None, help="a:b: only the games GAMES[a:b] (parallel builds)")
    ap.add_argument("--levels", type=int, default=None,
                    help="levels per game, up to 20 (default: 2n + 1 for a game of n primitives)")
    ap.add_argument("--merge", type=Path, nargs="*", help="merge these part banks into --out and exit")
    ap.add_argument("--verify", action="store_true", help="re-check every level of --out from scratch and exit")
    args = ap.parse_args(argv)
    from glyphjax.core.compiled import use_persistent_cache
    use_persistent_cache()  # the random-play probe compiles once across runs (minutes on a loaded machine)
    if args.verify:
        t0 = time.time()
        counts = verify(args.out, args.games)
        print(f"re-checked in {time.time() - t0:.0f} s")
        print("levels failing each filter when re-checked:", counts)
        raise SystemExit(1 if any(v for k, v in counts.items() if k not in ("levels", "max_random_wins")) else 0)
    if args.merge:
        merge_banks(args.merge, args.out)
        print(f"merged {len(args.merge)} banks -> {args.out}")
        return
    import fnmatch
    i, n = (int(x) for x in args.part.split("/"))
    lo, hi = (int(x) for x in args.index.split(":")) if args.index else (0, len(GAMES))
    games = [g for k, g in enumerate(GAMES) if fnmatch.fnmatch(g.name, args.games) and k % n == i and lo <= k < hi]
    solver.SEARCH_LIMIT = args.search_limit
    t0 = time.time()
    bank, log = forge(games, args.out, args.max_candidates, args.levels)
    write_bank(args.out, bank, log)
    print(log.report())
    print(f"{sum(len(v) for v in bank.values())} levels in {len(bank)} games -> {args.out} "
          f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
