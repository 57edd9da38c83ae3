"""Task shells over the Classic engine: focused tasks (one program for all) and the whole game.

`ClassicTaskEnv` steps the package's Classic engine on an arena start state and pays the task's
rule over progress counters (`rules.py`); every focused Classic task has the same static config
and horizon (`FOCUSED_MAX_STEPS`), so one compiled program serves them all and a vmapped batch
can mix them (`glyphjax.stack_params`). `ClassicGameEnv` is Craftax-Classic itself: the
package's world generator and +1/22 per first-time achievement, -1 on death.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.types import EXTENDED, NO_SUCCESS, Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.craftax import engine, full_rules, guidance, native, render, rules
from glyphjax.suites.craftax.arena import classic_arena
from glyphjax.suites.craftax.full_arena import full_arena
from glyphjax.suites.craftax.full_planner import full_planner
from glyphjax.suites.craftax.planner import classic_planner

FOCUSED_MAX_STEPS = 300
FULL_FOCUSED_MAX_STEPS = 300
EVENTS = ("", "Task complete!", "You died.")
GOAL_EVENT, DEATH_EVENT = 1, 2
CONFORMANCE_EPISODES = 16  # random episodes per Craftax id in tests/test_conformance.py
CONFORMANCE_BATCH = 16  # batch of its batched checks (a Craftax step costs ~0.2-0.5 CPU-ms)
FULL_CONFORMANCE = 8  # episodes and batch per focused full-engine id (19 ids of a heavier step)

CLASSIC_ACTION_TEXT = {
    "NOOP": "do nothing", "LEFT": "move (or turn) left", "RIGHT": "move (or turn) right",
    "UP": "move (or turn) up", "DOWN": "move (or turn) down",
    "DO": "act on the faced cell: collect, mine, attack, drink, eat", "SLEEP": "sleep (restores energy)",
    "PLACE_STONE": "place a stone on the faced cell (needs 1 stone)",
    "PLACE_TABLE": "place a crafting table on the faced cell (needs 2 wood)",
    "PLACE_FURNACE": "place a furnace on the faced cell (needs 1 stone)",
    "PLACE_PLANT": "plant a sapling on faced grass (needs 1 sapling)",
    "MAKE_WOOD_PICKAXE": "craft a wood pickaxe near a table (1 wood)",
    "MAKE_STONE_PICKAXE": "craft a stone pickaxe near a table (1 wood, 1 stone)",
    "MAKE_IRON_PICKAXE": "craft an iron pickaxe near a table and furnace (1 wood, 1 stone, 1 coal, 1 iron)",
    "MAKE_WOOD_SWORD": "craft a wood sword near a table (1 wood)",
    "MAKE_STONE_SWORD": "craft a stone sword near a table (1 wood, 1 stone)",
    "MAKE_IRON_SWORD": "craft an iron sword near a table and furnace (1 wood, 1 stone, 1 coal, 1 iron)",
}
CLASSIC_RULES = (
    "Craftax-Classic (the `craftax` package's own engine): a 2-D survival and crafting world seen "
    "from above in a 9 x 7 window centred on you. Moving into a blocked cell turns you to face it. "
    "DO acts on the cell you face. Health regenerates while food, drink and energy are above 0 and "
    "drops when one is empty; a zombie's or arrow's hit, lava or zero health ends the game. "
    "Nights are dark and bring more zombies.")


@struct.dataclass
class CraftaxState(EnvState):
    game: object  # the package's EnvState
    progress: jax.Array  # int32[Q] task progress counters (rules.CLASSIC_COUNTERS)


def classic_card(task_id: str, rules_text: str, reward: str, max_steps: int, **extra) -> TaskCard:
    names = engine.CLASSIC_ACTIONS
    return TaskCard(
        id=task_id, rules=rules_text, actions=names, action_descriptions=tuple(CLASSIC_ACTION_TEXT[n] for n in names),
        glyphs=render.CLASSIC_GLYPHS, hud=render.CLASSIC_HUD, hud_fields=render.CLASSIC_HUD_FIELDS,
        hud_enums=render.CLASSIC_HUD_ENUMS, max_steps=max_steps, reward=reward, events=EVENTS, **extra)


class _Observations:
    """Craftax's alternative observation formats over the same state (`native.OBS_FORMATS`):
    `obs_format` = glyph (our renderer), native_text (the package's text), pixels (its image)."""

    obs_formats = native.OBS_FORMATS
    text_formats = ("glyph", "native_text")  # the text formats (pixels go to models as images)

    def observation(self, state, obs_format: str = "glyph", params=None):
        """One unbatched state in `obs_format` (str, or float32[H, W, 3] pixels in [0, 1])."""
        return native.observe(self, state, obs_format, params)

    # Guided Memory hooks (glyphjax/harness/guided.py): floor key, events, floor guidance.
    def memory_signals(self, state, params=None):
        """float32[3]: floor (0 on Classic), health, achievements unlocked so far."""
        g = state.game
        floor = getattr(g, "player_level", 0)
        return jnp.stack([jnp.asarray(floor, jnp.float32), jnp.asarray(g.player_health, jnp.float32),
                          jnp.sum(g.achievements.astype(jnp.float32))])

    def floor_name(self, floor: int) -> str:
        return guidance.floor_name(floor)

    def floor_guidance(self, floor: int) -> str:
        return guidance.floor_guidance(floor) if isinstance(self, _FullEnv) else guidance.CLASSIC_GUIDANCE


class _ClassicEnv(_Observations, Env):
    """What both Classic shells share: the package step, progress counters and the renderer.
    The package's own time limit is set out of reach (params), so its game over means death."""

    conformance_episodes = CONFORMANCE_EPISODES
    conformance_batch = CONFORMANCE_BATCH

    def _advance(self, key, state, action, cparams):
        game, _, over = engine.classic_step(key, state.game, action, cparams)
        progress = rules.advance(state.progress, rules.classic_counters(state.game, game, action))
        return game, progress, over

    def _render(self, state, params):
        return render.classic_grid(state.game), render.classic_hud(state.game)


class ClassicTaskEnv(_ClassicEnv):
    """A focused task on the Classic engine; its `rules.ClassicTask` becomes traced params."""

    scripted_policy = staticmethod(classic_planner)

    def __init__(self, task: rules.ClassicTask):
        self.task = task
        self._params = task.params()
        self.card = classic_card(f"craftax/{task.name}", f"{CLASSIC_RULES}\n\nTask: {task.summary}",
                                 task.reward, FOCUSED_MAX_STEPS,
                                 success=NO_SUCCESS if task.open_ended else (GOAL_EVENT,))

    def default_params(self):
        return self._params

    def static_config(self):
        return ("classic-focused",)

    def _reset(self, key, params):
        game = classic_arena(key, params)
        return CraftaxState(**init_state_fields(), game=game,
                            progress=jnp.zeros((len(rules.CLASSIC_COUNTERS),), jnp.int32))

    def _step(self, key, state, action, params):
        game, progress, died = self._advance(key, state, action, params.cparams)
        reward, goal = rules.payout(params, state.progress, progress, died)
        event = jnp.where(died, DEATH_EVENT, jnp.where(goal, GOAL_EVENT, 0))
        return state.replace(game=game, progress=progress), reward, goal | died, event


class ClassicGameEnv(_ClassicEnv):
    """Craftax-Classic: the package's world, +1/22 per first-time achievement, -1 on death."""

    def __init__(self):
        self.card = classic_card(
            "craftax/classic", f"{CLASSIC_RULES}\n\nUnlock as many of the 22 achievements as you can.",
            "+1/22 the first time each of the 22 achievements is unlocked; dying pays -1 on that step "
            "(instead of the step's achievements) and ends the game.", 10000, track=EXTENDED, success=NO_SUCCESS)

    def default_params(self):
        return engine.classic_params(max_timesteps=1 << 30)  # the shell truncates at max_steps

    def _reset(self, key, params):
        return CraftaxState(**init_state_fields(), game=engine.classic_world(key, params),
                            progress=jnp.zeros((len(rules.CLASSIC_COUNTERS),), jnp.int32))

    def _step(self, key, state, action, params):
        game, progress, died = self._advance(key, state, action, params)
        new = jnp.sum(game.achievements.astype(jnp.float32) - state.game.achievements.astype(jnp.float32))
        reward = jnp.where(died, -1.0, new / len(engine.CLASSIC_ACHIEVEMENTS)).astype(jnp.float32)
        return state.replace(game=game, progress=progress), reward, died, jnp.where(died, DEATH_EVENT, 0)


FULL_RULES = (
    "Craftax (the `craftax` package's own engine, all nine floors): a survival, crafting and dungeon "
    "world seen from above in an 11 x 9 window centred on you, on the floor you stand on. Moving into "
    "a blocked cell turns you to face it; DO acts on the faced cell. Kill 8 monsters on a floor to "
    "open its ladder down. Dark cells are drawn as darkness; torches light them.")


def full_card(task_id: str, rules_text: str, reward: str, max_steps: int, **extra) -> TaskCard:
    names = engine.FULL_ACTIONS
    return TaskCard(
        id=task_id, rules=rules_text, actions=names, action_descriptions=tuple(n.lower().replace("_", " ") for n in names),
        glyphs=render.FULL_GLYPHS, hud=render.FULL_HUD, hud_fields=render.FULL_HUD_FIELDS,
        hud_enums=render.FULL_HUD_ENUMS, max_steps=max_steps, reward=reward, events=EVENTS, **extra)


class _FullEnv(_Observations, Env):
    """What the full-engine shells share: the package step and the full renderer."""

    conformance_episodes = CONFORMANCE_EPISODES
    conformance_batch = CONFORMANCE_BATCH

    def _render(self, state, params):
        return render.full_grid(state.game), render.full_hud(state.game)


class FullTaskEnv(_FullEnv):
    """A focused task on the full engine; its `full_rules.FullTask` becomes traced params, so
    one compiled program serves every full-engine task."""

    scripted_policy = staticmethod(full_planner)
    conformance_episodes = FULL_CONFORMANCE
    conformance_batch = FULL_CONFORMANCE

    def __init__(self, task: full_rules.FullTask):
        self.task = task
        self._params = task.params()
        self.card = full_card(f"craftax/{task.name}", f"{FULL_RULES}\n\nTask: {task.summary}", task.reward,
                              FULL_FOCUSED_MAX_STEPS, success=(GOAL_EVENT,))

    def default_params(self):
        return self._params

    def static_config(self):
        return ("full-focused",)

    def _reset(self, key, params):
        return CraftaxState(**init_state_fields(), game=full_arena(key, params),
                            progress=jnp.zeros((len(full_rules.FULL_COUNTERS),), jnp.int32))

    def _step(self, key, state, action, params):
        game, _, over = engine.full_step(key, state.game, action, params.fparams)
        grew = full_rules.full_counters(state.game, game, params)
        progress = rules.advance(state.progress, grew, full_rules.FULL_LEVELS)
        died = game.player_health <= 0
        reward, goal = rules.payout(params, state.progress, progress, died)
        event = jnp.where(died, DEATH_EVENT, jnp.where(goal, GOAL_EVENT, 0))
        return state.replace(game=game, progress=progress), reward, goal | died | over, event


class FullGameEnv(_FullEnv):
    """Full Craftax: the package's world and step; pays each first-time achievement its package
    weight (1, 3, 5 or 8) / 226, so the return x 100 is the paper's score; -1 on death."""

    def __init__(self):
        self.card = full_card(
            "craftax/full", f"{FULL_RULES}\n\nUnlock as many of the 67 achievements as you can.", max_steps=10000,
            track=EXTENDED, success=NO_SUCCESS,
            reward="The first time you unlock each achievement you earn its weight / 226 (easy 1, medium 3, hard 5, "
                   "very hard 8; all 67 sum to 226, so 100 x return is the Craftax score); dying pays -1 on that "
                   "step (instead of the step's achievements) and ends the game.")

    def default_params(self):
        return engine.full_params()

    def _reset(self, key, params):
        return FullState(**init_state_fields(), game=engine.full_world(key, params))

    def _step(self, key, state, action, params):
        game, _, over = engine.full_step(key, state.game, action, params)
        new = (game.achievements & ~state.game.achievements).astype(jnp.float32)
        earned = jnp.sum(new * jnp.asarray(engine.FULL_ACHIEVEMENT_WEIGHTS)) / float(engine.FULL_ACHIEVEMENT_WEIGHTS.sum())
        died = game.player_health <= 0
        reward = jnp.where(died, -1.0, earned).astype(jnp.float32)
        return state.replace(game=game), reward, over, jnp.where(died, DEATH_EVENT, 0)


@struct.dataclass
class FullState(EnvState):
    game: object  # the package's full-game EnvState
