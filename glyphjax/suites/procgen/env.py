"""The Env shell of every Procgen task: a `Game` declaration plus a distribution mode.

`procgen/<game>` (easy) and `procgen/<game>-hard` share one compiled program (the mode and the
level set are traced `ProcgenParams`); `ProcgenEnv.with_levels` gives the same task over another
level set (training presets' `num_levels`, the evaluation splits).
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

from glyphjax.core.types import Env, TaskCard, fence
from glyphjax.suites.procgen.engine import (AIRBORNE_NAMES, BANK_SIZE, DEFAULT_NUM_LEVELS,
                                            GLYPHS_COMMON, OUTSIDE, TEST_LEVEL_START, Game,
                                            LevelBank, ProcgenParams, ProcgenState, agent_view,
                                            cell_table, draw_level, game_salt, level_draws,
                                            level_params, pack_rows, window)

MAX_STEPS = 512
KEY_SETS = ("none", "red", "green", "red+green", "blue", "red+blue", "green+blue", "red+green+blue")


def view_rules(game: Game) -> str:
    """The card's sentence on the agent-centred window (or the full view)."""
    rows, cols = game.view
    if not game.centred:
        return (f"The grid shows the whole {rows}-row x {cols}-column level area; cells beyond "
                f"the level's bounds are drawn as {OUTSIDE}. ")
    if game.view_origin is not None:
        return game.view_note + f" Cells beyond the level's bounds are drawn as {OUTSIDE}. "
    return (f"The grid is a {rows}-row x {cols}-column window centred on you (you are always at "
            f"row {rows // 2}, column {cols // 2} of it) over a larger level; cells beyond the "
            f"level's bounds are drawn as {OUTSIDE}. ")


class ProcgenEnv(Env):
    """One Procgen task: a game, a distribution mode and a level set (default: the training set
    of DEFAULT_NUM_LEVELS levels from seed 0)."""

    def __init__(self, game: Game, mode: str = "easy", params: ProcgenParams | None = None,
                 task_id: str | None = None):
        self.game = game
        self.mode = mode
        self._params = params if params is not None else level_params(distribution_mode=mode)
        self._salt = game_salt(game.name)
        self._table = jnp.asarray(cell_table(game))
        self.card = _card(game, mode, task_id)
        if not game.centred and game.view != game.world:
            raise ValueError(f"procgen/{game.name}: a full view needs view == world, got {game.view} vs {game.world}")
        if game.scripted_policy is not None:
            self.scripted_policy = game.scripted_policy

    def static_config(self) -> tuple:
        return ("procgen", self.game.name)

    def default_params(self) -> ProcgenParams:
        """The level set's params with its level bank (built on first use, then shared)."""
        if self._params.bank is not None:
            return self._params
        return self._params.replace(bank=level_bank(self.game, self._params))

    def with_levels(self, num_levels: int = DEFAULT_NUM_LEVELS, start_level: int = 0,
                    split: str = "train") -> "ProcgenEnv":
        """This task over another level set (same card, same compiled program)."""
        params = level_params(num_levels, start_level, split, self.mode)
        return ProcgenEnv(self.game, self.mode, params, self.card.id)

    def _reset(self, key, params: ProcgenParams) -> ProcgenState:
        level = draw_level(key, params)
        bank = params.bank
        if bank is None:
            return self._generate(level, params.hard)
        row = jnp.clip((level - bank.first).astype(jnp.int32), 0, BANK_SIZE - 1)
        ends = (params.level_start, params.level_count, bank.first, bank.count)
        if not any(isinstance(x, jax.core.Tracer) for x in ends):  # constant params (the default)
            start, count, first, filled = (int(x) for x in ends)  # one branch, traced alone
            return bank.state(row) if first <= start and start - first + count <= filled else \
                self._generate(level, params.hard)
        # a params-only predicate: unbatched under vmap, so the generator is skipped, not masked
        covered = ((params.level_start >= bank.first)
                   & (params.level_start - bank.first + params.level_count <= bank.count))
        return jax.lax.cond(covered, lambda: bank.state(row),
                            lambda: self._generate(level, params.hard))

    def _generate(self, level: jax.Array, hard: jax.Array) -> ProcgenState:
        return self.game.generate(level_draws(level, self._salt, self.game.draws), hard, level)

    def _step(self, key, state: ProcgenState, action, params: ProcgenParams):
        if self.game.keyed:
            nxt, reward, terminated, event = self.game.step(state, action, params, key)
        else:
            nxt, reward, terminated, event = self.game.step(state, action, params)
        # read by auto-reset's select of every state field: computed once (core.types.fence)
        return nxt, reward, fence(terminated), event

    def _render(self, state: ProcgenState, params: ProcgenParams):
        codes = self.game.paint(state)
        codes = codes.at[state.pos[0], state.pos[1]].set(len(self.game.cells))
        rows, cols = self.game.view
        outside = len(self.game.cells) + 1
        if not self.game.centred:
            view = codes
        elif self.game.view_origin is not None:
            view = window(codes, self.game.view_origin(state), rows, cols, outside)
        else:
            view = agent_view(codes, state.pos, rows, cols, outside)
        if self.game.hud_values is not None:
            return self._table[view], (state.level.astype(jnp.int32), *self.game.hud_values(state))
        airborne = state.airborne.astype(jnp.int32) if self.game.side_view else jnp.int32(0)
        return self._table[view], (state.level.astype(jnp.int32), state.items, state.total,
                                   state.keys, airborne)


