"""Gunfights: the mechanics of the arcade games where you walk or drive a walled field, shoot
the way you face and are shot at (Berzerk, Wizard of Wor, Battlezone, Robot Tank).

The field is `ArcadeState.field` with `maze.py`'s codes (corridor, wall) drawn from a text
layout (`maze.layout`: 'P' your start, 'G' where the foes start). A turn (`turn`):

1. LEFT/RIGHT/UP/DOWN turn you to face that way (`ArcadeState.heading`) or, when you already
   face it, step one cell that way (a wall blocks you; `electric` walls kill you instead,
   Berzerk's rule), as a tank turns before it drives; or FIRE:
   a beam the way you face, up to `reach` cells, stopped by walls (`maze.ray`), destroys the first
   foe or foe's bullet on it (`maze.first_on`).
2. Foes' bullets (`ArcadeState.bombs`) fly one cell a turn and vanish at walls.
3. Foes move one cell every `period` turns towards you by straight-line distance along open
   cells (`core.chase.chase_step`: no reversing but at dead ends), taking a random open way
   with probability `WANDER`.
4. A foe meeting you (same cell or swapped cells, `physics.meets`) kills you; a bullet meeting
   you is a hit, and `hits` hits (Robot Tank's systems; `ArcadeState.phase` counts them) kill.
5. With probability `rate` one random foe that has you in its line (same row or column, no wall
   between, at most `reach` cells) fires a bullet along it: the bullet appears on the cell in
   front of the foe (when that is your cell, it hits you at once) and flies from the next turn.
6. Where the setting's target is larger than its foe pool (the extended settings), a destroyed
   foe is replaced: with probability `ENTER` a turn a new one appears at a random open cell more
   than `GAP` cells (Chebyshev) from you.

`policy` is the scripted player of all four games.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.chase import chase_step, line_field
from glyphjax.core.grid import UNREACHED, bfs_distances
from glyphjax.suites.arcade import maze
from glyphjax.suites.arcade.engine import ArcadeState, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.flight import FACING_CELLS, FACING_GLYPHS, facing_index
from glyphjax.suites.arcade.physics import best_action, meets

GUN_ACTIONS = maze.MAZE_ACTIONS + ("FIRE",)
GUN_MOVES = maze.MAZE_MOVES + ((0, 0),)
FIRE, WANDER, ENTER, GAP = 5, 0.1, 0.05, 3
SHOT = "◌"  # a foe's bullet
GUN_GLYPHS = {SHOT: "enemy shot (flies one cell a turn)", **FACING_GLYPHS}
EV_KILL, EV_HIT = 1, 2
GUN_EVENTS = ("You destroyed an enemy.", "You were hit.")


def gun_descriptions(reach: int, foe: str) -> tuple[str, ...]:
    return (maze.MAZE_DESCRIPTIONS[:1] + tuple(d + " (and face that way)" for d in maze.MAZE_DESCRIPTIONS[1:])
            + (f"fire the way you face: destroys the first {foe} up to {reach} cells away (walls stop it)",))


def spawn_cells(field: jax.Array, foes: entities.Pool, you: jax.Array) -> jax.Array:
    """bool[H, W]: open cells more than GAP cells from you with no foe on them."""
    h, w = field.shape
    rr, cc = jnp.meshgrid(jnp.arange(h), jnp.arange(w), indexing="ij")
    far = jnp.maximum(jnp.abs(rr - you[0]), jnp.abs(cc - you[1])) > GAP
    return (field == maze.CORRIDOR) & far & (entities.occupancy(foes, h, w) == 0)


def start(s: Setting, lay: maze.Layout) -> ArcadeState:
    """A fresh gunfight: the layout's field, you at its start facing up, a foe on each home."""
    homes = jnp.array(lay.homes, jnp.int32)
    n = homes.shape[0]
    foes = entities.spawn_many(entities.empty(s.caps[0]), homes, jnp.zeros_like(homes), jnp.zeros(n, jnp.int32),
                               jnp.ones(n, bool))
    return new_state(s, player=jnp.array(lay.start, jnp.int32), field=jnp.asarray(lay.field), foes=foes,
                     heading=jnp.array([-1, 0], jnp.int32))


