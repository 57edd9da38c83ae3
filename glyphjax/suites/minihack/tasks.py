"""MiniHack task declarations (GlyphBench catalogue §3.2) on the one dungeon engine.

A task is a name, a canvas, a `levels.Layout` builder and its rules text. Tasks on one canvas
share one compiled program: the layout is traced params. Canvases: 7x7 (5x5 rooms, key rooms,
skill tasks, boxoban-medium), 9x15 (river, lava cross, corridor battle, hide-and-seek, wand of
death, 9x9 mazes, boxoban-hard/-unfiltered), 17x17 (15x15 rooms, key rooms and mazes, big hide-and-seek), 7x47 (corridors),
19x45 (45x19 mazes); a smaller layout is padded with solid rock (drawn blank).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.registry import register
from glyphjax.core.types import Env, TaskCard
from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack import layouts as LY
from glyphjax.suites.minihack.engine import engine_step
from glyphjax.suites.minihack.levels import Layout, Level, generate
from glyphjax.suites.minihack.planner import plan_action
from glyphjax.suites.minihack.state import MiniHackState
from glyphjax.suites.minihack.vision import NEARBY_NAMES, frame_grid, nearby_field

INV_SLOTS = 6  # item types a task's HUD inventory can list
CANVASES = {"small": (7, 7), "medium": (9, 15), "large": (17, 17), "corridor": (7, 47), "maze45": (19, 45),
            "memento": (7, 25)}
MAZE_CANVASES = ("medium", "large", "maze45")
BOXOBAN_CANVASES = ("small", "medium")
FLOOR_CANVASES = ("memento",)  # programs that compile in the descent to a fresh dungeon level

GLYPHS = {
    " ": "dark or unexplored (solid rock, or a cell you have not seen)",
    "·": "floor", "-": "wall", "|": "wall", "#": "corridor", "¦": "open door",
    "+": "closed door (it may be locked)", ">": "staircase down (the goal)", "^": "trap",
    "♨": "lava (deadly unless you levitate)", "≈": "water (you fall in and lose 3 HP unless you levitate)",
    "⊔": "sink", "_": "altar", "{": "fountain (in Boxoban: a boulder's target)",
    "%": "food (a food ration or an apple)", "?": "scroll", "!": "potion", "=": "ring", "/": "wand",
    ")": "weapon (a long sword)", "(": "tool (a skeleton key)",
    "0": "boulder (walk into it to push it)", "*": "boulder on a fountain (a filled target)",
    ":": "newt (monster)", "r": "rat (monster)", "k": "kobold (monster)", "G": "gnome (monster)",
    "o": "orc (monster)", "Z": "zombie (monster)", "O": "ogre (monster)", "@": "you",
}
COMMON_RULES = (
    "A NetHack-style dungeon seen from above, one glyph per cell. You are @. Move in 8 directions "
    "(MOVE_N ... MOVE_SW); moving into a wall does nothing, moving into a monster attacks it "
    "(bare hands deal 1-4 damage, a wielded long sword 6-10), moving into a closed door + opens it "
    "(a locked one only while you carry a key; the door opens, you stay put). Every live monster "
    "then acts: next to you it hits you (a roll around its usual damage), otherwise it steps "
    "towards you; a monster below a third of its HP flees. Traps ^ hurt 1-3 HP once and vanish; "
    "water ≈ costs 3 HP; lava ♨ kills; levitating carries you over all three (but you cannot pick "
    "things up while floating). Items: PICKUP takes the item at your feet; EAT, READ, QUAFF use "
    "the first item of that kind you carry; WIELD wields a long sword; ZAP fires the wand you "
    "picked up last at the nearest monster (a wand of death kills it); APPLY puts on or removes "
    "a ring; PRAY heals you fully once when your HP is low (5 or less). In the dark you see only "
    "the 8 cells around you; cells you have seen stay on your map as you last saw them (monsters "
    "only where you see them). You start with 12 HP. ")
REWARD = ("+1 when you step onto the down staircase > (the episode ends), -1 when you die (HP 0, "
          "lava, starvation; the episode ends); nothing else is paid. Return range [-1, 1].")
WIELD_NAMES = ("fists", "long sword")
LEV_NAMES = ("no",) + tuple(f"{n} turn{'s' * (n != 1)}" for n in range(1, C.LEVITATION_TURNS + 2)) + ("yes (ring)",)
RING_LEV = len(LEV_NAMES) - 1


@struct.dataclass
class MiniHackParams:
    level: Level
    inv_slots: jnp.ndarray  # int32[INV_SLOTS] item types the HUD inventory lists (0 = unused)


@dataclasses.dataclass(frozen=True)
class TaskDecl:
    name: str
    canvas: str
    build: Callable[[], Layout]
    rules: str
    max_steps: int = 200


class MiniHack(Env):
    """Every MiniHack task: a declared layout on a canvas; tasks of one canvas share a program."""

    # tests/test_conformance.py plays this many random episodes per task (a dungeon step costs
    # ~3 us of CPU, so 10,000 long episodes per task were the suite's largest cost); the
    # 10,000-episode range check is `python -m glyphjax.suites.minihack.certify --random 10000`
    conformance_episodes = 2_000

    def __init__(self, decl: TaskDecl):
        self.decl = decl
        self.canvas = CANVASES[decl.canvas]
        self.maze = decl.canvas in MAZE_CANVASES
        self.boxoban = decl.canvas in BOXOBAN_CANVASES
        self.floors = decl.canvas in FLOOR_CANVASES
        layout = decl.build()
        if layout.maze_cells != (0, 0):  # a maze is redrawn until its stairs are within the budget
            layout.maze_max_path = decl.max_steps
        if layout.n_floors > 1 and not self.floors:
            raise ValueError(f"minihack/{decl.name}: {layout.n_floors} dungeon levels need a canvas of "
                             f"{FLOOR_CANVASES}, not {decl.canvas!r}")
        self.inv_items = inventory_items(layout)
        slots = np.zeros(INV_SLOTS, np.int32)
        slots[:len(self.inv_items)] = self.inv_items
        self._params = MiniHackParams(level=layout.level(self.canvas), inv_slots=jnp.asarray(slots))
        self.layout = layout
        self.card = card_of(decl, layout, self.inv_items, self.floors)

    def static_config(self):
        return ("minihack", self.canvas, self.maze, self.boxoban, self.floors)

    def default_params(self) -> MiniHackParams:
        return self._params

    def _reset(self, key, params: MiniHackParams) -> MiniHackState:
        return generate(key, params.level, self.canvas, self.maze, self.boxoban)

    def _step(self, key, state, action, params: MiniHackParams):
        return engine_step(key, state, action, params.level, self.floors)

    def _render(self, state: MiniHackState, params: MiniHackParams):
        carried = state.inv[params.inv_slots] > 0
        inv = jnp.sum(jnp.where(carried & (params.inv_slots > 0), 1 << jnp.arange(INV_SLOTS), 0))
        lev = jnp.where(state.ring_on, RING_LEV, state.lev_turns)
        hud = (state.hp, state.max_hp, state.wielding.astype(jnp.int32), inv, nearby_field(state),
               state.hunger, lev)
        return frame_grid(state), hud + ((state.floor + 1,) if self.floors else ())

    @staticmethod
    def scripted_policy(key, state, params):
        return plan_action(state, params.level)


def inventory_items(layout: Layout) -> list[int]:
    """Item types that can ever be carried in a task (in ITEM_NAMES order)."""
    kinds = set(np.unique(layout.items).tolist()) | set(layout.inv) | {layout.rand_item}
    kinds = sorted(k for k in kinds if k > 0)
    if len(kinds) > INV_SLOTS:
        raise ValueError(f"a task lists at most {INV_SLOTS} item types, got {kinds}")
    return kinds


def card_of(decl: TaskDecl, layout: Layout, inv_items: list[int], floors: bool) -> TaskCard:
    inv_names = tuple(", ".join(C.ITEM_NAMES[k] for i, k in enumerate(inv_items) if m >> i & 1) or "(empty)"
                      for m in range(1 << INV_SLOTS))
    dlvl = "{dlvl}" if floors else "1"
    if layout.n_floors > 1:
        dlvl += f" / {layout.n_floors}"
    hud = "Step: {step} / {max_steps}    Dlvl: " + dlvl + "    HP: {hp}/{max_hp}"
    if layout.dark:
        hud += "    Vision: limited (dark)"
    hud += "    Wielding: {wielding}    Inv: {inv}"
    if layout.hunger_on:
        hud += "    Hunger: {hunger}"
    if C.POTION_LEVITATION in inv_items or C.RING_LEVITATION in inv_items:
        hud += "    Levitating: {levitating}"
    hud += "\nNearby: {nearby}"
    return TaskCard(
        id=f"minihack/{decl.name}", rules=COMMON_RULES + decl.rules, actions=C.ACTIONS,
        action_descriptions=C.ACTION_DESCRIPTIONS, glyphs=GLYPHS, hud=hud,
        hud_fields=("hp", "max_hp", "wielding", "inv", "nearby", "hunger", "levitating") + ("dlvl",) * floors,
        hud_enums={"wielding": WIELD_NAMES, "inv": inv_names, "nearby": NEARBY_NAMES, "levitating": LEV_NAMES},
        max_steps=decl.max_steps, reward=REWARD, events=C.EVENTS, success=C.SUCCESS_EVENTS,
        notes=f"layout {layout.h}x{layout.w} on the {CANVASES[decl.canvas][0]}x{CANVASES[decl.canvas][1]} canvas")


TASKS: dict[str, TaskDecl] = {d.name: d for d in LY.declarations(TaskDecl)}


def make_task(name: str) -> MiniHack:
    """A MiniHack task by name (without `minihack/`); unknown names list the valid ones."""
    if name not in TASKS:
        raise KeyError(f"unknown MiniHack task {name!r}; valid: {', '.join(sorted(TASKS))}")
    return MiniHack(TASKS[name])


for _name in TASKS:
    register(f"minihack/{_name}", lambda n=_name: make_task(n))
