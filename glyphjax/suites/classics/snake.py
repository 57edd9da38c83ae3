"""Snake: eat food, grow, do not hit the walls or yourself.

Parameters follow the GlyphBench reference (catalogue §4): board 10/12/15 cells square
*including* the wall border, snake of length 3 at the centre heading RIGHT, one food at a time on
a uniformly random free cell, T = 200/300/500 turns. Target N = (s-2)^2 - 3 foods: each food pays
+1/N, so return 1.0 means the board is filled (then the episode ends, a win). Death (wall or
self) ends the episode with no penalty. Return in [0, 1] by construction.

Body representation: an int16 grid of remaining lifetimes (head = length, tail = 1). A move
decrements every body cell (the tail cell frees) unless the snake eats; so the cell the tail is
leaving may be entered (standard Snake, the default). The GlyphBench reference instead counts that
cell as body (death): `SnakeParams.tail_is_deadly` (traced) selects its rule, `snake_variant(...,
tail_is_deadly=True)` builds such an env with its own card. Reversing into the neck is ignored
(heading kept), as in the reference. NO_ACTION keeps the heading: the snake always moves.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, DIR_NAMES, OPPOSITE, border_mask, codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.core.sampling import kth_true, random_cell
from glyphjax.suites.classics.common import FLOOR, GLYPHS_COMMON, WALL

HEADS = "▲▼◀▶"  # head glyph per heading (UP, DOWN, LEFT, RIGHT)
BODY = "■"
FOOD = "●"
GLYPHS = {
    **GLYPHS_COMMON,
    BODY: "snake body",
    FOOD: "food",
    HEADS[0]: "snake head, moving up",
    HEADS[1]: "snake head, moving down",
    HEADS[2]: "snake head, moving left",
    HEADS[3]: "snake head, moving right",
}
EV_ATE, EV_WALL, EV_SELF, EV_WIN = 1, 2, 3, 4
EVENTS = ("", "You ate the food and grew by one.", "You hit the wall. Game over.",
          "You ran into your own body. Game over.", "The board is full. You win!")

# cell codes for rendering: 0 floor, 1 wall, 2 body, 3 food, 4..7 head by heading
_TABLE = codepoints(FLOOR + WALL + BODY + FOOD + HEADS)


@struct.dataclass
class SnakeState(EnvState):
    body: jax.Array  # int16[s, s]: remaining lifetime of each body cell (0 = free)
    head: jax.Array  # int32[2]
    heading: jax.Array  # int32 in 0..3
    length: jax.Array  # int32
    food: jax.Array  # int32[2]
    eaten: jax.Array  # int32


@struct.dataclass
class SnakeParams:
    """Traced rule switches of Snake (one compiled program serves both rules)."""

    tail_is_deadly: jax.Array  # bool: entering the cell the tail is leaving kills (GlyphBench reference)


TAIL_RULES = ("entering the cell the tail is just leaving is allowed",
              "entering the cell the tail is just leaving also counts as hitting the body")


class Snake(Env):
    def __init__(self, task_id: str, size: int, max_steps: int, tail_is_deadly: bool = False):
        self.size = size
        self.target = (size - 2) ** 2 - 3
        self.tail_is_deadly = bool(tail_is_deadly)
        inner = size - 2
        self.card = TaskCard(
            id=task_id,
            rules=(f"Classic Snake on a {size}x{size} board whose outer ring is wall "
                   f"({inner}x{inner} playable cells). The snake starts with length 3 in the centre, "
                   "moving right, and moves one cell every turn in its heading. UP/DOWN/LEFT/RIGHT "
                   "change the heading; turning straight back is ignored. Eating the food grows the "
                   "snake by one and a new food appears on a random free cell. Hitting a wall or "
                   f"the snake's own body ends the game; {TAIL_RULES[self.tail_is_deadly]}. "
                   "Filling the whole board wins."),
            actions=DIR_NAMES,
            action_descriptions=tuple(f"turn the snake to move {d.lower()}" for d in DIR_NAMES),
            glyphs=GLYPHS,
            hud="Step: {step} / {max_steps}    Length: {length}    Food eaten: {eaten} / " + str(self.target),
            hud_fields=("length", "eaten"),
            max_steps=max_steps,
            reward=(f"+1/{self.target} for each food eaten (eating all {self.target} fills the board "
                    "and gives a total of 1.0). Dying ends the episode with no penalty. "
                    "Return range [0, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
            return_range=(0.0, 1.0),
        )

    def static_config(self) -> tuple:
        return (self.size,)

    def default_params(self) -> SnakeParams:
        return SnakeParams(tail_is_deadly=jnp.asarray(self.tail_is_deadly))

    def _reset(self, key, params):
        s = self.size
        r, c = s // 2, s // 2
        body = jnp.zeros((s, s), jnp.int16)
        body = body.at[r, c].set(3).at[r, c - 1].set(2).at[r, c - 2].set(1)
        free = (body == 0) & self._interior()
        idx, _ = random_cell(jax.random.uniform(key), free)
        return SnakeState(**init_state_fields(), body=body, head=jnp.array([r, c], jnp.int32),
                          heading=jnp.int32(3), length=jnp.int32(3),
                          food=jnp.stack([idx // s, idx % s]).astype(jnp.int32), eaten=jnp.int32(0))

    def _interior(self):
        return ~border_mask(self.size)

    def _step(self, key, state: SnakeState, action, params):
        turn = (action >= 0) & (action != OPPOSITE[state.heading])
        heading = jnp.where(turn, jnp.clip(action, 0, 3), state.heading)
        new_head = state.head + DIR_DELTAS[heading]
        r, c = new_head[0], new_head[1]
        s = self.size
        hit_wall = (r <= 0) | (r >= s - 1) | (c <= 0) | (c >= s - 1)
        rc, cc = jnp.clip(r, 0, s - 1), jnp.clip(c, 0, s - 1)
        eats = (~hit_wall) & (r == state.food[0]) & (c == state.food[1])
        # the tail cell (lifetime 1) frees this turn unless the snake grows (or the reference rule)
        occupied = state.body[rc, cc] > jnp.where(eats | params.tail_is_deadly, 0, 1)
        hit_self = (~hit_wall) & occupied
        dead = hit_wall | hit_self

        length = state.length + eats.astype(jnp.int32)
        body = jnp.where(eats, state.body, jnp.maximum(state.body - 1, 0).astype(jnp.int16))
        body = body.at[rc, cc].set(length.astype(jnp.int16))
        eaten = state.eaten + eats.astype(jnp.int32)
        won = eaten >= self.target
        # the food draw (`uniform_true` of the free cells) with its count in closed form: after a
        # move that eats, the body covers exactly `length` interior cells
        free = ((body == 0) & self._interior()).reshape(-1)
        count = jnp.int32((s - 2) ** 2) - length
        idx = kth_true(free, jnp.floor(jax.random.uniform(key) * count).astype(jnp.int32), small_graph=False)
        food = jnp.where(eats, jnp.stack([idx // s, idx % s]).astype(jnp.int32), state.food)

        moved = state.replace(body=body, head=jnp.stack([rc, cc]).astype(jnp.int32), heading=heading,
                              length=length, food=food, eaten=eaten)
        nxt = jax.tree.map(lambda a, b: jnp.where(dead, a, b), state.replace(heading=heading), moved)
        reward = jnp.where(eats, 1.0 / self.target, 0.0)
        event = jnp.select([hit_wall, hit_self, won, eats], [EV_WALL, EV_SELF, EV_WIN, EV_ATE], 0)
        return nxt, reward, dead | won, event

    def _render(self, state: SnakeState, params):
        s = self.size
        border = ~self._interior()
        codes = jnp.where(border, 1, 0)
        codes = jnp.where(state.body > 0, 2, codes)
        codes = codes.at[state.food[0], state.food[1]].set(jnp.where(state.eaten >= self.target, codes[state.food[0], state.food[1]], 3))
        codes = codes.at[state.head[0], state.head[1]].set(4 + state.heading)
        return _TABLE[codes], (state.length, state.eaten)

    @staticmethod
    def scripted_policy(key, state: SnakeState, params):
        """Greedy to food: the safe move (no wall, no body but the leaving tail where that is
        allowed) that most reduces the Manhattan distance to the food; ties broken by a random score."""
        nxt = state.head[None, :] + DIR_DELTAS  # [4, 2]
        s = state.body.shape[0]
        inside = (nxt[:, 0] > 0) & (nxt[:, 0] < s - 1) & (nxt[:, 1] > 0) & (nxt[:, 1] < s - 1)
        cells = state.body[jnp.clip(nxt[:, 0], 0, s - 1), jnp.clip(nxt[:, 1], 0, s - 1)]
        safe = inside & (cells <= jnp.where(params.tail_is_deadly, 0, 1)) & (jnp.arange(4) != OPPOSITE[state.heading])
        dist = jnp.abs(nxt - state.food[None, :]).sum(-1).astype(jnp.float32)
        score = jnp.where(safe, -dist, -1e6) + jax.random.uniform(key, (4,)) * 0.1
        return jnp.argmax(score).astype(jnp.int32)


SNAKE_VARIANTS = {"easy": (10, 200), "medium": (12, 300), "hard": (15, 500)}


def snake_variant(level: str, tail_is_deadly: bool = False) -> Snake:
    """The Snake of `level` (easy/medium/hard) with the chosen tail rule, unregistered (the
    `classics/snake-*` task sets stay the three default ids); id `classics/snake-<level>` plus
    `-tail-deadly` for the reference rule. Shares the registered id's compiled program."""
    if level not in SNAKE_VARIANTS:
        raise KeyError(f"unknown Snake level {level!r}; valid: {', '.join(SNAKE_VARIANTS)}")
    size, steps = SNAKE_VARIANTS[level]
    suffix = "-tail-deadly" if tail_is_deadly else ""
    return Snake(f"classics/snake-{level}{suffix}", size, steps, tail_is_deadly)


for _name, (_size, _steps) in SNAKE_VARIANTS.items():
    register(f"classics/snake-{_name}", lambda n=_name, s=_size, t=_steps: Snake(f"classics/snake-{n}", s, t))
