"""The arcade engine: one state, one Env shell and the score bookkeeping of every MiniAtari
(standard track) and Atari (extended track) game; each game is a `Game` declaration.

A game is one set of rules at two settings (`Setting`): `miniatari/<game>` (a small field, a
tight target, 200-400 turns, return in [-1, 1]) and `atari/<game>` (a larger field, the
catalogue's per-game target W and horizon; single life). The game's `step` reports what happened
this turn as an `Outcome` (units you scored, points the opponent scored, whether you died, its
own message); the engine turns that into the reward of the game's pattern, the end of the
episode and the message:

- A progress: +1/N per unit, the episode ends when N units are reached (a win) or you die
  (no penalty). Return in [0, 1].
- B milestones: the units are milestones worth 1/N each, in order; as A (`milestone_reward`).
- C duel: +1/W per point you score, -1/W per point the opponent scores; first to W ends it.
  Return in [-1, 1].
- D progress and death: as A, and dying pays -1 and ends the episode. Return in [-1, 1].

Every helper caps the units it pays for at the target, so the bounds hold by construction.
The HUD shows the raw counts (your units, the opponent's points) and the target.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core import entities
from glyphjax.core.grid import codepoints
from glyphjax.core.sampling import Draws
from glyphjax.core.types import EXTENDED, STANDARD, Env, EnvState, TaskCard, fence, init_state_fields

PATTERNS = ("A", "B", "C", "D")
MINI, ATARI = "miniatari", "atari"
EMPTY = " "
GLYPHS_EMPTY = {EMPTY: "empty space"}
EV_WIN, EV_LOST, EV_DIED = 1, 2, 3
ENGINE_EVENTS = ("", "You reached the target. You win!", "The opponent reached the target. You lose.")


@struct.dataclass
class ArcadeParams:
    """Traced parameters of a game at one setting (variants share the compiled program)."""

    target: jax.Array  # int32: N (patterns A, B, D) or W (pattern C)
    rate: jax.Array  # float32: the game's enemy rate (spawn chance, opponent skill ...)
    period: jax.Array  # int32: enemies move on turns where t % period == 0


@struct.dataclass
class ArcadeState(EnvState):
    player: jax.Array  # int32[2]: your (row, col) (a paddle's top/left cell)
    opponent: jax.Array  # int32[2]: the opponent's (row, col) (duel games)
    ball: jax.Array  # int32[2]: the ball's (row, col) (paddle games)
    ball_vel: jax.Array  # int32[2]: the ball's (d_row, d_col) per turn
    foes: entities.Pool  # enemies, invaders, cars, treasures ...
    shots: entities.Pool  # your projectiles
    bombs: entities.Pool  # enemy projectiles
    field: jax.Array  # int8[H, W]: static cells of the game (bricks, lane contents ...)
    lanes: jax.Array  # int32[H, 3]: per row (scroll offset, direction, period) of scrolling rows
    score: jax.Array  # int32: units you scored (raw; what the HUD shows)
    opp_score: jax.Array  # int32: points the opponent scored
    earned: jax.Array  # float32: reward paid so far
    phase: jax.Array  # int32: the game's own counter (formation heading ...)
    cooldown: jax.Array  # int32: turns until you may act again (fire, punch ...)
    heading: jax.Array  # int32[2]: the (d_row, d_col) you face (games that aim where you look)


class Outcome(NamedTuple):
    """What a game's step reports: the engine pays and ends the episode from it."""

    gained: jax.Array  # int32: units you scored this turn
    conceded: jax.Array = jnp.int32(0)  # int32: points the opponent scored this turn
    died: jax.Array = jnp.bool_(False)  # bool: you died (or missed the ball) this turn
    event: jax.Array = jnp.int32(0)  # int32: index into the game's own events (0 = none)


@dataclasses.dataclass(frozen=True)
class Setting:
    """One setting of a game: what fixes shapes (field, pool caps) and the card's numbers."""

    size: tuple[int, int]  # field rows, cols
    max_steps: int
    target: int
    rate: float = 0.0
    period: int = 1
    caps: tuple[int, int, int] = (1, 1, 1)  # pool sizes: foes, shots, bombs


