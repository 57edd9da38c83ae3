"""Chaser: eat every orb of a maze with loops while ghosts hunt you (Procgen's chaser, after
Ms. Pac-Man).

Level: a perfect maze (`mazes.maze_level`) of n x n cells (easy n = 6, hard n = 9) with about a
third of its inner walls opened (so corridors form loops), an orb on every open cell, a power
star in three corners, you in the bottom-left cell and the ghosts (easy 3, hard 4) in the
central cell. Each turn you move one cell (walls block you) and eat what lies there; a power
star makes the ghosts flee for POWER_TURNS turns. Then the ghosts move by `core.chase` (towards
you, or away while fleeing; one move in five at random, from the episode key): a hunting ghost
moves three turns in four, a fleeing one every other turn. A ghost that meets you (same cell or
swapped cells) catches you (the episode ends) unless it flees: then you eat it (it is gone).
Reward: +0.5 / P per orb or star (P = orbs and stars in the level), +0.2 / G per ghost eaten
(G = ghosts in the level), +0.3 on eating the last orb (the episode ends, a win). Return range
[0, 1]; being caught pays nothing.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core import entities
from glyphjax.core.chase import chase_step, line_field
from glyphjax.suites.procgen.engine import (WALK_ACTIONS, WALK_DESCRIPTIONS, Game, ProcgenState,
                                            cell_at, fresh_state, walk_target)
from glyphjax.suites.procgen.mazes import SIZE, WALL_GLYPH, maze_level

C_EMPTY, C_WALL, C_ORB, C_STAR, C_GHOST, C_SCARED, C_OUT = 0, 1, 2, 3, 4, 5, 7  # 6 = you (engine)
ORB, STAR, GHOST, SCARED = "◦", "★", "☻", "☺"
MAX_GHOSTS = 4
POWER_TURNS = 20
ORB_SHARE, GHOST_SHARE, CLEAR_SHARE = 0.5, 0.2, 0.3
WANDER = 0.2  # share of ghost moves taken at random
OPEN_WALLS = 0.35  # share of inner walls opened into loops
_RR, _CC = np.meshgrid(np.arange(SIZE), np.arange(SIZE), indexing="ij")
_INNER_WALL = (_RR % 2) != (_CC % 2)  # sites between two maze cells (row or column even, not both)
EV_ORB, EV_STAR, EV_GHOST, EV_CAUGHT, EV_CLEAR = 1, 2, 3, 4, 5


def chaser_generate(draws, hard, level) -> ProcgenState:
    n = jnp.where(hard, 9, 6)
    open_, in_level, start = maze_level(draws, n)
    inner = _INNER_WALL & (_RR > 0) & (_CC > 0) & (_RR < 2 * n) & (_CC < 2 * n)
    open_ = open_ | (inner & (draws.uniform((SIZE, SIZE)) < OPEN_WALLS))
    centre = 2 * (n // 2) + 1
    corners = [((_RR == r) & (_CC == c)) for r, c in ((1, 1), (1, 2 * n - 1), (2 * n - 1, 2 * n - 1))]
    star = corners[0] | corners[1] | corners[2]
    free = open_ & ~((_RR == start[0]) & (_CC == start[1])) & ~((_RR == centre) & (_CC == centre))
    world = jnp.where(in_level, jnp.where(open_, jnp.where(star, C_STAR, jnp.where(free, C_ORB, C_EMPTY)), C_WALL), C_OUT)
    ghosts = jnp.where(hard, MAX_GHOSTS, 3)
    pool = entities.empty(MAX_GHOSTS).replace(pos=jnp.broadcast_to(jnp.stack([centre, centre]), (MAX_GHOSTS, 2)).astype(jnp.int32),
                                              alive=jnp.arange(MAX_GHOSTS) < ghosts)
    total = jnp.sum((world == C_ORB) | (world == C_STAR))
    return fresh_state(world, start, level, total=total, pool=pool, timer=0)


def _eat(state: ProcgenState, pos: jax.Array):
    """You on `pos`: its orb or star eaten -> (world, items, timer, reward, event)."""
    code = state.world[pos[0], pos[1]].astype(jnp.int32)
    got = (code == C_ORB) | (code == C_STAR)
    world = state.world.at[pos[0], pos[1]].set(jnp.where(got, C_EMPTY, code).astype(jnp.int8))
    timer = jnp.where(code == C_STAR, POWER_TURNS, state.timer)
    reward = jnp.where(got, ORB_SHARE / jnp.maximum(state.total, 1).astype(jnp.float32), 0.0)
    event = jnp.select([code == C_STAR, got], [EV_STAR, EV_ORB], 0)
    return world, state.items + got.astype(jnp.int32), timer, reward, event


def chaser_step(state: ProcgenState, action, params, key):
    target = walk_target(state.pos, action)
    code = cell_at(state.world, target[0], target[1], C_OUT)
    pos = jnp.where((code != C_WALL) & (code != C_OUT), target, state.pos).astype(jnp.int32)
    world, items, timer, reward, event = _eat(state, pos)
    scared = timer > 0
    moves = jnp.where(scared, state.t % 2 == 0, state.t % 4 != 3)
    passable = (world != C_WALL) & (world != C_OUT)
    ghosts = chase_step(state.pool, passable, line_field(pos, SIZE, SIZE), flee=scared,
                        u=jax.random.uniform(key, (MAX_GHOSTS, 2)), wander=WANDER, moves=moves)
    met = entities.point_hits(state.pool, ghosts, state.pos, pos, sweep=1)
    eaten = met & scared
    caught = (met & ~scared).any()
    reward = reward + GHOST_SHARE * jnp.sum(eaten) / jnp.where(params.hard, float(MAX_GHOSTS), 3.0)
    cleared = ~caught & (items == state.total)
    reward = jnp.where(cleared, reward + CLEAR_SHARE, reward)
    event = jnp.select([cleared, caught, eaten.any()], [EV_CLEAR, EV_CAUGHT, EV_GHOST], event)
    nxt = state.replace(world=world, pos=pos, items=items, timer=jnp.maximum(timer - 1, 0).astype(jnp.int32),
                        pool=entities.kill(ghosts, eaten), earned=state.earned + reward)
    return nxt, reward.astype(jnp.float32), caught | cleared, event


def chaser_paint(state: ProcgenState) -> jax.Array:
    code = jnp.where(state.timer > 0, C_SCARED, C_GHOST)
    return entities.paint(state.world.astype(jnp.int32), state.pool, jnp.stack([code]))


CHASER = Game(
    name="chaser", world=(SIZE, SIZE), view=(12, 20), cells=" " + WALL_GLYPH + ORB + STAR + GHOST + SCARED,
    glyphs={WALL_GLYPH: "wall", ORB: "orb (eat every one)", STAR: "power star (ghosts flee for a while)",
            GHOST: "ghost (catches you)", SCARED: "fleeing ghost (you can eat it)"},
    actions=WALK_ACTIONS, descriptions=WALK_DESCRIPTIONS,
    rules=("A maze with loops seen from above, full of orbs, with ghosts that hunt you. Each turn "
           "you move one cell (walls block you) and eat the orb or power star there; then the "
           "ghosts move (a hunting ghost three turns in four, mostly towards you). Eating a power "
           f"star makes the ghosts flee for {POWER_TURNS} turns (moving every other turn); a fleeing "
           "ghost you meet is eaten and gone. A hunting ghost that meets you (same cell, or you "
           "swap cells) catches you and the game ends. Eat every orb and star to win."),
    reward=("+0.5 / P per orb or power star eaten (P = orbs and stars in the level), +0.2 / G per "
            "ghost eaten (G = ghosts in the level), +0.3 on eating the last one (the episode ends, "
            "a win); being caught ends the episode and pays nothing. Return range [0, 1]."),
    events=("", "You ate an orb.", f"You ate a power star: the ghosts flee for {POWER_TURNS} turns.",
            "You ate a ghost.", "A ghost caught you. Game over.", "You ate every orb. You win!"),
    success=(EV_CLEAR,), generate=chaser_generate, step=chaser_step, paint=chaser_paint,
    draws=2 + 4 * (2 * 12 * 12 - 1) + SIZE * SIZE, hud="Orbs eaten: {items} / {total}", keyed=True,
    hard_notes="a 9 x 9-cell maze with 4 ghosts (easy: 6 x 6 cells, 3 ghosts).")
