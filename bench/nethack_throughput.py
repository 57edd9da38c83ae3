"""NetHack steps per process CPU-second through our host wrapper (glyphjax.suites.nethack) vs bare `nle`.

    python bench/nethack_throughput.py [--steps 400] [--repeats 15] [--profile]

Every variant plays one game in this process with the same seeds and the same action sequence
(random moves and MORE, drawn once), and is timed in process CPU time (other processes on a
shared machine do not inflate it). Repeats are interleaved (bare, ours, ours + text, bare, ...,
the order rotated every round), so a change of machine load hits every variant alike. Per
variant: the median and the interquartile range of its per-repeat steps/CPU-s; the overhead of a
variant is 1 - ours / bare, given as the median (and IQR) of the per-round paired ratios.

Variants (an episode that ends is reset with the next seed, inside the timed loop, in all):
- bare nle: `gym.make("NetHackScore-v0", ...)` with exactly our configuration (NetHackChallenge's
  121 actions, the five observation keys our text needs, the step budget), `env.step(a)`;
- wrapper, step: `NetHackBatch([seed], processes=False).step([a])`, the wrapper's whole step path
  (action mapping, step counter, the batch's done/reward bookkeeping);
- wrapper, step + text: the same, plus the text observation (grid, legend, HUD, inventory,
  message) of every step: what a text policy is shown, which bare nle does not build.
`--profile` prints cProfile's top functions of the wrapper's step + text.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

import numpy as np

MOVES = np.array(list(range(8)) + [19])  # MOVE_* and MORE


def bare_env():
    import gymnasium as gym
    import nle.env  # noqa: F401
    import nle.nethack as nethack
    from glyphjax.suites.nethack.host import ENV_NAME, MAX_STEPS, OBS_KEYS
    return gym.make(ENV_NAME, observation_keys=OBS_KEYS, actions=nethack.ACTIONS, penalty_step=0.0,
                    allow_all_yn_questions=True, allow_all_modes=True, max_episode_steps=MAX_STEPS)


class Bare:
    def __init__(self):
        self.env = bare_env()

    def reset(self, seed: int) -> None:
        from glyphjax.suites.nethack.host import nle_seeds
        core, disp, lgen = nle_seeds(seed)
        self.env.unwrapped.seed(core, disp, reseed=False, lgen=lgen)
        self.env.reset()

    def step(self, a: int) -> bool:
        _, _, term, trunc, _ = self.env.step(a)
        return term or trunc

    def close(self) -> None:
        self.env.close()


class Wrapper:
    def __init__(self, text: bool):
        from glyphjax.suites.nethack.host import NetHackBatch
        self.batch = NetHackBatch([0], processes=False)
        self.text = text

    def reset(self, seed: int) -> None:  # a new game in the batch's own NLE instance
        b = self.batch
        b.seeds[0] = seed
        b.obs[0] = b._games[0].reset(seed)
        b.done[:] = False
        b.t = 0

    def step(self, a: int) -> bool:
        self.batch.step((a,))
        if self.text:
            self.batch.observations([0])
        return bool(self.batch.done[0])

    def close(self) -> None:
        self.batch.close()


def timed(player, actions: np.ndarray, seed: int) -> float:
    """Steps per process CPU-second of `actions` from a fresh game on `seed` (a finished episode
    resets on the next seed inside the timed loop)."""
    player.reset(seed)
    acts = actions.tolist()
    c = time.process_time()
    for a in acts:
        if player.step(a):
            seed += 1
            player.reset(seed)
    return len(acts) / (time.process_time() - c)


def iqr(xs) -> tuple[float, float]:
    q = np.percentile(xs, [25, 75])
    return float(q[0]), float(q[1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=400, help="steps per timed repeat")
    ap.add_argument("--repeats", type=int, default=15, help="interleaved rounds (every variant once per round)")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)
    import os
    variants = {"bare nle (our configuration)": Bare(), "wrapper: step": Wrapper(False),
                "wrapper: step + text": Wrapper(True)}
    names = list(variants)
    rates = {n: [] for n in names}
    rng = np.random.default_rng(0)
    for n in names:  # warm every variant (first-call costs) on a throwaway run
        timed(variants[n], rng.choice(MOVES, size=50), 999)
    load0 = os.getloadavg()[0]
    for r in range(args.repeats):
        actions = rng.choice(MOVES, size=args.steps)  # one sequence and one seed per round, shared
        order = names[r % len(names):] + names[: r % len(names)]
        for n in order:
            rates[n].append(timed(variants[n], actions, 100 * r))
    print(f"# NetHack, one game in this process, {args.steps} steps x {args.repeats} interleaved rounds, "
          f"process CPU time; load {load0:.1f} -> {os.getloadavg()[0]:.1f}")
    print("| variant | steps/CPU-s median | IQR | overhead vs bare (median of paired rounds) | IQR |")
    print("|---|---:|---:|---:|---:|")
    bare = np.array(rates[names[0]])
    for n in names:
        x = np.array(rates[n])
        lo, hi = iqr(x)
        paired = 1 - x / bare
        plo, phi = iqr(paired)
        over = "" if n == names[0] else f"{np.median(paired):+.1%} | {plo:+.1%} .. {phi:+.1%}"
        print(f"| {n} | {statistics.median(x):,.0f} | {lo:,.0f} .. {hi:,.0f} | {over or '- | -'} |")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        timed(variants[names[2]], rng.choice(MOVES, size=args.steps), 7)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)
    for v in variants.values():
        v.close()


if __name__ == "__main__":
    main()
