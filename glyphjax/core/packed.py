"""One device-to-host copy per turn: a frame and a step's outcome packed into one uint32 vector.

Copying an array off the device costs about as much for one small frame as for the whole array,
so single-frame play (a person at the terminal, an LLM evaluation of a few episodes, a small-batch
rollout) pays mostly per array: four for a `Frame`, four more for a `Transition`. `pack_frame`
writes grid, HUD, event and seat into one vector inside the jitted call and `unpack_frames` splits
it on the host with numpy views. `turn_program(env)` fuses step, render and packing into one jitted
call per turn; `start_program(env)` resets and renders the first frame. Both are compiled once
per `Env.program` and take params as an argument.
"""

from __future__ import annotations

import dataclasses
from functools import cached_property
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.rollout import reset_key, step_key
from glyphjax.core.types import NO_ACTION, Env, EnvState, Frame


@dataclasses.dataclass(frozen=True)
class FrameLayout:
    """Where a frame's parts sit in its packed vector: grid (H*W), HUD (K), event, seat."""

    height: int
    width: int
    hud_size: int

    @cached_property
    def size(self) -> int:
        return self.height * self.width + self.hud_size + 2


def pack_frame(frame: Frame) -> jax.Array:
    """uint32[H*W + K + 2] of one frame (int32 parts as their bits); vmap it for a batch."""
    seat = jnp.zeros((), jnp.int32) if frame.seat is None else frame.seat
    ints = jnp.concatenate([jnp.asarray(frame.hud, jnp.int32).reshape(-1),
                            jnp.stack([jnp.asarray(frame.event, jnp.int32), jnp.asarray(seat, jnp.int32)])])
    return jnp.concatenate([jnp.asarray(frame.grid, jnp.uint32).reshape(-1),
                            jax.lax.bitcast_convert_type(ints, jnp.uint32)])


def unpack_frames(packed: np.ndarray, layout: FrameLayout) -> Frame:
    """Host numpy views of packed frames [..., size] -> a Frame with the same leading axes."""
    packed = np.asarray(packed)
    if packed.shape[-1] != layout.size:
        raise ValueError(f"packed frames have {packed.shape[-1]} words, the layout {layout} needs {layout.size}")
    lead = packed.shape[:-1]
    n = layout.height * layout.width
    ints = packed[..., n:].view(np.int32)
    return Frame(grid=packed[..., :n].reshape(*lead, layout.height, layout.width),
                 hud=ints[..., :layout.hud_size], event=ints[..., layout.hud_size],
                 seat=ints[..., layout.hud_size + 1])


class TurnOutcome(NamedTuple):
    """A step's outcome on the host: the transition's reward and flags, the new state's done flag
    and seat to move, and the new state's frame."""

    reward: np.ndarray  # float32 scalar, or float32[num_players]
    terminated: bool
    truncated: bool
    done: bool
    to_play: int
    frame: Frame


def unpack_turn(env: Env, packed: np.ndarray, layout: FrameLayout) -> TurnOutcome:
    """A packed turn (`turn_program`: reward per seat, terminated, truncated, done, to_play, then
    the frame) -> TurnOutcome of host values."""
    packed = np.asarray(packed)
    n_reward = env.card.num_players
    reward = packed[:n_reward].view(np.float32)
    flags = packed[n_reward:n_reward + 4].view(np.int32).tolist()
    return TurnOutcome(reward[0] if env.card.num_players == 1 else reward, bool(flags[0]), bool(flags[1]),
                       bool(flags[2]), flags[3], unpack_frames(packed[n_reward + 4:], layout))


MOVER = -1  # the seat argument of the start/turn programs meaning "the seat to play"


def _seat(env: Env, state: EnvState, seat: jax.Array) -> jax.Array:
    """`seat`, or the seat to play in `state` where `seat` is MOVER."""
    return jnp.where(seat == MOVER, env.to_play(state), seat)


