"""Arcade mechanics shared by the games: balls and paddles, scrolling rows, invader formations
and cannons. Pure, jittable functions over integer cells; entity pools come from
`glyphjax.core.entities`.

Ball rules (Breakout, Pong): the ball moves one cell along each axis per turn. A component whose
next cell would leave the walls' range flips instead of moving that turn (MinAtar's rule: at a
wall the ball moves only along the other axis), so along one axis it runs lo, ..., hi, hi, hi - 1,
... (`fold` is the closed form) and diagonal paths do not keep one parity of cells. A ball that
would enter a paddle's cell instead turns back and stays where it is this turn; the paddle's
outer thirds send it off diagonally towards their side, its middle straight back
(`paddle_bounce`).
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.sampling import uniform_true
from glyphjax.suites.arcade.engine import action_delta


# --- balls and paddles ------------------------------------------------------------------------------
def wall_bounce(pos: jax.Array, vel: jax.Array, axis: int, lo, hi) -> tuple[jax.Array, jax.Array]:
    """-> (move, vel): when the ball's next cell along `axis` leaves [lo, hi], that component of
    vel flips and the ball does not move along `axis` this turn; otherwise it moves by vel."""
    flip = (pos[axis] + vel[axis] < lo) | (pos[axis] + vel[axis] > hi)
    move = vel.at[axis].set(jnp.where(flip, 0, vel[axis]))
    return move, vel.at[axis].set(jnp.where(flip, -vel[axis], vel[axis]))


def fold(x: jax.Array, v: jax.Array, steps: jax.Array, lo: int, hi: int) -> jax.Array:
    """Where a ball at x moving v (-1, 0, +1) along one axis is after `steps` turns between walls
    lo and hi under `wall_bounce` (the scripted policies' landing prediction)."""
    span = hi - lo
    m = (x - lo + v * steps) % (2 * span + 2)
    return lo + jnp.where(m <= span, m, 2 * span + 1 - m)


def paddle_bounce(offset: jax.Array, width: int) -> jax.Array:
    """The ball's velocity across the paddle after it hits paddle cell `offset` (0 = first):
    -1 on the first third, +1 on the last third, 0 (straight back) in the middle."""
    third = max(width // 3, 1)
    return jnp.where(offset < third, -1, jnp.where(offset >= width - third, 1, 0)).astype(jnp.int32)


def slide(pos: jax.Array, delta: jax.Array, lo: jax.Array, hi: jax.Array) -> jax.Array:
    """pos + delta clipped into the box [lo, hi] (per axis): a paddle or a walker at the border."""
    return jnp.clip(pos + delta, lo, hi).astype(jnp.int32)


def covers(top_left: jax.Array, cell: jax.Array, length: int, axis: int) -> tuple[jax.Array, jax.Array]:
    """Does a paddle of `length` cells from `top_left` along `axis` cover `cell`? -> (hit, offset)."""
    offset = cell[axis] - top_left[axis]
    other = 1 - axis
    hit = (cell[other] == top_left[other]) & (offset >= 0) & (offset < length)
    return hit, offset


# --- scrolling rows -----------------------------------------------------------------------------------
def scroll(lanes: jax.Array, t: jax.Array) -> jax.Array:
    """New lane table after turn t: each row (offset, direction, period) shifts its offset by its
    direction on turns where t % period == 0."""
    moves = (t % jnp.maximum(lanes[:, 2], 1)) == 0
    return lanes.at[:, 0].add(jnp.where(moves, lanes[:, 1], 0))


def scrolled(cells: jax.Array, lanes: jax.Array) -> jax.Array:
    """cells[H, W] with row r rotated right by lanes[r, 0] (wrapping): the rows as seen now."""
    w = cells.shape[1]
    src = (jnp.arange(w)[None, :] - lanes[:, :1]) % w
    return jnp.take_along_axis(cells, src, axis=1)


# --- shooters -------------------------------------------------------------------------------------------
def march(foes: entities.Pool, heading: jax.Array, w: int, moves: jax.Array) -> tuple[entities.Pool, jax.Array]:
    """One formation move (Space Invaders): every live foe steps one column along `heading`
    (+-1), or, when one of them would leave the field, the formation steps one row down and the
    heading flips. Only on turns where `moves`. -> (foes, heading)."""
    nxt = foes.pos[:, 1] + heading
    edge = jnp.any(foes.alive & ((nxt < 0) | (nxt >= w)))
    delta = jnp.where(edge, jnp.array([1, 0]), jnp.stack([0, heading]))
    pos = jnp.where(moves & foes.alive[:, None], foes.pos + delta, foes.pos).astype(jnp.int32)
    return foes.replace(pos=pos), jnp.where(moves & edge, -heading, heading).astype(jnp.int32)


def fire(shots: entities.Pool, muzzle: jax.Array, vel: tuple[int, int], pressed: jax.Array) -> entities.Pool:
    """A new shot at `muzzle` moving `vel` when `pressed` and a shot slot is free."""
    return entities.spawn(shots, muzzle, jnp.array(vel, jnp.int32), 0, where=pressed)


def shoot_down(shots0: entities.Pool, shots1: entities.Pool, foes0: entities.Pool,
               foes1: entities.Pool) -> tuple[entities.Pool, entities.Pool, jax.Array]:
    """Each shot that meets foes this turn (`entities.hits`, swept along its path) destroys the
    one nearest its start and dies; a foe hit by several shots counts once.
    -> (shots, foes, number of foes destroyed)."""
    hit = entities.hits(shots0, shots1, foes0, foes1)  # [shots, foes]
    dist = jnp.abs(foes1.pos[None] - shots0.pos[:, None]).sum(-1)
    first = jnp.argmin(jnp.where(hit, dist, 1 << 20), axis=1)
    shot_hit = hit.any(axis=1)
    foe_hit = (jax.nn.one_hot(first, foes1.size, dtype=bool) & shot_hit[:, None]).any(axis=0)
    return entities.kill(shots1, shot_hit), entities.kill(foes1, foe_hit), foe_hit.sum().astype(jnp.int32)


def meets(before: entities.Pool, after: entities.Pool, cell_before: jax.Array, cell_after: jax.Array) -> jax.Array:
    """bool[N]: entities that meet a body moving cell_before -> cell_after this turn (one cell a
    turn each): they end on one cell or swap cells. Unlike `entities.point_hits`, an entity that
    steps into the cell the body just left does not meet it (a chase one cell behind is safe)."""
    same = (after.pos == cell_after[None]).all(-1)
    swap = (after.pos == cell_before[None]).all(-1) & (before.pos == cell_after[None]).all(-1)
    return after.alive & (same | swap)


def action_values(value: Callable, n: int) -> jax.Array:
    """float32[n]: a scripted policy's look-ahead `value(a)` of each action a in 0..n-1 (one
    vmapped evaluation)."""
    return jax.vmap(value)(jnp.arange(n))


def best_action(value: Callable, n: int, noise: jax.Array | float = 0.0) -> jax.Array:
    """int32: the action in 0..n-1 of highest `value(a)` (plus `noise[a]`, to break ties at
    random); the lowest such action on a tie."""
    return jnp.argmax(action_values(value, n) + noise).astype(jnp.int32)


def path_clear(pool: entities.Pool, t: jax.Array, period: jax.Array, start: jax.Array, rows: jax.Array,
               cols: jax.Array) -> jax.Array:
    """Does a body leaving `start` along the path (rows, cols: int32[K], its cell after each of
    the next K turns) meet none of the pool's entities (`meets`: same cell or swapped cells), if
    they walk straight on, one step of their velocity on turns where t % period == 0 (turns at
    walls are ignored)? A look-ahead for scripted policies (a jump over a walker)."""
    k = jnp.arange(rows.shape[0] + 1)
    moves = jnp.cumsum(jnp.where(k > 0, (t + k - 1) % period == 0, 0))
    at = pool.pos[None] + pool.vel[None] * moves[:, None, None]  # [K + 1, N, 2]
    path = jnp.stack([jnp.concatenate([start[:1], rows]), jnp.concatenate([start[1:], cols])], -1)[:, None]
    same = (at[1:] == path[1:]).all(-1)
    swap = (at[1:] == path[:-1]).all(-1) & (at[:-1] == path[1:]).all(-1)
    return ~(pool.alive[None] & (same | swap)).any()


CANNON_ACTIONS = ("NOOP", "LEFT", "RIGHT", "FIRE")
CANNON_DESCRIPTIONS = ("stay where you are", "move the cannon one column left",
                       "move the cannon one column right", "fire a shot upwards")
CANNON_MOVES = ((0, 0), (0, -1), (0, 1), (0, 0))
CANNON_FIRE = 3
CANNON, SHOT, BOMB = "▲", "↑", "↓"
CANNON_GLYPHS = {CANNON: "your cannon", SHOT: "your shot", BOMB: "bomb"}
CANNON_CELLS = CANNON + SHOT + BOMB  # cell codes 2, 3, 4 of a cannon game (1 = its foe)


def cannon_paint(state, setting) -> jax.Array:
    """A cannon game's `Game.paint`: 1 foes, 4 bombs, 3 shots, 2 your cannon (drawn in that order)."""
    codes = jnp.zeros(setting.size, jnp.int32)
    codes = entities.paint(codes, state.foes, jnp.array([1], jnp.int32))
    codes = entities.paint(codes, state.bombs, jnp.array([4], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([3], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(2)


def cannon_turn(draws, state, action: jax.Array, size: tuple[int, int], rate: jax.Array,
                move_foes: Callable) -> tuple:
    """One turn of a bottom-row cannon game (NOOP, LEFT, RIGHT, FIRE): the cannon moves or fires
    (a shot climbing two rows a turn, one on screen at a time), shots and bombs move, the foes
    move (`move_foes(state) -> (foes, phase)`), shots destroy the foes they meet, a bomb meeting
    the cannon is a hit, and with probability `rate` a random live foe drops a bomb below it.
    -> (state, foes destroyed, bombed). Takes two numbers from `draws`."""
    h, w = size
    you = jnp.clip(state.player + action_delta(action, CANNON_MOVES), 0, jnp.array([h - 1, w - 1])).astype(jnp.int32)
    shots0 = fire(state.shots, you, (-2, 0), action == CANNON_FIRE)
    shots1 = entities.advance(shots0, h, w)
    bombs1 = entities.advance(state.bombs, h, w)
    foes, phase = move_foes(state)
    shots, foes, kills = shoot_down(shots0, shots1, state.foes, foes)
    bombed = meets(state.bombs, bombs1, state.player, you).any()
    dropper, any_alive = random_alive(foes, draws.uniform())
    drop = (draws.uniform() < rate) & any_alive
    bombs = entities.spawn(bombs1, foes.pos[dropper] + jnp.array([1, 0]), jnp.array([1, 0]), 0, where=drop)
    return state.replace(player=you, shots=shots, bombs=bombs, foes=foes, phase=phase), kills, bombed


def cannon_policy(state, period: jax.Array, heading: jax.Array) -> jax.Array:
    """Shoot the nearest foe: walk under the column where the live foe closest in column will be
    when a shot reaches its row (moving `heading[i]` columns every `period` turns, reflected at
    the sides), FIRE there,
    unless that move ends in a column where a bomb is two rows up or nearer; then the first safe
    one of staying, left and right."""
    you = state.player
    gap = jnp.where(state.foes.alive, jnp.abs(state.foes.pos[:, 1] - you[1]), 1 << 20)
    i = jnp.argmin(gap)
    target = state.foes.pos[i]
    lead = ((you[0] - target[0]) // 2 + 1) // period
    span = 2 * (state.field.shape[1] - 1)
    aim = (target[1] + heading[i] * lead) % span
    aim = jnp.where(aim < span // 2 + 1, aim, span - aim)
    walk = jnp.where(aim < you[1], 1, jnp.where(aim > you[1], 2, CANNON_FIRE))
    b = state.bombs
    cols = you[1] + jnp.array([0, -1, 1, 0])  # where each action ends
    unsafe = (b.alive[None] & (b.pos[None, :, 1] == cols[:, None]) & (you[0] - b.pos[None, :, 0] <= 2)).any(-1)
    fallback = jnp.where(~unsafe[0], 0, jnp.where(~unsafe[1] & (you[1] > 0), 1, 2))
    return jnp.where(unsafe[walk], fallback, walk).astype(jnp.int32)


def random_alive(pool: entities.Pool, u: jax.Array) -> tuple[jax.Array, jax.Array]:
    """A uniformly random live entity from the uniform u -> (index, found)."""
    idx = uniform_true(pool.alive, u)
    return idx, pool.alive.any()


# --- pinball ------------------------------------------------------------------------------------------
def pinball_move(pos: jax.Array, vel: jax.Array, rise: jax.Array, solid: jax.Array, lo: int, hi: int,
                 bump_rise: int, kick: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """One turn of a pinball under the rise-then-fall rule: a rising ball (vel[0] = -1) counts
    `rise` down and turns to fall (vel[0] = +1) when it reaches 0; the side walls (columns lo, hi)
    and the ceiling (row 1) reflect it as `wall_bounce` does. A ball whose next cell is `solid`
    (bumpers, targets: bool[H, W]) strikes it: it stays, both components of vel flip, a ball sent
    straight up or down gets the sideways `kick` (+-1), and one sent up rises `bump_rise` rows.
    -> (pos, vel, rise, struck: int32[2] the cell struck, or (-1, -1))."""
    falls = (vel[0] < 0) & (rise <= 0)
    vel = vel.at[0].set(jnp.where(falls, 1, vel[0]))
    move, vel = wall_bounce(pos, vel, 1, lo, hi)
    move_r, vel = wall_bounce(pos, vel, 0, 1, solid.shape[0] + 1)  # the floor is open
    nxt = pos + move.at[0].set(move_r[0])
    h, w = solid.shape
    hit = solid[jnp.clip(nxt[0], 0, h - 1), jnp.clip(nxt[1], 0, w - 1)] & (nxt != pos).any()
    back = jnp.stack([-vel[0], jnp.where(vel[1] == 0, kick, -vel[1])])
    vel = jnp.where(hit, back, vel).astype(jnp.int32)
    rise = jnp.where(hit & (vel[0] < 0), bump_rise, rise - (vel[0] < 0)).astype(jnp.int32)
    return (jnp.where(hit, pos, nxt).astype(jnp.int32), vel, rise,
            jnp.where(hit, nxt, jnp.array([-1, -1])).astype(jnp.int32))
