"""Breadth-first search over a Procgen task's own JAX step: a shortest winning action sequence per
level seed, and its replay check (the certificate that the level is completable).

The search expands every action of every frontier state with `env.step` (vmapped), drops
children seen before (two 32-bit hashes of `Game.plan_key(state)`, in a 3-hash Bloom filter of
3 x 2**table_bits bits) and keeps at most `frontier` new states per depth (beyond that, those of
most `Game.progress`). Pruning (a frontier cap, a hash collision, a lossy plan key) can only
lose solutions, never invent one: a level counts as certified when `verify` replays the found actions through the real env and the episode ends on a success
event. When no depth overflowed the cap the found length is optimal (plain BFS), up to the
rare state lost to a Bloom false positive (about (states / 2**table_bits)**3 per state).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.rollout import reset_key, step_key
from glyphjax.core.sampling import hash32
from glyphjax.suites.procgen.engine import ProcgenParams


class Plan(NamedTuple):
    found: jax.Array  # bool[B]: a winning action sequence was found
    length: jax.Array  # int32[B]: its number of actions (0 when not found)
    actions: jax.Array  # int8[B, max_depth]: the actions (padded with 0)
    overflowed: jax.Array  # bool[B]: some depth had more new states than the frontier holds


def single_level(params: ProcgenParams, level: jax.Array) -> ProcgenParams:
    """Params whose level set is the one level seed `level` (same distribution mode)."""
    return params.replace(level_start=jnp.asarray(level, jnp.uint32), level_count=jnp.uint32(1))


def state_hashes(state) -> tuple[jax.Array, jax.Array]:
    """Two uint32 hashes (sum and xor of per-element hashes, each leaf mixed in turn) of every
    state leaf except the step counter, `done` and `event` (states equal there have equal
    futures in these games)."""
    skip = {"t", "done", "event"}
    ha, hb = jnp.uint32(0x12345678), jnp.uint32(0x2545F491)
    for i, (path, leaf) in enumerate(jax.tree_util.tree_leaves_with_path(state)):
        if path and getattr(path[0], "name", None) in skip:
            continue
        x = leaf.reshape(-1)
        x = jax.lax.bitcast_convert_type(x, jnp.uint32) if x.dtype == jnp.float32 else x.astype(jnp.int32).astype(jnp.uint32)
        j = jnp.arange(x.shape[0], dtype=jnp.uint32) * jnp.uint32(0x9E3779B9) + jnp.uint32((i * 0x85EBCA6B) & 0xFFFFFFFF)
        e = hash32(x ^ j)
        ha = hash32(ha ^ jnp.sum(e, dtype=jnp.uint32))
        hb = hash32(hb + jax.lax.reduce(e, jnp.uint32(0), jax.lax.bitwise_xor, (0,)))
    return ha, hb


def _search(env, params, frontier: int, max_depth: int, table_bits: int):
    """BFS for one level (params select it) -> Plan fields for that level."""
    card = env.card
    n_act = card.num_actions
    progress, plan_key = env.game.progress, env.game.plan_key
    success_events = jnp.array(card.success, jnp.int32)
    key = step_key(0, 0)
    root = env.reset(reset_key(0), params)
    states = jax.tree.map(lambda x: jnp.broadcast_to(x, (frontier,) + x.shape), root)
    valid = jnp.arange(frontier) == 0
    acts = jnp.zeros((frontier, max_depth), jnp.int8)
    table = jnp.zeros((3, 1 << table_bits), jnp.bool_)

    def expand(carry):
        states, valid, acts, table, depth, found, best, overflowed = carry
        a = jnp.tile(jnp.arange(n_act, dtype=jnp.int32), frontier)
        parent = jnp.repeat(jnp.arange(frontier), n_act)
        kids, tr = jax.vmap(lambda s, x: env.step(key, s, x, params))(
            jax.tree.map(lambda x: x[parent], states), a)
        ok = valid[parent]
        win = ok & tr.terminated & jnp.isin(tr.event, success_events)
        w = jnp.argmax(win)
        best = jnp.where(win.any() & ~found, acts[parent[w]].at[depth].set(a[w].astype(jnp.int8)), best)
        ha, hb = jax.vmap(lambda k: state_hashes(plan_key(k)))(kids)
        live = ok & ~kids.done
        order = jnp.lexsort((~live, hb, ha))  # by 64-bit hash, live children first among equals
        sa, sb = ha[order], hb[order]
        first_sorted = jnp.concatenate([jnp.ones((1,), bool), (sa[1:] != sa[:-1]) | (sb[1:] != sb[:-1])])
        first = jnp.zeros_like(live).at[order].set(first_sorted & live[order])
        slots = [(x >> (32 - table_bits)).astype(jnp.int32) for x in (ha, hb, ha ^ ((hb << 16) | (hb >> 16)))]
        seen = table[0, slots[0]] & table[1, slots[1]] & table[2, slots[2]]  # a 3-hash Bloom filter
        new = live & first & ~seen
        for i, slot in enumerate(slots):
            table = table.at[i, jnp.where(new, slot, 1 << table_bits)].set(True, mode="drop")
        # beyond the cap keep the states of most progress, ties in hash-random order (index
        # order would favour the first actions)
        prog = jax.vmap(progress)(kids).astype(jnp.float32)
        rank = jnp.where(new, 1.0 + (hb >> 9).astype(jnp.float32) * 2.0 ** -23 + 2.0 * (prog - prog.min()), 0.0)
        score, pick = jax.lax.top_k(rank, frontier)
        states = jax.tree.map(lambda x: x[pick], kids)
        acts = acts[parent[pick]].at[:, depth].set(a[pick].astype(jnp.int8))
        overflowed = overflowed | (jnp.sum(new) > frontier)
        return states, score > 0, acts, table, depth + 1, found | win.any(), best, overflowed

    def cond(carry):
        _, valid, _, _, depth, found, _, _ = carry
        return ~found & valid.any() & (depth < max_depth)

    carry = (states, valid, acts, table, jnp.int32(0), jnp.bool_(False),
             jnp.zeros((max_depth,), jnp.int8), jnp.bool_(False))
    _, _, _, _, depth, found, best, overflowed = jax.lax.while_loop(cond, expand, carry)
    return found, jnp.where(found, depth, 0), best, overflowed


_COMPILED: dict = {}  # (program, kind, settings) -> jitted function of (levels, ..., params)


def plan(env, levels, frontier: int = 256, max_depth: int | None = None, table_bits: int = 20) -> Plan:
    """Shortest winning action sequences for the level seeds `levels` (uint32[B], vmapped); one
    compile per (program, frontier, max_depth, table_bits), reused across batches."""
    max_depth = env.card.max_steps if max_depth is None else max_depth
    key = (env.program, "plan", frontier, max_depth, table_bits)
    if key not in _COMPILED:
        _COMPILED[key] = jax.jit(jax.vmap(
            lambda lv, p: _search(env, single_level(p, lv), frontier, max_depth, table_bits), in_axes=(0, None)))
    return Plan(*_COMPILED[key](jnp.asarray(levels, jnp.uint32), env.default_params()))


def verify(env, levels, plan_: Plan) -> np.ndarray:
    """bool[B]: replaying each found plan through `env.step` from its level's reset ends the
    episode on a success event (the certificate)."""
    success_events = jnp.array(env.card.success, jnp.int32)
    depth = plan_.actions.shape[1]

    def one(level, actions, length, params):
        p = single_level(params, level)
        state = env.reset(reset_key(1), p)

        def body(carry, t):
            state, won = carry
            act = jnp.where(t < length, actions[t].astype(jnp.int32), 0)
            state, tr = env.step(step_key(1, t), state, act, p)
            won = won | (tr.terminated & jnp.isin(tr.event, success_events) & (t == length - 1))
            return (state, won), None

        (_, won), _ = jax.lax.scan(body, (state, jnp.bool_(False)), jnp.arange(depth))
        return won

    key = (env.program, "verify", depth)
    if key not in _COMPILED:
        _COMPILED[key] = jax.jit(jax.vmap(one, in_axes=(0, 0, 0, None)))
    ok = _COMPILED[key](jnp.asarray(levels, jnp.uint32), plan_.actions, plan_.length, env.default_params())
    return np.asarray(ok) & np.asarray(plan_.found)
