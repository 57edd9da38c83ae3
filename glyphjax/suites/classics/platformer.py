"""Platformer: run and jump right across an 80-column level to the flag.

Reference rules (catalogue §5 row 23): 80-wide level, 20x12 scrolling view; LEFT/RIGHT/JUMP
(3 up)/NOOP; enemies, pits, a flag; T 500. Physics: LEFT/RIGHT move one column (solid cells
block); JUMP, when standing on something, starts a rise of 3 cells (one per turn, stopped by a
ceiling); otherwise you fall one cell per turn. Falling out of the bottom (a pit) kills you.
Enemies walk back and forth on the ground (one cell every other turn, turning at walls and
ledges); landing on an enemy while falling squashes it, any other touch kills you. Reaching the
flag column wins. Generation: the level is 8 segments of 8 columns, each with nothing, a pit
(1-3 wide), a block (1-2 high) or a floating ledge, and maybe an enemy; a jump clears 5 columns
and 3 rows, so every level can be finished.
Scrolling convention: the grid shows 20 of the 80 columns, starting 6 columns left of you
(clamped to the level); the HUD gives the window's first column and your column.
Reward: new rightmost progress pays 0.5 * (columns gained) / (flag column - start column) (at
most 0.5 in total), reaching the flag +0.5; dying pays -1 minus everything earned so far (the
return is then exactly -1; `_arcade.death_penalty`). Range [-1, 1].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._arcade import GLYPHS_GROUND, GROUND, death_penalty, view_window
from glyphjax.suites.classics.common import EMPTY_SPACE, GLYPHS_ARCADE, PLAYER

LEVEL_W, H, VIEW_W = 80, 12, 20
GROUND_TOP = 10  # rows 10-11 are ground
START_X, FLAG_X = 2, 77
VIEW_LEAD = 6
JUMP_RISE = 3
N_SEG, SEG_W, SEG0 = 8, 8, 8
N_ENEMIES = N_SEG
ENEMY, FLAG = "ʘ", "⚐"
GLYPHS = {**GLYPHS_ARCADE, **GLYPHS_GROUND, ENEMY: "enemy (walks back and forth)", FLAG: "goal flag"}
ACTIONS = ("LEFT", "RIGHT", "JUMP", "NOOP")
EV_STOMP, EV_ENEMY, EV_PIT, EV_FLAG = 1, 2, 3, 4
EVENTS = ("", "You squashed an enemy.", "An enemy got you. Game over.",
          "You fell into a pit. Game over.", "You reached the flag. You win!")
_TABLE = codepoints(EMPTY_SPACE + GROUND + FLAG + ENEMY + PLAYER)  # 0..4


@struct.dataclass
class PlatformerState(EnvState):
    solid: jax.Array  # bool[H, LEVEL_W]
    pos: jax.Array  # int32[2] (row, col)
    rise: jax.Array  # int32: rows still to rise in the current jump
    enemies: jax.Array  # int32[N_ENEMIES, 2]
    enemy_dir: jax.Array  # int32[N_ENEMIES]: -1 / +1
    enemy_alive: jax.Array  # bool[N_ENEMIES]
    best_x: jax.Array  # int32 rightmost column reached
    earned: jax.Array  # float32


def generate_level(key):
    """-> (solid, enemies, enemy_alive)."""
    k1, k2, k3, k4, k5 = jax.random.split(key, 5)
    rows = jnp.arange(H)[:, None]
    cols = jnp.arange(LEVEL_W)[None, :]
    kind = jax.random.randint(k1, (N_SEG,), 0, 4)  # 0 none, 1 pit, 2 block, 3 ledge
    size = jax.random.randint(k2, (N_SEG,), 1, 4)
    seg = jnp.clip((cols[0] - SEG0) // SEG_W, 0, N_SEG - 1)
    off = cols[0] - SEG0 - seg * SEG_W
    in_course = (cols[0] >= SEG0) & (cols[0] < SEG0 + N_SEG * SEG_W)
    k = jnp.where(in_course, kind[seg], 0)
    sz = size[seg]
    pit_col = (k == 1) & (off >= 3) & (off < 3 + sz)
    block_col = (k == 2) & (off >= 3) & (off < 3 + jnp.minimum(sz, 2))
    block_h = jnp.minimum(sz, 2)
    ledge_col = (k == 3) & (off >= 2) & (off < 5)
    solid = (rows >= GROUND_TOP) & ~pit_col[None, :]
    solid = solid | (block_col[None, :] & (rows >= GROUND_TOP - block_h[seg][None, :]) & (rows < GROUND_TOP))
    solid = solid | (ledge_col[None, :] & (rows == GROUND_TOP - 4))
    # one enemy per segment with probability 1/2, on the ground at the segment's last column
    alive = jax.random.bernoulli(k3, 0.5, (N_SEG,)) & (kind != 1)
    ex = SEG0 + jnp.arange(N_SEG) * SEG_W + SEG_W - 1
    enemies = jnp.stack([jnp.full((N_SEG,), GROUND_TOP - 1), ex], axis=1).astype(jnp.int32)
    return solid, enemies, alive


def _free(solid, r, c):
    inside = (c >= 0) & (c < LEVEL_W)
    below_bottom = r >= H
    cell = solid[jnp.clip(r, 0, H - 1), jnp.clip(c, 0, LEVEL_W - 1)]
    return inside & (below_bottom | (r < 0) | ~cell)


def view_left(col: jax.Array) -> jax.Array:
    return jnp.clip(col - VIEW_LEAD, 0, LEVEL_W - VIEW_W)


class Platformer(Env):
    def __init__(self, task_id: str = "classics/platformer", max_steps: int = 500):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Side-scrolling platformer: a level {LEVEL_W} columns wide and {H} rows tall "
                   f"(row 0 at the top). The grid is a {VIEW_W}-column window that starts "
                   f"{VIEW_LEAD} columns left of you (clamped to the level); the HUD gives its "
                   "first column. LEFT/RIGHT move one column; JUMP, when standing on something, "
                   f"rises {JUMP_RISE} cells over the next turns, then you fall one cell per turn. "
                   "Falling into a pit kills you. Enemies walk back and forth; landing on one "
                   "while falling squashes it, touching one otherwise kills you. Reach the flag "
                   f"at column {FLAG_X}."),
            actions=ACTIONS,
            action_descriptions=("move one column left", "move one column right",
                                 "jump (only when standing on something)", "do nothing"),
            glyphs=GLYPHS,
            hud=("Step: {step} / {max_steps}    Your column: {col} / " + str(LEVEL_W - 1) +
                 "    View columns: {left}-{right}    Best column: {best}"),
            hud_fields=("col", "left", "right", "best"),
            max_steps=max_steps,
            reward=(f"+0.5 x (new columns reached) / {FLAG_X - START_X} for progress to the right "
                    "(at most 0.5 in total), +0.5 for reaching the flag (ends the game). Dying "
                    "ends the game and pays -1 minus everything earned so far (the return is then "
                    "exactly -1). Return range [-1, 1]."),
            events=EVENTS,
            success=(EV_FLAG,),
        )

    def _reset(self, key, params):
        solid, enemies, alive = generate_level(key)
        return PlatformerState(**init_state_fields(), solid=solid,
                               pos=jnp.array([GROUND_TOP - 1, START_X], jnp.int32), rise=jnp.int32(0),
                               enemies=enemies, enemy_dir=-jnp.ones(N_ENEMIES, jnp.int32),
                               enemy_alive=alive, best_x=jnp.int32(START_X), earned=jnp.float32(0))

    def _step(self, key, state: PlatformerState, action, params):
        solid = state.solid
        r, c = state.pos[0], state.pos[1]
        dc = jnp.where(action == 0, -1, jnp.where(action == 1, 1, 0))
        c = jnp.where(_free(solid, r, c + dc), c + dc, c)
        grounded = ~_free(solid, r + 1, c)
        rise = jnp.where((action == 2) & grounded & (state.rise == 0), JUMP_RISE, state.rise)
        going_up = rise > 0
        can_up = _free(solid, r - 1, c) & (r > 0)
        r_up = jnp.where(can_up, r - 1, r)
        rise = jnp.where(going_up, jnp.where(can_up, rise - 1, 0), 0)
        falling = ~going_up & _free(solid, r + 1, c)
        r = jnp.where(going_up, r_up, jnp.where(falling, r + 1, r))
        in_pit = r >= H
        # enemies move every other turn
        move_now = (state.t % 2) == 1
        ex = state.enemies[:, 1] + state.enemy_dir
        er = state.enemies[:, 0]
        ok = _free(solid, er, ex) & ~_free(solid, er + 1, ex)
        new_x = jnp.where(move_now & ok, ex, state.enemies[:, 1])
        new_dir = jnp.where(move_now & ~ok, -state.enemy_dir, state.enemy_dir)
        touch = state.enemy_alive & (er == r) & (new_x == c)
        crossed = state.enemy_alive & (er == r) & (er == state.pos[0]) & (new_x == state.pos[1]) & \
            (state.enemies[:, 1] == c) & (new_x != c)  # swapped cells with a walking enemy
        stomp = touch & falling
        killed_by = jnp.any((touch & ~falling) | crossed)
        alive = state.enemy_alive & ~stomp
        dead = in_pit | killed_by
        at_flag = ~dead & (c >= FLAG_X)
        best = jnp.maximum(state.best_x, jnp.minimum(c, FLAG_X))
        gain = 0.5 * (best - state.best_x).astype(jnp.float32) / (FLAG_X - START_X) + jnp.where(at_flag, 0.5, 0.0)
        reward = jnp.where(dead, death_penalty(state.earned), gain)
        event = jnp.select([in_pit, killed_by, at_flag, jnp.any(stomp)], [EV_PIT, EV_ENEMY, EV_FLAG, EV_STOMP], 0)
        nxt = state.replace(pos=jnp.stack([jnp.minimum(r, H - 1), c]).astype(jnp.int32), rise=rise.astype(jnp.int32),
                            enemies=jnp.stack([er, new_x], axis=1).astype(jnp.int32),
                            enemy_dir=new_dir.astype(jnp.int32), enemy_alive=alive, best_x=best,
                            earned=state.earned + jnp.where(dead, 0.0, gain))
        return nxt, reward, dead | at_flag, event

    def _render(self, state: PlatformerState, params):
        codes = jnp.where(state.solid, 1, 0)
        rows = jnp.arange(H)[:, None]
        cols = jnp.arange(LEVEL_W)[None, :]
        codes = jnp.where((cols == FLAG_X) & (rows < GROUND_TOP) & (rows >= GROUND_TOP - 4), 2, codes)
        e_code = jnp.where(state.enemy_alive, 3, codes[state.enemies[:, 0], state.enemies[:, 1]])
        codes = codes.at[state.enemies[:, 0], state.enemies[:, 1]].set(e_code)
        codes = codes.at[state.pos[0], state.pos[1]].set(4)
        left = view_left(state.pos[1])
        return _TABLE[view_window(codes, left, VIEW_W)], (state.pos[1], left, left + VIEW_W - 1, state.best_x)

    @staticmethod
    def scripted_policy(key, state: PlatformerState, params):
        """Run right; jump when a pit, a block or an enemy is within 2 columns ahead."""
        r, c = state.pos[0], state.pos[1]
        solid = state.solid
        ahead = c + jnp.array([1, 2])
        pit = ~solid[H - 1, jnp.clip(ahead, 0, LEVEL_W - 1)]
        block = solid[jnp.clip(r, 0, H - 1), jnp.clip(ahead, 0, LEVEL_W - 1)]
        enemy = jnp.any(state.enemy_alive[:, None] & (state.enemies[:, 1][:, None] >= c) &
                        (state.enemies[:, 1][:, None] <= c + 3) & (state.enemies[:, 0][:, None] == r))
        grounded = solid[jnp.clip(r + 1, 0, H - 1), c]
        jump = grounded & (jnp.any(pit) | jnp.any(block) | enemy)
        return jnp.where(jump, 2, 1).astype(jnp.int32)


register("classics/platformer", lambda: Platformer())
