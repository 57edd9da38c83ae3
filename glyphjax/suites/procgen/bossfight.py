"""BossFight: shoot down a boss whose shields rise at the start of every round.

Field 12 x 20, the whole of it in view. The boss is a 3 x 3 block in rows 0-4 that steps one cell
(8-way) every 2 turns towards a destination, picking a new one (by chance) on arrival. You fly
in rows 5-11 one cell a turn; FIRE (at most every 2nd turn) sends a shot up 2 cells a turn.
The level (seed) fixes the fight: 1-4 rounds of 2-6 hits each, how long the shields stay up at a
round's start (6-11 turns, hard 6-20) and each round's attack, and 1-3 asteroids in rows 6-8.
While the shields are up (`◙`) shots glance off and the boss attacks with the round's pattern:
a fan of 3 shots down every 4 turns, a sweeping single shot every 2 turns, a ring of 8 shots
every 5 turns, or a shot aimed at you every 2 turns (hard: fans every 3 and rings every 4).
Once they drop (`■`) every hit counts and the boss fires only now and then (a tenth of the
turns, a shot down at a random slant). The round's last hit raises the shields for the next
round; the last round's last hit destroys the boss. Enemy shots fly a cell every 2 turns (hard:
every turn); asteroids stop every shot and break after 3; touching an asteroid or being hit
kills you.
Reward (pattern D): 0.5/N per hit on the boss (N = its total hits), +0.5 when it is destroyed,
-1 on death. Return range [-1, 1].
Differs from OpenAI Procgen: there the boss's rounds pay +1 each and its destruction +10.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core import entities
from glyphjax.core.sampling import hash_bits
from glyphjax.suites.procgen.engine import Game, ProcgenState, fresh_state
from glyphjax.suites.procgen.shooters import (BOLT, FIRE, FIRE_ACTIONS, FIRE_DESCRIPTIONS,
                                              GLYPHS_SHOTS, HEADINGS, SHOT, aim,
                                              dodging_action, every, extend, move_in_field,
                                              swept_on_mask, threat_cells)

H, W = 12, 20
TOP = 5  # your first row
MAX_ROUNDS = 4
N_ROCKS, N_SHOTS, N_BOLTS = 3, 6, 24
ROCK_HP = 3
START = (H - 1, W // 2)
EMPTY_C, SHOT_C, BOLT_C, ROCK_C, BOSS_C, SHIELD_C = range(6)
BOSS, SHIELDED, ROCK = "■", "◙", "⬟"
EVENTS = ("", "The boss is destroyed. You win!", "An enemy shot hit you.", "You hit an asteroid.",
          "A hit on the boss.", "The boss is hit and its shields rise again.")
WIN, SHOT_DOWN, ROCK_CRASH, HIT, ROUND = 1, 2, 3, 4, 5
_FAN = jnp.array([(1, -1), (1, 0), (1, 1)], jnp.int32)
_SWEEP = jnp.array([-1, 0, 1, 0], jnp.int32)


@struct.dataclass(kw_only=True)  # after ProcgenState's defaulted fields
class BossfightState(ProcgenState):
    boss: jax.Array  # int32[2]: the boss's centre cell
    dest: jax.Array  # int32[2]: the cell it heads for
    shields: jax.Array  # bool: shields up
    shield_time: jax.Array  # int32: turns the shields stay up
    round: jax.Array  # int32: current round (0-based)
    left: jax.Array  # int32: hits left in this round
    rounds: jax.Array  # int32: rounds of the fight
    round_hp: jax.Array  # int32: hits per round
    shield_turns: jax.Array  # int32: turns the shields stay up at a round's start
    modes: jax.Array  # int32[MAX_ROUNDS]: each round's attack pattern (0 fan, 1 sweep, 2 ring, 3 aimed)
    cool: jax.Array  # int32: turns until you may fire again
    shots: entities.Pool  # your shots (velocity (-2, 0))
    bolts: entities.Pool  # the boss's shots
    rocks: entities.Pool  # asteroids; timer = hits left


def bossfight_generate(draws, hard, level) -> BossfightState:
    """A level: the fight (rounds, hits, shield time, attacks) and the asteroids."""
    rounds = draws.randint(1, MAX_ROUNDS + 1)
    round_hp = draws.randint(2, 7)
    shield_turns = draws.randint(6, jnp.where(hard, 21, 12))
    modes = draws.randint(0, 4, (MAX_ROUNDS,))
    n_rocks = draws.randint(1, N_ROCKS + 1)
    rock_pos = jnp.stack([draws.randint(6, 9, (N_ROCKS,)), draws.randint(0, W, (N_ROCKS,))], 1)
    alive = (jnp.arange(N_ROCKS) < n_rocks) & (rock_pos[:, 1] != START[1])
    rocks = entities.Pool(pos=rock_pos, vel=jnp.zeros((N_ROCKS, 2), jnp.int32), kind=jnp.zeros((N_ROCKS,), jnp.int32),
                          alive=alive, timer=jnp.full((N_ROCKS,), ROCK_HP, jnp.int32))
    boss = jnp.array([2, W // 2], jnp.int32)
    base = fresh_state(jnp.zeros((H, W), jnp.int8), START, level, total=rounds * round_hp)
    return extend(BossfightState, base, boss=boss, dest=boss, shields=jnp.bool_(True),
                  shield_time=shield_turns, round=jnp.int32(0), left=round_hp, rounds=rounds,
                  round_hp=round_hp, shield_turns=shield_turns, modes=modes, cool=jnp.int32(0),
                  shots=entities.empty(N_SHOTS), bolts=entities.empty(N_BOLTS), rocks=rocks)


def boss_mask(centre: jax.Array) -> jax.Array:
    """bool[H, W]: the boss's 3 x 3 cells."""
    rows, cols = jnp.arange(H)[:, None], jnp.arange(W)[None, :]
    return (jnp.abs(rows - centre[0]) <= 1) & (jnp.abs(cols - centre[1]) <= 1)


