"""Episode keys, the auto-reset wrapper and vmapped rollouts of array policies.

Determinism: an episode is a function of (task id, seed, actions). The reset key and the key of
turn t are derived from the seed alone (`episode_keys`, `step_key`); no global RNG anywhere.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.sampling import uniform_true
from glyphjax.core.types import NO_ACTION, Env, EnvState, Frame, Transition, fence

# An array policy: (key, state, params) -> int32 action. Vmapped over the batch by `rollout`.
ArrayPolicy = Callable[[jax.Array, EnvState, Any], jax.Array]


def episode_key(seed: int | jax.Array) -> jax.Array:
    """The root key of the episode with this seed."""
    return jax.random.PRNGKey(jnp.asarray(seed, jnp.uint32))


def reset_key(seed: int | jax.Array) -> jax.Array:
    return jax.random.fold_in(episode_key(seed), 0)


def step_key(seed: int | jax.Array, t: int | jax.Array) -> jax.Array:
    """Key of the env step taken at turn t (0-based) of the episode with this seed."""
    return jax.random.fold_in(jax.random.fold_in(episode_key(seed), 1), t)


def policy_key(seed: int | jax.Array, t: int | jax.Array) -> jax.Array:
    """Key an array policy uses at turn t (kept apart from the env's keys)."""
    return jax.random.fold_in(jax.random.fold_in(episode_key(seed), 2), t)


@functools.cache
def random_policy(num_actions: int) -> ArrayPolicy:
    """Uniformly random action indices (one function per action count, so compiled rollouts of
    every env of a program reuse one compile)."""
    def act(key, state, params):
        return jax.random.randint(key, (), 0, num_actions, dtype=jnp.int32)
    return act


def random_legal_policy(env: Env) -> ArrayPolicy:
    """Uniformly random legal moves of the seat to move (`env.legal`); NO_ACTION when none is."""
    def act(key, state, params):
        mask = env.legal(state, params)
        return jnp.where(jnp.any(mask), uniform_true(mask, jax.random.uniform(key)), NO_ACTION)
    return act


class AutoResetState(NamedTuple):
    env_state: EnvState
    seed: jax.Array  # uint32: seed of the episode in progress
    episode: jax.Array  # int32: how many episodes this slot has finished


class AutoReset:
    """Wraps an env so that a finished episode is replaced by a fresh one on the next step.

    Each slot walks through seeds `seed, seed + stride, seed + 2*stride, ...`, so every episode
    is still a function of (task, seed, actions). `step` returns the new state, the transition
    (terminated and truncated kept apart) and the *final* frame of the step's own episode: for a
    step that ends an episode it shows the last position, not the next episode's first one.
    """

    def __init__(self, env: Env, stride: int = 1 << 20):
        self.env = env
        self.stride = stride

    def reset(self, seed: jax.Array, params: Any = None) -> AutoResetState:
        seed = jnp.asarray(seed, jnp.uint32)
        return AutoResetState(self.env.reset(reset_key(seed), params), seed, jnp.zeros((), jnp.int32))

    def step(self, state: AutoResetState, action: jax.Array, params: Any = None
             ) -> tuple[AutoResetState, Transition, Frame]:
        env = self.env
        nxt, trans = env.step(step_key(state.seed, state.env_state.t), state.env_state, action, params)
        final_frame = env.render(nxt, params)
        finished = fence(nxt.done)
        new_seed = state.seed + jnp.uint32(self.stride)
        fresh = env.reset(reset_key(new_seed), params)
        env_state = jax.tree.map(lambda a, b: jnp.where(finished, a, b), fresh, nxt)
        out = AutoResetState(env_state, jnp.where(finished, new_seed, state.seed),
                             state.episode + finished.astype(jnp.int32))
        return out, trans, final_frame

    def step_batch(self, state: AutoResetState, action: jax.Array, params: Any = None,
                   max_resets: int | None = None,
                   reset_chunk: int | None = None) -> tuple[AutoResetState, Transition, Frame]:
        """`step` over a batch (leading axis B) that generates fresh episodes only for finished
        slots: at most `max_resets` per call, gathered with a static-size `nonzero`.

        `vmap(step)` must build a fresh reset for every slot on every step (a select keeps it only
        where an episode ended), so a task with an expensive generator pays it B times per step.
        Here the reset cost is `max_resets` generator calls per step, independent of B. A slot
        that finishes while all reset places are taken stays finished (frozen, reward 0, no
        flags) for a step and is reset on a later one; every episode is still a function of its
        seed and actions. `max_resets=None` resets every finished slot at once and equals
        `vmap(step)` exactly.

        `reset_chunk=c` generates the (at most `max_resets`) fresh episodes c at a time in a
        `while_loop` that stops after the last finished slot, so a step where few episodes end
        pays ~ceil(n_finished / c) * c generator calls instead of `max_resets`; the result is
        bit-identical to `reset_chunk=None` (same slots, same seeds), and the compiled program
        holds one c-wide reset.
        """
        env = self.env
        b = action.shape[0]
        k = b if max_resets is None else max(1, min(int(max_resets), b))
        keys = jax.vmap(step_key)(state.seed, state.env_state.t)
        nxt, trans = jax.vmap(lambda kk, s, a: env.step(kk, s, a, params))(keys, state.env_state, action)
        final_frame = jax.vmap(lambda s: env.render(s, params))(nxt)
        c = k if reset_chunk is None else max(1, min(int(reset_chunk), k))
        n_chunks = -(-k // c)
        slots = jnp.nonzero(nxt.done, size=n_chunks * c, fill_value=b)[0]  # b = no slot (dropped)
        slots = jnp.where(jnp.arange(n_chunks * c) < k, slots, b)  # never more than k resets

        def fill(j, carry):
            env_state, seeds, episode = carry
            sl = jax.lax.dynamic_slice(slots, (j * c,), (c,))
            new_seeds = state.seed[jnp.minimum(sl, b - 1)] + jnp.uint32(self.stride)
            fresh = jax.vmap(lambda s: env.reset(reset_key(s), params))(new_seeds)
            env_state = jax.tree.map(lambda full, f: full.at[sl].set(f, mode="drop"), env_state, fresh)
            return (env_state, seeds.at[sl].set(new_seeds, mode="drop"), episode.at[sl].add(1, mode="drop"))

        carry = (nxt, state.seed, state.episode)
        if n_chunks == 1:
            carry = fill(0, carry)
        else:  # chunk j is needed only if its first slot is a real one
            carry = jax.lax.while_loop(lambda jc: (jc[0] < n_chunks) & (slots[jnp.minimum(jc[0], n_chunks - 1) * c] < b),
                                       lambda jc: (jc[0] + 1, fill(jc[0], jc[1])), (jnp.int32(0), carry))[1]
        return AutoResetState(*carry), trans, final_frame


class RolloutResult(NamedTuple):
    returns: jax.Array  # float32[B] (or [B, players])
    lengths: jax.Array  # int32[B]
    terminated: jax.Array  # bool[B]
    truncated: jax.Array  # bool[B]
    actions: jax.Array | None = None  # int32[B, T] when record_actions
    final_event: jax.Array | None = None  # int32[B]: event of each episode's last step (success)
    final_state: Any = None  # the batched env states at the end, when asked for (`keep_state`)


def run_episode(env: Env, policy: ArrayPolicy, seed: jax.Array, params: Any = None,
                record_actions: bool = False) -> RolloutResult:
    """One whole episode (max_steps turns; finished episodes stay frozen). Jittable, vmappable."""
    params = env.default_params() if params is None else params
    state0 = env.reset(reset_key(seed), params)

    def turn(carry, t):
        state, ret, length, term, trunc = carry
        action = policy(policy_key(seed, t), state, params)
        action = jnp.asarray(action, jnp.int32)
        was_done = state.done
        state, tr = env.step(step_key(seed, t), state, action, params)
        ret = ret + tr.reward
        length = length + (~was_done).astype(jnp.int32)
        return (state, ret, length, term | tr.terminated, trunc | tr.truncated), \
            (jnp.where(was_done, -1, action) if record_actions else None)

    reward_shape = (env.card.num_players,) if env.card.num_players > 1 else ()
    carry0 = (state0, jnp.zeros(reward_shape, jnp.float32), jnp.zeros((), jnp.int32),
              jnp.zeros((), jnp.bool_), jnp.zeros((), jnp.bool_))
    (state, ret, length, term, trunc), actions = jax.lax.scan(
        turn, carry0, jnp.arange(env.card.max_steps, dtype=jnp.int32))
    return RolloutResult(ret, length, term, trunc, actions, state.event)


def rollout(env: Env, policy: ArrayPolicy, seeds: jax.Array, params: Any = None,
            record_actions: bool = False, batched_params: bool = False,
            keep_state: bool = False) -> RolloutResult:
    """B whole episodes of an array policy: batched (vmapped) env and policy inside one jitted
    `lax.while_loop` that stops as soon as every episode has ended (or at max_steps).

    Per-episode results equal `run_episode` on the same seed (same keys, same summation order).
    Actions recorded for turns after an episode ended are -1. With `batched_params`, params carry
    a leading axis B (`stack_params`): episode i plays variant i, so one batch mixes the variants
    of a program. The compile is shared by every env of one program (`Env.program`).
    `keep_state` also returns the final env states (per-episode details a metric needs, e.g.
    WITNESS's per-level action counts).
    """
    fn = _compiled_rollout(env, policy, record_actions, batched_params, keep_state)
    return fn(jnp.asarray(seeds, jnp.uint32), env.default_params() if params is None else params)


def stack_params(envs: Sequence[Env]) -> Any:
    """The params of envs of one program stacked on a leading axis (one row per env), for a
    vmapped batch that mixes variants (`rollout(..., batched_params=True)`, `in_axes=0`)."""
    programs = {env.program for env in envs}
    if len(programs) != 1:
        names = ", ".join(env.card.id for env in envs)
        raise ValueError(f"stack_params needs envs of one compiled program, got {len(programs)} "
                         f"programs among {names}; group ids with glyphjax.programs()")
    return jax.tree.map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]),
                        *[env.default_params() for env in envs])