def in_line(field: jax.Array, pos: jax.Array, you: jax.Array, reach: int) -> tuple[jax.Array, jax.Array]:
    """-> (bool[N]: which of `pos` (int32[N, 2]) have you in their line: same row or column, no
    wall between, at most `reach` cells; int32[N, 2] the unit step from each towards you)."""
    d = jnp.sign(you[None] - pos).astype(jnp.int32)
    aligned = ((pos[:, 0] == you[0]) | (pos[:, 1] == you[1])) & (d != 0).any(-1)
    rays = jax.vmap(lambda p, dd: maze.ray(field, p, dd, reach))(pos, d)
    return aligned & rays[:, you[0], you[1]], d


def _first_hit(foes: entities.Pool, bullets: entities.Pool, beam: jax.Array, you: jax.Array):
    """-> (bool[N] the foe, bool[M] the bullet your beam meets first (at most one of the two))."""
    foe = maze.first_on(foes, beam, you)
    bullet = maze.first_on(bullets, beam, you)
    gap = lambda p, m: jnp.where(m, jnp.abs(p.pos - you[None]).sum(-1), 1 << 20).min()
    nearer = gap(bullets, bullet) < gap(foes, foe)
    return foe & ~nearer, bullet & nearer


def turn(draws, state, action, s: Setting, params, *, reach: int, electric: bool = False, hits: int = 1):
    """One turn of a gunfight (module docstring) -> (state, Outcome). Draws: 2N + 3 numbers."""
    h, w = s.size
    field, foes = state.field, state.foes
    delta = action_delta(action, GUN_MOVES)
    moving = (action >= 1) & (action <= 4)
    ahead = moving & (delta == state.heading).all()
    heading = jnp.where(moving, delta, state.heading).astype(jnp.int32)
    you = maze.walk(field, state.player, jnp.where(ahead, delta, 0))
    zapped = electric & ahead & (you == state.player).all()
    beam = maze.ray(field, you, heading, reach)
    hit, blocked = _first_hit(foes, state.bombs, beam, you)
    hit &= action == FIRE
    foes = entities.kill(foes, hit)
    bullets = entities.advance(entities.kill(state.bombs, blocked & (action == FIRE)), h, w)
    bullets = entities.kill(bullets, field[jnp.clip(bullets.pos[:, 0], 0, h - 1), jnp.clip(bullets.pos[:, 1], 0, w - 1)]
                            == maze.WALL)
    due = ((state.t % params.period) == 0) & (foes.timer == 0)
    moved = chase_step(foes, field != maze.WALL, line_field(you, h, w), u=draws.uniform((foes.size, 2)),
                       wander=WANDER, moves=due, wrap=True)
    moved = moved.replace(timer=jnp.maximum(foes.timer - 1, 0))
    rammed = meets(foes, moved, state.player, you).any()
    struck = meets(state.bombs, bullets, state.player, you)
    bullets = entities.kill(bullets, struck)
    lined, d = in_line(field, moved.pos, you, reach)
    lined &= moved.alive
    gunner = jnp.argmax(lined & (jnp.cumsum(lined) - 1 == jnp.floor(draws.uniform() * lined.sum()).astype(jnp.int32)))
    fires = lined.any() & (draws.uniform() < params.rate)
    muzzle = moved.pos[gunner] + d[gunner]
    point_blank = fires & (muzzle == you).all()
    bullets = entities.spawn(bullets, muzzle, d[gunner], 0, where=fires & ~point_blank)
    struck = struck.any() | point_blank
    if s.target > s.caps[0]:
        cell, found = draws.cell(spawn_cells(field, moved, you))
        moved = entities.spawn(moved, jnp.stack([cell // w, cell % w]).astype(jnp.int32), jnp.zeros(2, jnp.int32), 0,
                               where=found & (draws.uniform() < ENTER), timer=1)
    damage = state.phase + struck.astype(jnp.int32)
    died = rammed | zapped | (damage >= hits)
    kills = hit.sum().astype(jnp.int32)
    event = jnp.where(kills > 0, EV_KILL, jnp.where(struck, EV_HIT, 0))
    nxt = state.replace(player=you, heading=heading, foes=moved, bombs=bullets, phase=damage)
    return nxt, Outcome(gained=kills, died=died, event=event)


def paint(state) -> jax.Array:
    """Cell codes: field (0 open, 1 wall), foes 2, enemy shots 3, you 4-7 (facing up, down, left,
    right). A game's `cells` are EMPTY + its wall + its foe + SHOT + FACING_CELLS."""
    codes = jnp.where(state.field == maze.WALL, 1, 0).astype(jnp.int32)
    codes = entities.paint(codes, state.bombs, jnp.array([3], jnp.int32))
    codes = entities.paint(codes, state.foes, jnp.array([2], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(4 + facing_index(state.heading))


def cells(wall: str, foe: str) -> str:
    return " " + wall + foe + SHOT + FACING_CELLS


def policy(key, state, params, *, reach: int, electric: bool = False) -> jax.Array:
    """The scripted gunner: rates each action and takes the best. Ruinous: ending the turn where a
    bullet will be (or swapping with one), next to a foe, or (electric walls) walking into a
    wall; bad: standing in the line of a foe you do not face; good: FIRE with a foe or a bullet
    in the line of fire, turning towards a foe in line at least 3 cells away; otherwise a step towards the nearest foe (maze distance), keeping 2 cells from foes."""
    field, you, foes = state.field, state.player, state.foes
    h, w = field.shape
    open_ = field != maze.WALL
    moves = jnp.array(GUN_MOVES, jnp.int32)
    dirs = moves[1:5]
    seen = jnp.stack([maze.first_on(foes, maze.ray(field, you, d, reach), you) for d in dirs])  # [4, N]
    incoming = maze.first_on(state.bombs, maze.ray(field, you, state.heading, reach), you).any()
    dist = jnp.abs(foes.pos - you[None]).max(-1)
    far = (seen & (dist >= 2)[None]).any(-1)
    facing = (dirs == state.heading[None]).all(-1)
    occupied = entities.occupancy(foes, h, w) > 0
    goal = bfs_distances(open_, occupied)
    threat = bfs_distances(open_, occupied, max_steps=3)
    b = state.bombs
    b_next = b.pos + b.vel

    def value(a):
        ahead = (moves[a] == state.heading).all() & (a >= 1) & (a <= 4)
        cell = maze.walk(field, you, jnp.where(ahead, moves[a], 0))
        lands = (b.alive & ((b_next == cell[None]).all(-1) | ((b.pos == cell[None]).all(-1)
                                                             & (b_next == you[None]).all(-1)))).any()
        zap = electric & ahead & (cell == you).all()
        td = threat[cell[0], cell[1]]
        head = jnp.where((a >= 1) & (a <= 4), moves[a], state.heading)
        lined, d = in_line(field, foes.pos, cell, reach)
        exposed = (lined & foes.alive & ~(d == -head[None]).all(-1)).any()
        fire = (a == FIRE) & ((seen.any(-1) & facing).any() | incoming)
        aim = (a >= 1) & (a <= 4) & far[jnp.clip(a - 1, 0, 3)] & ~facing[jnp.clip(a - 1, 0, 3)]
        return (-1000.0 * (lands | zap | (td <= 1)) - 20.0 * (td == 2) - 30.0 * exposed + 50.0 * fire + 30.0 * aim
                - jnp.minimum(goal[cell[0], cell[1]], UNREACHED).astype(jnp.float32) * 0.3)

    noise = 0.5 * jax.random.uniform(key, (len(GUN_ACTIONS),))
    return best_action(value, len(GUN_ACTIONS), noise)


def hooks(layouts: dict, *, reach: int, electric: bool = False, hits: int = 1) -> dict:
    """A gunfight game's `Game` hooks (reset, step, paint, scripted) over its layouts by field size."""
    return dict(
        reset=lambda draws, s, params: start(s, layouts[s.size]),
        step=lambda draws, state, action, s, params: turn(draws, state, action, s, params, reach=reach,
                                                         electric=electric, hits=hits),
        paint=lambda state, s: paint(state),
        scripted=lambda key, state, params: policy(key, state, params, reach=reach, electric=electric),
    )