@dataclasses.dataclass(frozen=True)
class Game:
    """An arcade game: card text, glyphs, and four pure functions over `ArcadeState`.

    reset(draws, setting, params) -> state; step(draws, state, action, setting, params) ->
    (state, Outcome); paint(state, setting) -> int32[H, W] codes into `cells` (code 0 is empty);
    scripted(key, state, params) -> action. `draws` is how many random numbers (reset, step)
    take at the larger setting (`core.sampling.Draws`). `rules(setting)` is the card's rules text."""

    name: str
    pattern: str
    unit: str  # what one unit of score is, singular ("brick", "crossing", "point")
    actions: tuple[str, ...]
    descriptions: tuple[str, ...]
    cells: str  # glyph of each cell code; cells[0] is EMPTY
    glyphs: dict
    rules: Callable[[Setting], str]
    reset: Callable
    step: Callable
    paint: Callable
    scripted: Callable
    mini: Setting | None  # None: an Atari-only game (extended track only, no `miniatari/` id)
    atari: Setting
    draws: tuple[int, int] = (8, 8)
    events: tuple[str, ...] = ()
    death: str = "you die"  # what ends the episode besides the target (card text)
    death_message: str = "You died. Game over."  # the message of that turn
    gauge: tuple[str, Callable] | None = None  # (HUD label, state -> int32): fuel, energy ...

    @property
    def tracks(self) -> tuple[str, ...]:
        """The tracks the game is registered on: both, or only Atari's (`mini` is None)."""
        return (ATARI,) if self.mini is None else (MINI, ATARI)


# --- reward patterns (one helper each) ---------------------------------------------------------------
def progress_reward(before: jax.Array, gained: jax.Array, target: jax.Array) -> jax.Array:
    """Pattern A: +1/N per unit, units past N unpaid (the return stays <= 1)."""
    after = jnp.minimum(before + gained, target)
    return (after - jnp.minimum(before, target)).astype(jnp.float32) / target.astype(jnp.float32)


def milestone_reward(before: jax.Array, gained: jax.Array, target: jax.Array) -> jax.Array:
    """Pattern B: milestones reached in order, each worth 1/N (their shares sum to 1)."""
    return progress_reward(before, gained, target)


def duel_reward(gained: jax.Array, conceded: jax.Array, target: jax.Array) -> jax.Array:
    """Pattern C: +-1/W per point; with play stopping at W either way the return is in [-1, 1]."""
    return (gained - conceded).astype(jnp.float32) / target.astype(jnp.float32)


def death_reward(progress: jax.Array, died: jax.Array) -> jax.Array:
    """Pattern D: the progress reward, and -1 on the turn you die (progress paid so far >= 0, so
    the return stays >= -1)."""
    return progress - died.astype(jnp.float32)


def pay(pattern: str, state: ArcadeState, out: Outcome, target: jax.Array):
    """-> (reward, units gained, points conceded, won, lost, died) of one turn under `pattern`."""
    gained = jnp.clip(out.gained, 0, jnp.maximum(target - state.score, 0)).astype(jnp.int32)
    conceded = jnp.clip(out.conceded, 0, jnp.maximum(target - state.opp_score, 0)).astype(jnp.int32)
    won = state.score + gained >= target
    if pattern == "C":
        reward = duel_reward(gained, conceded, target)
        return reward, gained, conceded, won, state.opp_score + conceded >= target, jnp.bool_(False)
    progress = progress_reward(state.score, gained, target)
    died = jnp.asarray(out.died, jnp.bool_) & ~won
    reward = death_reward(progress, died) if pattern == "D" else progress
    return reward, gained, conceded, won, jnp.bool_(False), died


def reward_text(game: Game, target: int) -> str:
    """The card's reward sentence: exactly what `pay` pays for the game's pattern."""
    unit = game.unit
    if game.pattern == "C":
        return (f"+1/{target} for each {unit} you score and -1/{target} for each {unit} the "
                f"opponent scores; the first to {target} ends the episode. Return range [-1, 1].")
    each = (f"+1/{target} for each {unit} (reaching {target} ends the episode with a total of 1.0, "
            "a win)")
    if game.pattern == "D":
        return f"{each}; -1 when {game.death} (the episode ends). Return range [-1, 1]."
    return f"{each}. When {game.death} the episode ends with no penalty. Return range [0, 1]."


