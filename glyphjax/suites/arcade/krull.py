"""Krull: fight the Slayers, cross the swamp, storm the Black Fortress and rescue Lyssa, with the
glaive (pattern D; Atari only). The reference's three-stage adaptation.

Atari: 16x20 screens, N = 3 stages (the catalogue's and the reference's W), 1,000 turns. The
adventure is one map of three walled screens drawn at reset (`screens.window` shows the one you
are on): 1. the field, with SLAYERS Slayers; 2. the swamp, a fifth of its cells swamp, a dry
path winding from your start to the exit door at its right end, CREATURES creatures; 3. the
Black Fortress, a wall down the middle with a 2-cell doorway, GUARDS guards, Lyssa in the right
room. Enemies start at random cells of rows 2 to H - 3 (Slayers in the right half,
creatures and guards from column 6, never in a wall; a creature may start in swamp). UP /
DOWN / LEFT / RIGHT move you one cell (walls block); each step into swamp sinks you with
probability SINK. FIRE throws the glaive at the nearest enemy of the screen within REACH cells
(Manhattan): it flies one cell a turn along the sign of the offset to that enemy (straight or
diagonal) for TTL turns, stopped by walls; then it is back after COOLDOWN turns. Each enemy
waits its own timer (2-4 turns, drawn anew each move) and then steps towards you along a random
axis (not into walls). A glaive meeting an enemy destroys it (no points: as in the reference only
stages count). Stage 1 is cleared (+1/N) when its Slayers are gone; stage 2 when you step onto
the door with its creatures gone (+1/N); stage 3 when you reach Lyssa (+1/N, the win). An enemy
meeting you (same cell or swapped) or sinking is death (-1). Differs from Atari: no wedding
scene, no ride on the Fire Mares, no Iron Desert, Widow of the Web or day/night clock (the
reference's swamp stands in for the ride), one glaive that always flies at the nearest enemy.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.grid import bfs_distances
from glyphjax.suites.arcade import screens
from glyphjax.suites.arcade.arena import YOU
from glyphjax.suites.arcade.asteroids import ACTIONS, FIRE, MOVES
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import action_values, meets, shoot_down

WALL, SWAMP, DOOR, LYSSA, ENEMY, GLAIVE = "▓", "%", "D", "P", "Ж", "┼"
C_WALL, C_SWAMP, C_DOOR, C_LYSSA = 1, 2, 3, 4
SLAYERS, CREATURES, GUARDS = 5, 4, 4
SINK, REACH, TTL, COOLDOWN, P_SWAMP, P_WIND = 0.15, 8, 6, 3, 0.2, 0.3
EV_STAGE, EV_KILL, EV_SHUT = 1, 2, 3


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"Krull. Three walled screens ({WALL}), one after the other: 1. the field, where {SLAYERS} Slayers "
            f"{ENEMY} attack; 2. the swamp ({SWAMP}: each step into it sinks you with probability {SINK}), with "
            f"{CREATURES} creatures {ENEMY} and the exit door {DOOR}; 3. the Black Fortress, {GUARDS} guards {ENEMY} "
            f"and Princess Lyssa {LYSSA} in the right room. UP/DOWN/LEFT/RIGHT move you {YOU} one cell. FIRE "
            f"throws your glaive {GLAIVE} at the nearest enemy within {REACH} cells (Manhattan): it flies one cell "
            f"a turn towards where that enemy is (straight or diagonally) for {TTL} turns, stopped by walls, "
            f"and can be thrown again {COOLDOWN} turns later. Each enemy waits 2-4 turns, then steps towards you "
            "along one axis. The glaive destroys the enemy it meets. Clearing the field of Slayers, stepping "
            "onto the door with the swamp's creatures gone, and reaching Lyssa each complete a stage. An enemy "
            "reaching you, or sinking in the swamp, kills you.")


def _screens(draws, h: int, w: int) -> jax.Array:
    """int8[3h, w]: the field, the swamp (with its path and door) and the fortress, walled."""
    r, c = jnp.meshgrid(jnp.arange(h), jnp.arange(w), indexing="ij")
    box = jnp.where((r == 0) | (r == h - 1) | (c == 0) | (c == w - 1), C_WALL, 0).astype(jnp.int8)
    swamp = jnp.where((box == 0) & (draws.uniform((h, w)) < P_SWAMP), C_SWAMP, box)
    u = draws.uniform((w - 2, 2))
    turns = jnp.where(u[:, 0] < P_WIND, jnp.floor(u[:, 1] * 3).astype(jnp.int32) - 1, 0)
    rows = jnp.clip(h // 2 + jnp.cumsum(turns), 2, h - 3)  # the path's row at columns 1 .. w - 2
    before = jnp.concatenate([jnp.array([h // 2]), rows[:-1]])
    path = (c >= 1) & (c <= w - 2) & ((r == before[c - 1]) | (r == rows[c - 1]))
    end = rows[-1]
    swamp = jnp.where(path, 0, swamp).at[end, w - 2].set(C_DOOR)
    fort = jnp.where((c == w // 2) & (r != h // 2) & (r != h // 2 - 1), C_WALL, box).at[h // 2, w - 3].set(C_LYSSA)
    return jnp.concatenate([box, swamp, fort]).astype(jnp.int8)


def _start(stage, h: int) -> jax.Array:
    return jnp.stack([stage * h + h // 2, jnp.int32(2)]).astype(jnp.int32)


def _reset(draws, s: Setting, params):
    h, w = s.size
    field = _screens(draws, h, w)
    n = SLAYERS + CREATURES + GUARDS
    stage = jnp.repeat(jnp.arange(3), jnp.array([SLAYERS, CREATURES, GUARDS]), total_repeat_length=n)
    col = draws.randint(jnp.array([w // 2, 6, 6])[stage], w - 1, (n,))
    col = jnp.where((stage == 2) & (col == w // 2), col + 1, col)  # not in the fortress' wall
    cells = jnp.stack([stage * h + draws.randint(2, h - 2, (n,)), col], 1)
    foes = entities.spawn_many(entities.empty(n), cells, jnp.zeros((n, 2), jnp.int32), stage, jnp.ones(n, bool),
                               draws.randint(2, 5, (n,)))
    return new_state(s, field=field, foes=foes, player=_start(jnp.int32(0), h))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    stage, field = state.phase, state.field
    wall = field == C_WALL
    ahead = state.player + action_delta(action, MOVES)
    you = jnp.where(wall[ahead[0], ahead[1]], state.player, ahead).astype(jnp.int32)
    sank = (field[you[0], you[1]] == C_SWAMP) & (you != state.player).any() & (draws.uniform() < SINK)
    foes = state.foes
    here = foes.alive & (foes.pos[:, 0] // h == stage)
    dist = jnp.where(here, jnp.abs(foes.pos - you[None]).sum(-1), 1 << 20)
    i = jnp.argmin(dist)
    aim = jnp.sign(foes.pos[i] - you)
    cd = jnp.maximum(state.cooldown - 1, 0)
    throw = (action == FIRE) & (cd == 0) & (dist[i] <= REACH) & ~wall[you[0] + aim[0], you[1] + aim[1]]
    shots0 = entities.spawn(state.shots, you + aim, aim, 0, where=throw, timer=TTL)
    shots1 = entities.advance(shots0, 3 * h, w)
    shots1 = shots1.replace(timer=shots1.timer - 1)
    shots1 = entities.kill(shots1, (shots1.timer <= 0) | wall[shots1.pos[:, 0], shots1.pos[:, 1]])
    timer = foes.timer - 1
    go = here & (timer <= 0)
    gap = you[None] - foes.pos
    rows = draws.uniform((foes.size,)) < 0.5
    step = jnp.where(rows[:, None], jnp.stack([jnp.sign(gap[:, 0]), 0 * gap[:, 0]], 1),
                     jnp.stack([0 * gap[:, 1], jnp.sign(gap[:, 1])], 1))
    nxt = foes.pos + step
    go_ok = go & ~wall[nxt[:, 0], nxt[:, 1]]
    timer = jnp.where(go, draws.randint(2, 5, (foes.size,)), timer)
    foes1 = foes.replace(pos=jnp.where(go_ok[:, None], nxt, foes.pos).astype(jnp.int32),
                         timer=jnp.where(here, timer, foes.timer))
    shots, foes, kills = shoot_down(shots0, shots1, state.foes, foes1)
    caught = meets(state.foes, foes, state.player, you).any()
    left = (foes.alive & (foes.pos[:, 0] // h == stage)).any()
    cell = field[you[0], you[1]]
    cleared = ((stage == 0) & ~left) | ((stage == 1) & (cell == C_DOOR) & ~left)
    rescued = (stage == 2) & (cell == C_LYSSA)
    on = jnp.where(cleared, stage + 1, stage)
    nxt_state = state.replace(player=jnp.where(cleared, _start(on, h), you), phase=on.astype(jnp.int32),
                              cooldown=jnp.where(throw, COOLDOWN, cd).astype(jnp.int32),
                              shots=entities.kill(shots, jnp.broadcast_to(cleared, shots.alive.shape)), foes=foes)
    shut = (stage == 1) & (cell == C_DOOR) & left
    event = jnp.select([cleared | rescued, kills > 0, shut], [EV_STAGE, EV_KILL, EV_SHUT], 0)
    return nxt_state, Outcome(gained=(cleared | rescued).astype(jnp.int32), died=sank | caught, event=event)


def _paint(state, s: Setting):
    corner = jnp.stack([state.phase * s.size[0], 0]).astype(jnp.int32)
    codes = screens.window(state.field, corner, s.size).astype(jnp.int32)
    codes = entities.paint(codes, screens.seen(state.foes, corner), jnp.array([5, 5, 5], jnp.int32))
    codes = entities.paint(codes, screens.seen(state.shots, corner), jnp.array([6], jnp.int32))
    here = state.player - corner
    return codes.at[here[0], here[1]].set(7)


def _scripted(key, state, params):
    """Throw the glaive when the nearest enemy is on a straight or diagonal line within 6 cells and
    standing still is safe; else take the move that keeps out of enemies' reach (a cell next to an
    enemy about to move, or its own cell) and off swamp, and then on stages 1-2 with enemies left
    lines up with the nearest at 3 cells, else walks the dry path to the door or to Lyssa (BFS)."""
    h, w = state.field.shape[0] // 3, state.field.shape[1]
    stage = state.phase
    corner = jnp.stack([stage * h, 0]).astype(jnp.int32)
    screen = screens.window(state.field, corner, (h, w))
    foes = screens.seen(state.foes, corner)
    here = foes.alive & (state.foes.pos[:, 0] // h == stage)
    you = state.player - corner
    goal = (screen == C_DOOR) | (screen == C_LYSSA)
    dry = bfs_distances((screen != C_WALL) & (screen != C_SWAMP), goal)
    i, _ = entities.nearest(foes.replace(alive=here), you)
    target = foes.pos[jnp.maximum(i, 0)]
    hunting = here.any() & (stage < 2)

    def value(a):
        p = you + action_delta(a, MOVES)
        p = jnp.where(screen[p[0], p[1]] == C_WALL, you, p)
        gap = jnp.abs(foes.pos - p[None]).sum(-1)
        risk = here & ((gap == 0) | (gap == 1) & (foes.timer <= 1))
        near = here & (gap <= 1)
        d = target - p
        lined = (d[0] == 0) | (d[1] == 0) | (jnp.abs(d[0]) == jnp.abs(d[1]))
        hunt = 10.0 * lined - jnp.abs(jnp.abs(d).sum() - 3)
        return (-100.0 * risk.any() - 20.0 * near.any() - 50.0 * (screen[p[0], p[1]] == C_SWAMP) * (p != you).any()
                + jnp.where(hunting, hunt, -jnp.minimum(dry[p[0], p[1]], 1000).astype(jnp.float32)))

    values = action_values(value, 5)
    d = target - you
    lined = ((d[0] == 0) | (d[1] == 0) | (jnp.abs(d[0]) == jnp.abs(d[1]))) & (jnp.abs(d).sum() <= 6)
    throw = here.any() & lined & (state.cooldown <= 1) & (values[0] > -50)
    return jnp.where(throw, FIRE, jnp.argmax(values)).astype(jnp.int32)


KRULL = Game(
    name="krull", pattern="D", unit="stage", actions=ACTIONS,
    descriptions=("stand still", "move up one cell", "move down one cell", "move left one cell", "move right one cell",
                  "throw the glaive at the nearest enemy"),
    cells=EMPTY + WALL + SWAMP + DOOR + LYSSA + ENEMY + GLAIVE + YOU,
    glyphs={WALL: "wall", SWAMP: "swamp (each step into it may sink you)",
            DOOR: "the exit door (step onto it once the swamp's creatures are gone)",
            LYSSA: "Princess Lyssa (reach her to rescue her)", ENEMY: "enemy", GLAIVE: "your glaive", YOU: "you"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted, mini=None,
    atari=Setting(size=(16, 20), max_steps=1000, target=3, caps=(SLAYERS + CREATURES + GUARDS, 2, 1)),
    draws=(16 * 20 + 18 * 2 + 3 * (SLAYERS + CREATURES + GUARDS), 1 + 2 * (SLAYERS + CREATURES + GUARDS)),
    events=("You completed a stage.", "Your glaive destroyed an enemy.",
            "The door stays shut while the swamp's creatures live."),
    death="an enemy reaches you or you sink in the swamp",
    death_message="You were slain. Game over.",
)