def _move_boss(state: BossfightState, u: jax.Array):
    """Every 2nd turn a king step towards the destination; a new one drawn on arrival."""
    arrived = jnp.all(state.boss == state.dest)
    fresh = jnp.stack([1 + jnp.floor(u[0] * 3), 1 + jnp.floor(u[1] * (W - 2))]).astype(jnp.int32)
    dest = jnp.where(arrived, fresh, state.dest)
    step = jnp.where(every(state.t, 2), jnp.sign(dest - state.boss), 0)
    return (state.boss + step).astype(jnp.int32), dest


def _attack(state: BossfightState, boss, you, u, hard):
    """The shots the boss fires this turn -> (start cells int32[8, 2], velocities, mask bool[8])."""
    t = state.t
    mode = state.modes[jnp.clip(state.round, 0, MAX_ROUNDS - 1)]
    fan_every = jnp.where(hard, 3, 4)
    ring_every = jnp.where(hard, 4, 5)
    k = jnp.arange(8)
    fan = jnp.concatenate([_FAN, jnp.zeros((5, 2), jnp.int32)])
    sweep = jnp.zeros((8, 2), jnp.int32).at[0].set(jnp.stack([1, _SWEEP[jax.lax.rem(jax.lax.div(t, 2), 4)]]))
    aimed = jnp.zeros((8, 2), jnp.int32).at[0].set(aim(boss + jnp.array([1, 0]), you))
    slant = jnp.zeros((8, 2), jnp.int32).at[0].set(jnp.stack([1, jnp.floor(u[2] * 3).astype(jnp.int32) - 1]))
    vel = jnp.select([~state.shields, mode == 0, mode == 1, mode == 2], [slant, fan, sweep, HEADINGS], aimed)
    count = jnp.select([~state.shields, mode == 0, mode == 1, mode == 2],
                       [jnp.where(u[3] < 0.1, 1, 0), jnp.where(every(t, fan_every), 3, 0),
                        jnp.where(every(t, 2), 1, 0), jnp.where(every(t, ring_every), 8, 0)],
                       jnp.where(every(t, 2), 1, 0))
    return jnp.broadcast_to(boss, (8, 2)) + vel, vel, k < count


