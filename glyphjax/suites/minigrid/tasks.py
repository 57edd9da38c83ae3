"""The 71 MiniGrid tasks (+ a few `-partial` view variants) as declarations on the shared engine.

Sizes follow Farama MiniGrid (grid sizes include the outer wall, e.g. doorkey-8x8 is an 8x8 grid
with a 6x6 interior), not the GlyphBench re-implementation (which adds 2 to every size and
compacts some layouts): the ids then mean the well-known environments, and our figures compare
with navix / xland-minigrid on equal terms. Step budgets T follow the GlyphBench catalogue
(§3.1: empty 100/100/200/300, everything else 500), not Farama's (often > 512, the standard-track
cap). See docs/suites/minigrid.md for every other departure.

Programs: tasks with equal `TaskConfig.static_key` (size, budget, generator graph, obstacle count,
view) share one compiled program; their success rules and level inputs are traced params
(`MiniGridParams`). E.g. crossing-n1, crossing-n1-safe and simplecrossing-n1 are one program.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core.registry import register
from glyphjax.core.types import Env, TaskCard
from glyphjax.suites.minigrid import levels as L
from glyphjax.suites.minigrid.engine import (ACTION_DESCRIPTIONS, ACTIONS, DIR_NAMES, EV_SUCCESS,
                                             EVENTS, LAVA, WALL, MiniGridParams, MiniGridState,
                                             TaskConfig, engine_step, fresh_state, item_index,
                                             params_of)
from glyphjax.suites.minigrid.render import GLYPHS, render_full, render_partial

COMMON_RULES = (
    "A grid world seen from above. You occupy one cell and face one of four directions; you turn "
    "with TURN_LEFT/TURN_RIGHT and MOVE_FORWARD one cell at a time. Walls, closed or locked doors "
    "and objects (keys, balls, boxes) block movement; open doors, floor, goals and lava do not. "
    "PICKUP takes the key/ball/box in front of you (you carry at most one thing); DROP puts it on "
    "the empty cell in front of you. TOGGLE opens or closes the door in front of you; a locked "
    "door opens only while you carry the key of the same colour; toggling a box opens it and it "
    "is replaced by what it contains (possibly nothing). Object letters name their colour: "
    "r/R red, g/G green, b/B blue, p/P purple, y/Y yellow, e/E grey (see the legend). ")
PARTIAL_RULES = (
    "You see only a 7x7 window in front of you (egocentric): the bottom-centre cell is you, the "
    "top of the view is the direction you face, left/right of the view are your left/right. "
    "Walls and closed doors hide what lies behind them (shown as not visible). ")
REWARD = ("On success the episode ends with reward 1 - 0.9 * t / T (t = turns used including the "
          "last one, T = the step budget); failures end the episode with 0; nothing else is paid. "
          "Return range [0, 1].")
HUD = "Step: {step} / {max_steps}    Carrying: {carrying}    Mission: {mission}"
HUD_PARTIAL = HUD + "    Facing: {facing}"


class MiniGrid(Env):
    """One class for every MiniGrid task: a TaskConfig picks the generator and success rules; the
    rules and level inputs are traced params, so tasks of one static config share a program."""

    def __init__(self, task_id: str, cfg: TaskConfig):
        self.cfg = cfg
        self._params = params_of(cfg)
        self.card = card_of(task_id, cfg)

    def static_config(self) -> tuple:
        return self.cfg.static_key()

    def default_params(self) -> MiniGridParams:
        return self._params

    def _reset(self, key, params: MiniGridParams) -> MiniGridState:
        return fresh_state(self.cfg, self.cfg.generator(L.Rnd(key, self._draws()), **params.level))

    def _draws(self) -> int:
        """How many uniform numbers the generator uses (counted once by an abstract trace), so
        each reset draws exactly those: auto-reset runs the generator every step."""
        if not hasattr(self, "_n_draws"):
            probe = []

            def count(key, level):
                rnd = L.Rnd(key, 4096)
                out = self.cfg.generator(rnd, **level)
                probe.append(rnd.used)
                return out
            jax.eval_shape(count, jax.random.PRNGKey(0), self._params.level)
            self._n_draws = max(1, probe[0])
        return self._n_draws

    def _step(self, key, state, action, params: MiniGridParams):
        return engine_step(self.cfg, key, state, action, params)

    def _render(self, state: MiniGridState, params):
        if self.cfg.partial:
            grid = render_partial(state.grid, state.pos, state.dir)
            return grid, (item_index(state.carry), state.mission, state.dir)
        return render_full(state.grid, state.pos, state.dir), (item_index(state.carry), state.mission)


def card_of(task_id: str, cfg: TaskConfig) -> TaskCard:
    """The card of a declared task, built on the host (its traced params come from the same cfg)."""
    return TaskCard(
        id=task_id,
        rules=COMMON_RULES + (PARTIAL_RULES if cfg.partial else "") + cfg.rules,
        actions=ACTIONS,
        action_descriptions=ACTION_DESCRIPTIONS,
        glyphs=GLYPHS,
        hud=HUD_PARTIAL if cfg.partial else HUD,
        hud_fields=("carrying", "mission", "facing") if cfg.partial else ("carrying", "mission"),
        hud_enums={"carrying": L.OBJ_NAMES_WITH_NOTHING, "mission": cfg.missions,
                   "facing": DIR_NAMES},
        max_steps=cfg.max_steps,
        reward=REWARD,
        events=EVENTS,
        success=(EV_SUCCESS,),
        return_range=(0.0, 1.0),
        notes=f"grid {cfg.height}x{cfg.width}" + (", 7x7 partial view" if cfg.partial else ""),
    )


# --- declarations --------------------------------------------------------------------------------
TASKS: dict[str, TaskConfig] = {}


def task(name: str, h: int, w: int, gen, missions, rules: str, T: int = 500, level=None, **flags) -> None:
    """Declare a task; `level` gives the generator's traced inputs ({name: int})."""
    TASKS[name] = TaskConfig(height=h, width=w, max_steps=T, generator=gen, missions=missions,
                             rules=rules, level=tuple(sorted((level or {}).items())), **flags)


