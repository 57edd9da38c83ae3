"""Level certification: the planner-fighter (planner.py) plays N seeds of every MiniHack task.

A level is certified solvable when the planner reaches the stairs on it; a Boxoban level when
replaying its own certificate (the generator's reverse walk, undone) solves it. Tasks without
monsters must certify every seed (the command exits 1 otherwise); on combat tasks the figure is
the scripted fighter's win share. Tasks of one program run as one vmapped batch (one compile).

    python -m glyphjax.suites.minihack.certify --seeds 1000 [--tasks 'minihack/room-*']
    python -m glyphjax.suites.minihack.certify --random 10000   # + random play stays in each card's range
"""

from __future__ import annotations

import argparse
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.core.rollout import random_policy, reset_key, rollout, stack_params, step_key
from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.levels import generate_with_walk
from glyphjax.suites.minihack.state import select
from glyphjax.suites.minihack.tasks import MiniHack


def has_monsters(env: MiniHack) -> bool:
    lay = env.layout
    return bool(lay.fixed) or lay.n_monsters[1] > 0


UNDO = np.array([C.MOVE_S, C.MOVE_N, C.MOVE_E, C.MOVE_W], np.int32)  # reverse of UP, DOWN, LEFT, RIGHT


def walk_solution(dirs: jax.Array) -> jax.Array:
    """Boxoban: the forward solution of a reverse walk: its moves undone, last first (-1 = skip)."""
    rev = dirs[::-1]
    return jnp.where(rev >= 0, jnp.asarray(UNDO)[jnp.maximum(rev, 0)], -1)


def certify_boxoban(task_id: str, seeds: int, first_seed: int = 0) -> dict:
    """Replay every level's own certificate (the undone generator walk) and count the solved."""
    env = glyphjax.make(task_id)
    lv = env.default_params().level
    seed_arr = jnp.arange(first_seed, first_seed + seeds, dtype=jnp.uint32)
    s, dirs = jax.jit(jax.vmap(lambda k: generate_with_walk(reset_key(k), lv, env.canvas, env.maze,
                                                            env.boxoban)))(seed_arr)
    plan = np.asarray(jax.vmap(walk_solution)(dirs))

    @jax.jit
    def turn(s, a, ret):
        keys = jax.vmap(step_key)(seed_arr, s.t)
        s2, tr = jax.vmap(env.step)(keys, s, jnp.where(a >= 0, a, C.WAIT))
        keep = a >= 0
        return jax.vmap(select)(keep, s2, s), ret + jnp.where(keep, tr.reward, 0.0)

    ret = jnp.zeros((seeds,), jnp.float32)
    for t in range(plan.shape[1]):
        s, ret = turn(s, jnp.asarray(plan[:, t]), ret)
    ok = np.asarray(ret) >= 1.0
    return dict(wins=int(ok.sum()), deaths=0, timeouts=0, seeds=seeds, combat=False,
                failed_seeds=(np.flatnonzero(~ok)[:5] + first_seed).tolist())


def certify_program(ids: list[str], seeds: int, first_seed: int = 0) -> dict[str, dict]:
    """{task id: {wins, deaths, timeouts, seeds, failed_seeds}} for ids of one program."""
    envs = [glyphjax.make(i) for i in ids]
    params = stack_params(envs)
    params = jax.tree.map(lambda x: jnp.repeat(x, seeds, axis=0), params)  # episode i: task i // seeds
    seed_arr = jnp.tile(jnp.arange(first_seed, first_seed + seeds, dtype=jnp.uint32), len(ids))
    res = rollout(envs[0], envs[0].scripted_policy, seed_arr, params=params, batched_params=True)
    out = {}
    for k, env in enumerate(envs):
        if env.layout.n_boulders:
            out[env.card.id] = certify_boxoban(env.card.id, seeds, first_seed)
            continue
        sl = slice(k * seeds, (k + 1) * seeds)
        ok = env.card.success_mask(np.asarray(res.returns[sl]), np.asarray(res.terminated[sl]),
                                   np.asarray(res.final_event[sl]))
        died = np.asarray(res.returns[sl]) < 0
        out[env.card.id] = dict(wins=int(ok.sum()), deaths=int(died.sum()),
                                timeouts=int(np.asarray(res.truncated[sl]).sum()), seeds=seeds,
                                failed_seeds=(np.flatnonzero(~ok)[:5] + first_seed).tolist(),
                                combat=has_monsters(env))
    return out


def random_range_check(ids: list[str], episodes: int) -> dict[str, tuple[float, float, bool]]:
    """task -> (min, max, inside the card's range) of `episodes` uniformly random episodes."""
    out = {}
    for task_id in ids:
        env = glyphjax.make(task_id)
        r = jax.device_get(rollout(env, random_policy(env.card.num_actions), jnp.arange(episodes, dtype=jnp.uint32)))
        lo, hi = env.card.return_range
        mn, mx = float(np.min(r.returns)), float(np.max(r.returns))
        out[task_id] = (mn, mx, lo - 1e-5 <= mn and mx <= hi + 1e-5)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=1000)
    ap.add_argument("--tasks", default="minihack/*")
    ap.add_argument("--random", type=int, default=0, metavar="N",
                    help="also play N random episodes per task and check returns stay in the card's range")
    args = ap.parse_args(argv)
    bad = 0
    if args.random:
        for ids in glyphjax.programs(args.tasks).values():
            for task_id, (mn, mx, ok) in random_range_check(ids, args.random).items():
                bad += not ok
                print(f"{task_id:40s} random returns in [{mn:+.3f}, {mx:+.3f}]  {'ok' if ok else 'OUT OF RANGE'}")
    print(f"{'task':40s} {'wins':>7s} {'deaths':>7s} {'timeouts':>8s}  kind")
    for ids in glyphjax.programs(args.tasks).values():
        t0 = time.time()
        for task_id, r in certify_program(ids, args.seeds).items():
            kind = "combat (win share)" if r["combat"] else "certified" if r["wins"] == r["seeds"] else "FAILED"
            bad += kind == "FAILED"
            print(f"{task_id:40s} {r['wins'] / r['seeds']:7.1%} {r['deaths']:7d} {r['timeouts']:8d}  {kind}"
                  + (f" e.g. seeds {r['failed_seeds']}" if kind == "FAILED" else ""))
        print(f"  ({len(ids)} tasks, {time.time() - t0:.1f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
