"""Checks of the multi-seat contract shared by the conformance test and the games' tests: random
legal play (non-empty legal masks while playing, zero-sum rewards, to_play in range) and hidden
information (perturbing one seat's private state leaves every other seat's text unchanged)."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.core.rollout import policy_key, random_legal_policy, reset_key, step_key
from glyphjax.render.text import render_batch


class LegalPlay(NamedTuple):
    """Per-episode results of random legal self-play (host arrays, leading axis = seed)."""

    empty_mask: np.ndarray  # bool: some turn while playing had no legal move
    bad_to_play: np.ndarray  # bool: some turn's to_play was outside 0..P-1
    max_abs_sum: np.ndarray  # float32: largest |sum of the seats' rewards| over the steps
    ended: np.ndarray  # bool: the episode terminated or was truncated
    decided: np.ndarray  # bool: some seat got a non-zero reward
    states: object  # the states at turns `sample_turns` (leading axes [turn, seed])


def random_legal_play(env, seeds: jax.Array, sample_turns: tuple[int, ...] = ()) -> LegalPlay:
    """Every seat plays uniformly random legal moves (vmapped over seeds, one scan of max_steps).
    Compiled once per (`Env.program`, sample_turns): params are an argument."""
    out = jax.device_get(_compiled_legal_play(env, tuple(sample_turns))(
        jnp.asarray(seeds, jnp.uint32), env.default_params()))
    states = jax.tree.map(lambda x: np.swapaxes(x, 0, 1), out[5])
    return LegalPlay(*out[:5], states)


_LEGAL_PLAY: dict = {}


def _compiled_legal_play(env, sample_turns: tuple[int, ...]):
    key = (env.program, sample_turns)
    if key in _LEGAL_PLAY:
        return _LEGAL_PLAY[key]
    policy = random_legal_policy(env)
    p = env.card.num_players
    take = jnp.asarray(sample_turns, jnp.int32)

    def episode(seed, params):
        def turn(carry, t):
            s, empty, bad_tp, worst, decided, kept = carry
            playing = ~s.done
            tp = env.to_play(s)
            empty = empty | (playing & ~jnp.any(env.legal(s, params)))
            bad_tp = bad_tp | (tp < 0) | (tp >= p)
            kept = jax.tree.map(lambda k, x: jnp.where((take == t).reshape((-1,) + (1,) * x.ndim), x[None], k),
                                kept, s)
            s, tr = env.step(step_key(seed, t), s, policy(policy_key(seed, t), s, params), params)
            worst = jnp.maximum(worst, jnp.abs(jnp.sum(tr.reward)))
            return (s, empty, bad_tp, worst, decided | jnp.any(tr.reward != 0), kept), None

        s0 = env.reset(reset_key(seed), params)
        kept0 = jax.tree.map(lambda x: jnp.broadcast_to(x, (len(sample_turns),) + x.shape), s0)
        false = jnp.zeros((), jnp.bool_)
        carry = (s0, false, false, jnp.float32(0), false, kept0)
        (s, empty, bad_tp, worst, decided, kept), _ = jax.lax.scan(
            turn, carry, jnp.arange(env.card.max_steps, dtype=jnp.int32))
        return empty, bad_tp, worst, s.done, decided, kept

    _LEGAL_PLAY[key] = jax.jit(jax.vmap(episode, in_axes=(0, None)))
    return _LEGAL_PLAY[key]


_PERTURB: dict = {}


def _perturber(env):
    """Jitted batched `perturb_private` (keys, states, seat), one compile per `Env.program` (the
    hook must not read the env's params: envs of a program share it)."""
    if env.program not in _PERTURB:
        _PERTURB[env.program] = jax.jit(jax.vmap(env.perturb_private, in_axes=(0, 0, None)))
    return _PERTURB[env.program]


_SEAT_RENDER: dict = {}


def seat_render(env):
    """Jitted `(states, seat, params) -> frames` rendering a batch for one seat, one compile per
    `Env.program`."""
    if env.program not in _SEAT_RENDER:
        _SEAT_RENDER[env.program] = jax.jit(jax.vmap(lambda s, seat, params: env.render(s, params, seat),
                                                     in_axes=(0, None, None)))
    return _SEAT_RENDER[env.program]


def hidden_information_leaks(env, states, key: jax.Array) -> list[str]:
    """For a batch of states: perturb each seat's private state (`env.perturb_private`) and list
    every other seat whose text (legend, HUD, grid, message) changed. Also reports a hook that
    never changes anything (the check would then prove nothing)."""
    params = env.default_params()
    n = jax.tree.leaves(states)[0].shape[0]
    render = lambda s, seat: seat_render(env)(s, seat, params)  # noqa: E731
    problems: list[str] = []
    changed_any = False
    for seat in range(env.card.num_players):
        keys = jax.random.split(jax.random.fold_in(key, seat), n)
        moved = _perturber(env)(keys, states, jnp.int32(seat))
        changed_any |= any(bool(np.any(np.asarray(a) != np.asarray(b)))
                           for a, b in zip(jax.tree.leaves(states), jax.tree.leaves(moved)))
        for other in range(env.card.num_players):
            if other == seat:
                continue
            before = render_batch(env.card, jax.device_get(render(states, jnp.int32(other))))
            after = render_batch(env.card, jax.device_get(render(moved, jnp.int32(other))))
            for i, (a, b) in enumerate(zip(before, after)):
                if a.render() != b.render():
                    problems.append(f"{env.card.id}: seat {other}'s text changed when seat {seat}'s "
                                    f"private state did (state {i}):\n{a.render()}\n--- vs ---\n{b.render()}")
                    break
    if not changed_any:
        problems.append(f"{env.card.id}: perturb_private changed no state in {n} states")
    return problems


def multi_seat_ids() -> list[str]:
    return [t for t in glyphjax.all_ids() if glyphjax.make(t).card.num_players > 1]


def seat_views(env, state) -> list:
    """The text observation of one (unbatched) state as each seat sees it."""
    return [glyphjax.render_text(env.card, env.render(state, seat=seat)) for seat in range(env.card.num_players)]


def state_with(env, **fields):
    """The reset state of seed 0 with some fields replaced (int32 arrays): a scripted position."""
    state = env.reset(glyphjax.reset_key(0))
    return state.replace(**{k: jnp.asarray(v, jnp.int32) for k, v in fields.items()})