GOAL_R = "Get to the goal square ★. "
LAVA_R = "Get to the goal square ★ without stepping into lava ≈ (that ends the episode, reward 0). "

for s, T in ((5, 100), (6, 100), (8, 200), (16, 300)):
    task(f"empty-{s}x{s}", s, s, L.gen_empty(s), L.GOAL_MISSION,
         GOAL_R + "An empty room; you start in the top-left corner facing right.", T,
         level=dict(random_start=0))
for s in (5, 6):
    task(f"empty-random-{s}x{s}", s, s, L.gen_empty(s), L.GOAL_MISSION,
         GOAL_R + "An empty room; you start on a random cell facing a random way.", 100,
         level=dict(random_start=1))
task("fourrooms", 19, 19, L.gen_fourrooms, L.GOAL_MISSION,
     GOAL_R + "Four rooms joined by one gap in each inner wall; start and goal are random.")
for s in (5, 6, 8, 16):
    task(f"doorkey-{s}x{s}", s, s, L.gen_doorkey(s), L.DOORKEY_MISSION,
         GOAL_R + "A wall splits the room; its door is locked. Pick up the key, TOGGLE the door "
         "while carrying it, and go through to the goal.")
for name, n, ms in (("multiroom-n2-s4", 2, 4), ("multiroom-n4-s5", 4, 5), ("multiroom-n6", 6, 10)):
    task(name, 25, 25, L.gen_multiroom(n, ms), L.MULTIROOM_MISSION,
         GOAL_R + f"A chain of {n} rooms joined by closed doors (TOGGLE to open); the goal is in "
         "the last room.")
for s, r in ((3, 1), (3, 2), (3, 3), (4, 3), (5, 3), (6, 3)):
    task(f"keycorridor-s{s}r{r}", (s - 1) * r + 1, (s - 1) * 3 + 1, L.gen_keycorridor(s, r),
         L.PICKUP_MISSIONS,
         "Pick up the ball named in the mission. It lies behind a locked door off the central "
         "corridor; the key of the door's colour is in one of the rooms on the other side.",
         pickup_target=True, goal=False)