_LAYOUTS: dict = {}
_START: dict = {}
_TURN: dict = {}


def frame_layout(env: Env) -> FrameLayout:
    """The packed layout of this env's frames (from the render's shapes; no compile)."""
    if env.program not in _LAYOUTS:
        params = env.default_params()
        frame = jax.eval_shape(lambda k, p: env.render(env.reset(k, p), p), jax.random.PRNGKey(0), params)
        _LAYOUTS[env.program] = FrameLayout(*frame.grid.shape, frame.hud.shape[0])
    return _LAYOUTS[env.program]


def start_program(env: Env) -> Callable[[jax.Array, Any, jax.Array], tuple[EnvState, jax.Array]]:
    """jit (seed, params, seat) -> (first state of the episode with this seed, packed start: the
    seat to play, then the frame); seat MOVER renders for the seat to play."""
    if env.program not in _START:
        def start(seed, params, seat):
            state = env.reset(reset_key(seed), params)
            frame = pack_frame(env.render(state, params, _seat(env, state, seat)))
            return state, jnp.concatenate([env.to_play(state).astype(jnp.uint32)[None], frame])
        _START[env.program] = jax.jit(start)
    return _START[env.program]


def turn_program(env: Env) -> Callable[..., tuple[EnvState, jax.Array]]:
    """jit (seed, state, action, params, seat) -> (next state, packed turn): the step with
    `step_key(seed, state.t)`, then the next state's frame as `seat` (MOVER: the seat to play) sees it, in one call."""
    if env.program not in _TURN:
        def turn(seed, state, action, params, seat):
            nxt, tr = env.step(step_key(seed, state.t), state, action, params)
            reward = jax.lax.bitcast_convert_type(jnp.asarray(tr.reward, jnp.float32).reshape(-1), jnp.uint32)
            head = jnp.concatenate([reward,
                                    jnp.stack([tr.terminated.astype(jnp.uint32), tr.truncated.astype(jnp.uint32),
                                               nxt.done.astype(jnp.uint32), env.to_play(nxt).astype(jnp.uint32)])])
            return nxt, jnp.concatenate([head, pack_frame(env.render(nxt, params, _seat(env, nxt, seat)))])
        _TURN[env.program] = jax.jit(turn)
    return _TURN[env.program]


class EpisodeStepper:
    """One episode stepped from the host turn by turn, one jitted call and one copy per turn: the
    same keys as `rollout`/`replay` (an episode is a function of task, seed and actions). `frame`
    is the current state's frame (host arrays) as `seat` sees it, or with `follow_mover` as the
    seat to play sees it (players taking turns at one screen); `to_play` is that seat."""

    def __init__(self, env: Env, seed: int, params: Any = None, seat: int = 0, follow_mover: bool = False):
        self.env = env
        self.params = env.default_params() if params is None else params
        self.layout = frame_layout(env)
        self.seed = np.uint32(seed)
        if not follow_mover and not (type(seat) is int and seat == 0):
            env._check_seat(seat)  # raises the env's own error for a bad seat
        self.seat = np.int32(MOVER if follow_mover else seat)
        self._turn = turn_program(env)
        self.state, packed = start_program(env)(self.seed, self.params, self.seat)
        packed = np.asarray(packed)
        self.to_play = int(packed[0])
        self.frame = unpack_frames(packed[1:], self.layout)
        self.done = False

    def step(self, action: int) -> TurnOutcome:
        """Play `action` (an index, or NO_ACTION); returns the outcome and moves `frame` on."""
        if not (isinstance(action, (int, np.integer)) and NO_ACTION <= action < self.env.card.num_actions):
            self.env._check_action(action)  # raises the env's own error for a bad action
        self.state, packed = self._turn(self.seed, self.state, np.int32(action), self.params, self.seat)
        out = unpack_turn(self.env, np.asarray(packed), self.layout)
        self.frame, self.done, self.to_play = out.frame, out.done, out.to_play
        return out
