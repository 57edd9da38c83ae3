"""Differential test of the two rule implementations: random levels and random paths judged by
the JAX engine (vmapped) and by the plain-Python reference; every disagreement is a
counterexample. `python -m glyphjax.witness.crosscheck --cases 10000` checks every primitive."""

from __future__ import annotations

import argparse
import dataclasses
import time

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.grid import DIR_OFFSETS
from glyphjax.witness.engine import move_verdict, violation_mask
from glyphjax.witness.forge import candidate
from glyphjax.witness.games import NEEDS_PARTNER, Slot
from glyphjax.witness.layout import CELLS, COLS, ROWS, LevelArrays, level_arrays
from glyphjax.witness.reference import Cell, move_refused, violations

PARTNERS = ("hexagon", "squares", "triangles")
PRIMITIVE_RULES = {"walls": ("walls",), "hexagon": ("hexagon",), "squares": ("squares",),
                   "stars": ("stars", "squares"), "triangles": ("triangles",), "polyomino": ("polyomino",),
                   "symmetry": ("symmetry", "hexagon"), "eliminator": ("eliminator", "hexagon", "squares"),
                   "hints": ("hints", "triangles"), "mapping": ()}


@dataclasses.dataclass(frozen=True)
class Case:
    level: object  # Level
    path: tuple[Cell, ...]
    direction: int  # a move to judge from the path's head


def random_case(rules: tuple[str, ...], rng: np.random.Generator) -> Case:
    """A random level with these primitives and a random legal path from S (the reference's
    legality), plus a random direction to test a move."""
    size = ((4, 4), (4, 5), (5, 5), (3, 5))[rng.integers(4)]
    level = candidate(Slot("random", rules, size), rng)
    path = [level.start]
    for _ in range(int(rng.integers(0, CELLS))):
        options = [d for d in range(4) if not move_refused(level, path, d)
                   and not (len(path) >= 2 and _step(path[-1], d) == path[-2])]
        if not options:
            break
        path.append(_step(path[-1], options[rng.integers(len(options))]))
    return Case(level, tuple(path), int(rng.integers(4)))


def _step(cell: Cell, d: int) -> Cell:
    return cell[0] + DIR_OFFSETS[d][0], cell[1] + DIR_OFFSETS[d][1]


def _batch(cases: list[Case]):
    levels = [level_arrays(c.level) for c in cases]
    lv = LevelArrays(**{k: jnp.asarray(np.stack([x[k] for x in levels])) for k in levels[0]})
    path = np.zeros((len(cases), CELLS), np.int16)
    on_path = np.zeros((len(cases), ROWS, COLS), bool)
    for i, c in enumerate(cases):
        for j, (r, cc) in enumerate(c.path):
            path[i, j] = r * COLS + cc
            on_path[i, r, cc] = True
    lens = np.array([len(c.path) for c in cases], np.int32)
    heads = np.array([c.path[-1] for c in cases], np.int32)
    dirs = np.array([c.direction for c in cases], np.int32)
    return lv, jnp.asarray(path), jnp.asarray(lens), jnp.asarray(on_path), jnp.asarray(heads), jnp.asarray(dirs)


@jax.jit
def _judge(lv, path, lens, on_path, heads, dirs):
    marks = jax.vmap(violation_mask)(lv, on_path, heads)
    refused = jax.vmap(lambda *a: move_verdict(*a)[3])(lv, path, lens, on_path, dirs)
    return marks, refused


def disagreements(cases: list[Case], chunk: int = 2048) -> list[tuple[int, str]]:
    """(case index, what differed) for every case the two implementations judge differently."""
    out = []
    for i0 in range(0, len(cases), chunk):
        part = cases[i0:i0 + chunk]
        pad = part + [part[-1]] * (chunk - len(part))  # one compiled shape
        marks, refused = jax.device_get(_judge(*_batch(pad)))
        for i, c in enumerate(part):
            ref_marks = violations(c.level, list(c.path))
            got = {(int(r), int(cc)) for r, cc in zip(*np.nonzero(marks[i]))}
            if got != ref_marks:
                out.append((i0 + i, f"marks jax {sorted(got)} vs reference {sorted(ref_marks)}"))
            ref_refused = move_refused(c.level, list(c.path), c.direction)
            if bool(refused[i]) != ref_refused:
                out.append((i0 + i, f"move {c.direction} refused jax {bool(refused[i])} vs reference {ref_refused}"))
    return out


def cases_for(primitive: str, n: int, seed: int = 0) -> list[Case]:
    rules = PRIMITIVE_RULES[primitive]
    return [random_case(rules, np.random.default_rng([seed, i, len(primitive)])) for i in range(n)]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Cross-examine the JAX and Python WITNESS rules.")
    ap.add_argument("--cases", type=int, default=10_000, help="random levels+paths per primitive")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    failed = 0
    for primitive in PRIMITIVE_RULES:
        t0 = time.time()
        cases = cases_for(primitive, args.cases, args.seed)
        bad = disagreements(cases)
        failed += len(bad)
        print(f"{primitive:<11} {len(cases)} cases, {len(bad)} disagreements ({time.time() - t0:.0f} s)")
        for i, what in bad[:3]:
            print(f"   case {i}: {cases[i].level.board} path {cases[i].path}: {what}")
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