task("lockedroom", 19, 19, L.gen_lockedroom, L.LOCKEDROOM_MISSIONS,
     GOAL_R + "Six rooms off a hallway; the goal is in the locked room. Its key is in another "
              "room (the mission names both colours).")
task("unlock", 6, 11, L.gen_unlock("unlock"), L.UNLOCK_MISSION,
     "Open the locked door: pick up the key of its colour and TOGGLE the door.", unlock=True, goal=False)
task("unlockpickup", 6, 11, L.gen_unlock("pickup"), L.PICKUP_MISSIONS,
     "Pick up the box named in the mission; it is behind the locked door (its key is in your room).",
     pickup_target=True, goal=False)
task("blockedunlockpickup", 6, 11, L.gen_unlock("blocked"), L.PICKUP_MISSIONS,
     "Pick up the box named in the mission; it is behind the locked door, and a ball blocks the "
     "door on your side (move it away first). The key is in your room.", pickup_target=True, goal=False)
OM_R = ("Pick up the blue ball. Locked doors need the key of their colour; keys may be hidden in "
        "grey boxes (TOGGLE a box to open it) and green balls may block doors (move them away). ")
for name, kib, bl in (("1dl", False, False), ("1dlh", True, False), ("1dlhb", True, True)):
    task(f"obstructedmaze-{name}", 6, 11, L.gen_obstructed_1d(), L.PICKUP_MISSIONS, OM_R,
         level=dict(key_in_box=int(kib), blocked=int(bl)), pickup_target=True, goal=False)
for name, room, kib, bl, q in (("2dl", (2, 1), False, False, 1), ("2dlh", (2, 1), True, False, 1),
                               ("2dlhb", (2, 1), True, True, 1), ("1q", (1, 1), True, True, 1),
                               ("2q", (2, 1), True, True, 2), ("full", (1, 1), True, True, 4)):
    task(f"obstructedmaze-{name}", 16, 16, L.gen_obstructed_full(q), L.PICKUP_MISSIONS,
         OM_R + "The blue ball is in a corner room of a 3x3 grid of rooms.",
         level=dict(agent_col=room[0], key_in_box=int(kib), blocked=int(bl)), pickup_target=True, goal=False)
for s in (5, 6, 7):
    task(f"lavagap-s{s}", s, s, L.gen_lavagap(s), L.LAVA_MISSION, LAVA_R + "A lava wall with one gap.")
for n, s in ((1, 9), (2, 9), (3, 11)):
    task(f"crossing-n{n}", s, s, L.gen_crossing(s, n), L.LAVA_MISSION,
         LAVA_R + f"{n} lava river(s) cross the room, each with openings on one safe route.",
         level=dict(obstacle=LAVA))
    task(f"crossing-n{n}-safe", s, s, L.gen_crossing(s, n), L.GOAL_MISSION,
         GOAL_R + f"The crossing layout with walls instead of lava: {n} wall(s) with openings.",
         level=dict(obstacle=WALL))
    task(f"simplecrossing-n{n}", s, s, L.gen_crossing(s, n), L.GOAL_MISSION,
         GOAL_R + f"{n} wall(s) cross the room, with openings on one route to the goal.",
         level=dict(obstacle=WALL))
    task(f"simplecrossing-easy-n{n}", s, s, L.gen_crossing(s, n, easy=True), L.GOAL_MISSION,
         GOAL_R + f"{n} wall(s) cross the room; every wall segment has an opening.",
         level=dict(obstacle=WALL))
for s, k in ((5, 2), (6, 3), (8, 4), (16, 8)):
    task(f"dynamic-obstacles-{s}x{s}", s, s, L.gen_dynamic_obstacles(s, k), L.OBSTACLE_MISSION,
         GOAL_R + f"{k} obstacles ● move to a random neighbouring free cell every turn (before "
                  "you move); moving into one ends the episode with reward 0.", n_obstacles=k)
