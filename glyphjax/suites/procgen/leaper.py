"""Leaper: cross a road and a river (Frogger) to the finish line.

Level (bottom to top, 14 columns): your start row, 1-3 (hard 2-4) road lanes, a safe median,
1-3 (hard 2-4) river lanes, the finish line. Every lane moves its row one cell sideways every
1-3 (hard 1-2) turns (lanes wrap around at the sides; hard: neighbouring river lanes move in
opposite directions); road lanes carry cars (1-2 long, every
4-7 cells), river lanes logs (2-4 long, hard 2-3, with 1-2 cells of water between, hard 2-3).
Each turn you move first (UP/DOWN/LEFT/RIGHT one cell, never past the level's edge), then the
lanes move and a log you stand on carries you. You die when a turn ends with you under a car,
in the water, or carried past the side of the river. +1 on reaching the finish line (the
episode ends); dying ends it with 0. Return range [0, 1].
Lanes keep their own countdowns in the state (not the step counter), so a state alone fixes
the future, as the planner's search assumes.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from glyphjax.suites.procgen.engine import (WALK_ACTIONS, WALK_DESCRIPTIONS, Game, ProcgenState,
                                            fresh_state, walk_target)

H, W = 11, 14
N_LANES = 8
SAFE_C, ROAD_C, CAR_C, WATER_C, LOG_C, FINISH_C = range(6)
YOU_C, OUT_C = 6, 7
ROAD, CAR, WATER, LOG, FINISH = "·", "◘", "~", "=", "▀"
_COLS = np.arange(W)
_ROWS = np.arange(H)


def _lane_row(draws, river, hard):
    """One lane's cells (int32[W]) -> road with cars or water with logs."""
    off = draws.randint(0, 14)
    car_len, car_gap = draws.randint(1, 3), draws.randint(3, 6)
    log_len = draws.randint(2, jnp.where(hard, 4, 5))
    water = draws.randint(jnp.where(hard, 2, 1), jnp.where(hard, 4, 3))
    length = jnp.where(river, log_len, car_len)
    period = length + jnp.where(river, water, car_gap)
    thing = ((_COLS + off) % period) < length
    return jnp.where(river, jnp.where(thing, LOG_C, WATER_C), jnp.where(thing, CAR_C, ROAD_C))


def leaper_generate(draws, hard, level) -> ProcgenState:
    n_road = draws.randint(jnp.where(hard, 2, 1), jnp.where(hard, 5, 4))
    n_river = draws.randint(jnp.where(hard, 2, 1), jnp.where(hard, 5, 4))
    road_top = H - 1 - n_road  # first road row
    median = road_top - 1
    finish = median - n_river - 1
    world = jnp.where(_ROWS[:, None] < finish, OUT_C, SAFE_C) * jnp.ones((1, W), jnp.int32)
    world = jnp.where(_ROWS[:, None] == finish, FINISH_C, world)
    lanes, prev = [], jnp.int32(1)
    for k in range(N_LANES):
        road = k < 4
        row = jnp.where(road, H - 2 - k, median - 1 - (k - 4))
        active = jnp.where(road, k < n_road, (k - 4) < n_river)
        cells = _lane_row(draws, not road, hard)
        world = jnp.where((_ROWS[:, None] == row) & active, cells[None, :], world)
        period = draws.randint(1, jnp.where(hard, 3, 4))
        direction = jnp.where(draws.bernoulli(0.5), 1, -1)
        # hard: river lanes above the first alternate directions (two lanes moving alike at one
        # speed keep their logs apart forever, which can make a level impossible)
        direction = jnp.where(hard & (k > 4), -prev, direction)
        prev = direction
        lanes.append((jnp.where(active, row, -1), direction * period, period, active))
    ents = jnp.stack([jnp.stack([r, v, p]) for r, v, p, _ in lanes]).astype(jnp.int32)
    alive = jnp.stack([a for *_, a in lanes])
    return fresh_state(world, jnp.array([H - 1, W // 2], jnp.int32), level, total=1, ents=ents, alive=alive)


def _move_lanes(world, ents, alive):
    """Lanes whose countdown ends roll one cell -> (world, ents, per-row shift int32[H])."""
    row, vel, count = ents[:, 0], ents[:, 1], ents[:, 2]
    fire = alive & (count <= 1)
    step = jnp.sign(vel) * fire
    shift = jnp.zeros((H,), jnp.int32).at[jnp.clip(row, 0, H - 1)].add(jnp.where(alive, step, 0))
    src = (_COLS[None, :] - shift[:, None]) % W
    world = jnp.take_along_axis(world, src, axis=1)
    count = jnp.where(fire, jnp.abs(vel), count - 1)
    return world, jnp.stack([row, vel, count], axis=1).astype(jnp.int32), shift


def leaper_step(state: ProcgenState, action, params):
    target = walk_target(state.pos, action)
    r, c = target[0], target[1]
    ok = (c >= 0) & (c < W) & (r < H) & (state.world[jnp.clip(r, 0, H - 1), jnp.clip(c, 0, W - 1)] != OUT_C)
    pos = jnp.where(ok, target, state.pos)
    on_log = state.world[pos[0], pos[1]] == LOG_C
    world, ents, shift = _move_lanes(state.world, state.ents, state.alive)
    col = pos[1] + jnp.where(on_log, shift[pos[0]], 0)
    swept = (col < 0) | (col >= W)
    pos = jnp.stack([pos[0], jnp.clip(col, 0, W - 1)]).astype(jnp.int32)
    code = world[pos[0], pos[1]]
    died = swept | (code == CAR_C) | (code == WATER_C)
    won = ~died & (code == FINISH_C)
    nxt = state.replace(world=world.astype(jnp.int8), ents=ents, pos=pos, items=won.astype(jnp.int32))
    return nxt, won.astype(jnp.float32), died | won, jnp.select([won, swept, code == CAR_C, died], [1, 2, 3, 4], 0)


LEAPER = Game(
    name="leaper", world=(H, W), view=(12, 14), cells=" " + ROAD + CAR + WATER + LOG + FINISH,
    glyphs={ROAD: "road", CAR: "car (deadly)", WATER: "water (deadly)", LOG: "floating log (carries you)",
            FINISH: "the finish line (the goal)"},
    actions=WALK_ACTIONS, descriptions=WALK_DESCRIPTIONS,
    rules=("Cross the road and the river to the finish line at the top. Each turn you move one cell "
           "(or wait), then every lane moves its row one cell sideways every few turns; a log "
           "you stand on carries you. A turn that ends with you under a car, in the water, or "
           "carried past the side of the river kills you."),
    reward="+1 on reaching the finish line (the episode ends); dying ends the episode with 0. Return range [0, 1].",
    events=("", "You reached the finish line. You win!", "The river swept you away.",
            "A car hit you.", "You fell into the water."), success=(1,),
    generate=leaper_generate, step=leaper_step,
    paint=lambda s: s.world.astype(jnp.int32), draws=4 + 8 * N_LANES, hud="",
    progress=lambda s: -s.pos[0],
    hard_notes=("2-4 road and 2-4 river lanes (easy 1-3), faster lanes, shorter logs and wider water; "
                "neighbouring river lanes move in opposite directions."))
