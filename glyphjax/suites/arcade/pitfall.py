"""Pitfall!: run right through a jungle of flip screens, jumping tar pits and rolling logs, and
pick up the treasures (pattern D; Atari only, no MiniAtari counterpart).

Atari: a 12x40 screen, N = 32 treasures (the catalogue's and the reference's W), 10,000 turns.
The jungle is one map of `SCREENS` screens side by side (`screens.flip`: you see the whole screen
you are on; walking off its right edge shows the next). The jungle floor is row 9; you walk on
row 8. Each screen but the first is drawn at reset: clear, a tar pit (4 cells of the floor),
two rolling logs, or both; every odd screen holds a treasure on row 8, 6 columns from its right edge.
LEFT / RIGHT walk one column and turn you; FIRE jumps the way you face, UP jumps straight up
(`core.platform`'s 7-turn arc, 3 rows high; the jump carries you one column a turn whatever
you press until you land); DOWN does nothing. Logs roll left along row 8, one column every
`period` turns, wrapping round their own screen. Picking up a treasure pays +1/N; the 32nd
wins. Dropping into a tar pit, or a log meeting you (same cell or swapped cells), is death (-1,
the end).
Differs from Atari: no underground tunnels, ladders, vines, crocodiles, scorpions or fire, no
clock; logs kill (Atari's cost points); 64 screens in one direction (Atari: 255 in a ring).
The reference also has vines and 255 screens.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.platform import JUMP_ARC_DY, body_step
from glyphjax.suites.arcade import screens
from glyphjax.suites.arcade.arena import YOU
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.kangaroo import FLOOR
from glyphjax.suites.arcade.asterix import TREASURE
from glyphjax.suites.arcade.physics import meets

TAR, LOG = "▩", "◓"
ACTIONS = ("NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN")
SCREENS, PIT = 64, 4
C_FLOOR, C_TAR = 1, 2
EV_TREASURE = 1


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"Pitfall! Run right through a jungle of {SCREENS} screens of {w} columns (walk off the right "
            f"edge to see the next). You walk on row {h - 4}, above the jungle floor {FLOOR}. LEFT / RIGHT "
            "walk one column and turn you; FIRE jumps the way you face and UP straight up (3 rows high, 7 "
            "turns; a jump carries you one column a turn until you land, whatever you press). Treasures "
            f"{TREASURE} lie on every second screen: touch one to pick it up. Dropping into a tar pit {TAR} "
            f"kills you; logs {LOG} roll left, one column every {s.period} turns, and one meeting you "
            "kills you.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    kind = draws.randint(0, 4, (SCREENS,)).at[0].set(0)  # 0 clear, 1 pit, 2 logs, 3 both
    pit = draws.randint(8, w - 12, (SCREENS,))
    log = draws.randint(0, w // 2, (SCREENS,))
    cols = jnp.arange(SCREENS * w)
    scr, local = cols // w, cols % w
    tar = (kind[scr] % 2 == 1) & (local >= pit[scr]) & (local < pit[scr] + PIT)
    field = jnp.zeros((h, SCREENS * w), jnp.int8).at[h - 3].set(jnp.where(tar, C_TAR, C_FLOOR).astype(jnp.int8))
    base = jnp.arange(SCREENS) * w
    logs_at = jnp.concatenate([base + log, base + log + w // 2])
    logs = entities.spawn_many(entities.empty(2 * SCREENS), jnp.stack([jnp.full_like(logs_at, h - 4), logs_at], 1),
                               jnp.tile(jnp.array([[0, -1]]), (2 * SCREENS, 1)), jnp.zeros(2 * SCREENS, jnp.int32),
                               jnp.tile(kind >= 2, 2))
    odd = base[1::2] + w - 6
    gems = entities.spawn_many(entities.empty(SCREENS // 2), jnp.stack([jnp.full_like(odd, h - 4), odd], 1),
                               jnp.zeros((SCREENS // 2, 2), jnp.int32), jnp.zeros(SCREENS // 2, jnp.int32),
                               jnp.ones(SCREENS // 2, bool))
    return new_state(s, field=field, foes=logs, bombs=gems, player=jnp.array([h - 4, 2], jnp.int32),
                     heading=jnp.array([0, 1], jnp.int32))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    a = jnp.clip(action, 0, len(ACTIONS) - 1)
    walk = jnp.where(action >= 0, jnp.array([0, 0, 0, 1, -1, 0])[a], 0)
    grounded = (state.phase == 0) & (state.field[jnp.minimum(state.player[0] + 1, h - 1), state.player[1]] == C_FLOOR)
    jump = grounded & ((a == 1) | (a == 2)) & (action >= 0)
    carry = jnp.where(jump, jnp.where(a == 1, state.heading[1], 0), state.heading[0])  # the jump's column step
    airborne = (state.phase > 0) | jump
    dx = jnp.where(airborne, carry, jnp.where(grounded, walk, 0))
    you, arc, _, _ = body_step(state.field == C_FLOOR, state.player, state.phase, jnp.bool_(False), dx, jump)
    facing = jnp.where(walk != 0, walk, state.heading[1])
    moves = state.t % params.period == 0
    logs = state.foes
    base = logs.pos[:, 1] // w * w
    rolled = logs.replace(pos=logs.pos.at[:, 1].set(jnp.where(moves, base + (logs.pos[:, 1] - base - 1) % w,
                                                                 logs.pos[:, 1])))
    crushed = meets(logs, rolled, state.player, you).any()
    gems = state.bombs
    got = gems.alive & (gems.pos == you[None]).all(1)
    died = crushed | (you[0] >= h - 3)
    nxt = state.replace(player=you, phase=arc, heading=jnp.stack([carry, facing]).astype(jnp.int32),
                        foes=rolled, bombs=entities.kill(gems, got))
    return nxt, Outcome(gained=got.sum(), died=died, event=jnp.where(got.any(), EV_TREASURE, 0))


def _paint(state, s: Setting):
    corner = jnp.stack([0, screens.flip(state.player[1], s.size[1])])
    codes = screens.window(state.field, corner, s.size).astype(jnp.int32)
    codes = entities.paint(codes, screens.seen(state.foes, corner), jnp.array([3], jnp.int32))
    codes = entities.paint(codes, screens.seen(state.bombs, corner), jnp.array([4], jnp.int32))
    here = state.player - corner
    return codes.at[here[0], jnp.clip(here[1], 0, s.size[1] - 1)].set(5)


def _clear(state, params, rows, cols):
    """Does the path (rows, cols: int32[K], your cell after each of the next K turns) meet no log
    (same cell, or swapped cells) and end on solid floor? Logs roll as `_step` rolls them."""
    h, n = state.field.shape
    w = n // SCREENS
    k = jnp.arange(rows.shape[0] + 1)
    t = state.t + jnp.arange(rows.shape[0] + 1)
    rolls = jnp.cumsum(jnp.where(k > 0, (t - 1) % params.period == 0, 0))  # rolls made by turn k
    logs = state.foes
    base = logs.pos[:, 1] // w * w
    at = base[None] + (logs.pos[None, :, 1] - base[None] - rolls[:, None]) % w  # [K + 1, N]
    path_r = jnp.concatenate([state.player[:1], rows])[:, None]
    path_c = jnp.concatenate([state.player[1:], cols])[:, None]
    on_row = logs.alive[None] & (logs.pos[None, :, 0] == path_r)
    same = on_row[1:] & (at[1:] == path_c[1:])
    swap = on_row[1:] & on_row[:-1] & (at[1:] == path_c[:-1]) & (at[:-1] == path_c[1:])
    land = state.field[h - 3, jnp.clip(cols[-1], 0, n - 1)] == C_FLOOR
    return ~(same | swap).any() & land


_ARC = jnp.cumsum(jnp.array(JUMP_ARC_DY, jnp.int32))


def _scripted(key, state, params):
    """Head back for a treasure left behind within a third of a screen, else run right, looking
    ahead with the game's own rules: when a tar pit starts 1-2 columns ahead or a log is 1-5
    columns ahead (or will wrap round to there), jump forward (FIRE) if the whole arc meets no log
    and lands on floor, else jump straight up (UP) if that is clear, else wait; otherwise walk on
    when the next cell is clear (a step the other way turns you first). Nothing in the air."""
    h, n = state.field.shape
    w = n // SCREENS
    you = state.player
    gems = state.bombs
    back = (gems.alive & (gems.pos[:, 1] < you[1]) & (you[1] - gems.pos[:, 1] <= w // 3)).any()
    way = jnp.where(back, -1, 1)
    steps = jnp.arange(1, len(JUMP_ARC_DY) + 1)
    fire = _clear(state, params, you[0] + _ARC, you[1] + way * steps)
    up = _clear(state, params, you[0] + _ARC, jnp.full_like(steps, you[1]))
    walk = _clear(state, params, you[:1], you[1:] + way)
    pit = (state.field[h - 3, jnp.clip(you[1] + way * jnp.arange(1, 3), 0, n - 1)] == C_TAR).any()
    gap = (jnp.concatenate([state.foes.pos[:, 1], state.foes.pos[:, 1] + w]) - you[1]) * way
    row = jnp.tile(state.foes.alive & (state.foes.pos[:, 0] == you[0]), 2)
    danger = pit | (row & (gap >= 1) & (gap <= 5)).any()
    grounded = (state.phase == 0) & (state.field[jnp.minimum(you[0] + 1, h - 1), you[1]] == C_FLOOR)
    step = jnp.where(way > 0, 3, 4)
    facing = state.heading[1] == way
    act = jnp.select([~grounded, danger & facing & fire, danger & up, ~facing & walk, danger, walk, facing & fire, up],
                     [0, 1, 2, step, 0, step, 1, 2], 0)
    return act.astype(jnp.int32)


PITFALL = Game(
    name="pitfall", pattern="D", unit="treasure", actions=ACTIONS,
    descriptions=("stand still", "jump the way you face", "jump straight up", "walk one column right",
                  "walk one column left", "do nothing (no ladders or vines here)"),
    cells=EMPTY + FLOOR + TAR + LOG + TREASURE + YOU,
    glyphs={YOU: "you", FLOOR: "a floor (solid)", TAR: "a tar pit (dropping in kills you)",
            LOG: "a rolling log", TREASURE: "treasure"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted, mini=None,
    atari=Setting(size=(12, 40), max_steps=10000, target=32, period=2, caps=(2 * SCREENS, 1, SCREENS // 2)),
    draws=(3 * SCREENS, 1), events=("You picked up a treasure.",),
    death="you drop into a tar pit or a log meets you",
    death_message="You died in the jungle. Game over.",
)