def _hit_boss(state: BossfightState, n_hits):
    """The round's bookkeeping for n_hits hits through lowered shields -> replaced fields."""
    left = state.left - n_hits
    round_over = ~state.shields & (left <= 0) & (n_hits > 0)
    won = round_over & (state.round + 1 >= state.rounds)
    nxt = round_over & ~won
    return dict(items=state.items + n_hits, left=jnp.where(nxt, state.round_hp, jnp.maximum(left, 0)),
                round=state.round + nxt, shields=state.shields | nxt,
                shield_time=jnp.where(nxt, state.shield_turns, state.shield_time)), won, nxt


def bossfight_step(state: BossfightState, action, params, key):
    """One turn; the step key draws the boss's destinations and its shots while unshielded."""
    u = (hash_bits(key, 4) >> 8).astype(jnp.float32) * jnp.float32(2.0 ** -24)
    pos = move_in_field(state.pos, action, H, W, TOP)
    fire = (action == FIRE) & (state.cool == 0)
    shots_b = entities.spawn(state.shots, pos, jnp.array([-2, 0]), 0, where=fire)
    shots_a = entities.advance(shots_b, H, W, "kill")
    boss, dest = _move_boss(state, u)
    bolts_a = entities.advance(state.bolts, H, W, "kill", moving=state.bolts.alive & (params.hard | every(state.t, 2)))
    rock_cells = entities.occupancy(state.rocks, H, W) > 0
    shot_rock = swept_on_mask(shots_b, shots_a, rock_cells)
    shot_boss = swept_on_mask(shots_b, shots_a, boss_mask(boss)) & ~shot_rock
    bolt_rock = swept_on_mask(state.bolts, bolts_a, rock_cells)
    shots = entities.kill(shots_a, shot_rock | shot_boss)
    rock_hit = _rock_damage(state.rocks, shots_b, shots_a, shot_rock, state.bolts, bolts_a, bolt_rock)
    rocks = state.rocks.replace(timer=state.rocks.timer - rock_hit)
    rocks = entities.kill(rocks, rocks.timer <= 0)
    bolts = entities.kill(bolts_a, bolt_rock)
    n_hits = jnp.where(state.shields, 0, jnp.sum(shot_boss, dtype=jnp.int32))
    n_hits = jnp.minimum(n_hits, state.left)
    fields, won, next_round = _hit_boss(state, n_hits)
    shot_down = entities.point_hits(state.bolts, bolts, state.pos, pos).any()
    crashed = (entities.occupancy(rocks, H, W)[pos[0], pos[1]] > 0)
    died = (shot_down | crashed) & ~won
    start, vel, mask = _attack(state, boss, pos, u, params.hard)
    bolts = entities.spawn_many(bolts, start, vel, jnp.zeros((8,), jnp.int32), mask & ~won)
    shield_time = jnp.maximum(fields["shield_time"] - 1, 0)
    shields = fields["shields"] & ((shield_time > 0) | next_round)
    earned = 0.5 * fields["items"] / jnp.maximum(state.total, 1) + 0.5 * won
    reward = earned - state.earned - died
    event = jnp.select([won, shot_down & died, died, next_round, n_hits > 0], [WIN, SHOT_DOWN, ROCK_CRASH, ROUND, HIT], 0)
    nxt = state.replace(pos=pos, boss=boss, dest=dest, shots=shots, bolts=bolts, rocks=rocks,
                        cool=jnp.where(fire, 1, jnp.maximum(state.cool - 1, 0)).astype(jnp.int32),
                        earned=earned.astype(jnp.float32), **{**fields, "shields": shields, "shield_time": shield_time})
    return nxt, reward.astype(jnp.float32), died | won, event


