"""The Env shell of every Procgen task: a `Game` declaration plus a distribution mode.

`procgen/<game>` (easy) and `procgen/<game>-hard` share one compiled program (the mode and the
level set are traced `ProcgenParams`); `ProcgenEnv.with_levels` gives the same task over another
level set (training presets' `num_levels`, the evaluation splits).
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core.types import Env, TaskCard
from glyphjax.suites.procgen.engine import (AIRBORNE_NAMES, DEFAULT_NUM_LEVELS, GLYPHS_COMMON,
                                            OUTSIDE,
                                            TEST_LEVEL_START, Game, ProcgenParams, ProcgenState,
                                            agent_view, cell_table, draw_level, game_salt,
                                            level_draws, level_params)

MAX_STEPS = 512
KEY_SETS = ("none", "red", "green", "red+green", "blue", "red+blue", "green+blue", "red+green+blue")


def view_rules(game: Game) -> str:
    """The card's sentence on the agent-centred window (or the full view)."""
    rows, cols = game.view
    if not game.centred:
        return (f"The grid shows the whole {rows}-row x {cols}-column level area; cells beyond "
                f"the level's bounds are drawn as {OUTSIDE}. ")
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
        return self._params

    def with_levels(self, num_levels: int = DEFAULT_NUM_LEVELS, start_level: int = 0,
                    split: str = "train") -> "ProcgenEnv":
        """This task over another level set (same card, same compiled program)."""
        params = level_params(num_levels, start_level, split, self.mode)
        return ProcgenEnv(self.game, self.mode, params, self.card.id)

    def _reset(self, key, params: ProcgenParams) -> ProcgenState:
        level = draw_level(key, params)
        return self.game.generate(level_draws(level, self._salt, self.game.draws), params.hard, level)

    def _step(self, key, state: ProcgenState, action, params: ProcgenParams):
        if self.game.step_takes_key:
            return self.game.step(state, action, params, key)
        return self.game.step(state, action, params)

    def _render(self, state: ProcgenState, params: ProcgenParams):
        codes = self.game.paint(state)
        codes = codes.at[state.pos[0], state.pos[1]].set(len(self.game.cells))
        rows, cols = self.game.view
        view = agent_view(codes, state.pos, rows, cols, len(self.game.cells) + 1) if self.game.centred else codes
        if self.game.hud_values is not None:
            return self._table[view], (state.level.astype(jnp.int32), *self.game.hud_values(state))
        airborne = state.airborne.astype(jnp.int32) if self.game.side_view else jnp.int32(0)
        return self._table[view], (state.level.astype(jnp.int32), state.items, state.total,
                                   state.keys, airborne)


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
        hud_enums={"keys": KEY_SETS, "airborne": AIRBORNE_NAMES, **game.hud_enums},
        max_steps=MAX_STEPS, reward=game.reward, events=game.events, success=game.success,
        return_range=game.return_range,
        notes=(f"Levels: seed = a level; the default level set is the {DEFAULT_NUM_LEVELS} training "
               f"levels 0..{DEFAULT_NUM_LEVELS - 1}; test levels are seeds >= {TEST_LEVEL_START}."),
    )
