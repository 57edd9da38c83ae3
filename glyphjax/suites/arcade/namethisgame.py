"""Name This Game: guard the sunken treasure from the octopus's tentacles and the shark (pattern D).

Atari only: 20x20 field, N = 30 units (the catalogue's W), 10,000 turns. Row 1 holds the octopus
(shots stop at it); its TENTACLES hang from row 2 in fixed columns. Your diver moves along row
H - 2 above the treasure (row H - 1) and FIRE launches a shot (one at a time) climbing two rows a
turn: a shot meeting a tentacle cuts off its tip (+1/N; `scroll.strike`: shots come from below,
so the first tentacle cell met is the tip); a shot meeting the shark kills it (+1/N) and a new
shark enters row 2 at a random side. A turn: you move or fire, the shot flies, the shark swims
one column every `period` turns and at a side drops a row and turns round (`scroll.patrol` with
`descend`), then with probability `rate` a random tentacle grows one cell. A tentacle reaching
row H - 3 or the shark reaching row H - 3 takes the treasure: -1, the end. Differences from the
Atari game: no oxygen line from the boat (the diver never runs out of air), the shark never
speeds up, one life; the reference puts you at the surface shooting down at side-entering
enemies over a row of fish.
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import scroll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import (CANNON_ACTIONS, CANNON_FIRE, CANNON_MOVES, SHOT, cannon_policy, fire,
                                            shoot_down)

YOU, OCTOPUS, TENTACLE, TREASURE, SHARK_L, SHARK_R = "@", "◠", "∫", "$", "◀", "▶"
BODY, ARM = 1, 2  # field codes
TENTACLES = (3, 6, 9, 12, 15)  # tentacle columns (the octopus spans columns 2-16)
EV_CUT, EV_SHARK = 1, 2


def _rules(s: Setting) -> str:
    h, _ = s.size
    return (f"Name This Game. Your diver {YOU} guards the treasure {TREASURE} on the sea floor, moving "
            f"along the row above it. The octopus {OCTOPUS} at the top lets its tentacles {TENTACLE} "
            "grow down (now and then one of them grows a cell); a shark (◀ ▶) swims across one column "
            f"every {s.period} turns and at a side drops a row and turns round. FIRE launches a shot "
            f"{SHOT} (one at a time) climbing two rows a turn: it cuts the tip off the first tentacle it "
            "meets or kills the shark (a new one enters at the top); shots stop at the octopus. A "
            f"tentacle or the shark reaching row {h - 3} takes the treasure.")


def _shark(foes, u, where, w):
    """A new shark in row 2 at the left (u < 0.5, heading right) or the right side."""
    left = u < 0.5
    pos = jnp.stack([jnp.int32(2), jnp.where(left, 0, w - 1)]).astype(jnp.int32)
    return entities.spawn(foes, pos, jnp.stack([jnp.int32(0), jnp.where(left, 1, -1)]).astype(jnp.int32), 0,
                          where=where)


def _reset(draws, s: Setting, params):
    h, w = s.size
    field = jnp.zeros((h, w), jnp.int8).at[1, TENTACLES[0] - 1:TENTACLES[-1] + 2].set(BODY)
    field = field.at[2, jnp.array(TENTACLES)].set(ARM)
    return new_state(s, field=field, player=jnp.array([h - 2, w // 2], jnp.int32),
                     foes=_shark(entities.empty(1), draws.uniform(), True, w))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you = jnp.clip(state.player + action_delta(action, CANNON_MOVES), 0, jnp.array([h - 2, w - 1])).astype(jnp.int32)
    shots0 = fire(state.shots, you, (-2, 0), action == CANNON_FIRE)
    shots1, stopped = scroll.strike(shots0, entities.advance(shots0, h, w), state.field != 0)
    shark = scroll.patrol(state.foes, jnp.zeros((h, w), bool), (state.t % params.period) == 0, descend=True)
    shots, shark, kills = shoot_down(shots0, shots1, state.foes, shark)
    tip = stopped & shots.alive & (shots.pos[:, 0] >= 2)  # a stopped shot that met no shark first
    r, c = jnp.clip(shots.pos[:, 0], 0, h - 1), jnp.clip(shots.pos[:, 1], 0, w - 1)
    field = state.field.at[r, c].set(jnp.where(tip, 0, state.field[r, c]).astype(jnp.int8))
    shots = entities.kill(shots, stopped)
    cols = jnp.array(TENTACLES)
    grow = cols[draws.randint(0, len(TENTACLES))]
    length = (field[:, grow] == ARM).sum()
    field = field.at[2 + length, grow].set(jnp.where(draws.uniform() < params.rate, ARM, field[2 + length, grow]))
    longest = (field[:, cols] == ARM).sum(0).max()
    taken = (2 + longest > h - 3) | (shark.alive & (shark.pos[:, 0] >= h - 3)).any()
    shark = _shark(shark, draws.uniform(), ~shark.alive.any(), w)
    cut = tip.sum().astype(jnp.int32)
    return (state.replace(player=you, shots=shots, foes=shark, field=field),
            Outcome(gained=cut + kills, died=taken, event=jnp.select([kills > 0, cut > 0], [EV_SHARK, EV_CUT], 0)))


def _paint(state, s: Setting):
    h, _ = s.size
    codes = state.field.astype(jnp.int32).at[h - 1].set(3)
    codes = entities.paint(codes, state.foes.replace(kind=(state.foes.vel[:, 1] > 0).astype(jnp.int32)),
                           jnp.array([4, 5], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([6], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(7)


def _scripted(key, state, params):
    """Shoot the longest tentacle (walk under its column and FIRE); when the shark is lower than
    that tentacle's tip, or no tentacle is longer than 4, lead the shark (`physics.cannon_policy`)."""
    field, you = state.field, state.player
    cols = jnp.array(TENTACLES)
    lengths = (field[:, cols] == ARM).sum(0)
    i = jnp.argmax(lengths)
    aim = cols[i]
    arm = jnp.where(aim < you[1], 1, jnp.where(aim > you[1], 2, CANNON_FIRE))
    shark = state.foes.alive[0] & ((state.foes.pos[0, 0] > 1 + lengths[i]) | (lengths[i] <= 4))
    return jnp.where(shark, cannon_policy(state, params.period, state.foes.vel[:, 1]), arm).astype(jnp.int32)


NAMETHISGAME = Game(
    name="namethisgame", pattern="D", unit="tentacle tip cut or shark shot", actions=CANNON_ACTIONS,
    descriptions=("stay where you are", "move one column left", "move one column right", "fire a shot upwards"),
    cells=EMPTY + OCTOPUS + TENTACLE + TREASURE + SHARK_L + SHARK_R + SHOT + YOU,
    glyphs={YOU: "you", OCTOPUS: "the octopus (shots stop at it)", TENTACLE: "an octopus tentacle (shoot its tip)",
            TREASURE: "treasure", SHARK_L: "a shark swimming left", SHARK_R: "a shark swimming right",
            SHOT: "your shot"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=None, atari=Setting(size=(20, 20), max_steps=10000, target=30, rate=0.3, period=1, caps=(1, 1, 1)),
    draws=(1, 3), events=("You cut off a tentacle's tip.", "You shot the shark."),
    death="a tentacle or the shark reaches the treasure",
    death_message="The treasure was taken. Game over.",
)
