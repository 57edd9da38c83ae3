"""Scrolling fields, flyers and fuel: the mechanics of the arcade shooters and flyers (River Raid,
Beamrider, Defender ...). Pure, jittable functions over integer cells; entity pools come from
`glyphjax.core.entities`.

A scrolling field is a cell grid (`ArcadeState.field`) that shifts one line on scroll turns: rows
move down (axis 0, a vertical scroller: the new row enters at the top) or columns move left (axis
1, a side scroller: the new column enters at the right). The entering line is generated from the
step key (`river_line`: two banks that each wander at most one cell a line, the water between
them never narrower than a minimum), and entities riding the field (`ride`) move with it. Enemy
waves enter at the entering edge (`enter`); patrolling craft turn round at blocked cells
(`patrol`); a ship moves in 2-D, clipped or wrapping (`fly`); fuel burns each turn and refills
at depots (`burn`, `refuel`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.sampling import uniform_true


def shift_in(field: jax.Array, line: jax.Array, axis: int, moves: jax.Array) -> jax.Array:
    """The field after one scroll when `moves`: axis 0 shifts rows down (`line` becomes row 0, the
    last row leaves), axis 1 shifts columns left (`line` becomes the last column)."""
    if axis == 0:
        shifted = jnp.concatenate([line[None].astype(field.dtype), field[:-1]], axis=0)
    else:
        shifted = jnp.concatenate([field[:, 1:], line[:, None].astype(field.dtype)], axis=1)
    return jnp.where(moves, shifted, field)


def banks_of(line: jax.Array, bank: int) -> tuple[jax.Array, jax.Array]:
    """(first water cell, first bank cell after the water) of a line: water fills [lo, hi)."""
    water = line != bank
    lo = jnp.argmax(water)
    hi = line.shape[0] - jnp.argmax(water[::-1])
    return lo.astype(jnp.int32), hi.astype(jnp.int32)


def river_line(prev: jax.Array, u: jax.Array, bank: int, water: int, min_width: int) -> jax.Array:
    """The line entering after `prev`: each bank steps -1, 0 or +1 (uniforms u[0], u[1]), at least
    one bank cell stays on each side and the water stays `min_width` wide (so each bank moves at
    most one cell a line and a ship moving one cell a turn can always follow the river)."""
    n = prev.shape[0]
    lo, hi = banks_of(prev, bank)
    step = jnp.floor(u * 3).astype(jnp.int32) - 1
    lo = jnp.clip(lo + step[0], 1, n - 1 - min_width)
    hi = jnp.clip(hi + step[1], lo + min_width, n - 1)
    cells = jnp.arange(n)
    return jnp.where((cells >= lo) & (cells < hi), water, bank).astype(prev.dtype)


def river(u: jax.Array, n: int, bank: int, water: int, min_width: int, start: tuple[int, int]) -> jax.Array:
    """int8[L, n]: a river of L = len(u) + 1 lines, the last one water on [start[0], start[1]), each
    line above it `river_line` of the one below (u: float32[L - 1, 2])."""
    cells = jnp.arange(n)
    last = jnp.where((cells >= start[0]) & (cells < start[1]), water, bank).astype(jnp.int8)

    def up(line, uu):
        nxt = river_line(line, uu, bank, water, min_width)
        return nxt, nxt

    _, above = jax.lax.scan(up, last, u)
    return jnp.concatenate([above[::-1], last[None]], axis=0)


def ride(pool: entities.Pool, moves: jax.Array, h: int, w: int, axis: int) -> entities.Pool:
    """Entities carried by the field on a scroll turn: one row down (axis 0) or one column left
    (axis 1); those that leave the field die. Their own velocities are kept."""
    drift = jnp.array([1, 0] if axis == 0 else [0, -1], jnp.int32)
    carried = entities.advance(pool.replace(vel=jnp.broadcast_to(drift, pool.vel.shape)), h, w, edge="kill",
                               moving=jnp.broadcast_to(moves, pool.alive.shape))
    return carried.replace(vel=pool.vel)


def patrol(pool: entities.Pool, blocked: jax.Array, moves: jax.Array, descend: bool = False) -> entities.Pool:
    """Entities step by their velocity when `moves` (bool or bool[N]); one whose next cell is off
    the field or `blocked` (bool[H, W]: banks, mushrooms) turns round instead, staying this turn
    or, with `descend` (static; Centipede's rule), dropping one row."""
    h, w = blocked.shape
    nxt = pool.pos + pool.vel
    r, c = jnp.clip(nxt[:, 0], 0, h - 1), jnp.clip(nxt[:, 1], 0, w - 1)
    stop = ~entities.inside(nxt, h, w) | blocked[r, c]
    go = pool.alive & jnp.broadcast_to(moves, pool.alive.shape)
    turned = pool.pos + jnp.array([1, 0], jnp.int32) if descend else pool.pos
    pos = jnp.where((go & ~stop)[:, None], nxt, jnp.where((go & stop)[:, None], turned, pool.pos))
    vel = jnp.where((go & stop)[:, None], -pool.vel, pool.vel)
    return pool.replace(pos=pos.astype(jnp.int32), vel=vel)


def strike(shots0: entities.Pool, shots1: entities.Pool, solid: jax.Array) -> tuple[entities.Pool, jax.Array]:
    """Shots stopped by solid cells (bool[H, W]: mushrooms, terrain): each shot alive before its
    move whose path (after its start, cell by cell, up to two cells) meets a solid cell ends there,
    alive, even if the move would have left the field. -> (shots, bool[N] stopped); callers
    resolve entity hits on the shortened paths, then remove the stopped shots."""
    h, w = solid.shape
    path = entities.path(shots0.pos, shots0.pos + shots0.vel, 2)[:, 1:]  # [N, 2, 2]
    inside = entities.inside(path, h, w)
    hit = shots0.alive[:, None] & inside & solid[jnp.clip(path[..., 0], 0, h - 1), jnp.clip(path[..., 1], 0, w - 1)]
    first = jnp.argmax(hit, axis=1)
    stopped = hit.any(axis=1)
    pos = jnp.where(stopped[:, None], path[jnp.arange(path.shape[0]), first], shots1.pos)
    return shots1.replace(pos=pos.astype(jnp.int32), alive=shots1.alive | stopped), stopped


def fly(pos: jax.Array, delta: jax.Array, lo: jax.Array, hi: jax.Array, wrap: bool) -> jax.Array:
    """A ship's cell after moving `delta`: clipped into the box [lo, hi] per axis, or (`wrap`,
    static) wrapping round it (leaving at one side enters at the other)."""
    lo, hi = jnp.asarray(lo, jnp.int32), jnp.asarray(hi, jnp.int32)
    if wrap:
        return (lo + (pos + delta - lo) % (hi - lo + 1)).astype(jnp.int32)
    return jnp.clip(pos + delta, lo, hi).astype(jnp.int32)


def enter(pool: entities.Pool, go: jax.Array, u: jax.Array, cells: jax.Array, ok: jax.Array, vel,
          kind) -> entities.Pool:
    """One entity of a wave entering when `go`: at a uniformly random cell of `cells` (int32[K, 2],
    the entering edge) where `ok` (bool[K]; from the uniform u), moving `vel`; no-op when no
    cell is allowed or the pool is full."""
    i = uniform_true(ok, u)
    return entities.spawn(pool, cells[i], vel, kind, where=go & ok.any())


def burn(fuel: jax.Array, amount=1) -> tuple[jax.Array, jax.Array]:
    """One turn of fuel use -> (fuel left, never below 0; ran out this turn)."""
    left = jnp.maximum(fuel - amount, 0).astype(jnp.int32)
    return left, (left == 0) & (fuel > 0)


def refuel(fuel: jax.Array, gain, cap) -> jax.Array:
    """Fuel after taking `gain` units at a depot, never above `cap`."""
    return jnp.minimum(fuel + gain, cap).astype(jnp.int32)
