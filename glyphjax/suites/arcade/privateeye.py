"""Private Eye: drive along a scrolling city street, find each case's clue behind a door and
return it to the door it belongs to before the case's clock runs out (pattern D; Atari only,
no MiniAtari counterpart).

Atari: a 16x30 view of a 16x240 street, N = 5 cases (the catalogue's and the reference's W),
10,000 turns. The view follows you (`screens.follow`, you kept at its column 15). Thirty
buildings (their height drawn at reset; scenery, nothing stops you in front of them) line the
street, each with a door on the street's level. Each case has a clue behind one door and an
owner's door (two different doors drawn at reset); only the current case's two are marked.
You drive along row 11 on the road; LEFT / RIGHT drive one column and turn you; UP jumps the
way you face and DOWN straight up (`core.platform`'s 7-turn arc, 3 rows high; a jump carries
you a column a turn until you land, whatever you press). EXAMINE on the road in front of the
clue's door takes the clue; EXAMINE in front of the owner's door holding it solves the case
(+1/N) and starts the next with a fresh clock. The clock (the HUD gauge) starts at `CLOCK` a
case and drops one a turn. Thugs walk the road, one column every `period` turns, turning round
at the street's ends; one meeting you on the road (same cell or swapped cells) or the clock
running out is death (-1, the end).
Differs from Atari: one street (no side streets or map), the clue is marked on its door (no
searching windows), no flowerpots or birds; a thug kills (Atari's cost time); the reference has
visible and hidden clues and a criminal, with EXAMINE revealing hidden ones, and its clock
ends the episode without penalty.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.platform import JUMP_ARC_DY, body_step
from glyphjax.suites.arcade import screens
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.kangaroo import FLOOR
from glyphjax.suites.arcade.physics import meets, path_clear
from glyphjax.suites.arcade.scroll import patrol

BUILDING, DOOR, THUG, CLUE, OWNER = "▉", "⌂", "Ж", "?", "⚐"
FACING = "⇐⇒"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "UP", "DOWN", "EXAMINE")
NOOP, LEFT, RIGHT, UP, DOWN, EXAMINE = range(6)
LENGTH, ROAD, CASES, THUGS, CLOCK = 240, 11, 5, 16, 600
C_BUILDING, C_FLOOR, C_DOOR = 1, 2, 3
EV_CLUE, EV_SOLVED = 1, 2


def doors() -> jnp.ndarray:
    """int32[30]: the door column of each building (buildings are columns 8j+1 .. 8j+6)."""
    return jnp.arange(LENGTH // 8) * 8 + 4


def _rules(s: Setting) -> str:
    return (f"Private Eye. Drive along a city street {LENGTH} columns long (the view follows you) and "
            f"solve {CASES} cases. You drive on row {ROAD} above the road {FLOOR}; buildings {BUILDING} "
            f"are scenery, each with a door {DOOR}. The current case's clue is behind the door marked "
            f"{CLUE}; it belongs behind the door marked {OWNER}. You are drawn as an arrow {FACING} "
            "showing the way you face. LEFT/RIGHT drive one column and turn you; UP jumps the way you "
            "face and DOWN straight up (3 rows high, 7 turns; a jump carries you one column a turn "
            f"until you land, whatever you press). EXAMINE in front of {CLUE} takes the clue; EXAMINE in "
            f"front of {OWNER} holding it solves the case and the next begins. Each case has a clock "
            f"(the HUD gauge) of {CLOCK} turns; it running out kills you. Thugs {THUG} walk the road "
            f"one column every {s.period} turns, turning at the street's ends; one meeting you on the "
            "road kills you.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    n = LENGTH // 8
    top = draws.randint(3, 7, (n,))
    clue = draws.randint(0, n, (CASES,))
    owner = (clue + draws.randint(1, n, (CASES,))) % n
    at = draws.randint(12, LENGTH - 1, (THUGS,))
    vel = jnp.where(draws.bernoulli(0.5, (THUGS,)), 1, -1)
    rows, cols = jnp.arange(h)[:, None], jnp.arange(LENGTH)[None]
    local = cols % 8
    facade = (local >= 1) & (local <= 6) & (rows >= top[cols // 8]) & (rows < ROAD)
    field = jnp.select([rows == ROAD + 1, (rows == ROAD - 1) & (local == 4), facade],
                       [C_FLOOR, C_DOOR, C_BUILDING], 0).astype(jnp.int8)
    marks = lambda cols: entities.spawn_many(  # noqa: E731
        entities.empty(CASES), jnp.stack([jnp.full((CASES,), ROAD - 1), doors()[cols]], -1),
        jnp.zeros((CASES, 2), jnp.int32), jnp.arange(CASES), jnp.ones(CASES, bool))
    thugs = entities.spawn_many(entities.empty(THUGS), jnp.stack([jnp.full_like(at, ROAD), at], -1),
                                jnp.stack([0 * vel, vel], -1), jnp.zeros(THUGS, jnp.int32), jnp.ones(THUGS, bool))
    return new_state(s, field=field, foes=thugs, bombs=marks(clue), shots=marks(owner),
                     player=jnp.array([ROAD, 3], jnp.int32), heading=jnp.array([0, 1], jnp.int32),
                     cooldown=jnp.int32(CLOCK))


def _case(state):
    """(the clue's door column, the owner's door column, holding the clue) of the current case."""
    k = jnp.minimum(state.score, CASES - 1)
    return state.bombs.pos[k, 1], state.shots.pos[k, 1], ~state.bombs.alive[k]


def _step(draws, state, action, s: Setting, params):
    a = jnp.where(action >= 0, jnp.clip(action, 0, len(ACTIONS) - 1), NOOP)
    you = state.player
    solid = state.field == C_FLOOR
    grounded = (state.phase == 0) & solid[you[0] + 1, you[1]]
    jump = grounded & ((a == UP) | (a == DOWN))
    walk = jnp.select([a == RIGHT, a == LEFT], [1, -1], 0)
    carry = jnp.where(jump, jnp.where(a == UP, state.heading[1], 0), state.heading[0])
    dx = jnp.where((state.phase > 0) | jump, carry, jnp.where(grounded, walk, 0))
    at, arc, _, _ = body_step(solid, you, state.phase, jnp.bool_(False), dx, jump)
    facing = jnp.where(walk != 0, walk, state.heading[1])
    k = jnp.minimum(state.score, CASES - 1)
    clue, owner, holding = _case(state)
    looks = (a == EXAMINE) & grounded
    found = looks & ~holding & (at[1] == clue)
    solved = looks & holding & (at[1] == owner)
    thugs = state.foes
    blocked = jnp.zeros((s.size[0], LENGTH), bool).at[:, 0].set(True).at[:, LENGTH - 1].set(True)
    moved = patrol(thugs, blocked, state.t % params.period == 0)
    mugged = meets(thugs, moved, you, at).any()
    clock = jnp.where(solved, CLOCK, state.cooldown - 1)
    nxt = state.replace(player=at, phase=arc, foes=moved, heading=jnp.stack([carry, facing]).astype(jnp.int32),
                        bombs=entities.kill(state.bombs, (jnp.arange(CASES) == k) & found),
                        shots=entities.kill(state.shots, (jnp.arange(CASES) == k) & solved),
                        cooldown=clock.astype(jnp.int32))
    event = jnp.select([solved, found], [EV_SOLVED, EV_CLUE], 0)
    return nxt, Outcome(gained=solved.astype(jnp.int32), died=(mugged | (clock <= 0)) & ~solved, event=event)


def _paint(state, s: Setting):
    h, w = s.size
    corner = jnp.stack([0, screens.follow(state.player[1], w // 2, LENGTH, w)])
    codes = screens.window(state.field, corner, s.size).astype(jnp.int32)
    codes = entities.paint(codes, screens.seen(state.foes, corner), jnp.array([4], jnp.int32))
    k = jnp.minimum(state.score, CASES - 1)
    current = lambda pool: screens.seen(pool.replace(alive=pool.alive & (pool.kind == k)), corner)  # noqa: E731
    codes = entities.paint(codes, current(state.bombs), jnp.array([5], jnp.int32))
    codes = entities.paint(codes, current(state.shots), jnp.array([6], jnp.int32))
    here = state.player - corner
    return codes.at[here[0], here[1]].set(jnp.where(state.heading[1] < 0, 7, 8))


_ARC = jnp.cumsum(jnp.array(JUMP_ARC_DY, jnp.int32))


def _scripted(key, state, params):
    """Drive to the marked door (the clue's, then the owner's) and EXAMINE there. Looking ahead
    with the game's own rules (`physics.path_clear`): step on when the next cell stays clear of thugs for two turns,
    else jump forward (UP) if the whole arc is clear, else straight up (DOWN), else step back,
    else wait. Nothing in the air."""
    you = state.player
    clue, owner, holding = _case(state)
    target = jnp.where(holding, owner, clue)
    way = jnp.where(target >= you[1], 1, -1)
    steps = jnp.arange(1, len(JUMP_ARC_DY) + 1)
    clear = lambda rows, cols: path_clear(state.foes, state.t, params.period, you, rows, cols)  # noqa: E731
    fwd = clear(you[0] + _ARC, you[1] + state.heading[1] * steps)
    hop = clear(you[0] + _ARC, jnp.full_like(steps, you[1]))
    go = clear(jnp.full((2,), ROAD), you[1] + way * jnp.array([1, 1]))
    back = clear(jnp.full((2,), ROAD), you[1] - way * jnp.array([1, 1]))
    stay = clear(jnp.full((2,), ROAD), jnp.full((2,), you[1]))
    grounded = state.phase == 0
    facing = state.heading[1] == way
    step, retreat = jnp.where(way > 0, RIGHT, LEFT), jnp.where(way > 0, LEFT, RIGHT)
    act = jnp.select([~grounded, you[1] == target, go, facing & fwd, hop, back, stay],
                     [NOOP, EXAMINE, step, UP, DOWN, retreat, NOOP], UP)
    return act.astype(jnp.int32)


PRIVATEEYE = Game(
    name="privateeye", pattern="D", unit="case solved", actions=ACTIONS,
    descriptions=("stay where you are", "drive one column left (and face left)",
                  "drive one column right (and face right)", "jump the way you face", "jump straight up",
                  "examine the door in front of you (take the clue, or hand it over)"),
    cells=EMPTY + BUILDING + FLOOR + DOOR + THUG + CLUE + OWNER + FACING,
    glyphs={BUILDING: "a building (scenery: it does not stop you)", FLOOR: "a floor (solid)",
            DOOR: "a door", THUG: "enemy", CLUE: "the door hiding the current case's clue (EXAMINE there)",
            OWNER: "the door the clue belongs to (EXAMINE there holding it)",
            **{g: f"you (facing {d})" for g, d in zip(FACING, ("left", "right"))}},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted, mini=None,
    atari=Setting(size=(16, 30), max_steps=10000, target=CASES, period=2, caps=(THUGS, CASES, CASES)),
    draws=(LENGTH // 8 + 2 * CASES + 2 * THUGS, 1), events=("You found the clue.", "You solved the case."),
    death="a thug meets you on the road or the case's clock runs out",
    death_message="Your case went cold. Game over.", gauge=("Clock", lambda state: state.cooldown),
)
