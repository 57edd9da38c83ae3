"""StarPilot: a side-scrolling shooter; every enemy shoots at you.

Field 12 x 20, the whole of it in view. You fly anywhere on it one cell a turn; FIRE sends a shot
rightwards 2 cells a turn. The level (seed) fixes a schedule of 24 arrivals at the field's edge,
one every 4-8 turns (hard 3-7): easy only enemy fighters from the right (`◀`, 2 hits, one cell
every 2 turns, half of them drifting one row per move and bouncing off the top and bottom);
hard also fast fighters (`<`, 1 hit, a cell a turn), turrets (`⊕`, 4 hits, a cell every 3
turns), meteors (`◎`, indestructible) and clouds (`▦`, harmless, hiding what is under them and
letting shots through), and a tenth of the fighters come from the left (`▶`/`>`). A fighter fires
one shot 3-14 turns after it arrives, a turret every 6 turns, each aimed at you (8-way) and
flying a cell every 2 turns (hard: every turn). At turn 170 the finish line enters at the right and scrolls left a cell
every 2 turns; the level is won when it reaches your column.

Turn order: you move; your shots fly; enemies (on their period) and enemy shots move; shots
damage what they hit; anything deadly on your cell or crossing your path kills you; enemies fire;
scheduled arrivals appear; the finish line scrolls.
Reward (pattern D): 0.8/N per enemy destroyed (N = destructible arrivals in the level), +0.2 on
reaching the finish line, -1 on death. Return range [-1, 1].
Differs from OpenAI Procgen: you die on the first hit there too; GlyphBench pays 0.2 for
power-ups, which Procgen's StarPilot does not have; we pay it for the finish instead.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core import entities
from glyphjax.suites.procgen.engine import Game, ProcgenState, fresh_state
from glyphjax.suites.procgen.shooters import (BOLT, FINISH, FINISH_MEANING, FIRE, FIRE_ACTIONS,
                                              FIRE_DESCRIPTIONS, GLYPHS_SHOTS, METEOR,
                                              METEOR_MEANING, SHOT, aim, cells_of, dodging_action,
                                              every, extend, move_in_field, threat_cells)

H, W = 12, 20
SLOTS = 24  # scheduled arrivals per level (the enemy pool has one slot each)
N_SHOTS, N_BOLTS = 6, 16
FINISH_T = 170
START = (H // 2, 2)
FIGHTER_L, FIGHTER_R, FAST_L, FAST_R, TURRET, METEOR_K, CLOUD_K = range(7)
_PERIOD = jnp.array([2, 2, 1, 1, 3, 3, 3], jnp.int32)  # turns per cell moved
_HP = jnp.array([2, 2, 1, 1, 4, 1 << 20, 1 << 20], jnp.int32)
TURRET_RELOAD = 6
EMPTY_C, SHOT_C, BOLT_C, FINISH_C = 0, 1, 2, 3
FOE_C = 4  # cell code of enemy kind k is FOE_C + k
FOE_GLYPHS = "◀▶<>⊕" + METEOR + "▦"
EVENTS = ("", "You reached the finish line. You win!", "An enemy shot hit you.",
          "You crashed into an enemy.", "You crashed into a meteor.", "Enemy destroyed.")
WIN, SHOT_DOWN, CRASH, METEOR_CRASH, KILL = 1, 2, 3, 4, 5


@struct.dataclass(kw_only=True)  # after ProcgenState's defaulted fields
class StarpilotState(ProcgenState):
    shots: entities.Pool  # your shots (velocity (0, 2))
    foes: entities.Pool  # one slot per scheduled arrival; timer = turns until it fires
    hp: jax.Array  # int32[SLOTS]: hits each enemy still takes
    arrive: jax.Array  # int32[SLOTS]: the turn each arrival appears (level schedule)
    bolts: entities.Pool  # enemy shots
    finish: jax.Array  # int32: the finish line's column (W while it has not entered)


def starpilot_generate(draws, hard, level) -> StarpilotState:
    """A level: the arrival schedule (times, rows, kinds, drift, fire delays) from the level seed."""
    u = draws.uniform((SLOTS, 6))
    gap = jnp.where(hard, 3, 4) + jnp.floor(u[:, 0] * 5).astype(jnp.int32)
    arrive = jnp.cumsum(gap).astype(jnp.int32)
    w = u[:, 1] * 7  # hard weights: fighter 3, fast, turret, meteor, cloud 1 each
    kind = jnp.where(w < 3, FIGHTER_L, jnp.where(w < 4, FAST_L, jnp.where(w < 5, TURRET,
                     jnp.where(w < 6, METEOR_K, CLOUD_K))))
    kind = jnp.where(hard, kind, FIGHTER_L)
    flyer = kind <= FAST_R
    from_left = hard & flyer & (u[:, 2] < 0.1)
    kind = kind + from_left.astype(jnp.int32)
    row = jnp.floor(u[:, 3] * H).astype(jnp.int32)
    drift = jnp.where(flyer & (u[:, 4] < 0.5), jnp.where(u[:, 4] < 0.25, -1, 1), 0)
    col = jnp.where(from_left, 0, W - 1)
    fire = jnp.where(kind == TURRET, 3 + jnp.floor(u[:, 5] * 6), 3 + jnp.floor(u[:, 5] * 12)).astype(jnp.int32)
    foes = entities.Pool(pos=jnp.stack([row, col], 1).astype(jnp.int32),
                         vel=jnp.stack([drift, jnp.where(from_left, 1, -1)], 1).astype(jnp.int32),
                         kind=kind.astype(jnp.int32), alive=jnp.zeros((SLOTS,), bool), timer=fire)
    total = jnp.sum(kind <= TURRET, dtype=jnp.int32)
    base = fresh_state(jnp.zeros((H, W), jnp.int8), START, level, total=total)
    return extend(StarpilotState, base, shots=entities.empty(N_SHOTS), foes=foes, hp=_HP[kind],
                  arrive=arrive, bolts=entities.empty(N_BOLTS), finish=jnp.int32(W))


def _move_foes(foes: entities.Pool, t: jax.Array) -> entities.Pool:
    """Enemies on their period move a cell; drifters bounce off the top and bottom; an enemy
    that leaves by a side is gone."""
    due = foes.alive & every(t, _PERIOD[foes.kind])
    pos = foes.pos + jnp.where(due[:, None], foes.vel, 0)
    bounce = (pos[:, 0] < 0) | (pos[:, 0] >= H)
    vel = foes.vel.at[:, 0].set(jnp.where(bounce, -foes.vel[:, 0], foes.vel[:, 0]))
    pos = pos.at[:, 0].set(jnp.where(bounce, pos[:, 0] - 2 * foes.vel[:, 0], pos[:, 0]))
    gone = (pos[:, 1] < 0) | (pos[:, 1] >= W)
    return foes.replace(pos=pos, vel=vel, alive=foes.alive & ~gone)


def _shoot_foes(shots_b, shots_a, foes_b, foes_a, hp):
    """Shots that reach an enemy (clouds let them through) stop there and take a hit off it
    (meteors take none) -> (shots, foes, hp, enemies destroyed)."""
    solid = foes_a.kind != CLOUD_K
    hit = entities.hits(shots_b, shots_a, foes_b, foes_a) & solid[None, :]
    first = jnp.argmax(hit, axis=1)
    any_hit = hit.any(axis=1)
    damage = jnp.zeros((SLOTS,), jnp.int32).at[first].add(any_hit.astype(jnp.int32))
    hp = hp - jnp.where(foes_a.kind <= TURRET, damage, 0)
    destroyed = foes_a.alive & (hp <= 0)
    return entities.kill(shots_a, any_hit), entities.kill(foes_a, destroyed), hp, destroyed


def _fire(foes: entities.Pool, bolts: entities.Pool, you: jax.Array):
    """Enemies whose countdown runs out fire an aimed shot (turrets reload) -> (foes, bolts)."""
    shooter = foes.alive & (foes.kind <= TURRET)
    fires = shooter & (foes.timer == 1)
    bolts = entities.spawn_many(bolts, foes.pos, aim(foes.pos, you), jnp.zeros((SLOTS,), jnp.int32), fires)
    timer = jnp.maximum(foes.timer - shooter.astype(jnp.int32), 0)
    return foes.replace(timer=jnp.where(fires & (foes.kind == TURRET), TURRET_RELOAD, timer)), bolts


def starpilot_step(state: StarpilotState, action, params):
    """One turn in the order of the module docstring."""
    t = state.t
    pos = move_in_field(state.pos, action, H, W)
    shots_b = entities.spawn(state.shots, pos, jnp.array([0, 2]), 0, where=action == FIRE)
    shots_a = entities.advance(shots_b, H, W, "kill")
    foes_a = _move_foes(state.foes, t)
    bolts_due = state.bolts.alive & (params.hard | every(t, 2))
    bolts_a = entities.advance(state.bolts, H, W, "kill", moving=bolts_due)
    shots, foes, hp, destroyed = _shoot_foes(shots_b, shots_a, state.foes, foes_a, state.hp)
    lethal = foes.alive & (foes.kind <= METEOR_K)
    crash = entities.point_hits(state.foes, foes, state.pos, pos) & lethal
    shot_down = entities.point_hits(state.bolts, bolts_a, state.pos, pos).any()
    foes, bolts = _fire(foes, bolts_a, pos)
    arriving = (state.arrive == t) & ~state.foes.alive
    foes = foes.replace(alive=foes.alive | arriving)
    finish = jnp.where(t == FINISH_T, W - 1, jnp.where((state.finish < W) & every(t, 2), state.finish - 1, state.finish))
    died = shot_down | crash.any()
    won = ~died & (finish <= pos[1])
    items = state.items + jnp.sum(destroyed, dtype=jnp.int32)
    earned = 0.8 * items / jnp.maximum(state.total, 1) + 0.2 * won
    reward = earned - state.earned - died
    met = (crash & (foes.kind == METEOR_K)).any()
    event = jnp.select([won, shot_down, met, died, destroyed.any()], [WIN, SHOT_DOWN, METEOR_CRASH, CRASH, KILL], 0)
    nxt = state.replace(pos=pos, shots=shots, foes=foes, hp=hp, bolts=bolts, finish=finish.astype(jnp.int32),
                        items=items, earned=earned.astype(jnp.float32))
    return nxt, reward.astype(jnp.float32), died | won, event


def starpilot_paint(state: StarpilotState) -> jax.Array:
    """Cell codes: the finish line, enemy shots, your shots, enemies, then clouds over all."""
    codes = jnp.where(jnp.arange(W)[None, :] == state.finish, FINISH_C, EMPTY_C) * jnp.ones((H, 1), jnp.int32)
    codes = entities.paint(codes, state.bolts, jnp.array([BOLT_C]))
    codes = entities.paint(codes, state.shots, jnp.array([SHOT_C]))
    solid = state.foes.replace(alive=state.foes.alive & (state.foes.kind != CLOUD_K))
    codes = entities.paint(codes, solid, FOE_C + jnp.arange(7))
    return jnp.where(cells_of(state.foes, H, W, [CLOUD_K]), FOE_C + CLOUD_K, codes)


def starpilot_policy(key, state: StarpilotState, params):
    """Dodge what will be on a cell next turn; otherwise line up with the nearest destructible
    enemy ahead and fire."""
    foes = state.foes
    lethal = foes.replace(alive=foes.alive & (foes.kind <= METEOR_K))
    threat = threat_cells((lethal, state.bolts), H, W)
    r, c = state.pos[0], state.pos[1]
    ahead = foes.alive & (foes.kind <= TURRET) & (foes.pos[:, 1] > c)
    dist = jnp.where(ahead, foes.pos[:, 1] - c + 2 * jnp.abs(foes.pos[:, 0] - r), 1 << 20)
    aim_row = jnp.where(ahead.any(), foes.pos[jnp.argmin(dist), 0], H // 2)
    want = jnp.where(aim_row < r, 3, jnp.where(aim_row > r, 4, FIRE))
    return dodging_action(state.pos, threat, want, jnp.where(c > START[1], 1, FIRE))


STARPILOT = Game(
    name="starpilot", world=(H, W), view=(H, W), cells=" " + SHOT + BOLT + FINISH + FOE_GLYPHS,
    glyphs={**GLYPHS_SHOTS, FINISH: FINISH_MEANING, "◀": "enemy fighter flying left (2 hits; deadly to touch)",
            "▶": "enemy fighter flying right (2 hits; deadly to touch)",
            "<": "fast enemy fighter flying left (1 hit; deadly to touch)",
            ">": "fast enemy fighter flying right (1 hit; deadly to touch)",
            "⊕": "enemy turret (4 hits; fires every 6 turns; deadly to touch)", METEOR: METEOR_MEANING,
            "▦": "cloud (harmless; hides what is under it; shots pass through)"},
    actions=FIRE_ACTIONS, descriptions=FIRE_DESCRIPTIONS[:5] + ("fire a shot to the right",),
    rules=("A side-scrolling shooter. Fly anywhere on the field one cell a turn; FIRE sends a shot "
           "right, 2 cells a turn. Enemies arrive at the edges and fly across; each one fires shots "
           "aimed at you that fly a cell every 2 turns (hard: every turn). Any enemy, meteor or enemy shot that reaches your "
           "cell kills you. At turn 170 the finish line enters at the right and scrolls left a cell "
           "every 2 turns; you win when it reaches your column."),
    reward=("0.8/N for each enemy destroyed (N = the enemies of the level, shown as Destroyed: x / N), "
            "+0.2 on reaching the finish line, -1 on death. Return range [-1, 1]."),
    events=EVENTS, success=(WIN,), generate=starpilot_generate, step=starpilot_step,
    paint=starpilot_paint, draws=SLOTS * 6, hud="Destroyed: {items} / {total}",
    return_range=(-1.0, 1.0), scripted_policy=starpilot_policy, centred=False,
    hard_notes=("arrivals every 3-7 turns, and also fast fighters, turrets, meteors and clouds; a "
                "tenth of the fighters come from the left."))
