"""Bomberman: blow up crates with bombs to find the hidden exit.

Reference rules (catalogue §5 row 4): 11x11 board with a wall border and pillars on every
(even row, even column) cell, about 40% of the other cells crates (the 3 cells of the top-left
start corner are kept clear); the exit is hidden under one crate. BOMB drops a bomb on your cell
(one bomb at a time) with a 3-turn fuse: it explodes at the end of the 3rd turn after it was
dropped. The blast reaches 2 cells in each direction, is stopped by walls and by the first crate
it hits (that crate is destroyed); it is drawn for one turn. You cannot walk into crates, walls
or a bomb (you can step off your own). Standing in a blast kills you.

Reward: +0.5/N per crate destroyed (N = number of crates on this board, the exit crate
included), +0.5 for stepping on the revealed exit (a win that ends the episode). Death pays
-1 minus everything earned so far, so the return after a death is exactly -1 (shared helper
`_arcade.death_penalty`); otherwise the return is in [0, 1]. Range [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.core.sampling import random_cells
from glyphjax.suites.classics._arcade import EXIT, GLYPHS_EXIT, death_penalty
from glyphjax.suites.classics.common import FLOOR, GLYPHS_ARCADE, GLYPHS_COMMON, PLAYER, WALL

S = 11
FUSE, RADIUS = 3, 2
CRATE_P = 0.4
CRATE, BLAST = "▦", "✶"
BOMBS = "❶❷❸"  # bomb exploding in 1, 2, 3 turns
GLYPHS = {FLOOR: GLYPHS_COMMON[FLOOR], WALL: GLYPHS_COMMON[WALL], PLAYER: GLYPHS_ARCADE[PLAYER],
          **GLYPHS_EXIT, CRATE: "crate (destructible)", BLAST: "explosion (this turn)",
          BOMBS[0]: "bomb exploding at the end of the next turn",
          BOMBS[1]: "bomb exploding in 2 turns", BOMBS[2]: "bomb exploding in 3 turns"}
ACTIONS = ("UP", "DOWN", "LEFT", "RIGHT", "BOMB", "WAIT")
EV_BOOM, EV_DEAD, EV_EXIT, EV_REVEAL = 1, 2, 3, 4
EVENTS = ("", "Your bomb exploded.", "You were caught in the blast. Game over.",
          "You reached the exit. You win!", "Your bomb exploded and revealed the exit!")
_TABLE = codepoints(FLOOR + WALL + CRATE + EXIT + BLAST + BOMBS + PLAYER)  # 0..4, 5..7 bombs, 8


def _fixed_walls() -> jax.Array:
    r = jnp.arange(S)[:, None]
    c = jnp.arange(S)[None, :]
    border = (r == 0) | (r == S - 1) | (c == 0) | (c == S - 1)
    return border | ((r % 2 == 0) & (c % 2 == 0))


@struct.dataclass
class BombermanState(EnvState):
    crates: jax.Array  # bool[S, S]
    exit: jax.Array  # int32[2]
    player: jax.Array  # int32[2]
    bomb: jax.Array  # int32[2]
    fuse: jax.Array  # int32: turns until the bomb explodes (0 = no bomb)
    blast: jax.Array  # bool[S, S]: cells of this turn's explosion
    n_crates: jax.Array  # int32
    destroyed: jax.Array  # int32
    earned: jax.Array  # float32: reward paid so far


def blast_cells(walls: jax.Array, crates: jax.Array, bomb: jax.Array) -> jax.Array:
    """bool[S, S]: the bomb cell plus up to RADIUS cells each way, stopping at walls and after
    the first crate."""
    out = jnp.zeros((S, S), bool).at[bomb[0], bomb[1]].set(True)
    for d in range(4):
        open_ = jnp.bool_(True)
        for k in range(1, RADIUS + 1):
            cell = bomb + k * DIR_DELTAS[d]
            r, c = jnp.clip(cell[0], 0, S - 1), jnp.clip(cell[1], 0, S - 1)
            open_ = open_ & ~walls[r, c]
            out = out.at[r, c].max(open_)
            open_ = open_ & ~crates[r, c]
    return out


class Bomberman(Env):
    def __init__(self, task_id: str = "classics/bomberman", max_steps: int = 500):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Bomberman on an {S}x{S} board: walls and pillars are indestructible, crates "
                   "can be blown up, and the exit is hidden under one crate. You start in the "
                   "top-left corner. Move with UP/DOWN/LEFT/RIGHT (not into walls, crates or a "
                   f"bomb). BOMB drops a bomb on your cell (one at a time); it explodes after "
                   f"{FUSE} turns, reaching {RADIUS} cells in each direction; walls stop the "
                   "blast and the first crate it reaches is destroyed. Do not stand in the blast. "
                   "Step on the revealed exit to win."),
            actions=ACTIONS,
            action_descriptions=("move one cell up", "move one cell down", "move one cell left",
                                 "move one cell right", "drop a bomb on your cell", "stay in place"),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Crates destroyed: {destroyed} / {crates}    Bomb fuse: {fuse}",
            hud_fields=("destroyed", "crates", "fuse"),
            max_steps=max_steps,
            reward=("+0.5/N for each crate destroyed (N = number of crates on the board, so all "
                    "crates = 0.5) and +0.5 for reaching the exit (this ends the game). Being "
                    "caught in a blast ends the game and pays -1 minus everything earned so far, "
                    "so the episode return is then exactly -1. Return range [-1, 1]."),
            events=EVENTS,
            success=(EV_EXIT,),
        )

    def _reset(self, key, params):
        k1, k2 = jax.random.split(key)
        walls = _fixed_walls()
        r = jnp.arange(S)[:, None]
        c = jnp.arange(S)[None, :]
        start_zone = (r + c <= 3)
        cand = ~walls & ~start_zone
        idx, _ = random_cells(jax.random.uniform(k1, (S * S,)), cand, 1)
        er, ec = idx // S, idx % S
        crates = cand & (jax.random.bernoulli(k2, CRATE_P, (S, S)) | ((r == er[0]) & (c == ec[0])))
        return BombermanState(**init_state_fields(), crates=crates,
                              exit=jnp.stack([er[0], ec[0]]).astype(jnp.int32),
                              player=jnp.array([1, 1], jnp.int32), bomb=jnp.array([1, 1], jnp.int32),
                              fuse=jnp.int32(0), blast=jnp.zeros((S, S), bool),
                              n_crates=jnp.sum(crates).astype(jnp.int32), destroyed=jnp.int32(0),
                              earned=jnp.float32(0))

    def _step(self, key, state: BombermanState, action, params):
        walls = _fixed_walls()
        move = (action >= 0) & (action < 4)
        target = state.player + jnp.where(move, DIR_DELTAS[jnp.clip(action, 0, 3)], 0)
        bomb_there = (state.fuse > 0) & (target[0] == state.bomb[0]) & (target[1] == state.bomb[1])
        blocked = walls[target[0], target[1]] | state.crates[target[0], target[1]] | (bomb_there & move)
        player = jnp.where(blocked, state.player, target)
        # the fuse burns, the bomb may explode
        fuse = jnp.maximum(state.fuse - 1, 0)
        explode = (state.fuse == 1)
        blast = explode & blast_cells(walls, state.crates, state.bomb)
        broken = blast & state.crates
        n_broken = jnp.sum(broken).astype(jnp.int32)
        crates = state.crates & ~blast
        # dropping a bomb (after the old one is gone)
        drop = (action == 4) & (fuse == 0)
        bomb = jnp.where(drop, player, state.bomb)
        fuse = jnp.where(drop, FUSE, fuse)
        dead = blast[player[0], player[1]]
        exit_open = ~crates[state.exit[0], state.exit[1]]
        at_exit = ~dead & exit_open & (player[0] == state.exit[0]) & (player[1] == state.exit[1])
        gain = 0.5 * n_broken.astype(jnp.float32) / state.n_crates.astype(jnp.float32) + \
            jnp.where(at_exit, 0.5, 0.0)
        reward = jnp.where(dead, death_penalty(state.earned), gain)
        revealed = explode & broken[state.exit[0], state.exit[1]]
        event = jnp.select([dead, at_exit, revealed, explode], [EV_DEAD, EV_EXIT, EV_REVEAL, EV_BOOM], 0)
        nxt = state.replace(crates=crates, player=player, bomb=bomb, fuse=fuse.astype(jnp.int32),
                            blast=blast, destroyed=state.destroyed + n_broken,
                            earned=state.earned + jnp.where(dead, 0.0, gain))
        return nxt, reward, dead | at_exit, event

    def _render(self, state: BombermanState, params):
        codes = jnp.where(_fixed_walls(), 1, jnp.where(state.crates, 2, 0))
        exit_open = ~state.crates[state.exit[0], state.exit[1]]
        codes = codes.at[state.exit[0], state.exit[1]].set(jnp.where(exit_open, 3, 2))
        codes = jnp.where(state.blast, 4, codes)
        bomb_code = jnp.where(state.fuse > 0, 4 + jnp.clip(state.fuse, 1, 3),
                              codes[state.bomb[0], state.bomb[1]])
        codes = codes.at[state.bomb[0], state.bomb[1]].set(bomb_code)
        codes = codes.at[state.player[0], state.player[1]].set(8)
        return _TABLE[codes], (state.destroyed, state.n_crates, state.fuse)


register("classics/bomberman", lambda: Bomberman())
