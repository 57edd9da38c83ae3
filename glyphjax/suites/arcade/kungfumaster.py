"""Kung-Fu Master: knock out the fighters coming along the corridor from both sides (pattern D).

MiniAtari: 8x16 field, N = 8 knock-outs, 300 turns. Atari: 16x30, N = 40 (the catalogue's W),
10,000 turns. Everyone stands on the corridor row above the floor. LEFT/RIGHT turn you to face
that way, or step one cell when you already face it. With probability `rate` a turn a fighter
enters at a random end of the corridor (a dwarf one time in three, else a gripper) and walks
towards you one cell every `period` turns. A turn: you turn, step or strike, then the fighters
walk. PUNCH knocks out the nearest gripper within 2 cells on the side you face (dwarfs are too
small for it); KICK the nearest fighter of either kind within 1 cell on that side (+1/N each).
A fighter meeting you (same cell, or swapped) grabs you: the end (-1). Atari's floors, boss,
knife throwers and energy bar are left out; its JUMP and DUCK are not in the mini action set,
which serves both settings.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import meets

YOU_LEFT, YOU_RIGHT, GRIPPER, DWARF, FLOOR = "⇐", "⇒", "Ӂ", "ʏ", "═"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "PUNCH", "KICK")
PUNCH, KICK = 3, 4
GRIP, SMALL = 0, 1  # fighter kinds
EV_KO = 1


def _rules(s: Setting) -> str:
    return (f"Kung-Fu Master. You ({YOU_LEFT} / {YOU_RIGHT}, the way you face) stand in a corridor above the "
            f"floor {FLOOR}. LEFT/RIGHT turn you that way, or step one cell when you already face it. Grippers "
            f"{GRIPPER} and dwarfs {DWARF} come from both ends and walk towards you one cell every {s.period} "
            "turns. PUNCH knocks out the nearest gripper within 2 cells on the side you face; KICK the nearest "
            "fighter of either kind within 1 cell on that side. A fighter reaching you grabs you and the "
            "game is over.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, player=jnp.array([h - 2, w // 2], jnp.int32), heading=jnp.array([0, 1], jnp.int32))


def strike_target(foes: entities.Pool, you, facing, reach: int, kinds) -> tuple[jnp.ndarray, jnp.ndarray]:
    """bool[N] of the nearest fighter of `kinds` within `reach` cells on the side you face -> (mask, any)."""
    ahead = (foes.pos[:, 1] - you[1]) * facing
    ok = foes.alive & jnp.isin(foes.kind, jnp.asarray(kinds)) & (ahead >= 1) & (ahead <= reach)
    i = jnp.argmin(jnp.where(ok, ahead, 1 << 20))
    return (jnp.arange(foes.size) == i) & ok[i], ok.any()


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    face = jnp.where(action == 1, -1, jnp.where(action == 2, 1, state.heading[1]))
    steps = ((action == 1) | (action == 2)) & (face == state.heading[1])
    you = state.player.at[1].set(jnp.clip(state.player[1] + jnp.where(steps, face, 0), 0, w - 1))
    punched, _ = strike_target(state.foes, you, face, 2, (GRIP,))
    kicked, _ = strike_target(state.foes, you, face, 1, (GRIP, SMALL))
    ko = jnp.where(action == PUNCH, punched, jnp.where(action == KICK, kicked, False))
    foes0 = entities.kill(state.foes, ko)
    toward = jnp.sign(you[1] - foes0.pos[:, 1])
    moving = (state.t % params.period) == 0
    foes1 = foes0.replace(pos=foes0.pos.at[:, 1].add(jnp.where(moving & foes0.alive, toward, 0)).astype(jnp.int32))
    grabbed = meets(foes0, foes1, state.player, you).any()
    left = draws.bernoulli(0.5)
    cell = jnp.stack([jnp.int32(h - 2), jnp.where(left, 0, w - 1)]).astype(jnp.int32)
    kind = jnp.where(draws.uniform() < 1 / 3, SMALL, GRIP)
    go = (draws.uniform() < params.rate) & (cell != you).any()
    foes = entities.spawn(foes1, cell, jnp.zeros(2, jnp.int32), kind, where=go)
    nxt = state.replace(player=you.astype(jnp.int32), heading=jnp.stack([0, face]).astype(jnp.int32), foes=foes)
    gained = ko.sum().astype(jnp.int32)
    return nxt, Outcome(gained=gained, died=grabbed, event=jnp.where(gained > 0, EV_KO, 0))


def _paint(state, s: Setting):
    h, w = s.size
    codes = jnp.zeros((h, w), jnp.int32).at[h - 1].set(5)
    codes = entities.paint(codes, state.foes, jnp.array([3, 4], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(jnp.where(state.heading[1] < 0, 1, 2))


def _scripted(key, state, params):
    """Face the nearest fighter; strike it when in reach (PUNCH a gripper at 2, KICK at 1), else wait."""
    you, foes = state.player, state.foes
    i, _ = entities.nearest(foes, you)
    f = foes.pos[jnp.maximum(i, 0)]
    side = jnp.sign(f[1] - you[1])
    dist = jnp.abs(f[1] - you[1])
    is_grip = foes.kind[jnp.maximum(i, 0)] == GRIP
    turn = jnp.where(side < 0, 1, 2)
    hit = jnp.where(dist <= 1, KICK, jnp.where(is_grip & (dist <= 2), PUNCH, 0))
    act = jnp.where(side != state.heading[1], turn, hit)
    return jnp.where((i >= 0) & (side != 0), act, 0).astype(jnp.int32)


KUNGFUMASTER = Game(
    name="kungfumaster", pattern="D", unit="fighter knocked out", actions=ACTIONS,
    descriptions=("stand still", "face left, or step left when you face left",
                  "face right, or step right when you face right", "punch a gripper up to 2 cells ahead",
                  "kick a fighter 1 cell ahead"),
    cells=EMPTY + YOU_LEFT + YOU_RIGHT + GRIPPER + DWARF + FLOOR,
    glyphs={YOU_LEFT: "you (facing left)", YOU_RIGHT: "you (facing right)",
            GRIPPER: "a gripper (PUNCH or KICK knocks it out)", DWARF: "a dwarf (only KICK reaches it)",
            FLOOR: "a floor (solid)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(8, 16), max_steps=300, target=8, rate=0.2, period=2, caps=(6, 1, 1)),
    atari=Setting(size=(16, 30), max_steps=10000, target=40, rate=0.2, period=2, caps=(10, 1, 1)),
    draws=(1, 3), events=("You knocked out a fighter.",),
    death="a fighter grabs you", death_message="A fighter grabbed you. Game over.",
)
