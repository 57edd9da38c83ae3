"""Plunder: sink 20 enemy pirate ships from your ship at the bottom before the timer runs out.

Field 12 x 20, the whole of it in view. Ships sail five lanes (rows 1-5); the level (seed) fixes
each lane's direction and speed (a cell every 1-3 turns, hard 1-2). Each turn a new ship enters
at a random lane's upwind edge with probability 0.15 (the episode's chance, not the level's),
an enemy (`♠`) or a friendly ship (`♥`) with equal odds; ships leave at the far side. You sail
row 11 (LEFT/RIGHT one cell a turn; UP does nothing: your ship keeps to its row); FIRE (at
most every 3rd turn) sends a cannonball up 2 cells a turn. Hard levels put 0-3 wooden panels
(`▬`, 2 cells wide) in rows 7-8 that stop cannonballs.
The timer starts at 150 and loses 1 a turn and 5 per shot; sinking an enemy adds 25 (at most
back to 150), sinking a friendly ship takes 25. The episode ends when it reaches 0, or with a
win at the 20th enemy sunk.
Reward (pattern A): +1/20 per enemy ship sunk (the 20th ends the episode with a win). Return
range [0, 1].
Differs from OpenAI Procgen: nothing kills you there either (GlyphBench's plunder has a -1 death
rule we do not copy); its ship types are coloured, ours are two glyphs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core import entities
from glyphjax.core.sampling import hash_bits
from glyphjax.suites.procgen.engine import Game, ProcgenState, fresh_state
from glyphjax.suites.procgen.shooters import GLYPHS_SHOTS, SHOT, every, extend, move_in_field, swept_on_mask

H, W = 12, 20
LANES, N_SHIPS, N_BALLS, N_PANELS = 5, 12, 4, 3
YOU_ROW = H - 1
QUOTA = 20
TIMER_MAX, SHOT_COST, HIT_GAIN = 150, 5, 25
SPAWN_P = 0.15
ENEMY, FRIEND = 0, 1
EMPTY_C, SHOT_C, ENEMY_C, FRIEND_C, PANEL_C = range(5)
ENEMY_SHIP, FRIEND_SHIP, PANEL = "♠", "♥", "▬"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "UP", "FIRE")
DESCRIPTIONS = ("do nothing", "sail one cell left", "sail one cell right",
                "nothing (your ship keeps to its row)", "fire a cannonball upwards (at most every 3rd turn)")
PLUNDER_FIRE = 4
EVENTS = ("", "You sank 20 enemy ships. You win!", "Time ran out.", "Enemy ship sunk.",
          "You sank a friendly ship: the timer loses 25.")
WIN, TIMEOUT, SUNK, FRIENDLY = 1, 2, 3, 4


@struct.dataclass(kw_only=True)  # after ProcgenState's defaulted fields
class PlunderState(ProcgenState):
    ships: entities.Pool  # kind ENEMY / FRIEND, velocity (0, +-1)
    balls: entities.Pool  # your cannonballs (velocity (-2, 0))
    lane_dir: jax.Array  # int32[LANES]: +1 sails right, -1 left
    lane_period: jax.Array  # int32[LANES]: turns per cell
    panels: jax.Array  # bool[H, W]: wooden panels (the engine's `timer` field is the countdown)
    cool: jax.Array  # int32: turns until you may fire again


def plunder_generate(draws, hard, level) -> PlunderState:
    """A level: each lane's direction and speed, and the panels (hard)."""
    lane_dir = jnp.where(draws.bernoulli(0.5, (LANES,)), 1, -1).astype(jnp.int32)
    lane_period = draws.randint(1, jnp.where(hard, 3, 4), (LANES,))
    n_panels = jnp.where(hard, draws.randint(0, N_PANELS + 1), 0)
    prow, pcol = draws.randint(7, 9, (N_PANELS,)), draws.randint(0, W - 1, (N_PANELS,))
    active = (jnp.arange(N_PANELS) < n_panels).astype(jnp.int32)
    panels = jnp.zeros((H, W), jnp.int32).at[prow, pcol].max(active).at[prow, pcol + 1].max(active)
    base = fresh_state(jnp.zeros((H, W), jnp.int8), (YOU_ROW, W // 2), level, total=QUOTA)
    return extend(PlunderState, base, ships=entities.empty(N_SHIPS), balls=entities.empty(N_BALLS),
                  lane_dir=lane_dir, lane_period=lane_period, panels=panels > 0,
                  timer=jnp.int32(TIMER_MAX), cool=jnp.int32(0))


def _sail(state: PlunderState, u: jax.Array) -> entities.Pool:
    """Ships due this turn sail a cell (leaving at the far side); maybe one enters."""
    ships = state.ships
    lane = jnp.clip(ships.pos[:, 0] - 1, 0, LANES - 1)
    due = ships.alive & every(state.t, state.lane_period[lane])
    pos = ships.pos + jnp.where(due[:, None], ships.vel, 0)
    ships = ships.replace(pos=pos, alive=ships.alive & (pos[:, 1] >= 0) & (pos[:, 1] < W))
    new_lane = jnp.floor(u[1] * LANES).astype(jnp.int32)
    d = state.lane_dir[new_lane]
    cell = jnp.stack([new_lane + 1, jnp.where(d > 0, 0, W - 1)])
    free = ~entities.occupancy(ships, H, W)[cell[0], cell[1]].astype(bool)
    kind = jnp.where(u[2] < 0.5, ENEMY, FRIEND)
    return entities.spawn(ships, cell, jnp.stack([0, d]), kind, where=(u[0] < SPAWN_P) & free)


def plunder_step(state: PlunderState, action, params, key):
    """One turn; the step key draws which ship enters where."""
    u = (hash_bits(key, 3) >> 8).astype(jnp.float32) * jnp.float32(2.0 ** -24)
    pos = move_in_field(state.pos, jnp.where(action == 3, 0, action), H, W, YOU_ROW)
    fire = (action == PLUNDER_FIRE) & (state.cool == 0)
    balls_b = entities.spawn(state.balls, pos, jnp.array([-2, 0]), 0, where=fire)
    balls_a = entities.advance(balls_b, H, W, "kill")
    ships_a = _sail(state, u)
    blocked = swept_on_mask(balls_b, balls_a, state.panels)
    hit = entities.hits(balls_b, balls_a, state.ships, ships_a) & ~blocked[:, None]
    first = jax.nn.one_hot(jnp.argmax(hit, 1), N_SHIPS, dtype=bool) & hit.any(1)[:, None]
    sunk = first.any(0)
    enemies = jnp.sum(sunk & (ships_a.kind == ENEMY), dtype=jnp.int32)
    friends = jnp.sum(sunk & (ships_a.kind == FRIEND), dtype=jnp.int32)
    timer = state.timer - 1 - SHOT_COST * fire + HIT_GAIN * (enemies - friends)
    timer = jnp.minimum(timer, TIMER_MAX).astype(jnp.int32)
    items = jnp.minimum(state.items + enemies, QUOTA)
    won = items >= QUOTA
    out = ~won & (timer <= 0)
    earned = items / QUOTA
    event = jnp.select([won, out, friends > 0, enemies > 0], [WIN, TIMEOUT, FRIENDLY, SUNK], 0)
    nxt = state.replace(pos=pos, balls=entities.kill(balls_a, blocked | hit.any(1)),
                        ships=entities.kill(ships_a, sunk), timer=jnp.maximum(timer, 0), items=items,
                        cool=jnp.where(fire, 2, jnp.maximum(state.cool - 1, 0)).astype(jnp.int32),
                        earned=jnp.float32(earned))
    return nxt, (earned - state.earned).astype(jnp.float32), won | out, event


def plunder_paint(state: PlunderState) -> jax.Array:
    """Cell codes: panels, ships, cannonballs."""
    codes = jnp.where(state.panels, PANEL_C, EMPTY_C)
    codes = entities.paint(codes, state.ships, jnp.array([ENEMY_C, FRIEND_C]))
    return entities.paint(codes, state.balls, jnp.array([SHOT_C]))


def plunder_policy(key, state: PlunderState, params):
    """Fire when a cannonball fired now meets an enemy ship (and no friendly one on the way);
    else sail towards the column where the nearest enemy will cross."""
    ships, c = state.ships, state.pos[1]
    lane = jnp.clip(ships.pos[:, 0] - 1, 0, LANES - 1)
    turns = (YOU_ROW - ships.pos[:, 0] + 1) // 2  # turns a ball fired now takes to the ship's row
    period, t = state.lane_period[lane], state.t
    moves = (t + turns - 1) // period - (t - 1) // period  # the ship's moves on turns t .. t+turns-1
    meet = ships.pos[:, 1] + ships.vel[:, 1] * moves
    enemy = ships.alive & (ships.kind == ENEMY) & (meet >= 0) & (meet < W)
    friend_in_way = (ships.alive & (ships.kind == FRIEND) & (meet == c)).any()
    shoot = (enemy & (meet == c)).any() & ~friend_in_way & (state.cool == 0)
    gap = jnp.where(enemy, meet - c, 1 << 20)
    target = gap[jnp.argmin(jnp.abs(gap))]
    move = jnp.where(~enemy.any() | (target == 0), 0, jnp.where(target < 0, 1, 2))
    return jnp.where(shoot, PLUNDER_FIRE, move)


def _hud(state: PlunderState):
    """HUD numbers: ships sunk, and the timer in the `total` slot."""
    return state.items, state.timer, jnp.int32(0), jnp.int32(0)


PLUNDER = Game(
    name="plunder", world=(H, W), view=(H, W), cells=" " + SHOT + ENEMY_SHIP + FRIEND_SHIP + PANEL,
    glyphs={SHOT: GLYPHS_SHOTS[SHOT], ENEMY_SHIP: "enemy pirate ship (sink it)",
            FRIEND_SHIP: "friendly ship (do not sink it)", PANEL: "wooden panel (stops cannonballs)"},
    actions=ACTIONS, descriptions=DESCRIPTIONS,
    rules=("Sink 20 enemy pirate ships before the timer runs out. Ships sail across five lanes "
           "(rows 1-5), each lane its own way and speed; new ships enter at random. You sail the "
           "bottom row; FIRE sends a cannonball up 2 cells a turn (at most every 3rd turn). The "
           "timer loses 1 a turn and 5 per shot; sinking an enemy adds 25 (up to 150), sinking a "
           "friendly ship takes 25; the episode ends when it reaches 0."),
    reward="+1/20 for each enemy ship sunk; the 20th ends the episode with a win. Return range [0, 1].",
    events=EVENTS, success=(WIN,), generate=plunder_generate, step=plunder_step,
    paint=plunder_paint, draws=2 * LANES + 1 + 2 * N_PANELS, hud="Sunk: {items} / 20    Timer: {total}",
    return_range=(0.0, 1.0), scripted_policy=plunder_policy, centred=False, keyed=True,
    hud_values=_hud, hard_notes="lanes are faster (a cell every 1-2 turns) and 0-3 wooden panels stop cannonballs.")
