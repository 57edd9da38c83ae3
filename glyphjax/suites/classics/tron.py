"""Tron light cycles on a 15x15 board (outer ring is wall, 13x13 arena): a two-seat game and the
Classics task against a scripted AI (`versus` of the two).

Rules (catalogue §5 row 30): seat 0 starts at row 7, column 3 heading RIGHT; seat 1 at row 7,
column 11 heading LEFT. Every round both cycles move one cell at the same time, leaving a trail that
stays for the whole game. UP/DOWN/LEFT/RIGHT set the mover's heading; reversing onto its own trail
is ignored (heading kept). A cycle crashes when it moves into a wall or any trail (including
either cycle's current cell: two cycles swapping places both crash), and both crash when they move
into the same cell (head-on).

Simultaneous moves as alternating half-moves: a round is two turns. Seat 0 chooses its heading
first (kept private: seat 1's view and the HUD show only the headings of the last round); then
seat 1 chooses, and both cycles move at once. Every action is legal (a reversal means "keep
going"); only no move is illegal.

Two-seat game (`classics/tron-2p`, zero-sum): no move (a parse failure) forfeits: the mover -1,
the other +1. Reward (terminal): +1 to the seat whose opponent alone crashes, -1 to it; 0 each if
both crash in the same round or time runs out. Each seat sees its own cycle as ☺ and trail ▞.

Scripted AI (`ai_policy`, deterministic given its key) for the seat to move, from the headings of
the last round: among its three non-reversing moves it prefers safe ones (not into a wall or
trail), then one the other cycle could not also enter next round, then the one with the most free
cells within REACH = 4 moves of the cell it moves into (a 4-round flood fill through free cells, at
most 41 cells; the move's own cell counts); ties broken by the key.

Classics task (`classics/tron`): you are seat 0 against the AI, drawn from the step key; no action
keeps your heading (time passes). Reward (pattern C, terminal): +1 if only the AI crashes, -1 if
only you crash, 0 if both crash in the same turn or time runs out. One terminal reward -> return
in [-1, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, DIR_NAMES, OPPOSITE, border_mask, codepoints, flood
from glyphjax.core.registry import register
from glyphjax.core.types import FORFEIT, NOOP, Env, EnvState, TaskCard, init_state_fields
from glyphjax.core.versus import versus
from glyphjax.suites.classics.common import FLOOR, GLYPHS_COMMON, WALL

SIZE = 15
REACH = 4  # the AI scores a move by the free cells within REACH moves of its next cell
_WINDOW = 2 * REACH + 3
YOU_HEAD, AI_HEAD, YOU_TRAIL, AI_TRAIL = "☺", "☻", "▞", "▚"
OTHER_HEAD, OTHER_TRAIL = "⬢", "▙"  # the other seat's cycle and trail in the two-seat game
EV_WIN, EV_LOSS, EV_DRAW, EV_CHOSEN, EV_OTHER_CHOSE, EV_NO_MOVE, EV_OTHER_NO_MOVE = 1, 2, 3, 4, 5, 6, 7
# Events are stored as seat 0 reads them; seat 1 reads SWAP[event].
SWAP = jnp.array([0, EV_LOSS, EV_WIN, EV_DRAW, EV_OTHER_CHOSE, EV_CHOSEN, EV_OTHER_NO_MOVE, EV_NO_MOVE],
                 jnp.int32)


@struct.dataclass
class TronState(EnvState):
    trail: jax.Array  # int32[15, 15]: 0 free, 1 seat 0's trail, 2 seat 1's (heads included)
    pos: jax.Array  # int32[2, 2]: each seat's cycle (row, col)
    heading: jax.Array  # int32[2]: each seat's heading in the last round (UP, DOWN, LEFT, RIGHT)
    chosen: jax.Array  # int32: seat 0's heading for this round, private until seat 1 has chosen
    phase: jax.Array  # int32: the seat to move (0: round starts, 1: seat 0 has chosen)


def blocked(trail: jax.Array, cell: jax.Array) -> jax.Array:
    r, c = cell[..., 0], cell[..., 1]
    inside = (r > 0) & (r < SIZE - 1) & (c > 0) & (c < SIZE - 1)
    return ~inside | (trail[jnp.clip(r, 0, SIZE - 1), jnp.clip(c, 0, SIZE - 1)] != 0)


def choose_heading(key, trail, me, me_dir, other, other_dir) -> jax.Array:
    """The scripted rule: safe first, then most reachable space, avoiding the other's next cells."""
    dirs = jnp.arange(4)
    nxt = me[None, :] + DIR_DELTAS  # [4, 2]
    safe = ~blocked(trail, nxt) & (dirs != OPPOSITE[me_dir])
    other_next = other[None, :] + DIR_DELTAS[jnp.array([0, 1, 2, 3])]
    contested = jnp.any(jnp.all(nxt[:, None, :] == other_next[None, :, :], axis=-1)
                        & (jnp.arange(4) != OPPOSITE[other_dir])[None, :], axis=1)
    # free cells within REACH moves of each next cell, in a window centred on the head (a flood of
    # REACH rounds from a neighbour of the head stays within REACH + 1 of it)
    free = jnp.pad((trail == 0) & ~border_mask(SIZE), REACH + 1)
    window = jax.lax.dynamic_slice(free, (me[0], me[1]), (_WINDOW, _WINDOW))
    seeds = jnp.zeros((4, _WINDOW, _WINDOW), jnp.bool_).at[
        jnp.arange(4), REACH + 1 + DIR_DELTAS[:, 0], REACH + 1 + DIR_DELTAS[:, 1]].set(True)  # constant
    areas = jax.vmap(lambda seed: jnp.sum(flood(seed, window | seed, REACH)))(seeds).astype(jnp.float32)
    score = jnp.where(safe, 1000.0 + areas - 50.0 * contested, 0.0) + jax.random.uniform(key, (4,))
    score = jnp.where(dirs == OPPOSITE[me_dir], -1.0, score)
    return jnp.argmax(score).astype(jnp.int32)


