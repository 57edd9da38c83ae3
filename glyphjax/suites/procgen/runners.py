"""CoinRun and Ninja: run right across a side-view course (engine physics: 7-turn jump arc).

Course (both): 3 start columns, then n segments of 5 columns (easy n in 6..9, hard 8..11), then
a 3-column end platform. Each segment may change the ground height by -2..+2 (hard -3..+2) rows
at its first column and holds one feature from its second column: nothing, a gap over lava
(1-2 columns wide, hard 1-3), a hazard on the ground (CoinRun: a saw; Ninja: a bomb), or a
crate (1 high, hard 1-2). A jump rises 3 rows and clears up to 7 columns, so every course can be
run (the planner certifies it). Ending a turn on a hazard or on lava kills you.

CoinRun: reach the coin on the end platform: +1 (the episode ends); dying ends the episode
with 0. Return range [0, 1].
Ninja: THROW sends a shuriken right along your row, 2 cells a turn (one at a time), stopped by
solid ground; it blows up the first bomb it meets: +0.4 / (bombs in the level) per bomb.
Reaching the mushroom pays +0.6 (+0.4 more when the level has no bomb) and ends the episode;
dying ends it with no penalty. Return range [0, 1].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.suites.procgen.engine import (PHYSICS_RULES, Game, ProcgenState, fresh_state,
                                            move_body, paint_entities)

H, W = 16, 64
START_COLS, SEG, END_COLS = 3, 5, 3
MAX_SEG = (W - START_COLS - END_COLS) // SEG  # 11
START_GROUND = 3  # ground rows under the start
EMPTY_C, GROUND_C, CRATE_C, HAZARD_C, LAVA_C, GOAL_C, SHURIKEN_C = range(7)
OUT_C = 9  # beyond the course's end (drawn as outside the level)
GROUND, CRATE, LAVA = "▒", "▣", "≈"
_ROWS = np.arange(H)[:, None]
_COLS = np.arange(W)


def course(draws, hard) -> tuple[jax.Array, jax.Array, jax.Array]:
    """A random course -> (world int32[H, W] codes with hazards as HAZARD_C and the goal on the
    end platform, start pos int32[2], number of hazards)."""
    n = draws.randint(jnp.where(hard, 8, 6), jnp.where(hard, 12, 10))
    kind = draws.randint(0, 4, (MAX_SEG,))  # 0 none, 1 gap, 2 hazard, 3 crate
    dh = draws.randint(jnp.where(hard, -3, -2), 3, (MAX_SEG,))
    gap_w = draws.randint(1, jnp.where(hard, 4, 3), (MAX_SEG,))
    crate_h = draws.randint(1, jnp.where(hard, 3, 2), (MAX_SEG,))
    seg_ground = jnp.clip(START_GROUND + jnp.cumsum(dh), 1, H - 6)
    width = START_COLS + SEG * n + END_COLS
    seg = jnp.clip((_COLS - START_COLS) // SEG, 0, MAX_SEG - 1)
    off = (_COLS - START_COLS) % SEG
    in_course = (_COLS >= START_COLS) & (seg < n)
    last = seg_ground[jnp.clip(n - 1, 0, MAX_SEG - 1)]
    ground = jnp.where(_COLS < START_COLS, START_GROUND, jnp.where(in_course, seg_ground[seg], last))
    k = jnp.where(in_course, kind[seg], 0)
    gap = (k == 1) & (off >= 1) & (off < 1 + gap_w[seg])
    top = H - ground  # first ground row of each column
    world = jnp.where((_ROWS >= top[None, :]) & ~gap[None, :], GROUND_C, EMPTY_C)
    world = jnp.where(gap[None, :] & (_ROWS == H - 1), LAVA_C, world)
    feature = off[None, :] == 2
    hazard = (k == 2)[None, :] & feature & (_ROWS == top[None, :] - 1)
    crate = (k == 3)[None, :] & feature & (_ROWS < top[None, :]) & (_ROWS >= top[None, :] - crate_h[seg][None, :])
    world = jnp.where(hazard, HAZARD_C, jnp.where(crate, CRATE_C, world))
    goal = (_COLS[None, :] == width - 2) & (_ROWS == top[None, :] - 1)
    world = jnp.where(goal, GOAL_C, world)
    world = jnp.where(_COLS[None, :] >= width, OUT_C, world)
    start = jnp.array([H - START_GROUND - 1, 1], jnp.int32)
    return world, start, jnp.sum(hazard, dtype=jnp.int32)


def _solid(world: jax.Array) -> jax.Array:
    return (world == GROUND_C) | (world == CRATE_C) | (world == OUT_C)


def _paint(out_code: int):
    """World codes for the table (OUT_C drawn as the outside glyph `out_code`)."""
    return lambda s: jnp.where(s.world == OUT_C, out_code, s.world.astype(jnp.int32))


def _run_outcome(state: ProcgenState, moved: ProcgenState):
    """-> (cell code under you after the move, died, won)."""
    r, c = moved.pos[0], moved.pos[1]
    code = moved.world[jnp.clip(r, 0, H - 1), jnp.clip(c, 0, W - 1)]
    died = (code == HAZARD_C) | (code == LAVA_C) | (r >= H - 1)
    return code, died, ~died & (code == GOAL_C)


# --- coinrun ------------------------------------------------------------------------------------
COINRUN_ACTIONS = ("NOOP", "LEFT", "RIGHT", "JUMP", "JUMP_RIGHT")
COINRUN_DESCRIPTIONS = ("do nothing (you still fall)", "move one column left", "move one column right",
                        "jump (only when standing on something)", "jump and move one column right")
SAW, COIN = "✶", "$"


def coinrun_generate(draws, hard, level) -> ProcgenState:
    world, start, _ = course(draws, hard)
    return fresh_state(world, start, level, total=1)


def coinrun_step(state: ProcgenState, action, params):
    moved = move_body(state, _solid(state.world), action, (0, -1, 1, 0, 1), (False, False, False, True, True))
    _, died, won = _run_outcome(state, moved)
    moved = moved.replace(items=won.astype(jnp.int32))
    return moved, won.astype(jnp.float32), died | won, jnp.select([won, died], [1, 2], 0)


COINRUN = Game(
    name="coinrun", world=(H, W), view=(12, 20), cells=" " + GROUND + CRATE + SAW + LAVA + COIN,
    glyphs={GROUND: "solid ground", CRATE: "crate (solid)", SAW: "saw blade (deadly)",
            LAVA: "lava (deadly)", COIN: "the coin (the goal)"},
    actions=COINRUN_ACTIONS, descriptions=COINRUN_DESCRIPTIONS,
    rules=(PHYSICS_RULES + "You jump only from the ground. Run right and take the coin at the end "
           "of the course. Ending a turn on a saw blade or lava kills you."),
    reward="+1 on taking the coin (the episode ends); dying ends the episode with 0. Return range [0, 1].",
    events=("", "You got the coin. You win!", "You died."), success=(1,),
    generate=coinrun_generate, step=coinrun_step, paint=_paint(7),
    draws=2 + 4 * MAX_SEG, hud="", side_view=True, progress=lambda s: s.pos[1],
    plan_key=lambda s: (s.pos, s.phase),
    hard_notes="longer courses (8-11 segments), wider gaps (up to 3), drops of up to 3 rows, crates up to 2 high.")


# --- ninja --------------------------------------------------------------------------------------
NINJA_ACTIONS = ("NOOP", "LEFT", "RIGHT", "JUMP", "JUMP_RIGHT", "THROW")
NINJA_DESCRIPTIONS = COINRUN_DESCRIPTIONS + ("throw a shuriken to your right (one in flight at a time)",)
BOMB, MUSHROOM, SHURIKEN = "ó", "♣", "✢"
BOMB_SHARE, GOAL_SHARE = 0.4, 0.6


def ninja_generate(draws, hard, level) -> ProcgenState:
    world, start, bombs = course(draws, hard)
    return fresh_state(world, start, level, total=bombs, ents=jnp.zeros((1, 3), jnp.int32),
                       alive=jnp.zeros((1,), jnp.bool_))


def _fly_shuriken(world, star, flying):
    """The shuriken advances 2 cells; -> (world, star, flying, bomb destroyed)."""
    hit = jnp.bool_(False)
    for _ in range(2):
        r, c = star[0], star[1] + 1
        code = jnp.where(c < W, world[jnp.clip(r, 0, H - 1), jnp.clip(c, 0, W - 1)].astype(jnp.int32), OUT_C)
        boom = flying & (code == HAZARD_C)
        stop = flying & ((code == GROUND_C) | (code == CRATE_C) | (code == OUT_C) | boom)
        rr, cc = jnp.clip(r, 0, H - 1), jnp.clip(c, 0, W - 1)
        world = world.at[rr, cc].set(jnp.where(boom, jnp.int8(EMPTY_C), world[rr, cc]))
        hit = hit | boom
        star = jnp.where(flying & ~stop, jnp.stack([r, c]), star)
        flying = flying & ~stop
    return world, star, flying, hit


def ninja_step(state: ProcgenState, action, params):
    moved = move_body(state, _solid(state.world), action, (0, -1, 1, 0, 1, 0),
                      (False, False, False, True, True, False))
    flying = state.alive[0]
    throw = (action == 5) & ~flying
    star = jnp.where(throw, moved.pos, state.ents[0, :2])
    world, star, flying, hit = _fly_shuriken(moved.world, star, flying | throw)
    moved = moved.replace(world=world, ents=state.ents.at[0, :2].set(star), alive=flying[None],
                          items=moved.items + hit.astype(jnp.int32))
    _, died, won = _run_outcome(state, moved)
    share = BOMB_SHARE / jnp.maximum(moved.total, 1).astype(jnp.float32)
    reward = jnp.where(hit, share, 0.0) + jnp.where(won, GOAL_SHARE + jnp.where(moved.total == 0, BOMB_SHARE, 0.0), 0.0)
    return moved, reward.astype(jnp.float32), died | won, jnp.select([won, died, hit], [1, 2, 3], 0)


NINJA = Game(
    name="ninja", world=(H, W), view=(12, 20),
    cells=" " + GROUND + CRATE + BOMB + LAVA + MUSHROOM + SHURIKEN,
    glyphs={GROUND: "solid ground", CRATE: "crate (solid)", BOMB: "bomb (deadly to touch)",
            LAVA: "lava (deadly)", MUSHROOM: "the mushroom (the goal)", SHURIKEN: "your shuriken in flight"},
    actions=NINJA_ACTIONS, descriptions=NINJA_DESCRIPTIONS,
    rules=(PHYSICS_RULES + "You jump only from the ground. Run right to the mushroom at the end "
           "of the course. Ending a turn on a bomb or lava kills you. THROW sends a "
           "shuriken right along your row, 2 cells a turn, until it hits solid ground or a bomb "
           "(the bomb is destroyed)."),
    reward=("+0.4 / B per bomb destroyed (B = bombs in the level), +0.6 on reaching the mushroom "
            "(+0.4 more when the level has no bomb; the episode ends); dying ends the episode "
            "with no penalty. Return range [0, 1]."),
    events=("", "You reached the mushroom. You win!", "You died.", "Your shuriken destroyed a bomb."),
    success=(1,), generate=ninja_generate, step=ninja_step,
    paint=lambda s: paint_entities(_paint(8)(s), s.ents, s.alive, SHURIKEN_C),
    draws=2 + 4 * MAX_SEG, hud="Bombs destroyed: {items} / {total}", side_view=True, progress=lambda s: s.pos[1],
    plan_key=lambda s: (s.pos, s.phase, s.ents, s.alive, s.items),
    hard_notes="longer courses (8-11 segments), wider gaps (up to 3), drops of up to 3 rows, crates up to 2 high.")
