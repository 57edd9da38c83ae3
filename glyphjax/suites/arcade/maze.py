"""Maze mechanics of the arcade suite (Ms. Pac-Man, Alien, Bank Heist ...): a walled field with
pellets, power pellets, ghosts that chase you along the corridors, tunnels and contact.

The field is `ArcadeState.field` (int8[H, W]) with the codes below: corridors (0), walls, dots,
power pellets and ghost-pen doors (passable for ghosts only). A layout is level data written as
text (`layout`); it fixes the field, your start, the ghosts' homes and the pellet count at a
setting. Ghosts are a `core.entities.Pool` (kind 0 hunting, 1 frightened; `timer`: turns still
held in the pen) moved by `core.chase.chase_step`: they chase your cell, in scatter spells each
heads for its own corner, frightened ones flee (and move at half speed), and every ghost takes
a random turn at a junction with probability `wander` (drawn from the step key). The left and
right edges of a row that is open there are a tunnel: moving off one side enters the other.
Contact is `physics.meets` (same cell after the turn, or swapped cells): a ghost trailing you
one cell behind at your speed never catches you, as in the arcade game.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core import entities
from glyphjax.core.chase import chase_step, line_field
from glyphjax.core.grid import UNREACHED, bfs_distances
from glyphjax.suites.arcade.physics import meets

CORRIDOR, WALL, DOT, POWER, DOOR = 0, 1, 2, 3, 4  # field codes (cell codes 0-4 of a maze game)
HUNTING, FRIGHTENED = 0, 1  # ghost kinds
LAYOUT_CODES = {" ": CORRIDOR, "#": WALL, ".": DOT, "o": POWER, "=": DOOR, "G": CORRIDOR, "P": CORRIDOR}
MAZE_ACTIONS = ("NOOP", "LEFT", "RIGHT", "UP", "DOWN")
MAZE_MOVES = ((0, 0), (0, -1), (0, 1), (-1, 0), (1, 0))
MAZE_DESCRIPTIONS = ("stay where you are", "move one cell left", "move one cell right",
                     "move one cell up", "move one cell down")


@dataclasses.dataclass(frozen=True)
class Layout:
    """A maze parsed from text: static field codes, your start, the ghosts' homes, pellet count."""

    field: np.ndarray  # int8[H, W]
    start: tuple[int, int]
    homes: tuple[tuple[int, int], ...]
    exit: tuple[int, int] | None  # where a released ghost enters the maze: above the pen door
    pellets: int  # dots + power pellets

    @property
    def size(self) -> tuple[int, int]:
        return self.field.shape


def layout(rows: tuple[str, ...]) -> Layout:
    """Parse a maze: '#' wall, '.' dot, 'o' power pellet, '=' pen door, ' ' corridor, 'P' your
    start, 'G' a ghost's home (corridor cells)."""
    if len({len(r) for r in rows}) != 1:
        raise ValueError(f"maze rows differ in length: {sorted({len(r) for r in rows})}")
    bad = {ch for r in rows for ch in r} - set(LAYOUT_CODES)
    if bad:
        raise ValueError(f"maze has unknown cells {sorted(bad)}; use one of {sorted(LAYOUT_CODES)}")
    field = np.array([[LAYOUT_CODES[ch] for ch in r] for r in rows], np.int8)
    cells = lambda ch: tuple((i, j) for i, r in enumerate(rows) for j, x in enumerate(r) if x == ch)
    starts, homes = cells("P"), cells("G")
    if len(starts) != 1 or not homes:
        raise ValueError(f"a maze needs one start 'P' and a ghost home 'G'; found {len(starts)} and {len(homes)}")
    doors = cells("=")
    exit_cell = (doors[0][0] - 1, doors[0][1]) if doors else None
    return Layout(field, starts[0], homes, exit_cell, int(np.isin(field, (DOT, POWER)).sum()))


def mirrored(left: tuple[str, ...]) -> tuple[str, ...]:
    """A left-right symmetric maze from its left half (each row followed by its mirror image)."""
    return tuple(r + r[::-1] for r in left)