def ai_policy(key: jax.Array, state: TronState, params=None) -> jax.Array:
    """The scripted AI playing the seat to move (it reads only last round's headings)."""
    me = state.phase
    return choose_heading(key, state.trail, state.pos[me], state.heading[me], state.pos[1 - me],
                          state.heading[1 - me])


def keep_heading(state: TronState, params=None) -> jax.Array:
    """The action that keeps the mover's heading (what no action means in the Classics task)."""
    return state.heading[state.phase]


def _events(other: str, illegal: str) -> tuple[str, ...]:
    """Messages in the order of the EV_ constants; `other` names the other seat."""
    other_cap = other[0].upper() + other[1:]
    return ("", f"{other_cap} crashed. You win!", "You crashed. You lose.", "Both cycles crashed. Draw.",
            f"You have chosen your heading; {other} chooses next, then both cycles move.",
            f"{other_cap} has chosen its heading (hidden until you choose yours); choose yours.",
            "You made no move: that forfeits the game. You lose." if illegal == FORFEIT else "",
            f"{other_cap} made no move and forfeits. You win!" if illegal == FORFEIT else "")


def _rules(against: str) -> str:
    return ("Tron light cycles on a 15x15 board whose outer ring is wall (13x13 arena), " + against
            + ". You (☺) start on the left heading right, {o} ({h}) on the right heading left. Every "
            "turn both cycles move one cell at the same time and leave a trail that never "
            "disappears. UP/DOWN/LEFT/RIGHT set your heading; turning straight back is ignored. A "
            "cycle that moves into a wall or any trail crashes; moving into the same cell as the "
            "other cycle crashes both.")