_BANKS: dict[tuple, tuple[Game, LevelBank]] = {}  # (id(game), start, count, hard) -> its bank
_GENERATORS: dict[int, tuple[Game, Callable]] = {}  # id(game) -> jitted vmapped generator


def level_bank(game: Game, params: ProcgenParams) -> LevelBank:
    """The generated start states of params' level set (an empty bank, count 0, for a set of
    more than BANK_SIZE levels); built once per (game, level set, mode), eagerly even when
    called while tracing."""
    with jax.ensure_compile_time_eval():
        start, count, hard = int(params.level_start), int(params.level_count), bool(params.hard)
        key = (id(game), start, count, hard)
        if key not in _BANKS:
            generate = _generator(game)
            rows = jnp.uint32(start) + jnp.minimum(jnp.arange(BANK_SIZE, dtype=jnp.uint32),
                                                    jnp.uint32(max(count, 1) - 1))
            if count <= BANK_SIZE:
                states, filled = generate(rows, jnp.bool_(hard)), count
            else:
                shapes = jax.eval_shape(generate, rows, jnp.bool_(hard))
                states, filled = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), shapes), 0
            words, layout = pack_rows(states)
            _BANKS[key] = (game, LevelBank(first=jnp.uint32(start), count=jnp.uint32(filled),
                                           words=words, layout=layout))
        return _BANKS[key][1]


def _generator(game: Game) -> Callable:
    """jit(vmap) of the game's generator over level seeds (one compile per game)."""
    if id(game) not in _GENERATORS:
        salt = game_salt(game.name)
        fn = jax.vmap(lambda lv, hard: game.generate(level_draws(lv, salt, game.draws), hard, lv), in_axes=(0, None))
        _GENERATORS[id(game)] = (game, jax.jit(fn))
    return _GENERATORS[id(game)][1]


def _card(game: Game, mode: str, task_id: str | None) -> TaskCard:
    hud = "    ".join(["Step: {step} / {max_steps}", "Level seed: {level}"] + ([game.hud] if game.hud else []))
    if game.side_view:
        hud += "    State: {airborne}"
    hard = f" Hard mode: {game.hard_notes}" if mode == "hard" and game.hard_notes else ""
    return TaskCard(
        id=task_id or (f"procgen/{game.name}" + ("-hard" if mode == "hard" else "")),
        rules=game.rules + " " + view_rules(game) + hard,
        actions=game.actions, action_descriptions=game.descriptions,
        glyphs={**GLYPHS_COMMON, **game.glyphs}, hud=hud,
        hud_fields=("level", "items", "total", "keys", "airborne"),
        hud_enums={**({"airborne": AIRBORNE_NAMES} if game.side_view else {}),
                   **({} if game.keys_count else {"keys": KEY_SETS}),
                   **game.hud_enums},
        max_steps=MAX_STEPS, reward=game.reward, events=game.events, success=game.success,
        return_range=game.return_range,
        notes=(f"Levels: seed = a level; the default level set is the {DEFAULT_NUM_LEVELS} training "
               f"levels 0..{DEFAULT_NUM_LEVELS - 1}; test levels are seeds >= {TEST_LEVEL_START}."),
    )