def _rock_damage(rocks, shots_b, shots_a, shot_rock, bolts_b, bolts_a, bolt_rock) -> jax.Array:
    """int32[N_ROCKS]: shots (yours and the boss's) each asteroid stopped this turn."""
    by_shots = entities.hits(shots_b, shots_a, rocks, rocks) & shot_rock[:, None]
    by_bolts = entities.hits(bolts_b, bolts_a, rocks, rocks) & bolt_rock[:, None]
    first_s = jax.nn.one_hot(jnp.argmax(by_shots, 1), N_ROCKS, dtype=jnp.int32) * by_shots.any(1)[:, None]
    first_b = jax.nn.one_hot(jnp.argmax(by_bolts, 1), N_ROCKS, dtype=jnp.int32) * by_bolts.any(1)[:, None]
    return first_s.sum(0) + first_b.sum(0)


def bossfight_paint(state: BossfightState) -> jax.Array:
    """Cell codes: the boss (shielded or not), asteroids, enemy shots, your shots."""
    codes = jnp.where(boss_mask(state.boss), jnp.where(state.shields, SHIELD_C, BOSS_C), EMPTY_C)
    codes = entities.paint(codes, state.rocks, jnp.array([ROCK_C]))
    codes = entities.paint(codes, state.bolts, jnp.array([BOLT_C]))
    return entities.paint(codes, state.shots, jnp.array([SHOT_C]))


def bossfight_policy(key, state: BossfightState, params):
    """Dodge shots; otherwise keep under the boss and fire (shields or not)."""
    threat = threat_cells((state.bolts,), H, W) | (entities.occupancy(state.rocks, H, W) > 0)
    dc = state.boss[1] - state.pos[1]
    want = jnp.where(dc < 0, 1, jnp.where(dc > 0, 2, FIRE))
    return dodging_action(state.pos, threat, want, FIRE, TOP)


BOSSFIGHT = Game(
    name="bossfight", world=(H, W), view=(H, W), cells=" " + SHOT + BOLT + ROCK + BOSS + SHIELDED,
    glyphs={**GLYPHS_SHOTS, BOSS: "the boss, shields down (your shots hurt it; deadly to touch)",
            SHIELDED: "the boss behind its shields (your shots glance off; deadly to touch)",
            ROCK: "asteroid (stops every shot; breaks after 3; deadly to touch)"},
    actions=FIRE_ACTIONS, descriptions=FIRE_DESCRIPTIONS[:5] + ("fire a shot upwards (at most every 2nd turn)",),
    rules=("Destroy the boss, a 3 x 3 block roaming the top rows. You fly in rows 5-11, one cell a "
           "turn; FIRE sends a shot up 2 cells a turn. The fight has rounds: at each round's start "
           "the boss raises its shields for some turns (your shots glance off) and attacks with the "
           "round's pattern (fans, sweeps, rings or aimed shots); once they drop, each hit counts "
           "and it fires only now and then. The round's last hit raises the shields for the next "
           "round; the last round's last hit destroys it. Asteroids stop every shot and break after "
           "3. Being hit or touching an asteroid kills you."),
    reward=("0.5/N per hit on the boss (N = its total hits, shown as Boss hits: x / N), +0.5 when "
            "it is destroyed, -1 on death. Return range [-1, 1]."),
    events=EVENTS, success=(WIN,), generate=bossfight_generate, step=bossfight_step,
    paint=bossfight_paint, draws=4 + MAX_ROUNDS + 3 * N_ROCKS + 1, hud="Boss hits: {items} / {total}",
    return_range=(-1.0, 1.0), scripted_policy=bossfight_policy, centred=False, keyed=True,
    hard_notes="shields stay up 6-20 turns, fans come every 3 and rings every 4 turns, and enemy shots fly a cell every turn.")
