"""Wave Defense: turn a cannon at the centre and shoot enemies walking in from the edges.

Reference rules (catalogue §5 row 32): 15x15 field, cannon at the centre rotating in 45-degree
steps, FIRE hits the first enemy along the aimed line; waves of 2, 3, 4, 5, 6 enemies (20 in
all) walk towards the centre; T 500. Our rules: enemies enter at the outer end of one of the 8
lines the cannon can aim at (random line each) and walk straight along it, one cell every
other turn; the enemies of a wave enter one by one, 4 turns apart, and the next wave starts as
soon as the previous one is cleared. A turn: your action (rotate, fire or wait), then the
enemies may step and enter. An enemy stepping onto the cannon loses the game.
Reward (the reference prompt lists stale raw rewards; this is what the code pays): +0.5/20 per
enemy destroyed, +0.1 per wave cleared (all 20 enemies and 5 waves = 1.0, a win that ends the
episode); an enemy reaching the cannon ends the episode and pays -1 minus everything earned so
far (return exactly -1; `_arcade.death_penalty`). Range [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import NEIGHBOURS8, codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics._arcade import death_penalty
from glyphjax.suites.classics.common import FLOOR, GLYPHS_COMMON

S = 15
C = S // 2
WAVES = (2, 3, 4, 5, 6)
N_WAVES = len(WAVES)
TOTAL = sum(WAVES)
MAX_E = max(WAVES)
MOVE_EVERY = 2
ENTER_GAP = 4
KILL_REWARD = 0.5 / TOTAL
WAVE_REWARD = 0.1
DIR_NAMES = ("up", "up-right", "right", "down-right", "down", "down-left", "left", "up-left")
# aim i (clockwise from up) -> its offset in the one neighbour table `core.grid.NEIGHBOURS8`
DIRS = jnp.array(NEIGHBOURS8, jnp.int32)[jnp.array([1, 2, 4, 7, 6, 5, 3, 0])]
CANNONS = "↑↗→↘↓↙←↖"
ENEMY, AIM = "Ж", "⊹"
GLYPHS = {FLOOR: GLYPHS_COMMON[FLOOR], ENEMY: "enemy (walks toward your cannon)",
          AIM: "your cannon's line of fire",
          **{CANNONS[i]: f"your cannon, aimed {DIR_NAMES[i]}" for i in range(8)}}
ACTIONS = ("ROTATE_CW", "ROTATE_CCW", "FIRE", "WAIT")
EV_KILL, EV_MISS, EV_WAVE, EV_WIN, EV_LOST = 1, 2, 3, 4, 5
EVENTS = ("", "Your shot destroyed an enemy.", "Your shot missed.",
          "Wave cleared! The next wave appears.", "All waves cleared. You win!",
          "An enemy reached your cannon. Game over.")
_TABLE = codepoints(FLOOR + AIM + ENEMY + CANNONS)  # 0, 1, 2, 3..10


@struct.dataclass
class WaveDefenseState(EnvState):
    aim: jax.Array  # int32 0..7 (DIR_NAMES)
    enemies: jax.Array  # int32[MAX_E, 2]
    alive: jax.Array  # bool[MAX_E]: not yet destroyed (entered or waiting to enter)
    delay: jax.Array  # int32[MAX_E]: turns until the enemy enters (0 = on the field)
    wave: jax.Array  # int32 index of the current wave (0..4)
    kills: jax.Array  # int32
    earned: jax.Array  # float32


def spawn_wave(key: jax.Array, wave: jax.Array):
    """Enemies of wave `wave`, each at the outer end of a random line -> (positions, alive,
    delay)."""
    lines = jax.random.randint(key, (MAX_E,), 0, 8)
    n = jnp.asarray(WAVES)[jnp.clip(wave, 0, N_WAVES - 1)]
    pos = C + C * DIRS[lines]
    return pos.astype(jnp.int32), jnp.arange(MAX_E) < n, (ENTER_GAP * jnp.arange(MAX_E)).astype(jnp.int32)


def first_in_line(enemies: jax.Array, alive: jax.Array, aim: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(index, any): the enemy on the field (`alive` here means alive and entered) nearest the
    cannon on the aimed line."""
    d = DIRS[aim]
    off = enemies - C
    k = jnp.maximum(jnp.abs(off[:, 0]), jnp.abs(off[:, 1]))
    on_line = alive & (k > 0) & (off[:, 0] == k * d[0]) & (off[:, 1] == k * d[1])
    dist = jnp.where(on_line, k, 1000)
    return jnp.argmin(dist), jnp.any(on_line)


