"""NetHack steps/s through our host wrapper (glyphjax.suites.nethack) vs bare `nle`, same process.

    python bench/nethack_throughput.py [--steps 3000] [--repeats 3]

Rows (random moves and MORE, a reset when an episode ends, one game, this process):
- bare nle: `gym.make("NetHackScore-v0", actions=nethack.ACTIONS)` with NLE's default observations,
  and with only the five our text needs (chars, blstats, message, inv_letters, inv_strs); also 8
  such games stepped in turn (each NLE game loads its own copy of NetHack's code, so 8 in one
  process run slower than one: the fair reference of a batch);
- wrapper, one game: `NetHackGame.step` (the five keys, NO_ACTION mapped to ESC, the step budget);
- wrapper, batch of 8: `NetHackBatch(processes=False).step` over 8 games (its bookkeeping shared by
  the batch), then also the text observation (legend, HUD, grid, message) of every game every step;
- worker processes: `NetHackBatch(processes=True)`, 8 games in 8 processes (crash isolation),
  with text; its CPU figure counts this process only (the games' CPU is in the workers).
Figures: steps per wall second and per CPU second of this process, medians of --repeats; the
overhead is 1 - wrapper / bare (five keys) per CPU-second.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

MOVES = np.array(list(range(8)) + [19])


def _bare(steps: int, keys, b: int = 1) -> tuple[float, float]:
    """b bare NLE games stepped in turn (b > 1: several games' code in one process, as a batch)."""
    import gymnasium as gym
    import nle.env  # noqa: F401
    import nle.nethack as nethack
    kw = {} if keys is None else {"observation_keys": keys}
    envs = [gym.make("NetHackScore-v0", actions=nethack.ACTIONS, penalty_step=0.0, **kw) for _ in range(b)]
    for k, env in enumerate(envs):
        env.unwrapped.seed(1 + k, 2, reseed=False)
        env.reset()
    acts = np.random.default_rng(0).choice(MOVES, size=steps)
    w, c = time.perf_counter(), time.process_time()
    for i, a in enumerate(acts):
        env = envs[i % b]
        _, _, term, trunc, _ = env.step(int(a))
        if term or trunc:
            env.reset()
    out = steps / (time.perf_counter() - w), steps / (time.process_time() - c)
    for env in envs:
        env.close()
    return out


def _game(steps: int) -> tuple[float, float]:
    from glyphjax.suites.nethack.host import NetHackGame
    game = NetHackGame()
    game.reset(0)
    acts = np.random.default_rng(0).choice(MOVES, size=steps).tolist()
    w, c = time.perf_counter(), time.process_time()
    for a in acts:
        _, _, term, trunc = game.step(a)
        if term or trunc:
            game.reset(1)
    out = steps / (time.perf_counter() - w), steps / (time.process_time() - c)
    game.close()
    return out


def _wrapper(steps: int, text: bool, processes: bool, b: int = 8) -> tuple[float, float]:
    """NetHackBatch of b games; a finished game stays finished (its slot is not counted)."""
    from glyphjax.suites.nethack.host import NetHackBatch
    acts = np.random.default_rng(0).choice(MOVES, size=(steps // b + 1, b))
    batch = NetHackBatch(list(range(b)), processes=processes)
    done = 0
    w, c = time.perf_counter(), time.process_time()
    for row in acts:
        done += int((~batch.done).sum())
        batch.step(row)
        if text:
            batch.observations(np.flatnonzero(~batch.done).tolist())
        if batch.done.all() or done >= steps:
            break
    out = done / (time.perf_counter() - w), done / (time.process_time() - c)
    batch.close()
    return out


def main(argv: list[str] | None = None) -> None:
    from glyphjax.suites.nethack.host import OBS_KEYS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    rows = {"bare nle (default observations)": lambda: _bare(args.steps, None),
            "bare nle (five keys)": lambda: _bare(args.steps, OBS_KEYS),
            "bare nle: 8 games in turn (five keys)": lambda: _bare(args.steps, OBS_KEYS, 8),
            "wrapper: one game's step": lambda: _game(args.steps),
            "wrapper: batch of 8, step": lambda: _wrapper(args.steps, False, False),
            "wrapper: batch of 8, step + text": lambda: _wrapper(args.steps, True, False),
            "worker processes: 8, step + text": lambda: _wrapper(args.steps, True, True)}
    res = {}
    print(f"{'':34s} {'steps/s wall':>13s} {'steps/CPU-s':>12s}")
    for name, fn in rows.items():
        runs = [fn() for _ in range(args.repeats)]
        res[name] = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
        print(f"{name:34s} {res[name][0]:13,.0f} {res[name][1]:12,.0f}")
    for name, ref in ((3, 1), (4, 2), (5, 2)):
        name, ref = list(rows)[name], list(rows)[ref]
        print(f"overhead of {name}: {1 - res[name][1] / res[ref][1]:.1%} per CPU-second (vs {ref})")


if __name__ == "__main__":
    main()
