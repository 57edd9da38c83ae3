"""Jumper and Climber: climb a side-view level of platforms (engine physics: 7-turn jump arc).

Jumper: a 24 x 32 cave with walls around it. A chain of 7 platforms leads up from the floor
(each 2-3 rows above and 2-5 columns beside the last; 4 wide) to the carrot; up to 8 (hard 10)
more platforms lie off the chain, with a spike on half of them (hard: all). You may jump once
more in the air (double jump). Ending a turn on a spike kills you. +1 on reaching the carrot (the
episode ends); dying ends it with 0. Return range [0, 1].
Climber: a 48-row tower 14 wide. A chain of 12 platforms leads up from the floor, each 2-3
rows above the last and 0-1 columns beyond its left or right end (3-4 wide, hard 2-3), the
flag on the top one; stars lie on half of
the others; 1-2 (hard 2-3) enemies walk back and forth on platforms and kill on touch. +0.8 / S
per star taken (S = stars in the level), +0.2 on reaching the flag (+0.8 more when the level has
no star; the episode ends); dying ends the episode with no penalty. Return range [0, 1].
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from glyphjax.suites.procgen.engine import (PHYSICS_RULES, Game, ProcgenState, fresh_state,
                                            move_body, paint_entities, patrol)

CLIMB_ACTIONS = ("NOOP", "LEFT", "RIGHT", "JUMP", "JUMP_LEFT", "JUMP_RIGHT")
CLIMB_DESCRIPTIONS = ("do nothing (you still fall)", "move one column left", "move one column right",
                      "jump", "jump and move one column left", "jump and move one column right")
DX, JUMPS = (0, -1, 1, 0, -1, 1), (False, False, False, True, True, True)
GROUND = "▒"
EMPTY_C, SOLID_C, SPIKE_C, GOAL_C, ENEMY_C = range(5)
STAR_C = SPIKE_C  # climber's code 2 (it has no spikes)


def _platform(rows, cols, r, c0, width, on=True):
    """bool mask of a horizontal platform at row r, columns c0 .. c0 + width - 1."""
    return on & (rows == r) & (cols >= c0) & (cols < c0 + width)


# --- jumper -------------------------------------------------------------------------------------
JH, JW = 24, 32
J_PATH, J_PW, J_EXTRA = 7, 4, 10
SPIKE, CARROT = "▲", "¤"
_JR, _JC = np.meshgrid(np.arange(JH), np.arange(JW), indexing="ij")


def jumper_generate(draws, hard, level) -> ProcgenState:
    solid = (_JR == 0) | (_JR == JH - 1) | (_JC == 0) | (_JC == JW - 1)
    band = jnp.zeros((JH, JW), bool)
    r, c = jnp.int32(JH - 1), jnp.int32(1)
    ups = draws.randint(2, 4, (J_PATH,))
    steps = draws.randint(2, 6, (J_PATH,))
    signs = jnp.where(draws.bernoulli(0.5, (J_PATH,)), 1, -1)
    for i in range(1, J_PATH):
        r = jnp.maximum(r - ups[i], 3)
        c = jnp.clip(c + signs[i] * steps[i], 1, JW - 1 - J_PW)
        solid = solid | _platform(_JR, _JC, r, c, J_PW)
        band = band | ((_JR >= r - 4) & (_JR <= r + 1) & (_JC >= c - 1) & (_JC <= c + J_PW))
    band = band | ((_JR >= JH - 5) & (_JC <= 4))  # keep the start clear
    extra_r = draws.randint(3, JH - 3, (J_EXTRA,))
    extra_c = draws.randint(1, JW - 4, (J_EXTRA,))
    spiked = draws.bernoulli(0.5, (J_EXTRA,)) | hard
    n_extra = jnp.where(hard, J_EXTRA, 8)
    spikes = jnp.zeros((JH, JW), bool)
    for k in range(J_EXTRA):
        plat = _platform(_JR, _JC, extra_r[k], extra_c[k], 3, k < n_extra) & ~band
        solid = solid | plat
        spikes = spikes | (spiked[k] & (_JR == extra_r[k] - 1) & (_JC == extra_c[k] + 1) & (k < n_extra))
    spikes = spikes & ~solid & ~band
    world = jnp.where(solid, SOLID_C, jnp.where(spikes, SPIKE_C, EMPTY_C))
    world = world.at[r - 1, c + 1].set(GOAL_C)
    return fresh_state(world, jnp.array([JH - 2, 2], jnp.int32), level, total=1)


def jumper_step(state: ProcgenState, action, params):
    moved = move_body(state, state.world == SOLID_C, action, DX, JUMPS, double_jump=True)
    code = moved.world[moved.pos[0], moved.pos[1]]
    died, won = code == SPIKE_C, code == GOAL_C
    moved = moved.replace(items=won.astype(jnp.int32))
    return moved, won.astype(jnp.float32), died | won, jnp.select([won, died], [1, 2], 0)


JUMPER = Game(
    name="jumper", world=(JH, JW), view=(12, 20), cells=" " + GROUND + SPIKE + CARROT,
    glyphs={GROUND: "solid ground", SPIKE: "spike (deadly)", CARROT: "the carrot (the goal)"},
    actions=CLIMB_ACTIONS, descriptions=CLIMB_DESCRIPTIONS,
    rules=(PHYSICS_RULES + "You can jump from the ground and once more in the air (double "
           "jump). Climb the cave's platforms to the carrot; ending a turn on a spike kills you."),
    reward="+1 on reaching the carrot (the episode ends); dying ends the episode with 0. Return range [0, 1].",
    events=("", "You got the carrot. You win!", "You died on a spike."), success=(1,),
    generate=jumper_generate, step=jumper_step, paint=lambda s: s.world.astype(jnp.int32),
    draws=3 * J_PATH + 3 * J_EXTRA, hud="", side_view=True, progress=lambda s: -s.pos[0],
    plan_key=lambda s: (s.pos, s.phase, s.air_jump),
    hard_notes="10 platforms off the chain (easy: 8), every one with a spike.")


# --- climber ------------------------------------------------------------------------------------
CH, CW = 48, 14
C_PATH, C_ENEMIES = 13, 3
FLAG, STAR, ENEMY = "⚑", "☆", "Ӂ"
STAR_SHARE, GOAL_SHARE = 0.8, 0.2
_CR, _CC = np.meshgrid(np.arange(CH), np.arange(CW), indexing="ij")


def climber_generate(draws, hard, level) -> ProcgenState:
    solid = (_CR == CH - 1) | (_CC == 0) | (_CC == CW - 1)
    ups = draws.randint(2, 4, (C_PATH,))
    widths = draws.randint(jnp.where(hard, 2, 3), jnp.where(hard, 4, 5), (C_PATH,))
    gaps = draws.randint(0, 2, (C_PATH,))
    rightward = draws.bernoulli(0.5, (C_PATH,))
    star_on = draws.bernoulli(0.5, (C_PATH,))
    star_at = draws.uniform((C_PATH,))
    stars = jnp.zeros((CH, CW), bool)
    rows, lefts = [], []
    r, left, width = jnp.int32(CH - 1), jnp.int32(CW // 2 - 1), jnp.int32(3)
    for i in range(1, C_PATH):
        w = widths[i]
        right_at, left_at = left + width + gaps[i], left - gaps[i] - w
        go_right = (rightward[i] & (right_at + w <= CW - 1)) | (left_at < 1)
        r, left, width = r - ups[i], jnp.clip(jnp.where(go_right, right_at, left_at), 1, CW - 1 - w), w
        solid = solid | _platform(_CR, _CC, r, left, width)
        col = left + jnp.floor(star_at[i] * width).astype(jnp.int32)
        stars = stars | ((_CR == r - 1) & (_CC == col) & star_on[i] & (i < C_PATH - 1))
        rows.append(r)
        lefts.append(left)
    world = jnp.where(solid, SOLID_C, jnp.where(stars, STAR_C, EMPTY_C))
    world = world.at[r - 1, left + width // 2].set(GOAL_C)
    rows, lefts = jnp.stack(rows), jnp.stack(lefts)
    on = draws.randint(1, C_PATH - 2, (C_ENEMIES,))  # platform index (0-based in rows) per enemy
    alive = jnp.arange(C_ENEMIES) < jnp.where(hard, 2, 1) + draws.randint(0, 2)
    ents = jnp.stack([rows[on] - 1, lefts[on], jnp.ones((C_ENEMIES,), jnp.int32)], axis=1)
    return fresh_state(world, jnp.array([CH - 2, CW // 2], jnp.int32), level,
                       total=jnp.sum(stars, dtype=jnp.int32), ents=ents, alive=alive)


def climber_step(state: ProcgenState, action, params):
    solid = state.world == SOLID_C
    moved = move_body(state, solid, action, DX, JUMPS)
    ents = patrol(solid, state.ents, state.alive)
    r, c = moved.pos[0], moved.pos[1]
    touch = state.alive & (ents[:, 0] == r) & (ents[:, 1] == c)
    swapped = state.alive & (ents[:, 0] == r) & (state.ents[:, 1] == c) & (ents[:, 1] == state.pos[1]) & (r == state.pos[0])
    died = jnp.any(touch | swapped)
    code = moved.world[r, c]
    star = ~died & (code == STAR_C)
    won = ~died & (code == GOAL_C)
    world = moved.world.at[r, c].set(jnp.where(star, jnp.int8(EMPTY_C), moved.world[r, c]))
    share = STAR_SHARE / jnp.maximum(state.total, 1).astype(jnp.float32)
    reward = jnp.where(star, share, 0.0) + jnp.where(won, GOAL_SHARE + jnp.where(state.total == 0, STAR_SHARE, 0.0), 0.0)
    nxt = moved.replace(world=world, ents=ents, items=moved.items + star.astype(jnp.int32))
    return nxt, reward.astype(jnp.float32), died | won, jnp.select([won, died, star], [1, 2, 3], 0)


CLIMBER = Game(
    name="climber", world=(CH, CW), view=(20, 14), cells=" " + GROUND + STAR + FLAG + ENEMY,
    glyphs={GROUND: "solid ground", FLAG: "the flag (the goal)", STAR: "star (collect it)",
            ENEMY: "enemy (walks back and forth; deadly to touch)"},
    actions=CLIMB_ACTIONS, descriptions=CLIMB_DESCRIPTIONS,
    rules=(PHYSICS_RULES + "You jump only from the ground. Climb the tower's platforms to the "
           "flag at the top, taking the stars on the way; touching an enemy kills you."),
    reward=("+0.8 / S per star taken (S = stars in the level), +0.2 on reaching the flag (+0.8 "
            "more when the level has no star; the episode ends); dying ends the episode with no "
            "penalty. Return range [0, 1]."),
    events=("", "You reached the flag. You win!", "An enemy got you.", "You took a star."),
    success=(1,), generate=climber_generate, step=climber_step,
    paint=lambda s: paint_entities(s.world.astype(jnp.int32), s.ents, s.alive, ENEMY_C),
    draws=6 * C_PATH + C_ENEMIES + 1, hud="Stars: {items} / {total}", side_view=True, progress=lambda s: -s.pos[0],
    plan_key=lambda s: (s.pos, s.phase, s.ents, s.items),
    hard_notes="narrower platforms (2-3 wide; easy 3-4) and 2-3 enemies (easy 1-2).")