class TronGame(Env):
    """Two-seat Tron (alternating half-moves, simultaneous movement; see the module docstring)."""

    def __init__(self, task_id: str, max_steps: int, illegal: str = FORFEIT, other: str = "the opponent",
                 other_head: str = OTHER_HEAD, other_trail: str = OTHER_TRAIL):
        self.table = codepoints(FLOOR + WALL + YOU_TRAIL + other_trail + YOU_HEAD + other_head)
        other_cap = other[0].upper() + other[1:]
        self.card = TaskCard(
            id=task_id,
            rules=_rules("for two players").format(o=other, h=other_head)
            + (" A round is two turns: the first player chooses a heading (kept hidden), then the "
               "second, then both cycles move. Making no move " + (
                   "forfeits the game (you lose)." if illegal == FORFEIT else "does nothing.")
               + f" Survive longer than {other}."),
            actions=DIR_NAMES,
            action_descriptions=tuple(f"turn your cycle to move {d.lower()}" for d in DIR_NAMES),
            glyphs={**GLYPHS_COMMON, YOU_HEAD: "your light cycle", other_head: f"{other}'s light cycle",
                    YOU_TRAIL: "your trail", other_trail: f"{other}'s trail"},
            hud="Step: {step} / {max_steps}    Your heading: {you_dir}    " + other_cap + "'s heading: {other_dir}",
            hud_fields=("you_dir", "other_dir"),
            hud_enums={"you_dir": DIR_NAMES, "other_dir": DIR_NAMES},
            max_steps=max_steps,
            reward=(f"+1 if {other} crashes and you do not, -1 if you crash and {other} does "
                    "not, 0 if both crash in the same round or time runs out"
                    + ("; no move: -1 to its player, +1 to the other." if illegal == FORFEIT else ".")),
            events=_events(other, illegal), num_players=2, illegal=illegal, zero_sum=True,
            success=(EV_WIN,) + ((EV_OTHER_NO_MOVE,) if illegal == FORFEIT else ()),  # seat 0 won
        )

    scripted_policy = staticmethod(ai_policy)

    def _reset(self, key, params):
        pos = jnp.array([[SIZE // 2, 3], [SIZE // 2, SIZE - 4]], jnp.int32)
        trail = jnp.zeros((SIZE, SIZE), jnp.int32).at[pos[0, 0], pos[0, 1]].set(1).at[pos[1, 0], pos[1, 1]].set(2)
        return TronState(**init_state_fields(), trail=trail, pos=pos, heading=jnp.array([3, 2], jnp.int32),
                         chosen=jnp.int32(-1), phase=jnp.int32(0))

    def _to_play(self, state):
        return state.phase

    def _legal(self, state, params):
        return jnp.ones((4,), jnp.bool_)

    def _step(self, key, state: TronState, action, params):
        me = state.phase
        heading = jnp.where(action != OPPOSITE[state.heading[me]], jnp.clip(action, 0, 3), state.heading[me])
        moved = self._move_both(state, jnp.stack([state.chosen, heading]))
        first = state.replace(chosen=heading, phase=jnp.int32(1))
        nxt = jax.tree.map(lambda a, b: jnp.where(me == 0, a, b), first, moved[0])
        reward, crashed, event = moved[1], moved[2], moved[3]
        no_move = jnp.where(me == 0, EV_NO_MOVE, EV_OTHER_NO_MOVE) if self.card.illegal == FORFEIT else 0
        event = jnp.where(action < 0, no_move, jnp.where(me == 0, EV_CHOSEN, event))
        return nxt, jnp.where(me == 0, 0.0, reward), (me == 1) & crashed, event

    def _move_both(self, state: TronState, heading: jax.Array):
        """Both cycles move one cell along `heading` [2] -> (state, reward[2], crashed, event)."""
        nxt = state.pos + DIR_DELTAS[heading]
        head_on = jnp.all(nxt[0] == nxt[1])
        crash = jax.vmap(lambda cell: blocked(state.trail, cell))(nxt) | head_on
        trail = state.trail
        for s in (0, 1):
            trail = jnp.where(crash[s], trail, trail.at[nxt[s, 0], nxt[s, 1]].set(s + 1))
        r0 = jnp.where(crash[1] & ~crash[0], 1.0, jnp.where(crash[0] & ~crash[1], -1.0, 0.0))
        event = jnp.select([crash[1] & ~crash[0], crash[0] & ~crash[1], crash[0] & crash[1]],
                           [EV_WIN, EV_LOSS, EV_DRAW], 0)
        moved = state.replace(trail=trail, pos=jnp.where(crash[:, None], state.pos, nxt), heading=heading,
                              chosen=jnp.int32(-1), phase=jnp.int32(0))
        return moved, jnp.stack([r0, -r0]), crash[0] | crash[1], event

    def _seat_event(self, state, seat):
        return jnp.where(seat == 0, state.event, SWAP[state.event])

    def _render(self, state: TronState, params, seat):
        own = seat + 1
        codes = jnp.where(border_mask(SIZE), 1, jnp.where(state.trail == own, 2,
                                                          jnp.where(state.trail == 3 - own, 3, 0)))
        me, other = state.pos[seat], state.pos[1 - seat]
        codes = codes.at[me[0], me[1]].set(4).at[other[0], other[1]].set(5)
        return self.table[codes], (state.heading[seat], state.heading[1 - seat])

    @staticmethod
    def perturb_private(key: jax.Array, state: TronState, seat) -> TronState:
        """Seat 0's heading for the round, while seat 1 chooses, is seat 0's alone."""
        other = jax.random.randint(key, (), 0, 4, dtype=jnp.int32)
        return state.replace(chosen=jnp.where((seat == 0) & (state.phase == 1), other, state.chosen))


def classic_card(task_id: str = "classics/tron", max_steps: int = 200) -> TaskCard:
    """The card of the Classics task (you against the scripted AI)."""
    return TaskCard(
        id=task_id,
        rules=_rules("against a scripted AI").format(o="the AI", h=AI_HEAD)
        + (" The AI's fixed rule: it never turns back, avoids walls and trails when it can, then "
           "cells your cycle could also enter next turn, then takes the move with the most free "
           "cells within 4 moves of where it lands (ties at random). Survive longer than the AI."),
        actions=DIR_NAMES,
        action_descriptions=tuple(f"turn your cycle to move {d.lower()}" for d in DIR_NAMES),
        glyphs={**GLYPHS_COMMON, YOU_HEAD: "your light cycle", AI_HEAD: "the AI's light cycle",
                YOU_TRAIL: "your trail", AI_TRAIL: "the AI's trail"},
        hud="Step: {step} / {max_steps}    Your heading: {you_dir}    AI heading: {ai_dir}",
        hud_fields=("you_dir", "ai_dir"),
        hud_enums={"you_dir": DIR_NAMES, "ai_dir": DIR_NAMES},
        max_steps=max_steps,
        reward=("+1 if the AI crashes and you do not, -1 if you crash and the AI does not, 0 if "
                "both crash in the same turn or time runs out."),
        events=_events("the AI", NOOP)[:EV_DRAW + 1],
        success=(EV_WIN,),
    )


def tron_vs_ai(task_id: str = "classics/tron", max_steps: int = 200) -> Env:
    """You (seat 0) against the scripted AI; no action keeps your heading."""
    game = TronGame(f"{task_id}:game", 2 * max_steps, NOOP, "the AI", AI_HEAD, AI_TRAIL)
    return versus(game, ai_policy, 0, card=classic_card(task_id, max_steps), no_action=keep_heading,
                  scripted=ai_policy)


register("classics/tron", lambda: tron_vs_ai())
register("classics/tron-2p", lambda: TronGame("classics/tron-2p", 400))
