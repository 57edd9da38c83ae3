"""BigFish: eat smaller fish to grow, avoid the others (Procgen's bigfish).

The sea is the whole 12 x 20 view. You start at size 1 and grow by one size for every
FISH_PER_SIZE fish eaten. Fish of size 0..5 (drawn as their size digit) swim one column a turn,
left to right or right to left, and leave at the far side. Each turn you move one cell (the sea's
edge stops you), then every fish moves; a fish that meets you (same cell, or you swap cells) is
eaten if it is smaller than you, and otherwise eats you (the episode ends). The level seed fixes
your start cell and the fish in the sea at the start (easy 6, hard 10); new fish then enter at
random from the episode key, one turn in four (hard: one in three), sized around yours.
Reward: +1/30 per fish eaten; the 30th ends the episode (a win); being eaten pays -1 (the return
is then k/30 - 1 after k fish). Return range [-1, 1].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.procgen.engine import (WALK_ACTIONS, WALK_DESCRIPTIONS, Game, ProcgenState,
                                            fresh_state, walk_target)

ROWS, COLS = 12, 20
GOAL = 30  # fish to eat
FISH_PER_SIZE = 6
MAX_SIZE = 5  # the largest fish; you reach size 5 after 24 fish
POOL = 16
START_FISH = (6, 10)  # easy, hard
SPAWN = (0.25, 1 / 3)  # easy, hard: chance a new fish enters on a turn
FISH_GLYPHS = "012345"
EV_ATE, EV_EATEN, EV_WON = 1, 2, 3


def your_size(items: jax.Array) -> jax.Array:
    """Your size after `items` fish: 1, then +1 every FISH_PER_SIZE fish (at most MAX_SIZE)."""
    return jnp.minimum(1 + items // FISH_PER_SIZE, MAX_SIZE).astype(jnp.int32)


def _fish_size(u: jax.Array, size: jax.Array) -> jax.Array:
    """A new fish's size from a uniform: uniform over [size - 2, size + 1] within 0..MAX_SIZE."""
    lo, hi = jnp.maximum(size - 2, 0), jnp.minimum(size + 1, MAX_SIZE)
    return (lo + jnp.floor(u * (hi - lo + 1))).astype(jnp.int32)


def bigfish_generate(draws, hard, level) -> ProcgenState:
    start = jnp.stack([draws.randint(0, ROWS), jnp.int32(COLS // 2)])
    u = draws.uniform((START_FISH[1], 4))
    rows = jnp.floor(u[:, 0] * ROWS).astype(jnp.int32)
    cols = jnp.floor(u[:, 1] * COLS).astype(jnp.int32)
    cols = jnp.where(jnp.abs(cols - start[1]) < 3, (cols + COLS // 2) % COLS, cols)  # none next to you
    vel = jnp.stack([jnp.zeros_like(rows), jnp.where(u[:, 2] < 0.5, 1, -1)], axis=1)
    sizes = _fish_size(u[:, 3], jnp.int32(1))
    mask = jnp.arange(START_FISH[1]) < jnp.where(hard, START_FISH[1], START_FISH[0])
    pool = entities.spawn_many(entities.empty(POOL), jnp.stack([rows, cols], axis=1), vel, sizes, mask)
    state = fresh_state(jnp.zeros((ROWS, COLS), jnp.int8), start, level, total=GOAL, pool=pool)
    return state.replace(keys=your_size(jnp.int32(0)))  # `keys` holds your size (the HUD shows it)


def _enter(pool: entities.Pool, key: jax.Array, size: jax.Array, hard: jax.Array) -> entities.Pool:
    """Maybe one new fish at a random row of the left or right edge, swimming inwards."""
    u = jax.random.uniform(key, (4,))
    left = u[1] < 0.5
    pos = jnp.stack([jnp.floor(u[2] * ROWS).astype(jnp.int32), jnp.where(left, 0, COLS - 1)])
    vel = jnp.stack([jnp.int32(0), jnp.where(left, 1, -1)])
    return entities.spawn(pool, pos, vel, _fish_size(u[3], size), where=u[0] < jnp.where(hard, SPAWN[1], SPAWN[0]))


def bigfish_step(state: ProcgenState, action, params, key):
    target = walk_target(state.pos, action)
    pos = jnp.clip(target, 0, jnp.array([ROWS - 1, COLS - 1])).astype(jnp.int32)
    size = your_size(state.items)
    fish = entities.advance(state.pool, ROWS, COLS, edge="kill")
    met = entities.point_hits(state.pool, fish, state.pos, pos, sweep=1)
    eaten_you = (met & (fish.kind >= size)).any()
    ate = met & (fish.kind < size) & ~eaten_you
    items = state.items + jnp.sum(ate, dtype=jnp.int32)
    won = ~eaten_you & (items >= GOAL)
    fish = _enter(entities.kill(fish, ate), key, your_size(items), params.hard)
    reward = jnp.where(eaten_you, -1.0, jnp.sum(ate) / GOAL)
    nxt = state.replace(pos=pos, pool=fish, items=jnp.where(eaten_you, state.items, items),
                        keys=your_size(items), earned=state.earned + reward)
    event = jnp.select([eaten_you, won, ate.any()], [EV_EATEN, EV_WON, EV_ATE], 0)
    return nxt, reward.astype(jnp.float32), eaten_you | won, event


def bigfish_paint(state: ProcgenState) -> jax.Array:
    codes = jnp.arange(1, len(FISH_GLYPHS) + 1, dtype=jnp.int32)  # fish of size k: cell code k + 1
    return entities.paint(state.world.astype(jnp.int32), state.pool, codes)


BIGFISH = Game(
    name="bigfish", world=(ROWS, COLS), view=(ROWS, COLS), cells=" " + FISH_GLYPHS,
    glyphs={g: f"a fish of size {g}" for g in FISH_GLYPHS},
    actions=WALK_ACTIONS, descriptions=WALK_DESCRIPTIONS,
    rules=("You are a fish in the sea (seen from the side). Fish, drawn as their size digit, swim "
           "one column a turn across the sea. Each turn you move one cell (the sea's edge stops "
           "you), then the fish move; a fish that meets you (same cell, or you swap cells) is eaten "
           "if it is smaller than you and eats you otherwise. You start at size 1 and grow by 1 "
           f"every {FISH_PER_SIZE} fish you eat (up to size {MAX_SIZE}). Eat {GOAL} fish to win."),
    reward=(f"+1/{GOAL} per fish eaten; the {GOAL}th ends the episode (a win); being eaten ends it "
            f"with -1 (the return is then k/{GOAL} - 1 after k fish). Return range [-1, 1]."),
    events=("", "You ate a fish.", "A bigger fish ate you. Game over.", f"You ate {GOAL} fish. You win!"),
    success=(EV_WON,), generate=bigfish_generate, step=bigfish_step, paint=bigfish_paint,
    draws=2 + 4 * START_FISH[1], hud="Fish eaten: {items} / {total}    Your size: {keys}",
    keys_count=True, return_range=(-1.0, 1.0), centred=False, keyed=True,
    hard_notes="10 fish at the start (easy 6) and a new fish one turn in three (easy: one in four).")
