"""Gravitar: fly over planets under gravity and shoot their bunkers (pattern A; Atari only, no
MiniAtari counterpart).

Atari: a 20x20 field, N = 12 bunkers (the catalogue's and the reference's W: 4 planets x 3
there, 3 planets x 4 here), 10,000 turns. Each planet is one screen of a map drawn at reset
(`screens.window`): a mountain range along the bottom (column heights 2-7 cells, each within one
of the last) with 4 bunkers on it, one in each quarter. Your ship faces up, left, down or right
(`flight.FACINGS`); LEFT / RIGHT turn it a quarter anticlockwise / clockwise, THRUST adds its
facing to the velocity (at most 1 cell a turn per axis, `flight.thrust`), and gravity adds one
row down every `period` turns. Vertical speed is kept (you fall faster and faster up to 1 row
a turn until you thrust up); sideways speed is lost on the next turn without sideways thrust
(`flight.coast` with drag every turn), so a sideways thrust moves you one column. The sides wrap;
the top row is a ceiling (the ship stops there). FIRE shoots along the facing, 2 cells a turn,
stopped by rock (`scroll.strike`); a shot on a bunker destroys it (+1/N). With probability
`rate` a turn a random bunker fires a shell diagonally up towards your side (never straight up:
right above a bunker you are out of its line), one cell a turn. The
ship touching rock or meeting a shell ends the episode (no penalty). When a planet's 4 bunkers
are gone the ship starts over at the top of the next planet.
Differs from Atari: no fuel, tractor beam, reactor or solar system map; the reference's units
also count fuel pickups.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import flight, screens
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import meets, random_alive, shoot_down
from glyphjax.suites.arcade.scroll import strike
from glyphjax.suites.arcade.zaxxon import TURRET

ROCK, SHELL, BULLET = "▨", "∘", "*"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "THRUST", "FIRE")
PLANETS, BUNKERS = 3, 4
_TURN = jnp.array([[2, 3], [3, 2], [1, 0], [0, 1]], jnp.int32)  # FACINGS index -> (after LEFT, after RIGHT)
EV_CLEARED = 1


def _rules(s: Setting) -> str:
    return (f"Gravitar. Shoot the bunkers {TURRET} on the mountains {ROCK} of {PLANETS} planets ({BUNKERS} "
            "each). LEFT / RIGHT turn your ship a quarter; THRUST adds one cell a turn of speed the way it "
            f"faces (at most 1 per axis); gravity adds one row of downward speed every {s.period} turns. Vertical "
            "speed is kept; sideways speed lasts only the turns you thrust sideways. The sides wrap; the top row is a ceiling. FIRE shoots "
            f"{BULLET} the way you face, 2 cells a turn; rock stops shots. Bunkers fire shells {SHELL} diagonally "
            "up towards your side (never straight up), one cell a turn. Touching rock or a shell ends the episode. Clearing a planet "
            "takes you to the top of the next.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    steps = jnp.floor(draws.uniform((PLANETS, w)) * 3).astype(jnp.int32) - 1
    heights = jnp.clip(4 + jnp.cumsum(steps, axis=1), 2, 7)  # [planets, w]
    rows = jnp.arange(h)[None, :, None]
    rock = (rows >= h - heights[:, None, :]).reshape(PLANETS * h, w)
    quarter = w // BUNKERS
    cols = jnp.arange(BUNKERS)[None] * quarter + draws.randint(0, quarter, (PLANETS, BUNKERS))
    tops = h - 1 - jnp.take_along_axis(heights, cols, 1)
    pos = jnp.stack([tops.reshape(-1), cols.reshape(-1)], 1)
    planet = jnp.repeat(jnp.arange(PLANETS), BUNKERS)
    bunkers = entities.spawn_many(entities.empty(PLANETS * BUNKERS), pos, jnp.zeros_like(pos), planet,
                                  jnp.ones(PLANETS * BUNKERS, bool))
    return new_state(s, field=rock.astype(jnp.int8), foes=bunkers, player=jnp.array([1, w // 2], jnp.int32),
                     heading=jnp.array([1, 0], jnp.int32))


def _rock(state, size):
    """(bool[h, w] rock of the planet you are over, its index)."""
    planet = jnp.minimum(state.score // BUNKERS, PLANETS - 1)
    return screens.window(state.field, jnp.stack([planet * size[0], 0]), size) != 0, planet


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    rock, planet = _rock(state, s.size)
    a = jnp.clip(action, 0, len(ACTIONS) - 1) * (action >= 0)
    turned = _TURN[flight.facing_index(state.heading), jnp.clip(a - 1, 0, 1)]
    facing = jnp.where((a == 1) | (a == 2), jnp.array(flight.FACINGS, jnp.int32)[turned], state.heading)
    push = jnp.where(a == 3, facing, 0)
    vel = flight.thrust(state.ball_vel, push, 1)
    vel = vel.at[1].set(flight.coast(vel, push, jnp.bool_(True))[1])  # sideways speed lasts one turn
    vel = flight.thrust(vel, jnp.where(state.t % params.period == 0, jnp.array([1, 0]), 0), 1)
    row = jnp.clip(state.player[0] + vel[0], 0, h - 1)
    you = jnp.stack([row, (state.player[1] + vel[1]) % w]).astype(jnp.int32)
    vel = vel.at[0].set(jnp.where(row == 0, jnp.maximum(vel[0], 0), vel[0]))
    mine = state.foes.alive & (state.foes.kind == planet)
    bunkers = state.foes.replace(alive=mine)
    shots0 = entities.spawn(state.shots, state.player, 2 * facing, 0, where=a == 4)
    shots1 = entities.advance(shots0, h, w)
    shots1, stopped = strike(shots0, shots1, rock)
    shots1, bunkers, gained = shoot_down(shots0, shots1, bunkers, bunkers)
    shots1 = entities.kill(shots1, stopped)
    shells1 = entities.advance(state.bombs, h, w)
    hit = meets(state.bombs, shells1, state.player, you).any() | rock[you[0], you[1]]
    shells1 = entities.kill(shells1, entities.on_cells(shells1, rock))
    k, found = random_alive(bunkers, draws.uniform())
    side = jnp.sign(you[1] - bunkers.pos[k, 1])
    shoot = found & (draws.uniform() < params.rate) & (side != 0)  # never straight up
    aim = jnp.stack([-1, side])
    shells = entities.spawn(shells1, bunkers.pos[k] + aim, aim, 0, where=shoot)
    cleared = (gained > 0) & ~bunkers.alive.any()
    foes = state.foes.replace(alive=(state.foes.alive & ~mine) | bunkers.alive)
    nxt = state.replace(foes=foes, shots=shots1.replace(alive=shots1.alive & ~cleared),
                        bombs=shells.replace(alive=shells.alive & ~cleared),
                        player=jnp.where(cleared, jnp.array([1, w // 2]), you).astype(jnp.int32),
                        ball_vel=jnp.where(cleared, 0, vel).astype(jnp.int32),
                        heading=jnp.where(cleared, jnp.array([1, 0]), facing).astype(jnp.int32))
    return nxt, Outcome(gained=gained, died=hit & ~cleared, event=jnp.where(cleared, EV_CLEARED, 0))


def _paint(state, s: Setting):
    rock, planet = _rock(state, s.size)
    codes = rock.astype(jnp.int32)
    mine = state.foes.replace(alive=state.foes.alive & (state.foes.kind == planet))
    codes = entities.paint(codes, mine, jnp.full(PLANETS, 2, jnp.int32))
    codes = entities.paint(codes, state.bombs, jnp.array([3], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([4], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(5 + flight.facing_index(state.heading))


def _scripted(key, state, params):
    """Hold a cruising row 7 above the highest mountain (below it, or at it and sinking: face up
    and thrust); else go to the nearest bunker's column (face it, thrust), then face down and
    fire when no shot is in flight. Turns the shorter way."""
    h, w = state.field.shape[0] // PLANETS, state.field.shape[1]
    rock, planet = _rock(state, (h, w))
    cruise = jnp.maximum(jnp.argmax(rock.any(1)) - 7, 2)
    you, vel, head = state.player, state.ball_vel, state.heading
    mine = state.foes.alive & (state.foes.kind == planet)
    dc = (state.foes.pos[:, 1] - you[1] + w // 2) % w - w // 2
    off = dc[jnp.argmin(jnp.where(mine, jnp.abs(dc), 1 << 10))]
    sink = (you[0] > cruise) | ((you[0] >= cruise - 1) & (vel[0] > 0))
    want = jnp.where(sink, jnp.array([-1, 0]), jnp.where(off != 0, jnp.stack([0, jnp.sign(off)]), jnp.array([1, 0])))
    i, j = flight.facing_index(head), flight.facing_index(want)
    ready = jnp.where(sink | (off != 0), 3, jnp.where(state.shots.alive.any(), 0, 4))
    act = jnp.where(i == j, ready, jnp.where(_TURN[i, 0] == j, 1, 2))
    return act.astype(jnp.int32)


GRAVITAR = Game(
    name="gravitar", pattern="A", unit="bunker", actions=ACTIONS,
    descriptions=("do nothing", "turn a quarter anticlockwise", "turn a quarter clockwise",
                  "thrust the way you face", "shoot the way you face"),
    cells=EMPTY + ROCK + TURRET + SHELL + BULLET + flight.FACING_CELLS,
    glyphs={ROCK: "rock (touching it destroys your ship)", TURRET: "turret", SHELL: "a bunker's shell",
            BULLET: "your shot", **flight.FACING_GLYPHS},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted, mini=None,
    atari=Setting(size=(20, 20), max_steps=10000, target=12, rate=0.05, period=3, caps=(PLANETS * BUNKERS, 1, 4)),
    draws=(PLANETS * 20 + PLANETS * BUNKERS, 2), events=("You cleared the planet.",),
    death="your ship touches rock or a shell", death_message="Your ship was destroyed. Game over.",
)
