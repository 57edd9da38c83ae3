"""Up'n Down: drive up a winding road, collect flags and jump onto cars (pattern D).

MiniAtari: 10x14, N = 5 units, 300 turns. Atari: 20x12, N = 50 (the catalogue's W), 10,000 turns.
The road winds (`scroll.river_line`: each edge moves at most one column a row, the road at least
MIN_WIDTH wide) and scrolls down a row every `period` turns (`scroll.shift_in`: you drive up);
a flag enters on a random road cell of the new top row with probability P_FLAG. Cars come
towards you: one enters the top row on a road cell with probability `rate` a turn (at most
`caps[0]` at once) and every car moves down a row a turn; a car that leaves the road or the field
is gone. UP/DOWN/LEFT/RIGHT move you a cell; JUMP (on the ground) keeps you in the air for AIR
turns. On the ground: a flag on your cell is collected (+1/N); a car meeting you (same cell or
swapped) crashes you, and so does the verge under you (-1, the end); but landing (the turn your
jump ends) on a car destroys it (+1/N). In the air nothing touches you. Differs from Atari
Up'n Down and the reference: pattern D at both settings (the reference's MiniAtari pays flags
only, without a death penalty), no road forks, speed control or cars driving your way; UP/DOWN
move you (the reference's Atari uses them for speed).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.sampling import uniform_true
from glyphjax.suites.arcade import scroll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import action_values, meets

CAR, FLAG, VERGE, YOU = "⊞", "★", "∷", "♦"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT", "JUMP")
MOVES = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1), (0, 0))
JUMP, AIR, P_FLAG, MIN_WIDTH = 5, 3, 0.3, 5
ROAD, BANK, FLAG_CELL = 0, 1, 2  # field codes
EV_FLAG, EV_STOMP = 1, 2


def _rules(s: Setting) -> str:
    return (f"Up'n Down. You {YOU} drive up a winding road; the road scrolls down a row every {s.period} turns "
            f"and new road, with flags {FLAG} on it, comes in at the top. Cars {CAR} come down the road towards "
            f"you one row a turn. UP/DOWN/LEFT/RIGHT move you one cell; JUMP keeps you in the air for {AIR} "
            "turns (HUD 'Air'). On the ground you collect a flag on your cell, and a car meeting you or the "
            f"verge {VERGE} under you crashes you; landing on a car at the end of a jump destroys it (that "
            "scores). In the air nothing touches you.")


def _flags(lines, u):
    """Each road line (int8[K, W]) with a flag on one random road cell with probability P_FLAG
    (u: float32[K, 2])."""
    def one(line, uu):
        col = uniform_true(line == ROAD, uu[1])
        return line.at[col].set(jnp.where((uu[0] < P_FLAG) & (line[col] == ROAD), FLAG_CELL, line[col]))
    return jax.vmap(one)(lines, u).astype(jnp.int8)


def _reset(draws, s: Setting, params):
    h, w = s.size
    road = scroll.river(draws.uniform((h - 1, 2)), w, BANK, ROAD, MIN_WIDTH, (w // 2 - 3, w // 2 + 3))
    field = _flags(road, draws.uniform((h, 2))).at[h - 1].set(road[h - 1])
    return new_state(s, field=field, player=jnp.array([h - 2, w // 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    grounded = state.cooldown == 0
    air = jnp.where(grounded & (action == JUMP), AIR, jnp.maximum(state.cooldown - 1, 0)).astype(jnp.int32)
    you = jnp.clip(state.player + action_delta(action, MOVES), 0, jnp.array([h - 1, w - 1])).astype(jnp.int32)
    line = scroll.river_line(state.field[0], draws.uniform((2,)), BANK, ROAD, MIN_WIDTH)
    field = scroll.shift_in(state.field, _flags(line[None], draws.uniform((1, 2)))[0], 0,
                            (state.t % params.period) == 0)
    cars = entities.advance(state.foes, h, w)
    cars = entities.kill(cars, entities.on_cells(cars, field == BANK))
    met = meets(state.foes, cars, state.player, you) & (air == 0)
    landing = (state.cooldown == 1) & (air == 0)
    stomped = met & landing
    here = field[you[0], you[1]]
    took = (air == 0) & (here == FLAG_CELL)
    field = field.at[you[0], you[1]].set(jnp.where(took, ROAD, here).astype(jnp.int8))
    crash = (met & ~landing).any() | ((air == 0) & (here == BANK))
    cars = entities.kill(cars, stomped)
    top = jnp.stack([jnp.zeros(w, jnp.int32), jnp.arange(w, dtype=jnp.int32)], 1)
    cars = scroll.enter(cars, draws.uniform() < params.rate, draws.uniform(), top, field[0] == ROAD,
                        jnp.array([1, 0], jnp.int32), 0)
    gained = took.astype(jnp.int32) + stomped.sum().astype(jnp.int32)
    event = jnp.where(stomped.any(), EV_STOMP, jnp.where(took, EV_FLAG, 0))
    nxt = state.replace(player=you, field=field, foes=cars, cooldown=air)
    return nxt, Outcome(gained=gained, died=crash, event=event)


def _paint(state, s: Setting):
    codes = jnp.where(state.field == BANK, 3, jnp.where(state.field == FLAG_CELL, 2, 0)).astype(jnp.int32)
    codes = entities.paint(codes, state.foes, jnp.array([1], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(4)


def _scripted(key, state, params):
    """JUMP when a car in your column will be on your cell as the jump ends; otherwise the move
    (or, when every move crashes, JUMP) whose cell is on the road and clear of cars now and next
    turn, onto a car where the jump will end, else nearest to the nearest flag."""
    h, w = state.field.shape
    you, cars = state.player, state.foes
    grounded = state.cooldown == 0
    stomp = grounded & (cars.alive & (cars.pos[:, 1] == you[1]) & (cars.pos[:, 0] == you[0] - AIR - 1)).any()
    scrolls = (state.t % params.period) == 0
    flags = jnp.argwhere(state.field == FLAG_CELL, size=h, fill_value=-100)

    def value(a):
        cell = jnp.clip(you + action_delta(a, MOVES), 0, jnp.array([h - 1, w - 1]))
        under = state.field[jnp.where(scrolls, jnp.maximum(cell[0] - 1, 0), cell[0]), cell[1]]
        lands = state.cooldown == 1
        car = (cars.alive & (cars.pos[:, 1] == cell[1]) & (jnp.abs(cars.pos[:, 0] + 1 - cell[0]) <= 1)).any()
        down = (state.cooldown <= 1) & ((under == BANK) | (car & ~lands))
        flag = jnp.abs(flags - cell[None]).sum(-1).min()
        onto = (state.cooldown > 0) & (cars.alive & (cars.pos[:, 1] == cell[1])
                                       & (cars.pos[:, 0] + state.cooldown == cell[0])).any()
        return -100.0 * down + 20.0 * onto - jnp.minimum(flag, 50) - 0.5 * jnp.abs(cell[0] - (h - 3))

    moves = action_values(value, JUMP)
    best = jnp.argmax(moves)
    return jnp.where(stomp | (grounded & (moves[best] <= -100)), JUMP, best).astype(jnp.int32)


UPNDOWN = Game(
    name="upndown", pattern="D", unit="flag collected or car jumped on", actions=ACTIONS,
    descriptions=("keep your cell", "drive up one row", "drive down one row", "steer left one column",
                  "steer right one column", f"jump (you stay in the air {AIR} turns)"),
    cells=EMPTY + CAR + FLAG + VERGE + YOU,
    glyphs={YOU: "your car", CAR: "a car (it crashes you; land on it from a jump)",
            FLAG: "a flag (drive over it to collect it)", VERGE: "off the road (driving onto it crashes you)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 14), max_steps=300, target=5, rate=0.1, period=2, caps=(3, 1, 1)),
    atari=Setting(size=(20, 12), max_steps=10000, target=50, rate=0.1, period=2, caps=(5, 1, 1)),
    draws=(80, 8), events=("You collected a flag.", "You landed on a car and wrecked it."),
    death="a car or the verge crashes you", death_message="You crashed. Game over.",
    gauge=("Air", lambda s: s.cooldown),
)
