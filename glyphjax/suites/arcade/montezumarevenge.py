"""Montezuma's Revenge: climb, jump and fall through the 24 rooms of a pyramid, taking each
room's key or jewel, opening its locked door and jumping its rolling skull (pattern D; Atari
only, no MiniAtari counterpart).

Atari: a 20x30 screen, N = 24 rooms (the catalogue's and the reference's W), 10,000 turns. The
pyramid is one map of 4 floors of 6 rooms (`screens.flip` on both axes: you see the room you are
in). The rooms are walked as a snake: left to right along the top floor, down a ladder in its
last room, right to left along the next, and so on. Each room has a floor (row 18; you walk on
row 17), a ledge (row 10, its ends drawn at reset) holding the room's item, and a way up to the
ledge: a ladder in even rooms, in odd ones a rope hanging from the ledge down to row 14 (jump to
grab it). Rooms with an even index and a side exit hold a key and a locked door in their exit;
the others hold a jewel. Taking a room's item (key or jewel) clears it: +1/N; the 24th wins.
LEFT / RIGHT walk; UP climbs a ladder or rope (elsewhere it jumps straight up, as FIRE does);
DOWN climbs down (standing on a ladder's top too); UP_RIGHT / UP_LEFT jump that way
(`core.platform`'s 7-turn arc, 3 rows high, one column a turn; no control in the air:
`arena.climb_step`). Walking into a door holding a key opens it (the key is used). From the
second room on a skull rolls along the floor, one column every `period` turns, turning round at
walls and doors. A skull meeting you (same cell or swapped) or falling more than `MAX_FALL` rows
(past any jump) is death (-1, the end).
Differs from Atari: one layout per room (floor, ledge, ladder or rope), no lasers, conveyor
belts, spiders, snakes, torches, swords or amulets; doors are opened by the key of their own
room; a fixed snake through the pyramid (Atari's is a branching maze of 24 rooms); one life.
The reference counts a room cleared when it holds no treasure and no enemy (enemies there cannot
be killed).
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.platform import JUMP_ARC_DY
from glyphjax.suites.arcade import screens
from glyphjax.suites.arcade.arena import YOU, climb_step
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.kangaroo import FLOOR, LADDER
from glyphjax.suites.arcade.physics import meets, path_clear
from glyphjax.suites.arcade.scroll import patrol
from glyphjax.suites.arcade.tutankham import KEY
from glyphjax.suites.arcade.venture import TREASURE, WALL

ROPE, DOOR, SKULL = "│", "║", "⊛"
ACTIONS = ("NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN", "UP_RIGHT", "UP_LEFT")
NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UP_RIGHT, UP_LEFT = range(8)
LEVELS, ACROSS, ROOMS, FLOOR_ROW, LEDGE_ROW, ROPE_END, MAX_FALL = 4, 6, 24, 18, 10, 14, 4
C_WALL, C_FLOOR, C_LADDER, C_ROPE, C_DOOR = 1, 2, 3, 4, 5
EV_ITEM, EV_DOOR = 1, 2


def snake(i):
    """(floor, room column, walking direction) of room i of the snake."""
    level, p = i // ACROSS, i % ACROSS
    right = level % 2 == 0
    return level, jnp.where(right, p, ACROSS - 1 - p), jnp.where(right, 1, -1)


def _rules(s: Setting) -> str:
    return (f"Montezuma's Revenge. Go through the {ROOMS} rooms of a pyramid ({LEVELS} floors of {ACROSS}; you "
            "see the room you are in): left to right along the top floor, down the ladder in its last "
            "room, right to left along the next floor, and so on. Walls are " + WALL + f", floors {FLOOR}; "
            f"each room's item (a key {KEY} or a jewel {TREASURE}) lies on its ledge, reached by a ladder "
            f"{LADDER} or a rope {ROPE} (jump from the floor to grab it). Taking a room's item clears the "
            "room. LEFT/RIGHT walk; UP climbs a ladder or rope, elsewhere it jumps straight up (as FIRE "
            "does); DOWN climbs down; UP_RIGHT/UP_LEFT jump that way (3 rows high, 7 turns, one column a "
            f"turn, no control in the air). Walking into a locked door {DOOR} with a key opens it (using "
            f"the key). Skulls {SKULL} roll along the floor one column every {s.period} turns; one meeting you "
            f"kills you, and so does falling more than {MAX_FALL} rows.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    lo = draws.randint(3, 9, (ROOMS,))
    hi = draws.randint(20, w - 3, (ROOMS,))
    way = lo + 1 + draws.randint(0, 1 << 10, (ROOMS,)) % (hi - lo - 1)  # the ladder or rope, under the ledge
    item = jnp.where(way - lo > hi - way, lo + 1, hi - 1)  # at the ledge's far end
    down = jnp.where(draws.bernoulli(0.5, (ROOMS,)), 1, w - 3) + draws.randint(0, 2, (ROOMS,))  # off the ledges
    skull = draws.randint(8, w - 8, (ROOMS,))
    roll = jnp.where(draws.bernoulli(0.5, (ROOMS,)), 1, -1)
    level, col, d = snake(jnp.arange(ROOMS))
    rows, cols = jnp.arange(LEVELS * h)[:, None], jnp.arange(ACROSS * w)[None]
    lr, lc = rows % h, cols % w
    room = jnp.zeros((LEVELS, ACROSS), jnp.int32).at[level, col].set(jnp.arange(ROOMS))[rows // h, cols // w]
    side = room % ACROSS < ACROSS - 1  # a side exit the way you walk
    exit_col = jnp.where(d[room] > 0, w - 1, 0)
    doorway = side & (lc == exit_col) & (lr >= FLOOR_ROW - 2) & (lr < FLOOR_ROW)
    entry = (room % ACROSS > 0) & (lc == w - 1 - exit_col) & (lr >= FLOOR_ROW - 2) & (lr < FLOOR_ROW)
    wall = ((lr == 0) | (lr == h - 1) | (lc == 0) | (lc == w - 1)) & ~doorway & ~entry
    floor = (lr == FLOOR_ROW) | ((lr == LEDGE_ROW) & (lc >= lo[room]) & (lc <= hi[room]))
    up = (lc == way[room]) & (lr >= LEDGE_ROW) & (lr < jnp.where(room % 2 == 0, FLOOR_ROW, ROPE_END + 1))
    shaft = (room % ACROSS == ACROSS - 1) & (room < ROOMS - 1) & (lc == down[room]) & (lr >= FLOOR_ROW)
    below = jnp.concatenate([jnp.full((h, ACROSS * w), -1), room[:-h]])  # the room above's index
    into = (below >= 0) & (below % ACROSS == ACROSS - 1)  # the room above is a floor's last
    shaft = shaft | (into & (lc == down[jnp.maximum(below, 0)]) & (lr < FLOOR_ROW))
    locked = doorway & (room % 2 == 0)
    field = jnp.select([locked, shaft, up & (room % 2 == 0), up, wall, floor],
                       [C_DOOR, C_LADDER, C_LADDER, C_ROPE, C_WALL, C_FLOOR], 0).astype(jnp.int8)
    origin = jnp.stack([level * h, col * w], -1)
    keyed = (jnp.arange(ROOMS) % 2 == 0) & (jnp.arange(ROOMS) % ACROSS < ACROSS - 1)  # a key for its door
    items = entities.spawn_many(entities.empty(ROOMS), origin + jnp.stack([0 * item + LEDGE_ROW - 1, item], -1),
                                jnp.zeros((ROOMS, 2), jnp.int32), jnp.where(keyed, 0, 1), jnp.ones(ROOMS, bool))
    skulls = entities.spawn_many(entities.empty(ROOMS), origin + jnp.stack([0 * skull + FLOOR_ROW - 1, skull], -1),
                                 jnp.stack([0 * roll, roll], -1), jnp.zeros(ROOMS, jnp.int32), jnp.arange(ROOMS) > 0)
    return new_state(s, field=field, foes=skulls, bombs=items, player=jnp.array([FLOOR_ROW - 1, 2], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    a = jnp.where(action >= 0, jnp.clip(action, 0, len(ACTIONS) - 1), NOOP)
    field, you = state.field, state.player
    solid = (field == C_WALL) | (field == C_FLOOR) | (field == C_DOOR)
    climb = (field == C_LADDER) | (field == C_ROPE)
    grounded = (state.phase == 0) & (solid | climb)[you[0] + 1, you[1]]  # a ladder's top holds you too
    walk = jnp.select([(a == RIGHT) | (a == UP_RIGHT), (a == LEFT) | (a == UP_LEFT)], [1, -1], 0)
    jump = (a == FIRE) | (a == UP) | (a == UP_RIGHT) | (a == UP_LEFT)
    carry = jnp.where(grounded & jump, jnp.where(a == UP_RIGHT, 1, jnp.where(a == UP_LEFT, -1, 0)), state.heading[0])
    on = climb[you[0], you[1]]
    dx = jnp.select([on | grounded, state.phase > 0], [jnp.where(on & (walk != 0) & jump, 0, walk), carry], 0)
    keys = state.ball[0]
    ahead = jnp.clip(you[1] + dx, 0, field.shape[1] - 1)
    opens = (field[you[0], ahead] == C_DOOR) & (keys > 0) & (dx != 0)
    at, arc = climb_step(solid, climb, you, state.phase, dx, jump & ~(on & (a != UP)), (a == DOWN))
    cols = jnp.arange(field.shape[1])[None]
    door = (field == C_DOOR) & (cols == ahead) & (jnp.arange(field.shape[0])[:, None] // h == you[0] // h) & opens
    falling = (arc == 0) & (state.phase == 0) & (at[0] == you[0] + 1) & ~on & ~climb[at[0], at[1]]
    fall = jnp.where(falling, state.cooldown + 1, 0)
    landed = solid[jnp.minimum(at[0] + 1, field.shape[0] - 1), at[1]]
    skulls = state.foes
    walls = solid | (cols % w == 0) | (cols % w == w - 1)
    rolled = patrol(skulls, walls, state.t % params.period == 0)
    hit = meets(skulls, rolled, you, at).any()
    items = state.bombs
    got = items.alive & (items.pos == at[None]).all(1)
    keys = keys - opens + (got & (items.kind == 0)).sum()
    nxt = state.replace(player=at, phase=arc, field=jnp.where(door, 0, field).astype(jnp.int8), foes=rolled,
                        bombs=entities.kill(items, got), ball=state.ball.at[0].set(keys.astype(jnp.int32)),
                        heading=jnp.stack([jnp.where(arc > 0, carry, 0), 0]).astype(jnp.int32),
                        cooldown=fall.astype(jnp.int32))
    died = hit | (landed & (fall > MAX_FALL))
    return nxt, Outcome(gained=got.sum(), died=died, event=jnp.select([got.any(), opens], [EV_ITEM, EV_DOOR], 0))


def _paint(state, s: Setting):
    corner = jnp.stack([screens.flip(state.player[0], s.size[0]), screens.flip(state.player[1], s.size[1])])
    codes = screens.window(state.field, corner, s.size).astype(jnp.int32)
    codes = entities.paint(codes, screens.seen(state.foes, corner), jnp.array([6], jnp.int32))
    codes = entities.paint(codes, screens.seen(state.bombs, corner), jnp.array([7, 8], jnp.int32))
    here = state.player - corner
    return codes.at[here[0], here[1]].set(9)


_ARC = jnp.cumsum(jnp.array(JUMP_ARC_DY, jnp.int32))


def _scripted(key, state, params):
    """Room by room along the snake: walk under the room's ladder or rope and climb it (jumping
    to the rope's end), walk to the item, climb back down (stepping off the rope's end), then walk
    to the exit (through the door: the key opens it) or down the ladder to the next floor. On the
    floor, a skull ahead within 4 columns: jump over it if the whole arc is clear of it, else wait
    if that is clear, else step back; on a ladder or rope, wait while a skull rolls within 3
    columns of its foot."""
    field, you = state.field, state.player
    n, m = field.shape
    h, w = n // LEVELS, m // ACROSS
    level, col = you[0] // h, you[1] // w
    p = jnp.where(level % 2 == 0, col, ACROSS - 1 - col)
    i = jnp.clip(level * ACROSS + p, 0, ROOMS - 1)
    d = jnp.where(level % 2 == 0, 1, -1)
    lr, base = you[0] % h, col * w
    alive = state.bombs.alive[i]
    climbable = (field == C_LADDER) | (field == C_ROPE)
    local = jnp.arange(m)
    inside = (local >= base) & (local < base + w)
    way = jnp.argmax(climbable[level * h + LEDGE_ROW] & ~climbable[level * h] & inside)  # not the shaft down
    shaft = jnp.argmax(climbable[level * h + FLOOR_ROW] & inside)
    exit_col = jnp.where(p == ACROSS - 1, shaft, base + jnp.where(d > 0, w, -1))
    on = climbable[you[0], you[1]]
    solid = (field == C_WALL) | (field == C_FLOOR) | (field == C_DOOR)
    grounded = (state.phase == 0) & (solid | climbable)[you[0] + 1, you[1]]
    upper = lr < LEDGE_ROW
    target = jnp.where(alive, jnp.where(upper, state.bombs.pos[i, 1], way), jnp.where(upper, way, exit_col))
    step_to = jnp.where(target > you[1], RIGHT, LEFT)
    at_target = you[1] == target
    climb_down = (field[you[0] + 1, you[1]] == C_LADDER) | (field[you[0] + 1, you[1]] == C_ROPE)
    off_rope = jnp.where(d > 0, RIGHT, LEFT)
    floor_act = jnp.select([at_target & alive & ~upper, at_target & ~alive], [UP, DOWN], step_to)
    descend = climb_down & ((alive & (lr < FLOOR_ROW - 1)) | (~alive & (p == ACROSS - 1)))  # down the shaft
    on_act = jnp.where(you[1] == way, jnp.where(alive, UP, jnp.where(climb_down, DOWN, off_rope)),
                       jnp.select([descend, alive & (lr >= FLOOR_ROW)], [DOWN, UP], floor_act))
    # skulls: look ahead on the floor
    sk = state.foes
    rowmask = sk.alive & (sk.pos[:, 0] == you[0])
    gap = (sk.pos[:, 1] - you[1]) * jnp.where(step_to == RIGHT, 1, -1)
    danger = (rowmask & (gap >= 1) & (gap <= 4)).any() & ~upper & (floor_act == step_to)
    sign = jnp.where(step_to == RIGHT, 1, -1)
    steps = jnp.arange(1, len(JUMP_ARC_DY) + 1)
    clear = lambda rows, cols: path_clear(sk, state.t, params.period, you, rows, cols)  # noqa: E731
    over = clear(you[0] + _ARC, you[1] + sign * steps)
    stay = clear(jnp.full((2,), you[0]), jnp.full((2,), you[1]))
    go = clear(jnp.full((2,), you[0]), you[1] + sign * jnp.ones(2, jnp.int32))
    jump_way = jnp.where(sign > 0, UP_RIGHT, UP_LEFT)
    back = jnp.where(sign > 0, LEFT, RIGHT)
    dodge = jnp.select([go & ~danger, over, stay], [floor_act, jump_way, NOOP], back)
    floor_row = level * h + FLOOR_ROW - 1
    below = (sk.alive & (sk.pos[:, 0] == floor_row) & (jnp.abs(sk.pos[:, 1] - you[1]) <= 3)).any()
    wait = on & (on_act != UP) & below & (floor_row - you[0] <= 4)  # a skull under your ladder or rope
    act = jnp.select([wait, on, ~grounded, danger | ~go], [NOOP, on_act, NOOP, dodge], floor_act)
    return act.astype(jnp.int32)


MONTEZUMAREVENGE = Game(
    name="montezumarevenge", pattern="D", unit="room cleared (its key or jewel taken)", actions=ACTIONS,
    descriptions=("stand still", "jump straight up", "climb up a ladder or rope, or jump straight up",
                  "walk one column right", "walk one column left", "climb down a ladder or rope",
                  "jump up and to the right", "jump up and to the left"),
    cells=EMPTY + WALL + FLOOR + LADDER + ROPE + DOOR + SKULL + KEY + TREASURE + YOU,
    glyphs={WALL: "wall", FLOOR: "a floor (solid)", LADDER: "a ladder (UP / DOWN climb it)",
            ROPE: "a rope (climb it like a ladder; grab it in a jump)",
            DOOR: "a locked door (walk into it holding a key to open it)", SKULL: "a rolling skull (its touch kills)",
            KEY: "the key (opens the exit)", TREASURE: "treasure", YOU: "you"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted, mini=None,
    atari=Setting(size=(20, 30), max_steps=10000, target=ROOMS, period=2, caps=(ROOMS, 1, ROOMS)),
    draws=(8 * ROOMS, 1), events=("You cleared the room.", "You opened the door."),
    death="a skull meets you or you fall too far", death_message="You died in the pyramid. Game over.",
)
