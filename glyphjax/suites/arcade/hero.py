"""H.E.R.O.: fly a helicopter pack down a mine shaft, blast the walls in the way and rescue the
trapped miner at the bottom of each cave (pattern D; Atari only, no MiniAtari counterpart).

Atari: a 16x20 screen, N = 5 miners (the catalogue's and the reference's W: one per cave),
10,000 turns. The shaft is one map of `CAVES` caves stacked (`screens.flip` on rows: you see the
cave you are in). A cave is walled rock with three ledges (rows 4, 8, 12), each with a 2-cell gap
rimmed by lava on both sides; below the last ledge the miner waits on the floor, which has two
lava cells. Corridors 1-3 (under the ledges) each hold a crumbly wall (their full height, 3-13
columns from the gap above) and a critter patrolling the corridor's floor row, one column every
`period` turns, turning round at walls and lava. UP flies a row up, LEFT / RIGHT fly a column
(keeping your height, and turn you), DOWN drops a row, NOOP and FIRE sink a row (the pack only
lifts you while you steer); rock and walls stop you. FIRE also shoots the helmet laser up to
`REACH` cells the way you face along your row (walls stop it): it kills the first critter
(no points). DOWN standing on something lights a stick of dynamite on your cell (6 a cave, one
burning at a time): it blows `FUSE` turns later, destroying the crumbly walls and critters
within 2 cells (Chebyshev) -- and you, if you are that close. Touching the miner pays +1/N and
flies you to the top of the next cave with the power and dynamite refilled; the fifth wins.
The pack's power (the HUD gauge) starts at `POWER` a cave and drops one a turn. Moving into
lava, a critter meeting you (same cell or swapped), your own blast or the power running out is
death (-1, the end).
Differs from Atari: one screen per cave (no multi-screen levels), no lanterns, raft, tentacles or
magma walls that kill sideways; the laser does not wear walls down; a critter killed or a wall
blasted scores nothing; one life. The reference has no gravity and no timer; ours sinks you.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import screens
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import meets
from glyphjax.suites.arcade.scroll import patrol

ROCK, CRUMBLY, LAVA, CRITTER, MINER, DYNAMITE = "▓", "▙", "♨", "ʘ", "☻", "!"
FACING = "⇐⇒"
ACTIONS = ("NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN")
NOOP, FIRE, UP, RIGHT, LEFT, DOWN = range(6)
C_ROCK, C_WALL, C_LAVA = 1, 2, 3
CAVES, LEDGES, FLOORS = 5, (4, 8, 12), (3, 7, 11, 14)  # FLOORS: each corridor's bottom row
START, POWER, STICKS, FUSE, REACH = 10, 200, 6, 5, 4
EV_MINER = 1


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"H.E.R.O. Fly down a shaft of {CAVES} caves (each one screen) and rescue the miner {MINER} at "
            f"the bottom of each. Rock {ROCK} and crumbly walls {CRUMBLY} stop you; each ledge has a 2-cell "
            f"gap rimmed with lava {LAVA}. You are drawn as an arrow {FACING} showing the way you face. UP "
            "flies a row up, LEFT/RIGHT fly a column (keeping your height, and turn you), DOWN drops a "
            "row, NOOP and FIRE let you sink a row. FIRE also shoots your laser up to "
            f"{REACH} cells the way you face along your row (walls stop it), killing the first critter "
            f"{CRITTER}. DOWN while standing on something lights a stick of dynamite {DYNAMITE} on your "
            f"cell ({STICKS} a cave, one at a time); {FUSE} turns later it blows up every crumbly wall, "
            "critter and you within 2 cells. Touch the miner to rescue him: you fly on to the next cave "
            f"with power and dynamite refilled. Your pack's power (the HUD gauge) starts at {POWER} a cave "
            "and drops one a turn. Moving into lava, a critter meeting you, your own blast or running out "
            f"of power kills you. Critters move one column every {s.period} turns.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    gap = draws.randint(2, w - 4, (CAVES, 3))  # the left cell of each ledge's 2-cell gap
    wall = 2 + (gap - 2 + draws.randint(3, w - 6, (CAVES, 3))) % (w - 4)  # never beside the gap above
    miner = 2 + (wall[:, 2] - 2 + draws.randint(1, w - 4, (CAVES,))) % (w - 4)
    lava = draws.randint(1, w - 1, (CAVES, 2))
    heading = jnp.where(draws.bernoulli(0.5, (CAVES, 3)), 1, -1)
    rows, cols = jnp.arange(CAVES * h)[:, None], jnp.arange(w)[None]
    cave, local = rows // h, rows % h
    rock = (local == 0) | (local == h - 1) | (cols == 0) | (cols == w - 1)
    hot = (local == h - 1) & ((cols == lava[cave, 0]) | (cols == lava[cave, 1]))
    crumbly = jnp.zeros_like(rock)
    for i, ledge in enumerate(LEDGES):
        g = gap[cave, i]
        on = local == ledge
        rock = rock | (on & (cols != g) & (cols != g + 1))
        hot = hot | (on & ((cols == g - 1) | (cols == g + 2)))
        crumbly = crumbly | ((local > ledge) & (local <= FLOORS[i + 1]) & (cols == wall[cave, i]))
    field = jnp.select([hot, crumbly, rock], [C_LAVA, C_WALL, C_ROCK], 0).astype(jnp.int8)
    base = jnp.arange(CAVES)[:, None] * h
    at = jnp.stack([base + jnp.array(FLOORS[1:]), 2 + (wall - 2 + 8) % (w - 4)], -1).reshape(-1, 2)
    critters = entities.spawn_many(entities.empty(3 * CAVES), at, jnp.stack([0 * heading, heading], -1).reshape(-1, 2),
                                   jnp.zeros(3 * CAVES, jnp.int32), jnp.ones(3 * CAVES, bool))
    miners = entities.spawn_many(entities.empty(CAVES), jnp.stack([base[:, 0] + FLOORS[3], miner], -1),
                                 jnp.zeros((CAVES, 2), jnp.int32), jnp.zeros(CAVES, jnp.int32), jnp.ones(CAVES, bool))
    return new_state(s, field=field, foes=critters, bombs=miners, player=jnp.array([1, START], jnp.int32),
                     heading=jnp.array([0, 1], jnp.int32), phase=jnp.int32(POWER), cooldown=jnp.int32(STICKS))


def _laser(field, pool, you, facing):
    """bool[N]: the critter the laser fired from `you` the way `facing` (+-1) kills: the nearest
    alive one on your row within REACH cells with no rock or wall between."""
    w = field.shape[1]
    k = jnp.arange(1, REACH + 1)
    cells = jnp.clip(you[1] + facing * k, 0, w - 1)
    open_to = jnp.cumprod((field[you[0], cells] == 0) | (field[you[0], cells] == C_LAVA)) > 0
    d = (pool.pos[:, 1] - you[1]) * facing
    ok = pool.alive & (pool.pos[:, 0] == you[0]) & (d >= 1) & (d <= REACH) & open_to[jnp.clip(d - 1, 0, REACH - 1)]
    return ok & (d == jnp.min(jnp.where(ok, d, REACH + 1)))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    act = jnp.where(action >= 0, jnp.clip(action, 0, len(ACTIONS) - 1), NOOP)
    field, you = state.field, state.player
    solid = (field == C_ROCK) | (field == C_WALL)
    grounded = solid[you[0] + 1, you[1]]
    light = (act == DOWN) & grounded & (state.cooldown > 0) & ~state.shots.alive.any()
    dr = jnp.select([act == UP, (act == DOWN) & ~grounded, (act == NOOP) | (act == FIRE)], [-1, 1, 1], 0)
    dc = jnp.select([act == RIGHT, act == LEFT], [1, -1], 0)
    to = you + jnp.stack([dr, dc])
    burnt = field[to[0], to[1]] == C_LAVA
    at = jnp.where(solid[to[0], to[1]], you, to).astype(jnp.int32)
    facing = jnp.where(dc != 0, dc, state.heading[1])
    zapped = _laser(field, state.foes, at, facing) & (act == FIRE)
    stick = state.shots.replace(timer=state.shots.timer - 1)
    blows = stick.alive & (stick.timer <= 0)
    near = lambda pos: (jnp.abs(pos - stick.pos[:1]) <= 2).all(-1) & blows[0]  # noqa: E731
    rows, cols = jnp.arange(field.shape[0])[:, None], jnp.arange(w)[None]
    blast = near(jnp.stack(jnp.broadcast_arrays(rows, cols), -1)) & (field == C_WALL)
    field = jnp.where(blast, 0, field).astype(jnp.int8)
    stick = entities.spawn(entities.kill(stick, blows), at, jnp.zeros(2, jnp.int32), 0, where=light, timer=FUSE)
    critters = entities.kill(state.foes, zapped | near(state.foes.pos))
    moved = patrol(critters, (field == C_ROCK) | (field == C_WALL) | (field == C_LAVA), state.t % params.period == 0)
    met = meets(critters, moved, you, at).any()
    miners = state.bombs
    got = miners.alive & (miners.pos == at[None]).all(1)
    saved = got.any()
    nxt_cave = jnp.array([(at[0] // h + 1) * h + 1, START], jnp.int32)
    power = jnp.where(saved, POWER, state.phase - 1)
    died = burnt | met | near(at[None])[0] | (power <= 0)
    nxt = state.replace(player=jnp.where(saved, nxt_cave, at), field=field, foes=moved,
                        bombs=entities.kill(miners, got), shots=entities.kill(stick, saved & stick.alive),
                        heading=jnp.stack([0, facing]).astype(jnp.int32), phase=power.astype(jnp.int32),
                        cooldown=jnp.where(saved, STICKS, state.cooldown - light).astype(jnp.int32))
    return nxt, Outcome(gained=got.sum(), died=died & ~saved, event=jnp.where(saved, EV_MINER, 0))


def _paint(state, s: Setting):
    corner = jnp.stack([screens.flip(state.player[0], s.size[0]), 0])
    codes = screens.window(state.field, corner, s.size).astype(jnp.int32)
    codes = entities.paint(codes, screens.seen(state.foes, corner), jnp.array([4], jnp.int32))
    codes = entities.paint(codes, screens.seen(state.bombs, corner), jnp.array([5], jnp.int32))
    codes = entities.paint(codes, screens.seen(state.shots, corner), jnp.array([6], jnp.int32))
    here = state.player - corner
    return codes.at[here[0], here[1]].set(jnp.where(state.heading[1] < 0, 7, 8))


def _scripted(key, state, params):
    """Head for the gap in the ledge below (or, in the bottom corridor, the miner) along your
    row: laser a critter in reach the way you face, fly up from one within 2 columns otherwise;
    light dynamite against a crumbly wall in the way, rise a row and back off 3 columns, hovering
    until it blows; drop through the gap when above it. Never move into lava or next to a critter
    when another move avoids it."""
    field, you = state.field, state.player
    n, w = field.shape
    h = n // CAVES
    top, local = you[0] // h * h, you[0] % h
    k = (local > jnp.array(LEDGES)).sum()
    ledge = top + jnp.array(LEDGES)[jnp.minimum(k, 2)]
    gap = jnp.argmax(field[ledge] == 0)
    miner = state.bombs.pos[jnp.clip(you[0] // h, 0, CAVES - 1), 1]
    target = jnp.where(k == 3, miner, gap)
    way = jnp.where(target >= you[1], 1, -1)
    grounded = (field[you[0] + 1, you[1]] == C_ROCK) | (field[you[0] + 1, you[1]] == C_WALL)
    ahead = field[you[0], you[1] + way]
    stick = state.shots
    lit = stick.alive[0]
    away = jnp.where(way > 0, LEFT, RIGHT)  # the wall is on your way
    close = (jnp.abs(stick.pos[0] - you) <= 2).all()
    foes = state.foes
    zap = _laser(field, foes, you, state.heading[1]).any()
    rows = foes.pos[:, 0] - you[0]
    near = (foes.alive & (rows >= 0) & (rows <= 1) & (jnp.abs(foes.pos[:, 1] - you[1]) <= 2)).any()
    step = jnp.where(way > 0, RIGHT, LEFT)
    on_lava = field[you[0] + 1, you[1]] == C_LAVA
    act = jnp.select([lit & close & grounded, lit & close, lit, zap, near, you[1] == target,
                      (ahead == C_WALL) & grounded, (ahead == C_WALL) & on_lava, ahead == C_WALL],
                     [UP, away, UP, FIRE, UP, DOWN, DOWN, away, NOOP], step)
    moves = jnp.array([[1, 0], [1, 0], [-1, 0], [0, 1], [0, -1], [1, 0]], jnp.int32)
    moves = moves.at[DOWN].multiply(~grounded)
    to = you[None] + moves
    crit = foes.alive[None] & (foes.pos[None, :, 0] == to[:, :1]) & (jnp.abs(foes.pos[None, :, 1] - to[:, 1:]) <= 1)
    deadly = (field[to[:, 0], to[:, 1]] == C_LAVA) | crit.any(-1)
    fallback = jnp.where(lit, jnp.array([away, NOOP, DOWN, UP, step]), jnp.array([UP, step, away, DOWN, NOOP]))
    return jnp.where(deadly[act], fallback[jnp.argmin(deadly[fallback])], act).astype(jnp.int32)


HERO = Game(
    name="hero", pattern="D", unit="miner rescued", actions=ACTIONS,
    descriptions=("sink one row", f"shoot the laser up to {REACH} cells the way you face (and sink one row)",
                  "fly one row up", "fly one column right (and face right)", "fly one column left (and face left)",
                  "drop one row, or light a stick of dynamite when standing on something"),
    cells=EMPTY + ROCK + CRUMBLY + LAVA + CRITTER + MINER + DYNAMITE + FACING,
    glyphs={ROCK: "wall", CRUMBLY: "a crumbly wall (dynamite blows it up)", LAVA: "lava (moving into it kills you)",
            CRITTER: "a critter (its touch kills; the laser kills it)",
            MINER: "the trapped miner (touch him to rescue him)", DYNAMITE: "a lit stick of dynamite",
            **{g: f"you (facing {d})" for g, d in zip(FACING, ("left", "right"))}},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted, mini=None,
    atari=Setting(size=(16, 20), max_steps=10000, target=CAVES, period=2, caps=(3 * CAVES, 1, CAVES)),
    draws=(12 * CAVES, 1), events=("You rescued the miner.",),
    death="you move into lava, a critter or your own blast gets you, or your power runs out",
    death_message="You died in the mine. Game over.", gauge=("Power", lambda state: state.phase),
)
