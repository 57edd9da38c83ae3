"""The environment contract: state base class, Transition, Frame, TaskCard and the Env shell.

A game implements three pure functions over a `flax.struct.dataclass` state:
`_reset(key, params) -> state`, `_step(key, state, action, params) -> (state, reward, terminated,
event)` and `_render(state, params) -> (grid, hud)`. The shell (`Env.step`) adds what every task shares:
the step counter, truncation at `card.max_steps`, freezing a finished episode (no-op, reward 0),
and the "no action" code `NO_ACTION` (-1) that a failed parse sends.

Seats (pgx's shape): a game with `card.num_players = P > 1` also implements `_to_play(state)` (the
seat to move), `_legal(state, params)` (bool[num_actions], the mover's legal moves; never empty
while playing) and `_render(state, params, seat)` (only what `seat` may see). Its `_step` returns
reward float32[P]. The shell enforces `card.illegal` for every action that is not legal (including
NO_ACTION): "noop" keeps the state (only t and event change; the same seat moves again; reward 0),
"forfeit" ends the game with the mover -1 and every other seat +1/(P-1). For an illegal action the
shell keeps only the event the game's `_step` returned (so a game words its own message). A game may
give each seat its own message with `_seat_event(state, seat)` (default: `state.event`).
Single-agent tasks are unchanged: scalar reward, no legality enforcement, `to_play` 0.

Action convention: actions are int32 indices into `card.actions`. `NO_ACTION = -1` means "the
agent did nothing this turn" (a parse failure consumes the turn); every game's `_step` must treat
any negative action as doing nothing (time still passes for real-time games). An action index
outside `[-1, num_actions)` raises `ValueError` when it is a concrete value; under `jit` it is
treated as `NO_ACTION`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Hashable, Mapping

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.sampling import mask_at

NO_ACTION = -1

STANDARD = "standard"
EXTENDED = "extended"

# How a card declares success (`TaskCard.success`), besides a tuple of event indices:
MAX_RETURN = "max_return"  # success = the return reaches card.return_range[1] (a perfect score)
NO_SUCCESS = "none"  # the game has no win/lose outcome (e.g. endless survival): no success rate
NOOP = "noop"  # card.illegal: an illegal move does nothing and the same seat moves again
FORFEIT = "forfeit"  # card.illegal: an illegal move loses the game (mover -1, the others +1/(P-1))
ILLEGAL_RULES = (NOOP, FORFEIT)


@struct.dataclass
class EnvState:
    """Fields every task state carries; games subclass this and add their own arrays."""

    t: jax.Array  # int32: turns taken so far
    done: jax.Array  # bool: episode finished (terminated or truncated)
    event: jax.Array  # int32: event of the last step (index into card.events), shown as message


@struct.dataclass
class Transition:
    """What one step returns besides the state.

    reward: float32 scalar; float32[num_players] (one per seat) for multi-seat games.
    event: int32 index into `card.events` (0 = no message this turn); for multi-seat games the
      event as stored in the state (each seat's own message is `Frame.event` of its render).
    """

    reward: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    event: jax.Array


@struct.dataclass
class Frame:
    """What the renderer draws: one code point per cell, integer HUD fields, an event id and the
    seat it is drawn for. `seat` is None only in frames built by hand (read as seat 0)."""

    grid: jax.Array  # uint32[H, W] Unicode code points
    hud: jax.Array  # int32[K], the fields named by card.hud_fields
    event: jax.Array  # int32 index into card.events (the message as this seat sees it)
    seat: jax.Array | None = None  # int32: the seat this frame shows (0 for single-agent tasks)


@dataclasses.dataclass(frozen=True, eq=False)  # hashed by identity: cards are singletons
class TaskCard:
    """Static description of a task: what a player (or a language model) is told about it.

    glyphs: meaning of every glyph the task can draw (one character -> one meaning).
    hud: a `str.format` template over `step`, `max_steps` and the game's `hud_fields`
      (e.g. "Step: {step} / {max_steps}    Score: {score}"); `hud_enums[field]` maps an integer
      field to names (e.g. carried object names).
    events: message texts; index 0 must be "" (no message).
    reward: the reward pattern in words, exactly what the code pays (it goes into the prompt).
    grid_labels: draw column numbers above and row numbers left of the grid (tasks whose actions
      name cells, e.g. REVEAL_12 = row 1, column 2 on a 10-wide board: index = row * width + col).
    num_players: seats of the game (1 = single-agent). For num_players > 1:
    illegal: what an action outside `Env.legal` does: "noop" (nothing happens, the same seat moves
      again) or "forfeit" (the mover loses: -1, the other seats +1/(P-1); the game ends).
    zero_sum: the seats' rewards sum to 0 on every step (only with num_players > 1).
    success: the game's outcome that counts as success: a tuple of indices into `events` (the
      episode succeeds when it terminates on a step with one of them, e.g. "You win!"),
      `MAX_RETURN`, or `NO_SUCCESS`; `()` = not declared (conformance tests require a declaration).
    """

    id: str
    rules: str
    actions: tuple[str, ...]
    action_descriptions: tuple[str, ...]
    glyphs: Mapping[str, str]
    hud: str
    hud_fields: tuple[str, ...]
    max_steps: int
    reward: str
    events: tuple[str, ...] = ("",)
    hud_enums: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    track: str = STANDARD
    return_range: tuple[float, float] = (-1.0, 1.0)
    grid_labels: bool = False
    num_players: int = 1
    notes: str = ""
    success: tuple[int, ...] | str = ()
    illegal: str = NOOP
    zero_sum: bool = False

    def __post_init__(self):
        if len(self.actions) != len(self.action_descriptions):
            raise ValueError(f"{self.id}: {len(self.actions)} actions but "
                             f"{len(self.action_descriptions)} descriptions")
        for name in self.actions:
            if not name or name.upper() != name or " " in name:
                raise ValueError(f"{self.id}: action name {name!r} is not UPPER_SNAKE_CASE")
        if len(set(self.actions)) != len(self.actions):
            raise ValueError(f"{self.id}: duplicate action names")
        for g in self.glyphs:
            if len(g) != 1:
                raise ValueError(f"{self.id}: glyph {g!r} is not a single code point")
        if not self.events or self.events[0] != "":
            raise ValueError(f"{self.id}: events[0] must be '' (no message)")
        if self.track == STANDARD and self.max_steps > 512:
            raise ValueError(f"{self.id}: standard-track tasks have max_steps <= 512")
        if isinstance(self.success, str):
            if self.success not in (MAX_RETURN, NO_SUCCESS):
                raise ValueError(f"{self.id}: success {self.success!r} must be a tuple of event indices, "
                                 f"{MAX_RETURN!r} or {NO_SUCCESS!r}")
        elif not all(isinstance(e, int) and 0 < e < len(self.events) for e in self.success):
            raise ValueError(f"{self.id}: success events {self.success!r} must be indices "
                             f"1..{len(self.events) - 1} into card.events")
        if self.num_players < 1:
            raise ValueError(f"{self.id}: num_players must be >= 1, got {self.num_players}")
        if self.illegal not in ILLEGAL_RULES:
            raise ValueError(f"{self.id}: illegal={self.illegal!r}; use one of {ILLEGAL_RULES}")
        if self.zero_sum and self.num_players < 2:
            raise ValueError(f"{self.id}: zero_sum=True needs num_players > 1 "
                             f"(a single-agent task has no other seat to balance)")

    @property
    def suite(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def num_actions(self) -> int:
        return len(self.actions)

    @property
    def has_success(self) -> bool:
        """Whether episodes of this task have a success outcome (declared and not NO_SUCCESS)."""
        return self.success not in ((), NO_SUCCESS)

    def success_mask(self, returns: Any, terminated: Any, final_event: Any) -> np.ndarray | None:
        """Per episode: did it succeed (see `success`)? `final_event` is the event of each
        episode's last step. None when the task has no success notion."""
        if not self.has_success:
            return None
        if self.success == MAX_RETURN:
            return np.asarray(returns, np.float64) >= self.return_range[1] - 1e-6
        return np.asarray(terminated, bool) & np.isin(np.asarray(final_event), self.success)

    def action_index(self, name: str) -> int:
        """Index of an action name (case-insensitive); ValueError naming the valid ones."""
        key = name.strip().upper()
        try:
            return self.actions.index(key)
        except ValueError:
            raise ValueError(f"{self.id}: unknown action {name!r}; valid: {', '.join(self.actions)}") from None