_ROLLOUT_CACHE: dict = {}


def _compiled_rollout(env: Env, policy: ArrayPolicy, record_actions: bool, batched_params: bool = False,
                      keep_state: bool = False):
    key = (env.program, policy, record_actions, batched_params, keep_state)
    if key in _ROLLOUT_CACHE:
        return _ROLLOUT_CACHE[key]
    T = env.card.max_steps
    reward_shape = (env.card.num_players,) if env.card.num_players > 1 else ()
    p_axis = 0 if batched_params else None

    def many(seeds, params):
        b = seeds.shape[0]
        states = jax.vmap(lambda s, p: env.reset(reset_key(s), p), in_axes=(0, p_axis))(seeds, params)
        def act(k, s):
            return jax.vmap(policy, in_axes=(0, 0, p_axis))(k, s, params)

        def step(k, s, a):
            return jax.vmap(env.step, in_axes=(0, 0, 0, p_axis))(k, s, a, params)

        def cond(carry):
            t, states = carry[0], carry[1]
            return (t < T) & ~jnp.all(states.done)

        def body(carry):
            t, states, ret, length, term, trunc, actions = carry
            pkeys = jax.vmap(lambda s: policy_key(s, t))(seeds)
            skeys = jax.vmap(lambda s: step_key(s, t))(seeds)
            a = jnp.asarray(act(pkeys, states), jnp.int32)
            was_done = states.done
            states, tr = step(skeys, states, a)
            ret = ret + tr.reward
            length = length + (~was_done).astype(jnp.int32)
            if record_actions:
                actions = jax.lax.dynamic_update_slice(
                    actions, jnp.where(was_done, -1, a)[:, None], (0, t))
            return t + 1, states, ret, length, term | tr.terminated, trunc | tr.truncated, actions

        carry = (jnp.int32(0), states, jnp.zeros((b, *reward_shape), jnp.float32),
                 jnp.zeros((b,), jnp.int32), jnp.zeros((b,), jnp.bool_), jnp.zeros((b,), jnp.bool_),
                 jnp.full((b, T) if record_actions else (b, 0), -1, jnp.int32))
        _, states, ret, length, term, trunc, actions = jax.lax.while_loop(cond, body, carry)
        return RolloutResult(ret, length, term, trunc, actions if record_actions else None, states.event,
                             states if keep_state else None)

    _ROLLOUT_CACHE[key] = jax.jit(many)
    return _ROLLOUT_CACHE[key]