class WaveDefense(Env):
    def __init__(self, task_id: str = "classics/wavedefense", max_steps: int = 500):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Wave defense on a {S}x{S} field. Your cannon sits at the centre (row {C}, "
                   f"column {C}) and aims in one of 8 directions (45-degree steps); ROTATE_CW / "
                   "ROTATE_CCW turn it one step. FIRE destroys the first enemy along the aimed line "
                   f"(the marked cells). Enemies come in {N_WAVES} waves of "
                   f"{', '.join(map(str, WAVES))}. Each enemy enters at the outer end of one of the "
                   "8 lines and walks straight along it towards the cannon, one cell every "
                   f"{MOVE_EVERY} turns; the enemies of a wave enter one by one, {ENTER_GAP} turns "
                   "apart, and the next wave starts when a wave is cleared. An enemy reaching the "
                   "cannon loses the game."),
            actions=ACTIONS,
            action_descriptions=("turn the cannon 45 degrees clockwise",
                                 "turn the cannon 45 degrees counter-clockwise",
                                 "fire along the aimed line", "do nothing"),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Wave: {wave} / " + str(N_WAVES) + "    Enemies destroyed: {kills} / " + str(TOTAL) + "    Still to enter this wave: {waiting}",
            hud_fields=("wave", "kills", "waiting"),
            max_steps=max_steps,
            reward=(f"+0.5/{TOTAL} per enemy destroyed and +{WAVE_REWARD} per wave cleared (all "
                    f"{TOTAL} enemies and {N_WAVES} waves = 1.0, a win that ends the game). An "
                    "enemy reaching the cannon ends the game and pays -1 minus everything earned "
                    "so far (the return is then exactly -1). Return range [-1, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
        )

    def _reset(self, key, params):
        enemies, alive, delay = spawn_wave(key, jnp.int32(0))
        return WaveDefenseState(**init_state_fields(), aim=jnp.int32(0), enemies=enemies, alive=alive,
                                delay=delay,
                                wave=jnp.int32(0), kills=jnp.int32(0), earned=jnp.float32(0))

    def _step(self, key, state: WaveDefenseState, action, params):
        aim = (state.aim + jnp.where(action == 0, 1, 0) + jnp.where(action == 1, 7, 0)) % 8
        fire = action == 2
        on_field = state.alive & (state.delay == 0)
        target, any_hit = first_in_line(state.enemies, on_field, state.aim)
        hit = fire & any_hit
        alive = state.alive & ~(hit & (jnp.arange(MAX_E) == target))
        # enemies on the field step towards the centre; waiting ones count down
        step_now = (state.t % MOVE_EVERY) == MOVE_EVERY - 1
        walking = step_now & alive & (state.delay == 0)
        enemies = jnp.where(walking[:, None], state.enemies - jnp.sign(state.enemies - C), state.enemies)
        delay = jnp.maximum(state.delay - 1, 0)
        lost = jnp.any(alive & (enemies[:, 0] == C) & (enemies[:, 1] == C))
        cleared = ~jnp.any(alive) & ~lost
        won = cleared & (state.wave == N_WAVES - 1)
        wave = state.wave + (cleared & ~won).astype(jnp.int32)
        new_e, new_alive, new_delay = spawn_wave(key, wave)
        respawn = cleared & ~won
        enemies = jnp.where(respawn, new_e, enemies)
        alive = jnp.where(respawn, new_alive, alive)
        delay = jnp.where(respawn, new_delay, delay)
        gain = jnp.where(hit, KILL_REWARD, 0.0) + jnp.where(cleared, WAVE_REWARD, 0.0)
        reward = jnp.where(lost, death_penalty(state.earned), gain)
        event = jnp.select([lost, won, cleared, hit, fire], [EV_LOST, EV_WIN, EV_WAVE, EV_KILL, EV_MISS], 0)
        nxt = state.replace(aim=aim.astype(jnp.int32), enemies=enemies.astype(jnp.int32), alive=alive,
                            delay=delay.astype(jnp.int32),
                            wave=wave, kills=state.kills + hit.astype(jnp.int32),
                            earned=state.earned + jnp.where(lost, 0.0, gain))
        return nxt, reward, lost | won, event

    def _render(self, state: WaveDefenseState, params):
        codes = jnp.zeros((S, S), jnp.int32)
        d = DIRS[state.aim]
        k = jnp.arange(1, C + 1)
        line = C + k[:, None] * d[None, :]
        codes = codes.at[line[:, 0], line[:, 1]].set(1)
        on_field = state.alive & (state.delay == 0)
        e_code = jnp.where(on_field, 2, codes[state.enemies[:, 0], state.enemies[:, 1]])
        order = jnp.argsort(on_field)  # living enemies drawn last
        codes = codes.at[state.enemies[order, 0], state.enemies[order, 1]].set(e_code[order])
        codes = codes.at[C, C].set(3 + state.aim)
        return _TABLE[codes], (state.wave + 1, state.kills, jnp.sum(state.alive & (state.delay > 0)).astype(jnp.int32))

    @staticmethod
    def scripted_policy(key, state: WaveDefenseState, params):
        """Fire if an enemy is in line; otherwise turn toward the line of the closest enemy."""
        on_field = state.alive & (state.delay == 0)
        _, in_line = first_in_line(state.enemies, on_field, state.aim)
        off = state.enemies - C
        k = jnp.maximum(jnp.abs(off[:, 0]), jnp.abs(off[:, 1]))
        closest = jnp.argmin(jnp.where(on_field, k, 1000))
        s = jnp.sign(off[closest])
        want = jnp.argmax(jnp.all(DIRS == s[None, :], axis=1))
        diff = (want - state.aim) % 8
        turn = jnp.where(diff == 0, 3, jnp.where(diff <= 4, 0, 1))
        return jnp.where(in_line, 2, turn).astype(jnp.int32)


register("classics/wavedefense", lambda: WaveDefense())
