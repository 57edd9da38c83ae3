"""Tower Defense: build towers beside a winding path to stop 5 waves of enemies.

Reference rules (catalogue §5 row 29): 11x11 board with a winding path; 10 gold to start, a
tower costs 3 gold, shoots 1 damage per turn at range 2 (Manhattan), +1 gold per kill; 5 waves;
actions PLACE_0..55 (buildable cells), NEXT_WAVE, WAIT; T 300.
Our layout: the path (33 cells) enters at row 1, column 0 and snakes to the base at row 9,
column 10; the 56 buildable sites are exactly the cells orthogonally next to the path, numbered
in reading order (PLACE_i names its row and column in the action list). NEXT_WAVE starts the
next wave when none is running. Wave k (1..5) has 2k+2 enemies with 2k hit points, entering one per
turn. A turn: your action; every tower hits the living enemy in range that is
furthest along the path; the enemies step one cell along the path; a new enemy may enter.
Reward: +0.2 per wave cleared (all five = 1.0, a win that ends the episode); an enemy reaching
the base ends the episode and pays -1 minus everything earned so far (return exactly -1;
`_arcade.death_penalty`). Range [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.grid import codepoints, dilate
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._arcade import death_penalty
from glyphjax.suites.classics.common import EMPTY_SPACE, GLYPHS_ARCADE

S = 11
START_GOLD, TOWER_COST, RANGE = 10, 3, 2
N_WAVES = 5
MAX_ENEMIES = 12
SPAWN_EVERY = 1


def _path_cells() -> list[tuple[int, int]]:
    p = [(1, c) for c in range(0, 9)] + [(2, 8)] + [(3, c) for c in range(8, 0, -1)]
    p += [(r, 1) for r in range(4, 9)] + [(9, c) for c in range(1, 11)]
    return p


PATH = np.array(_path_cells(), np.int32)  # [33, 2], last cell = base
PATH_LEN = len(PATH)
_on_path = np.zeros((S, S), bool)
_on_path[PATH[:, 0], PATH[:, 1]] = True
_adj = np.asarray(dilate(jnp.asarray(_on_path)))
SITES = np.argwhere(_adj & ~_on_path).astype(np.int32)  # [56, 2] in reading order
N_SITES = len(SITES)
assert N_SITES == 56, N_SITES
# tower site -> path cells in range (bool[56, 33])
IN_RANGE = (np.abs(SITES[:, None, :] - PATH[None, :, :]).sum(-1) <= RANGE)

PATH_G, SITE, TOWER, BASE = "╍", "□", "♖", "⊞"
ENEMIES = "➊➋➌➍➎➏➐➑➒➓"  # enemy with 1..10 hit points
GLYPHS = {EMPTY_SPACE: GLYPHS_ARCADE[EMPTY_SPACE], PATH_G: "enemy path", SITE: "empty tower site",
          TOWER: "your tower", BASE: "your base",
          **{ENEMIES[i]: f"enemy with {i + 1} hit point{'s' if i else ''}" for i in range(10)}}
ACTIONS = tuple(f"PLACE_{i}" for i in range(N_SITES)) + ("NEXT_WAVE", "WAIT")
NEXT_WAVE, WAIT = N_SITES, N_SITES + 1
EV_BUILT, EV_WAVE, EV_CLEARED, EV_WIN, EV_LOST, EV_KILL = 1, 2, 3, 4, 5, 6
EVENTS = ("", "You built a tower.", "A new wave of enemies is coming.", "Wave cleared!",
          "All five waves cleared. You win!", "An enemy reached your base. Game over.",
          "Your towers destroyed an enemy.")
_TABLE = codepoints(EMPTY_SPACE + PATH_G + SITE + TOWER + BASE + ENEMIES)  # 0..4, 5..14


@struct.dataclass
class TowerDefenseState(EnvState):
    towers: jax.Array  # bool[56]
    gold: jax.Array  # int32
    wave: jax.Array  # int32 waves started (0..5)
    active: jax.Array  # bool: a wave is running
    to_spawn: jax.Array  # int32 enemies of this wave still to enter
    spawn_timer: jax.Array  # int32 turns until the next enemy enters
    enemy_pos: jax.Array  # int32[MAX_ENEMIES] index along the path
    enemy_hp: jax.Array  # int32[MAX_ENEMIES]
    enemy_alive: jax.Array  # bool[MAX_ENEMIES]
    cleared: jax.Array  # int32 waves cleared
    earned: jax.Array  # float32


def tower_damage(towers: jax.Array, pos: jax.Array, alive: jax.Array) -> jax.Array:
    """int32[MAX_ENEMIES]: damage this turn (each tower: 1 to the living enemy in range that is
    furthest along the path; ties go to the lowest slot)."""
    in_range = jnp.asarray(IN_RANGE.T)[pos].T & alive[None, :] & towers[:, None]  # [56, E]
    score = jnp.where(in_range, pos[None, :], -1)
    best = in_range & (score == jnp.max(score, axis=1, keepdims=True))
    pick = jnp.argmax(best, axis=1)
    fires = jnp.any(in_range, axis=1)
    hits = (jnp.arange(pos.shape[0])[None, :] == pick[:, None]) & fires[:, None]
    return jnp.sum(hits, axis=0, dtype=jnp.int32)


class TowerDefense(Env):
    def __init__(self, task_id: str = "classics/towerdefense", max_steps: int = 300):
        site_desc = tuple(f"build a tower ({TOWER_COST} gold) on the site at row {r}, column {c}"
                          for r, c in SITES.tolist())
        self.card = TaskCard(
            id=task_id,
            rules=(f"Tower defense on an {S}x{S} board. Enemies follow the path from row 1, "
                   f"column 0 to your base at row 9, column 10. Build towers ({TOWER_COST} gold "
                   f"each, you start with {START_GOLD}) on the {N_SITES} sites next to the path: "
                   f"PLACE_i builds on site i, sites numbered in reading order (row by row, left to "
                   f"right; the action list gives each site's row and column). Each turn every "
                   f"tower deals 1 damage to the enemy within {RANGE} cells (Manhattan distance) "
                   "that is furthest along the path; each kill gives 1 gold. NEXT_WAVE starts the "
                   f"next of {N_WAVES} waves (only when no wave is running); wave k has 2k+2 "
                   "enemies with 2k hit points, entering one per turn and moving one cell per "
                   "turn. An enemy reaching the base loses the game; clearing all waves "
                   "wins."),
            actions=ACTIONS,
            action_descriptions=site_desc + ("start the next wave (when no wave is running)",
                                             "do nothing this turn"),
            glyphs=GLYPHS,
            hud=("Step: {step} / {max_steps}    Gold: {gold}    Wave: {wave} / " + str(N_WAVES) +
                 "    Waves cleared: {cleared}    Enemies still to enter: {to_spawn}"),
            hud_fields=("gold", "wave", "cleared", "to_spawn"),
            max_steps=max_steps,
            reward=(f"+0.2 for each wave cleared (all {N_WAVES} = 1.0, a win that ends the game). "
                    "An enemy reaching your base ends the game and pays -1 minus everything earned "
                    "so far (the return is then exactly -1). Return range [-1, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
        )

    def _reset(self, key, params):
        z = jnp.zeros(MAX_ENEMIES, jnp.int32)
        return TowerDefenseState(**init_state_fields(), towers=jnp.zeros(N_SITES, bool),
                                 gold=jnp.int32(START_GOLD), wave=jnp.int32(0), active=jnp.bool_(False),
                                 to_spawn=jnp.int32(0), spawn_timer=jnp.int32(0), enemy_pos=z,
                                 enemy_hp=z, enemy_alive=jnp.zeros(MAX_ENEMIES, bool),
                                 cleared=jnp.int32(0), earned=jnp.float32(0))

    def _step(self, key, state: TowerDefenseState, action, params):
        chosen = jnp.arange(N_SITES) == action
        build = (action >= 0) & (action < N_SITES) & ~jnp.any(state.towers & chosen) & (state.gold >= TOWER_COST)
        towers = state.towers | (chosen & build)
        gold = state.gold - jnp.where(build, TOWER_COST, 0)
        start = (action == NEXT_WAVE) & ~state.active & (state.wave < N_WAVES)
        wave = state.wave + start.astype(jnp.int32)
        active = state.active | start
        to_spawn = jnp.where(start, 2 * wave + 2, state.to_spawn)
        timer = jnp.where(start, 0, state.spawn_timer)
        # towers fire
        dmg = tower_damage(towers, state.enemy_pos, state.enemy_alive)
        hp = state.enemy_hp - dmg
        killed = state.enemy_alive & (hp <= 0)
        alive = state.enemy_alive & ~killed
        n_killed = jnp.sum(killed).astype(jnp.int32)
        gold = gold + n_killed
        # survivors walk; reaching the last path cell (the base) loses
        pos = jnp.where(alive, state.enemy_pos + 1, state.enemy_pos)
        lost = jnp.any(alive & (pos >= PATH_LEN - 1))
        # a new enemy enters
        free_slot = jnp.argmin(alive)
        spawn = (to_spawn > 0) & (timer == 0) & ~jnp.all(alive)
        slot = jnp.arange(MAX_ENEMIES) == free_slot
        alive = alive | (slot & spawn)
        pos = jnp.where(slot & spawn, 0, pos)
        hp = jnp.where(slot & spawn, 2 * wave, hp)
        to_spawn = to_spawn - spawn.astype(jnp.int32)
        timer = jnp.where(spawn, SPAWN_EVERY - 1, jnp.maximum(timer - 1, 0))
        cleared_now = active & ~start & (to_spawn == 0) & ~jnp.any(alive) & ~lost
        cleared = state.cleared + cleared_now.astype(jnp.int32)
        won = cleared >= N_WAVES
        gain = jnp.where(cleared_now, 1.0 / N_WAVES, 0.0)
        reward = jnp.where(lost, death_penalty(state.earned), gain)
        event = jnp.select([lost, won, cleared_now, start, build, n_killed > 0],
                           [EV_LOST, EV_WIN, EV_CLEARED, EV_WAVE, EV_BUILT, EV_KILL], 0)
        nxt = state.replace(towers=towers, gold=gold, wave=wave, active=active & ~cleared_now,
                            to_spawn=to_spawn, spawn_timer=timer.astype(jnp.int32),
                            enemy_pos=pos.astype(jnp.int32), enemy_hp=hp.astype(jnp.int32),
                            enemy_alive=alive, cleared=cleared,
                            earned=state.earned + jnp.where(lost, 0.0, gain))
        return nxt, reward, lost | won, event

    def _render(self, state: TowerDefenseState, params):
        codes = jnp.zeros((S, S), jnp.int32)
        path = jnp.asarray(PATH)
        sites = jnp.asarray(SITES)
        codes = codes.at[path[:, 0], path[:, 1]].set(1)
        codes = codes.at[path[-1, 0], path[-1, 1]].set(4)
        codes = codes.at[sites[:, 0], sites[:, 1]].set(jnp.where(state.towers, 3, 2))
        cells = path[jnp.clip(state.enemy_pos, 0, PATH_LEN - 1)]
        cur = codes[cells[:, 0], cells[:, 1]]
        e_code = jnp.where(state.enemy_alive, 4 + jnp.clip(state.enemy_hp, 1, 10), cur)
        # draw weaker enemies first so the strongest on a shared cell shows
        order = jnp.argsort(jnp.where(state.enemy_alive, state.enemy_hp, -1))
        codes = codes.at[cells[order, 0], cells[order, 1]].set(e_code[order])
        return _TABLE[codes], (state.gold, state.wave, state.cleared, state.to_spawn)

    @staticmethod
    def scripted_policy(key, state: TowerDefenseState, params):
        """Build on the free site that covers the most path cells while gold lasts, else start
        the next wave when none is running, else wait."""
        cover = jnp.asarray(IN_RANGE).sum(1)
        score = jnp.where(state.towers, -1, cover)
        best = jnp.argmax(score)
        can_build = (state.gold >= TOWER_COST) & (score[best] > 0)
        act = jnp.where(can_build, best, jnp.where(state.active, WAIT, NEXT_WAVE))
        return act.astype(jnp.int32)


register("classics/towerdefense", lambda: TowerDefense())