def replay(env: Env, seed: int, actions, params: Any = None, seat: int = 0):
    """Replay recorded actions from `seed` as one un-vmapped episode.

    Returns (frames, transitions) as host arrays: frames have a leading axis of len(actions) + 1
    (the reset frame first), transitions one of len(actions). Multi-seat games: `actions` are
    every seat's moves in step order and the frames show what `seat` sees. One compiled program
    per `Env.program` (the actions are padded to max_steps; params are an argument). The
    reference for bit-exact determinism checks.
    """
    params = env.default_params() if params is None else params
    actions = np.asarray(actions, np.int32).reshape(-1)
    n = len(actions)
    if n > env.card.max_steps:
        raise ValueError(f"{env.card.id}: {n} actions but episodes last at most {env.card.max_steps} turns")
    padded = np.full((env.card.max_steps,), -1, np.int32)
    padded[:n] = actions
    if env.card.num_players > 1:
        env._check_seat(seat)
    frames, trans = _compiled_replay(env)(jnp.uint32(seed), jnp.asarray(padded), params, jnp.int32(seat))
    frames, trans = jax.device_get((frames, trans))
    return (jax.tree.map(lambda x: x[: n + 1], frames), jax.tree.map(lambda x: x[:n], trans))


_REPLAY_CACHE: dict = {}


def _compiled_replay(env: Env):
    if env.program not in _REPLAY_CACHE:
        multi = env.card.num_players > 1

        @jax.jit
        def run(seed, actions, params, seat):
            state = env.reset(reset_key(seed), params)

            def draw(s):
                return env.render(s, params, seat) if multi else env.render(s, params)

            def turn(state, t):
                nxt, tr = env.step(step_key(seed, t), state, actions[t], params)
                return nxt, (draw(nxt), tr)
            _, (frames, trans) = jax.lax.scan(turn, state, jnp.arange(env.card.max_steps, dtype=jnp.int32))
            first = draw(state)
            frames = jax.tree.map(lambda a, b: jnp.concatenate([a[None], b]), first, frames)
            return frames, trans
        _REPLAY_CACHE[env.program] = run
    return _REPLAY_CACHE[env.program]