def fence(flag: jax.Array) -> jax.Array:
    """`flag` (bool), computed once in the compiled program: XLA fuses cheap elementwise chains
    into every consumer, so a flag read by the select of each of a state's ~30 leaves (an episode's
    end flag in an auto-reset rollout) would have the whole chain behind it recomputed ~30
    times. A flag that is an input (`state.done`) needs none. A float square root is an op XLA
    never duplicates into consumers, and sqrt(0) = 0, sqrt(1) = 1 exactly.
    (`lax.optimization_barrier` is removed by XLA CPU before fusion.)"""
    return jnp.sqrt(flag.astype(jnp.float32)) > 0.5


def _tree_select(pred: jax.Array, on_true: Any, on_false: Any) -> Any:
    return jax.tree.map(lambda a, b: jnp.where(pred, a, b), on_true, on_false)


class Env:
    """Shell shared by every task. Subclasses set `card` and implement `_reset/_step/_render`
    (multi-seat games also `_to_play` and `_legal`; see the module docstring).

    The class holds no mutable data: every method is a pure function of its arguments, so
    `jax.jit(env.step)` and `jax.vmap(env.step, in_axes=(0, 0, 0, None))` work directly.
    """

    card: TaskCard

    # --- to implement -----------------------------------------------------------------------
    def default_params(self) -> Any:
        """Static/traced parameters of the task (a pytree, possibly empty)."""
        return ()

    def _reset(self, key: jax.Array, params: Any) -> EnvState:
        raise NotImplementedError

    def _step(self, key: jax.Array, state: EnvState, action: jax.Array, params: Any):
        """-> (state, reward, terminated bool, event int32). Negative action = nothing.
        reward: float32 scalar, or float32[num_players] for multi-seat games."""
        raise NotImplementedError

    def _render(self, state: EnvState, params: Any, seat: jax.Array | None = None):
        """-> (grid uint32[H, W] code points, hud sequence of int32 scalars per card.hud_fields).
        Single-agent games take (state, params); multi-seat games also the traced int32 `seat`."""
        raise NotImplementedError

    def static_config(self) -> Hashable | None:
        """What fixes this env's shapes and graph besides its class (hashable), or None: the env
        is then its own program. Everything else a variant changes must be in its params."""
        return None
    def _to_play(self, state: EnvState) -> jax.Array:
        """The seat to move (multi-seat games override)."""
        return jnp.zeros((), jnp.int32)

    def _legal(self, state: EnvState, params: Any) -> jax.Array:
        """bool[num_actions]: the legal moves of the seat to move (default: every action)."""
        return jnp.ones((self.card.num_actions,), jnp.bool_)

    def _seat_event(self, state: EnvState, seat: jax.Array) -> jax.Array:
        """The message (index into card.events) that `seat` reads in this state."""
        return state.event

    # Optional: a cheap scripted baseline over the state (array policy), or None.
    scripted_policy: Callable | None = None

    # --- programs: envs of one class and static config share compiled functions ---------------
    @property
    def program(self) -> tuple:
        """Key of the compiled program: equal for envs that differ only in params (what the
        shell reads from the card: max_steps, the action and seat counts, the illegal-move rule).
        Compile caches key on it explicitly; envs themselves keep identity equality (JAX's weakref
        caches see bound methods such as `env.step`, and equal-but-distinct keys are unsafe there)."""
        static = self.static_config()
        if static is None:
            return (type(self), id(self))
        card = self.card
        return (type(self), static, card.max_steps, card.num_actions, card.num_players, card.illegal)

    # Optional (multi-seat games with private information): `(key, state, seat) -> state` that
    # changes only what `seat` alone may know; conformance checks the other seats' text ignores it.
    perturb_private: Callable | None = None

    # --- the contract -----------------------------------------------------------------------
    @property
    def params(self) -> Any:
        return self.default_params()

    @property
    def num_players(self) -> int:
        return self.card.num_players

    def reset(self, key: jax.Array, params: Any = None) -> EnvState:
        params = self.default_params() if params is None else params
        return self._reset(key, params)

    def to_play(self, state: EnvState) -> jax.Array:
        """int32 scalar: the seat to move (always 0 for single-agent tasks)."""
        return jnp.asarray(self._to_play(state), jnp.int32)

    def legal(self, state: EnvState, params: Any = None) -> jax.Array:
        """bool[num_actions]: legal moves of the seat to move. Non-empty while a multi-seat game
        is playing; all False once it is done. Single-agent tasks: all True unless the game says."""
        params = self.default_params() if params is None else params
        mask = jnp.asarray(self._legal(state, params), jnp.bool_)
        if self.card.num_players > 1:
            mask = mask & ~state.done
        return mask

    def step(self, key: jax.Array, state: EnvState, action: Any, params: Any = None):
        """One turn. Returns (state, Transition). Stepping a finished episode changes nothing."""
        params = self.default_params() if params is None else params
        action = self._check_action(action)
        nxt, reward, terminated, event = self._step(key, state, action, params)
        terminated = jnp.asarray(terminated, jnp.bool_)
        reward = jnp.asarray(reward, jnp.float32)
        if self.card.num_players > 1:
            nxt, reward, terminated = self._enforce_legal(state, action, params, nxt, reward, terminated)
        t = state.t + 1
        truncated = (t >= self.card.max_steps) & ~terminated
        nxt = nxt.replace(t=t.astype(jnp.int32), done=terminated | truncated,
                          event=jnp.asarray(event, jnp.int32))
        finished = state.done
        nxt = _tree_select(finished, state, nxt)
        reward = jnp.where(finished, jnp.zeros_like(reward), reward)
        trans = Transition(
            reward=reward,
            terminated=terminated & ~finished,
            truncated=truncated & ~finished,
            event=jnp.where(finished, 0, jnp.asarray(event, jnp.int32)),
        )
        return nxt, trans

    def _enforce_legal(self, state, action, params, nxt, reward, terminated):
        """card.illegal for an action outside `legal(state)`: keep the state (noop) or end the
        game with the mover -1 and the other seats +1/(P-1) (forfeit)."""
        p = self.card.num_players
        ok = mask_at(self.legal(state, params), action)  # legal[action] without a gather
        nxt = _tree_select(ok, nxt, state)
        if self.card.illegal == FORFEIT:
            mover = jax.nn.one_hot(self.to_play(state), p, dtype=jnp.float32)
            penalty = 1.0 / (p - 1) - mover * (1.0 + 1.0 / (p - 1))
            return nxt, jnp.where(ok, reward, penalty), (ok & terminated) | ~ok
        return nxt, jnp.where(ok, reward, jnp.zeros_like(reward)), ok & terminated

    def render(self, state: EnvState, params: Any = None, seat: Any = 0) -> Frame:
        """Frame of the state as `seat` sees it (a traced int works: one program renders every
        seat); hud[0] is the step counter, then the card's hud_fields."""
        params = self.default_params() if params is None else params
        seat = self._check_seat(seat)
        if self.card.num_players > 1:
            grid, hud = self._render(state, params, seat)
            event = self._seat_event(state, seat)
        else:
            grid, hud = self._render(state, params)
            event = state.event
        hud = [jnp.asarray(h, jnp.int32) for h in hud]
        return Frame(grid=jnp.asarray(grid, jnp.uint32),
                     hud=jnp.stack([state.t.astype(jnp.int32), *hud]),
                     event=jnp.asarray(event, jnp.int32), seat=seat)

    def _check_seat(self, seat: Any) -> jax.Array:
        p = self.card.num_players
        if not isinstance(seat, jax.core.Tracer):
            s = np.asarray(seat)
            if s.dtype.kind not in "iu" or s.ndim != 0 or not 0 <= int(s) < p:
                raise ValueError(f"{self.card.id}: seat {seat!r} is not a seat of this "
                                 f"{p}-player task; use an integer in 0..{p - 1}")
        return jnp.clip(jnp.asarray(seat, jnp.int32), 0, p - 1)

    def _check_action(self, action: Any) -> jax.Array:
        n = self.card.num_actions
        if not isinstance(action, jax.core.Tracer):
            a = np.asarray(action)
            if a.dtype.kind not in "iu":
                raise TypeError(f"{self.card.id}: action must be an integer index, got {a.dtype}")
            if np.any((a < NO_ACTION) | (a >= n)):
                raise ValueError(
                    f"{self.card.id}: action index {a.tolist()} out of range; valid indices are "
                    f"0..{n - 1} ({', '.join(self.card.actions)}) or {NO_ACTION} for no action")
        action = jnp.asarray(action, jnp.int32)
        return jnp.where((action >= 0) & (action < n), action, NO_ACTION)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.card.id!r})"


def init_state_fields() -> dict:
    """The shell's fields for a fresh state: `State(**init_state_fields(), ...)`."""
    return dict(t=jnp.zeros((), jnp.int32), done=jnp.zeros((), jnp.bool_),
                event=jnp.zeros((), jnp.int32))