def walk(field: jax.Array, pos: jax.Array, delta: jax.Array) -> jax.Array:
    """Your cell after trying to move by `delta` (one cell): walls and pen doors block you; a
    move off the left or right edge comes in at the other edge (tunnel)."""
    h, w = field.shape
    to = jnp.stack([pos[0] + delta[0], (pos[1] + delta[1]) % w])
    inside = (to[0] >= 0) & (to[0] < h)
    cell = field[jnp.clip(to[0], 0, h - 1), to[1]]
    ok = inside & (cell != WALL) & (cell != DOOR)
    return jnp.where(ok, to, pos).astype(jnp.int32)


def eat(field: jax.Array, pos: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Eat what lies on `pos` -> (field, pellets eaten (int32 0/1), a power pellet was eaten)."""
    cell = field[pos[0], pos[1]]
    pellet = (cell == DOT) | (cell == POWER)
    field = field.at[pos[0], pos[1]].set(jnp.where(pellet, CORRIDOR, cell).astype(field.dtype))
    return field, pellet.astype(jnp.int32), cell == POWER


def frighten(ghosts: entities.Pool, left: jax.Array, powered: jax.Array, turns) -> tuple[entities.Pool, jax.Array]:
    """Count the frightened spell down (`left`: turns still to run) and start a new one of `turns`
    when `powered`: every ghost out of the pen turns frightened; when the spell ends all hunt."""
    left = jnp.where(powered, jnp.asarray(turns, jnp.int32), jnp.maximum(left - 1, 0))
    out = ghosts.timer == 0
    kind = jnp.where(powered & out, FRIGHTENED, jnp.where(left == 0, HUNTING, ghosts.kind))
    return ghosts.replace(kind=kind.astype(jnp.int32)), left


def ghost_targets(ghosts: entities.Pool, you: jax.Array, t: jax.Array, size: tuple[int, int],
                  scatter: tuple[int, int] = (7, 27)) -> jax.Array:
    """int32[N, 2]: the cell each ghost heads for (or flees, when frightened): you, except that
    during the first `scatter[0]` turns of every `scatter[1]` hunting ghost i heads for corner
    i % 4 (top-left, top-right, bottom-left, bottom-right)."""
    h, w = size
    corners = jnp.array([[0, 0], [0, w - 1], [h - 1, 0], [h - 1, w - 1]], jnp.int32)
    own = corners[jnp.arange(ghosts.size) % 4]
    spell = ((t % scatter[1]) < scatter[0]) & (ghosts.kind == HUNTING)
    return jnp.where(spell[:, None], own, jnp.asarray(you, jnp.int32)[None])


def ghost_turn(u: jax.Array, ghosts: entities.Pool, field: jax.Array, targets: jax.Array,
               t: jax.Array, period: jax.Array, wander, exit_cell: tuple[int, int] | None) -> entities.Pool:
    """Move the ghosts one step (`u`: float32[N, 2] uniforms): hunting ghosts on turns where
    t % period == 0, frightened ones every second such turn; ghosts held at home (`timer` > 0)
    wait and count down, and on their last held turn step out to `exit_cell` (a maze without a
    pen door: they set off from home)."""
    h, w = field.shape
    fields = jax.vmap(line_field, (0, None, None))(targets, h, w)
    scared = ghosts.kind == FRIGHTENED
    due = (t % period) == 0
    moves = (ghosts.timer == 0) & due & (~scared | ((t // period) % 2 == 0))
    moved = chase_step(ghosts, field != WALL, fields, flee=scared, u=u, wander=wander, moves=moves, wrap=True)
    if exit_cell is None:
        return moved.replace(timer=jnp.maximum(ghosts.timer - 1, 0))
    out = (ghosts.timer == 1)[:, None]
    return moved.replace(pos=jnp.where(out, jnp.array(exit_cell, jnp.int32), moved.pos),
                         vel=jnp.where(out, 0, moved.vel), timer=jnp.maximum(ghosts.timer - 1, 0))


def contact(before: entities.Pool, after: entities.Pool, you_before: jax.Array,
            you_after: jax.Array) -> tuple[jax.Array, jax.Array]:
    """-> (caught: a hunting ghost met you, eaten: bool[N] frightened ghosts you met)."""
    met = meets(before, after, you_before, you_after)
    return (met & (after.kind == HUNTING)).any(), met & (after.kind == FRIGHTENED)


def send_home(ghosts: entities.Pool, mask: jax.Array, homes: jax.Array, hold) -> entities.Pool:
    """Ghosts of `mask` back to their homes (int32[N, 2]), hunting, held there `hold` turns."""
    return entities.put(ghosts, mask, homes, jnp.zeros_like(homes), HUNTING, hold)


def maze_paint(field: jax.Array, ghosts: entities.Pool, you: jax.Array, first: int, you_code) -> jax.Array:
    """int32[H, W] cell codes: the field's own codes (0-4), ghosts as `first` (hunting) and
    `first + 1` (frightened), you as `you_code` on top."""
    codes = entities.paint(field.astype(jnp.int32), ghosts, jnp.array([first, first + 1], jnp.int32))
    return codes.at[you[0], you[1]].set(jnp.asarray(you_code, jnp.int32))


def maze_policy(key: jax.Array, field: jax.Array, you: jax.Array, ghosts: entities.Pool,
                goals: jax.Array, moves=MAZE_MOVES) -> jax.Array:
    """A scripted move: the step that brings you nearest (maze distance) to a cell of `goals`
    (bool[H, W]) or a frightened ghost, never onto a cell a hunting ghost can reach next turn
    and preferably not within two of one; random among equals."""
    h, w = field.shape
    open_ = (field != WALL) & (field != DOOR)
    edible = entities.occupancy(ghosts.replace(alive=ghosts.alive & (ghosts.kind == FRIGHTENED)), h, w) > 0
    goal_dist = bfs_distances(open_, goals | edible)
    hunters = entities.occupancy(ghosts.replace(alive=ghosts.alive & (ghosts.kind == HUNTING)), h, w) > 0
    threat = bfs_distances(field != WALL, hunters, max_steps=4)
    cand = jax.vmap(lambda d: walk(field, you, d))(jnp.array(moves, jnp.int32))
    gd = goal_dist[cand[:, 0], cand[:, 1]]
    td = threat[cand[:, 0], cand[:, 1]]
    score = (jnp.minimum(gd, UNREACHED).astype(jnp.float32) + 1000.0 * (td <= 1) + 100.0 * (td == 2) + 10.0 * (td == 3)
             + 0.5 * jax.random.uniform(key, (len(moves),)))
    return jnp.argmin(score).astype(jnp.int32)


def ray(field: jax.Array, start: jax.Array, heading: jax.Array, reach: int) -> jax.Array:
    """bool[H, W]: the cells a straight beam from `start` along `heading` covers, up to `reach`
    (static) cells, stopped by the first wall (and the field's edge); nothing without a heading."""
    h, w = field.shape
    k = jnp.arange(1, reach + 1, dtype=jnp.int32)[:, None]
    cells = jnp.asarray(start, jnp.int32)[None] + k * jnp.asarray(heading, jnp.int32)[None]
    on = (cells[:, 0] >= 0) & (cells[:, 0] < h) & (cells[:, 1] >= 0) & (cells[:, 1] < w)
    r, c = jnp.clip(cells[:, 0], 0, h - 1), jnp.clip(cells[:, 1], 0, w - 1)
    clear = jnp.cumprod(on & (field[r, c] != WALL)).astype(bool) & jnp.any(heading != 0)
    return jnp.zeros((h, w), bool).at[r, c].max(clear)


def first_on(pool: entities.Pool, cells: jax.Array, origin: jax.Array) -> jax.Array:
    """bool[N]: the alive entity standing on `cells` (bool[H, W]) nearest to `origin` (at most one)."""
    on = entities.on_cells(pool, cells)
    i, _ = entities.nearest(pool.replace(alive=on), origin)
    return (jnp.arange(pool.size) == i) & on