def new_state(setting: Setting, **fields) -> ArcadeState:
    """A fresh state: zeros and empty pools, then the game's `fields`."""
    h, w = setting.size
    nf, ns, nb = setting.caps
    base = dict(player=jnp.zeros(2, jnp.int32), opponent=jnp.zeros(2, jnp.int32),
                ball=jnp.zeros(2, jnp.int32), ball_vel=jnp.zeros(2, jnp.int32),
                foes=entities.empty(nf), shots=entities.empty(ns), bombs=entities.empty(nb),
                field=jnp.zeros((h, w), jnp.int8), lanes=jnp.zeros((h, 3), jnp.int32),
                score=jnp.int32(0), opp_score=jnp.int32(0), earned=jnp.float32(0),
                phase=jnp.int32(0), cooldown=jnp.int32(0), heading=jnp.zeros(2, jnp.int32))
    base.update(fields)
    return ArcadeState(**init_state_fields(), **base)


def params_of(setting: Setting) -> ArcadeParams:
    return ArcadeParams(target=jnp.int32(setting.target), rate=jnp.float32(setting.rate),
                        period=jnp.int32(setting.period))


class ArcadeEnv(Env):
    """One arcade task: a game at its MiniAtari or Atari setting."""

    def __init__(self, game: Game, track: str):
        if game.pattern not in PATTERNS:
            raise ValueError(f"{game.name}: reward pattern {game.pattern!r} is not one of {PATTERNS}")
        if track not in (MINI, ATARI):
            raise ValueError(f"{game.name}: track {track!r}; use {MINI!r} or {ATARI!r}")
        if track not in game.tracks:
            raise ValueError(f"{game.name} is an Atari-only game: it has no {track!r} setting")
        self.game, self.track = game, track
        self.setting = game.mini if track == MINI else game.atari
        self._table = codepoints(game.cells)
        self.card = _card(game, track, self.setting)
        self.scripted_policy = game.scripted

    def static_config(self) -> tuple:
        return ("arcade", self.game.name, self.setting.size, self.setting.caps)

    def default_params(self) -> ArcadeParams:
        return params_of(self.setting)

    def _reset(self, key, params: ArcadeParams) -> ArcadeState:
        return self.game.reset(Draws.hashed(key, self.game.draws[0]), self.setting, params)

    def _step(self, key, state: ArcadeState, action, params: ArcadeParams):
        nxt, out = self.game.step(Draws.hashed(key, self.game.draws[1]), state, action, self.setting, params)
        reward, gained, conceded, won, lost, died = pay(self.game.pattern, state, out, params.target)
        nxt = nxt.replace(score=state.score + gained, opp_score=state.opp_score + conceded,
                          earned=state.earned + reward)
        game_event = jnp.where(out.event > 0, out.event + len(ENGINE_EVENTS), 0)
        event = jnp.select([won, lost, died], [EV_WIN, EV_LOST, EV_DIED], game_event)
        return nxt, reward, fence(won | lost | died), event

    def _render(self, state: ArcadeState, params: ArcadeParams):
        codes = self.game.paint(state, self.setting)
        hud = (state.score, state.opp_score, params.target)
        return self._table[codes], hud + ((self.game.gauge[1](state),) if self.game.gauge else ())


def _card(game: Game, track: str, setting: Setting) -> TaskCard:
    h, w = setting.size
    if game.pattern == "C":
        hud = "Step: {step} / {max_steps}    You: {score}    Opponent: {opponent}    First to: {target}"
    else:
        hud = "Step: {step} / {max_steps}    Score: {score} / {target}"
    gauge = (f"    {game.gauge[0]}: {{gauge}}", ("gauge",)) if game.gauge else ("", ())
    end = (f" The field is {h} rows x {w} columns (row 0 at the top). You have a single life. "
           f"The episode lasts at most {setting.max_steps} turns.")
    return TaskCard(
        id=f"{track}/{game.name}", rules=game.rules(setting) + end, actions=game.actions,
        action_descriptions=game.descriptions, glyphs={**GLYPHS_EMPTY, **game.glyphs}, hud=hud + gauge[0],
        hud_fields=("score", "opponent", "target") + gauge[1], max_steps=setting.max_steps,
        reward=reward_text(game, setting.target), events=ENGINE_EVENTS + (game.death_message,) + tuple(game.events),
        track=STANDARD if track == MINI else EXTENDED,
        return_range=(0.0, 1.0) if game.pattern in ("A", "B") else (-1.0, 1.0),
        success=(EV_WIN,),
    )


def action_delta(action: jax.Array, table: tuple[tuple[int, int], ...]) -> jax.Array:
    """int32[2] (d_row, d_col) of an action from a static per-action table; no action -> (0, 0)."""
    a = jnp.clip(action, 0, len(table) - 1)
    return jnp.where(action >= 0, jnp.array(table, jnp.int32)[a], 0)
