"""Reset and trajectory fingerprints of registered tasks: the check that a refactor left episodes alone.

    python -m eval.fingerprints --tasks 'classics/*' --seeds 1000 --out before.json
    python -m eval.fingerprints --tasks 'classics/*' --seeds 1000 --compare before.json

Per task and seed, one episode of uniformly random actions (keys from `core.rollout.policy_key`)
is played for `max_steps` turns. Three 32-bit digests are folded on the device over the episode:
- `reset`: the first frame (grid, HUD, event; every seat's for multi-seat tasks) of every seed,
- `frames`: every frame and every Transition (reward bits, terminated, truncated, event),
- `state`: every leaf of every state (stricter: changes when the state layout changes, even if
  what a player sees does not),
- `scripted`: like `frames`, for the task's scripted policy's episodes (where it has one).
The per-seed digests are combined on the host with sha256. Two runs agree on a task exactly when
every seed's episode rendered, paid and ended the same at every step (up to 32-bit collisions).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

_MUL = jnp.uint32(0x9E3779B1)


def _mix(h: jax.Array, x: jax.Array) -> jax.Array:
    """Fold an array into a uint32 running digest (order-sensitive polynomial hash of its words)."""
    x = jnp.asarray(x)
    if x.dtype == jnp.bool_:
        x = x.astype(jnp.uint32)
    if x.dtype.itemsize != 4:
        x = x.astype(jnp.int32)
    words = jax.lax.bitcast_convert_type(x, jnp.uint32).reshape(-1)
    pos = jnp.arange(words.shape[0], dtype=jnp.uint32) * jnp.uint32(0x85EBCA77) + jnp.uint32(1)
    return (h * _MUL) ^ (jnp.sum(words * pos, dtype=jnp.uint32) + jnp.uint32(words.shape[0]))


def _mix_tree(h: jax.Array, tree) -> jax.Array:
    for leaf in jax.tree.leaves(tree):
        h = _mix(h, leaf)
    return h


def _mix_frames(h: jax.Array, env, state, params) -> jax.Array:
    """Fold what every seat sees (grid, HUD, event of each seat's frame) into the digest."""
    for seat in range(env.card.num_players):
        frame = env.render(state, params, seat)
        h = _mix_tree(h, (frame.grid, frame.hud, frame.event))
    return h


def episode_digests(env, seed: jax.Array, params, scripted: bool = False):
    """(reset, frames, state) uint32 digests of one episode from `seed`: uniformly random actions,
    or the task's scripted policy."""
    from glyphjax.core.rollout import policy_key, reset_key, step_key

    n = env.card.num_actions
    state = env.reset(reset_key(seed), params)
    h_reset = _mix_frames(jnp.uint32(7), env, state, params)
    h0 = (h_reset, _mix_tree(jnp.uint32(11), state))

    def turn(carry, t):
        state, hf, hs = carry
        if scripted:
            a = jnp.asarray(env.scripted_policy(policy_key(seed, t), state, params), jnp.int32)
        else:
            a = jax.random.randint(policy_key(seed, t), (), 0, n, dtype=jnp.int32)
        state, tr = env.step(step_key(seed, t), state, a, params)
        hf = _mix_tree(_mix_frames(hf, env, state, params), tr)
        hs = _mix_tree(hs, state)
        return (state, hf, hs), None

    (_, hf, hs), _ = jax.lax.scan(turn, (state, *h0), jnp.arange(env.card.max_steps, dtype=jnp.int32))
    return h_reset, hf, hs


def task_fingerprint(task_id: str, seeds: int, batch: int = 1000) -> dict:
    """sha256 over the per-seed digests of seeds 0..seeds-1: reset/frames/state of random play,
    and `scripted` (frames of the scripted policy's episodes) where the task has one."""
    import glyphjax

    env = glyphjax.make(task_id)
    params = env.default_params()
    out = {}
    for scripted in (False, True):
        if scripted and env.scripted_policy is None:
            continue
        fn = jax.jit(jax.vmap(lambda s, p: episode_digests(env, s, p, scripted), in_axes=(0, None)))
        parts = ([], [], [])
        for lo in range(0, seeds, batch):
            got = jax.device_get(fn(jnp.arange(lo, min(seeds, lo + batch), dtype=jnp.uint32), params))
            for acc, x in zip(parts, got):
                acc.append(np.asarray(x, np.uint32))
        digests = [hashlib.sha256(np.concatenate(p).tobytes()).hexdigest()[:16] for p in parts]
        if scripted:
            out["scripted"] = digests[1]
        else:
            out.update(reset=digests[0], frames=digests[1], state=digests[2])
    return out


def main(argv: list[str] | None = None) -> int:
    import glyphjax

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="*", help="glob over task ids (comma-separated globs allowed)")
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--out", help="write {task: {reset, frames, state}} JSON here")
    ap.add_argument("--compare", help="a JSON written by --out: report tasks whose digests differ")
    args = ap.parse_args(argv)
    ids: list[str] = []
    for pat in args.tasks.split(","):
        ids += [t for t in glyphjax.task_ids(pat.strip()) if t not in ids]
    ref = json.load(open(args.compare)) if args.compare else {}
    ref_tasks = ref.get("tasks", ref)
    result, differ, missing = {}, [], []
    for tid in ids:
        t0 = time.process_time()
        fp = task_fingerprint(tid, args.seeds)
        result[tid] = fp
        note = ""
        if args.compare:
            old = ref_tasks.get(tid)
            if old is None:
                missing.append(tid)
                note = "  (not in reference)"
            else:
                bad = [k for k in fp if old.get(k) != fp[k]]
                if bad:
                    differ.append(tid)
                    note = "  DIFFERS: " + ",".join(bad)
                else:
                    note = "  same"
        print(f"{tid:40s} {fp['reset']} {fp['frames']} {fp['state']} {fp.get('scripted', '-'):16s} "
              f"{time.process_time() - t0:6.1f} CPU-s{note}",
              flush=True)
        jax.clear_caches()
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"seeds": args.seeds, "tasks": result}, f, indent=1, sort_keys=True)
    if args.compare:
        if ref.get("seeds") not in (None, args.seeds):
            print(f"warning: reference used {ref.get('seeds')} seeds, this run {args.seeds}")
        gone = sorted(set(ref_tasks) - set(result))
        print(f"{len(ids) - len(differ) - len(missing)} same, {len(differ)} differ, "
              f"{len(missing)} new; {len(gone)} reference ids not run")
        if differ:
            print("differ: " + " ".join(differ))
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