task("distshift1", 7, 9, L.gen_distshift(), L.LAVA_MISSION, LAVA_R + "Two lava strips.",
     level=dict(strip2_row=2))
task("distshift2", 7, 9, L.gen_distshift(), L.LAVA_MISSION, LAVA_R + "Two lava strips.",
     level=dict(strip2_row=5))
for s, n in ((5, 2), (6, 2), (8, 3)):
    task(f"fetch-{s}x{s}-n{n}", s, s, L.gen_fetch(s, n), L.FETCH_MISSIONS,
         f"Pick up an object matching the mission ({n} keys/balls lie in the room). Picking up any "
         "other object ends the episode with reward 0.", pickup_target=True, wrong_pickup_fails=True,
         goal=False)
for s in (5, 6, 8):
    task(f"gotodoor-{s}x{s}", s, s, L.gen_gotodoor(s), L.GOTO_DOOR_MISSIONS,
         "Stand next to the door named in the mission (in the cell beside it, not diagonally) and "
         "use DONE. DONE anywhere else, or TOGGLE, ends the episode with reward 0.", goto=2, goal=False)
task("gotoobject-6x6-n2", 6, 6, L.gen_gotoobject(6, 2), L.GOTO_OBJECT_MISSIONS,
     "Stand next to the object named in the mission (in the cell beside it, not diagonally) and use "
     "DONE. DONE anywhere else, or TOGGLE, ends the episode with reward 0.", goto=2, goal=False)
for s, n in ((6, 2), (8, 3)):
    task(f"putnear-{s}x{s}-n{n}", s, s, L.gen_putnear(s, n), L.PUTNEAR_MISSIONS,
         "Pick up the first object named in the mission and DROP it on a cell next to (diagonal "
         "counts) the second. Picking up another object, or dropping it anywhere else, ends the "
         "episode with reward 0.", putnear=True, wrong_pickup_fails=True, goal=False)
for s in (6, 8):
    task(f"redbluedoors-{s}x{s}", s, 2 * s, L.gen_redbluedoors(s), L.REDBLUE_MISSION,
         "Open the red door first, then the blue door. Opening the blue door while the red one is "
         "closed ends the episode with reward 0.", redblue=True, goal=False)
for s in (7, 9, 11, 13, 17):
    task(f"memory-s{s}", s, s, L.gen_memory(s), L.MEMORY_MISSION,
         "Remember the object (key or ball) in the start room on the left, walk down the hallway, "
         "and step onto the cell next to the matching object at its end (one is above, one below). "
         "The cell next to the other object ends the episode with reward 0. Nothing can be carried here: "
         "PICKUP acts as TOGGLE (as in MiniGrid's Memory).", memory=True, goal=False)
task("playground", 19, 19, L.gen_playground, L.PICKUP_MISSIONS,
     "Nine rooms joined by closed doors, twelve random objects. Pick up an object matching the "
     "mission (other objects may be moved freely).", pickup_target=True, goal=False)

assert len(TASKS) == 71, len(TASKS)

# Partial-view (7x7 egocentric) variants of some tasks; any task can be built partial with
# `make_task(name, partial=True)`.
PARTIAL = ("empty-8x8", "doorkey-8x8", "fourrooms", "keycorridor-s3r3", "memory-s11", "memory-s13",
           "memory-s17")


def make_task(name: str, partial: bool = False) -> MiniGrid:
    """Build a MiniGrid task by name (without the `minigrid/` prefix); partial=True gives the
    7x7 egocentric view. Unknown names raise with the list of valid ones."""
    if name not in TASKS:
        raise KeyError(f"unknown MiniGrid task {name!r}; valid: {', '.join(sorted(TASKS))}")
    import dataclasses
    cfg = dataclasses.replace(TASKS[name], partial=partial) if partial else TASKS[name]
    return MiniGrid(f"minigrid/{name}" + ("-partial" if partial else ""), cfg)


for _name in TASKS:
    register(f"minigrid/{_name}", lambda n=_name: make_task(n))
for _name in PARTIAL:
    register(f"minigrid/{_name}-partial", lambda n=_name: make_task(n, partial=True))
