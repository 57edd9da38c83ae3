"""James Bond 007: drive an amphibious car right along a coast road, jumping craters and shooting
up at enemy craft and down at frogmen, through 4 mission stages (pattern D; Atari only).

Atari: 16x30 field, N = 4 mission stages (the catalogue's and the reference's W), 10,000 turns.
Your car drives on row H - 4 above the road (row H - 3); the sea (the last two rows) lies below
it, the sky above. The road scrolls one column left every SCROLL turns (`scroll.shift_in`, axis
1: you drive right); a crater (a gap in the road, 2 cells wide) enters at its right end with
probability P_CRATER on a scroll turn, never within GAP columns of the last one. LEFT / RIGHT
move the car a column (columns 1 to W / 2), also in the air; UP jumps (`core.platform`'s 7-turn
arc, 3 rows high, from the road only); FIRE launches a flare diagonally up-forward and DOWN a
depth charge diagonally down-forward, one cell each way a turn (two shots at most). Enemy craft
(helicopters in rows 2-4, satellites in row 1) fly in from the right one column a turn and
frogmen swim in the sea, carried left with the road; with probability `rate` a turn a random
craft drops a bomb (one row a turn down; it bursts on the road) and with
probability `rate` a random frogman fires a harpoon (one row a turn up, through the road). A
shot meeting a craft or a frogman destroys it (no points: as in the reference, only the
distance counts). A mission stage is 80 + 20 k columns of road (k = stages done): driving it
pays +1/N; the 4th wins. Falling into a crater or a bomb or harpoon meeting you is death (-1).
Differs from Atari: one road for all missions (no Moonraker / Diamonds levels, no diamonds or
boat phase), the car never changes speed (LEFT / RIGHT move it on the screen), no lives;
differs from the reference: craters and the jump instead of its obstacles and intel, enemy fire
from the sky and the sea.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.core.platform import JUMP_ARC_DY, body_step
from glyphjax.suites.arcade import scroll
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, new_state
from glyphjax.suites.arcade.physics import BOMB, meets, random_alive, shoot_down
from glyphjax.suites.arcade.seaquest import ACTIONS

CAR, ROAD, HELI, SATELLITE, FROGMAN, SHOT, HARPOON = "♦", "═", "Ħ", "✸", "λ", "*", "◌"
LEFT, RIGHT, UP, DOWN, FIRE = 1, 2, 3, 4, 5
C_ROAD = 1
K_HELI, K_SAT, K_FROG = 0, 1, 2  # foe kinds
K_BOMB, K_HARPOON = 0, 1  # enemy shot kinds
SCROLL, P_CRATER, GAP, CRATER = 2, 0.15, 8, 2
P_CRAFT, P_FROG = 0.06, 0.05
EV_STAGE, EV_KILL = 1, 2


def stage_length(done: jax.Array) -> jax.Array:
    """Columns of road in the mission stage after `done` stages (the reference's 80 + 20 k)."""
    return 80 + 20 * done


def _rules(s: Setting) -> str:
    h, w = s.size
    return (f"James Bond 007. Your car {CAR} drives right along a coast road {ROAD} (row {h - 3}; you are on "
            f"row {h - 4}); the road scrolls one column left every {SCROLL} turns. Craters (gaps in the road, "
            f"{CRATER} cells wide) come in from the right: falling into one kills you. LEFT/RIGHT move the car "
            f"one column (columns 1 to {w // 2}), UP jumps (3 rows high, {len(JUMP_ARC_DY)} turns), FIRE "
            f"launches a flare {SHOT} diagonally up and forward, DOWN a depth charge {SHOT} diagonally down "
            f"and forward (one cell each way a turn, two shots at most). Helicopters {HELI} and satellites "
            f"{SATELLITE} fly in from the right one column a turn and drop bombs {BOMB} "
            f"(one row a turn, bursting on the road); frogmen {FROGMAN} swim in the sea below the road and fire "
            f"harpoons {HARPOON} straight up (one row a turn, through the road). A shot destroys the craft "
            "or frogman it meets; a bomb or harpoon meeting you kills you. Each mission stage is 80 + 20k "
            "columns of road (k = stages done); finishing one scores.")


def _reset(draws, s: Setting, params):
    h, w = s.size
    return new_state(s, field=jnp.zeros(s.size, jnp.int8).at[h - 3].set(C_ROAD),
                     player=jnp.array([h - 4, 3], jnp.int32))


def _road_line(field: jax.Array, u: jax.Array) -> jax.Array:
    """The road column entering at the right: a crater continues to CRATER cells; a new one starts
    with probability P_CRATER when none lies in the last GAP columns."""
    h, w = field.shape
    road = field[h - 3] == C_ROAD
    run = jnp.argmax(jnp.concatenate([road[::-1], jnp.ones(1, bool)]))  # crater cells at the right end
    gap = (run > 0) & (run < CRATER) | (u < P_CRATER) & road[w - GAP:].all()
    return jnp.zeros(h, jnp.int8).at[h - 3].set(jnp.where(gap, 0, C_ROAD).astype(jnp.int8))


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    scrolls = state.t % SCROLL == 0
    field = scroll.shift_in(state.field, _road_line(state.field, draws.uniform()), 1, scrolls)
    c = state.player[1]
    dx = jnp.where((action == LEFT) & (c > 1), -1, jnp.where((action == RIGHT) & (c < w // 2), 1, 0))
    you, arc, _, _ = body_step(field == C_ROAD, state.player, state.cooldown, jnp.bool_(False), dx, action == UP)
    vel = jnp.where(action == DOWN, jnp.array([1, 1]), jnp.array([-1, 1]))
    shots0 = entities.spawn(state.shots, you, vel, 0, where=(action == FIRE) | (action == DOWN))
    shots1 = entities.advance(shots0, h, w)
    foes0 = state.foes
    foes1 = entities.advance(foes0, h, w, moving=(foes0.kind != K_FROG) | scrolls)
    shots, foes, kills = shoot_down(shots0, shots1, foes0, foes1)
    bombs = entities.advance(state.bombs, h, w)
    hit = meets(state.bombs, bombs, state.player, you).any()
    bombs = entities.kill(bombs, (bombs.kind == K_BOMB) & (bombs.pos[:, 0] == h - 3))
    for kinds, kind, d in (((K_HELI, K_SAT), K_BOMB, 1), ((K_FROG,), K_HARPOON, -1)):
        shooters = foes.replace(alive=foes.alive & jnp.isin(foes.kind, jnp.array(kinds)))
        i, any_alive = random_alive(shooters, draws.uniform())
        bombs = entities.spawn(bombs, foes.pos[i] + jnp.array([d, 0]), jnp.array([d, 0]), kind,
                               where=(draws.uniform() < params.rate) & any_alive)
    row = draws.randint(1, 5)
    foes = entities.spawn(foes, jnp.stack([row, jnp.int32(w - 1)]), jnp.array([0, -1]),
                          jnp.where(row == 1, K_SAT, K_HELI), where=draws.uniform() < P_CRAFT)
    foes = entities.spawn(foes, jnp.stack([draws.randint(h - 2, h), jnp.int32(w - 1)]), jnp.array([0, -1]),
                          K_FROG, where=draws.uniform() < P_FROG)
    travelled = state.phase + scrolls
    done = travelled >= stage_length(state.score)
    died = hit | (you[0] >= h - 3)
    nxt = state.replace(player=you, cooldown=arc, field=field, shots=shots, foes=foes, bombs=bombs,
                        phase=jnp.where(done, 0, travelled).astype(jnp.int32))
    event = jnp.where(done, EV_STAGE, jnp.where(kills > 0, EV_KILL, 0))
    return nxt, Outcome(gained=done.astype(jnp.int32), died=died, event=event)


def _paint(state, s: Setting):
    codes = jnp.where(state.field == C_ROAD, 1, 0).astype(jnp.int32)
    codes = entities.paint(codes, state.foes, jnp.array([2, 3, 4], jnp.int32))
    codes = entities.paint(codes, state.bombs, jnp.array([5, 6], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([7], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(8)


def _grounded_turns(state, first: int, last: int) -> jax.Array:
    """Is the road solid under your column on every turn first..last from now (the car standing
    still; the road scrolling as `_step` scrolls it)?"""
    h, w = state.field.shape
    k = jnp.arange(last + 1)
    shifted = jnp.cumsum((state.t + k) % SCROLL == 0)  # scrolls made by the end of turn k
    cells = state.player[1] + shifted[first:]
    return (jnp.where(cells < w, state.field[h - 3, jnp.clip(cells, 0, w - 1)] == C_ROAD, True)).all()


def _scripted(key, state, params):
    """On the road: jump when staying would drop into a crater within 8 turns and a jump now lands
    on road; else step away from a bomb or harpoon in the column (two turns away or nearer);
    else FIRE when a craft will meet a flare, DOWN when a frogman will meet a charge; else wait."""
    h, w = state.field.shape
    you = state.player
    grounded = state.cooldown == 0
    jump = grounded & ~_grounded_turns(state, 0, 8) & _grounded_turns(state, len(JUMP_ARC_DY), len(JUMP_ARC_DY) + 2)
    b = state.bombs
    cols = you[1] + jnp.array([0, -1, 1])
    near = jnp.where(b.kind == K_BOMB, you[0] - b.pos[:, 0], b.pos[:, 0] - you[0])
    danger = (b.alive[None] & (jnp.abs(b.pos[None, :, 1] - cols[:, None]) == 0) & (near[None] >= 0)
              & (near[None] <= 3)).any(-1) | (cols < 1) | (cols > w // 2)
    dodge = jnp.where(~danger[1], LEFT, jnp.where(~danger[2], RIGHT, 0))
    f = state.foes
    up = f.alive & (f.kind != K_FROG) & (jnp.abs(f.pos[:, 1] - you[1] - 2 * (you[0] - f.pos[:, 0])) <= 1)
    k = f.pos[:, 0] - you[0]
    drift = (k + (state.t % SCROLL == 0)) // SCROLL
    down = f.alive & (f.kind == K_FROG) & (jnp.abs(f.pos[:, 1] - drift - you[1] - k) <= 0)
    act = jnp.select([jump, danger[0], up.any(), down.any()], [UP, dodge, FIRE, DOWN], 0)
    return act.astype(jnp.int32)


JAMESBOND = Game(
    name="jamesbond", pattern="D", unit="mission stage", actions=ACTIONS,
    descriptions=("drive on", "move the car one column left", "move the car one column right",
                  "jump (from the road)", "drop a depth charge diagonally down and forward",
                  "fire a flare diagonally up and forward"),
    cells=EMPTY + ROAD + HELI + SATELLITE + FROGMAN + BOMB + HARPOON + SHOT + CAR,
    glyphs={CAR: "your car", ROAD: "a floor (solid)", HELI: "enemy craft", SATELLITE: "a satellite (enemy craft)",
            FROGMAN: "a frogman (it fires harpoons up)", BOMB: "bomb", HARPOON: "enemy shot (flies one cell a turn)",
            SHOT: "your shot"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted, mini=None,
    atari=Setting(size=(16, 30), max_steps=10000, target=4, rate=0.04, caps=(6, 2, 4)),
    draws=(1, 9), events=("You completed a mission stage.", "You destroyed an enemy."),
    death="you fall into a crater or a bomb or harpoon hits you",
    death_message="Your car was destroyed. Game over.",
)
