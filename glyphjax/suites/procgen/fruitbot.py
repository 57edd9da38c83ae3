"""FruitBot: fall down a shaft, taking fruit, dodging junk food, through the gaps of barriers,
to the finish at the bottom (Procgen's fruitbot, which scrolls upwards instead).

Shaft 64 rows x 14 columns, 10 wide in easy mode (columns 2-11; the rest lies outside the level)
and 14 in hard mode. The view is 20 x 14: the whole width, from 3 rows above you to 16 below.
The level (seed) fixes 5 (hard 10) barriers (`━`): full rows at least MIN_SEP rows apart, each
with one gap of 20-40% (hard 10-30%) of the width; each gap lies within GAP_SHIFT columns of the
previous one (of the start column for the first), so every level can be passed. It also strews
10-19 fruit (`%`) and 10-19 junk items (`x`) over distinct cells off the barrier rows. The
bottom row is the finish (`▀`).
Each turn LEFT/RIGHT first move you a column (the level's side stops you), then you fall a row;
DOWN falls two rows. Every cell you enter counts: fruit and junk are taken; entering a barrier
ends the episode; entering the finish wins it.
Reward (the catalogue's budgets): +0.7/F per fruit (F = the level's fruit), -0.7/J per junk item
(J = its junk), +0.3 on reaching the finish; touching a barrier ends the episode with nothing
more. Return range [-0.7, 1].
Differs from OpenAI Procgen: a grid, one column and one row a turn (Procgen's robot moves
sideways about four times faster than it climbs); no locked gates with keys (Procgen's hard
mode has them on an eighth of the barriers); its rewards are +1, -4 and +10.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.sampling import random_cells
from glyphjax.suites.procgen.engine import OUTSIDE, Game, ProcgenState, fresh_state
from glyphjax.suites.procgen.shooters import FINISH, FINISH_MEANING, extend

H, W = 64, 14
VIEW = (20, 14)
ABOVE = 3  # rows of the view above you
WIDTH = (10, 14)  # easy, hard: the level's width (centred in the W columns)
BARRIERS = (5, 10)  # easy, hard
MIN_SEP, BUF, GAP_SHIFT = 5, 4, 3
GAP_PCT = (0.2, 0.1)  # easy, hard: least gap, as a fraction of the width (+ up to 0.2)
ITEMS = 19  # at most this many fruit, and as many junk items (10 + 0..9 each)
FRUIT_BUDGET, JUNK_BUDGET, FINISH_REWARD = 0.7, 0.7, 0.3
START_COL = W // 2
EMPTY_C, OUT_C, BARRIER_C, FRUIT_C, JUNK_C, FINISH_C = range(6)
BARRIER, FRUIT, JUNK = "━", "%", "x"
ACTIONS = ("NOOP", "LEFT", "RIGHT", "DOWN")
DESCRIPTIONS = ("fall one row", "move one column left, then fall one row",
                "move one column right, then fall one row", "fall two rows")
DX, FALL = (0, -1, 1, 0), (1, 1, 1, 2)  # per action: sideways move, rows fallen
_DX, _FALL = jnp.array(DX, jnp.int32), jnp.array(FALL, jnp.int32)
EVENTS = ("", "You took a fruit.", "You took junk food.", "You hit a barrier. Game over.",
          "You reached the finish. You win!")
ATE, JUNKED, CRASH, WIN = 1, 2, 3, 4


@struct.dataclass(kw_only=True)  # after ProcgenState's defaulted fields
class FruitbotState(ProcgenState):
    junk: jax.Array  # int32: junk items taken (items counts fruit, total the level's fruit)
    junk_total: jax.Array  # int32: junk items in the level


# --- level -------------------------------------------------------------------------------------
def _barrier_rows(draws, n: jax.Array) -> jax.Array:
    """int32[BARRIERS[1]]: the rows of the first n barriers (the rest H: none), MIN_SEP + a
    random share of the spare rows apart, the last at least BUF rows above the finish."""
    u = draws.uniform((BARRIERS[1],)) + 1e-3
    live = jnp.arange(BARRIERS[1]) < n
    spare = H - 1 - BUF - MIN_SEP * n
    parts = jnp.floor(jnp.where(live, u, 0) / jnp.sum(jnp.where(live, u, 0)) * spare).astype(jnp.int32)
    rows = jnp.cumsum(MIN_SEP + parts)
    return jnp.where(live, rows, H).astype(jnp.int32)


def _gaps(draws, lo: jax.Array, width: jax.Array, min_pct: jax.Array):
    """(left column, length) int32[BARRIERS[1]] of each barrier's gap, each within GAP_SHIFT
    columns of the previous gap's left column (the start column for the first)."""
    u = draws.uniform((BARRIERS[1], 2))
    length = jnp.maximum(1, jnp.round((min_pct + 0.2 * u[:, 0]) * width)).astype(jnp.int32)

    def one(prev, x):
        n, v = x
        first = jnp.maximum(lo, prev - GAP_SHIFT)
        last = jnp.minimum(lo + width - n, prev + GAP_SHIFT)
        g = first + jnp.floor(v * (last - first + 1)).astype(jnp.int32)
        return g, g

    _, left = jax.lax.scan(one, jnp.int32(START_COL), (length, u[:, 1]))
    return left, length


def fruitbot_generate(draws, hard, level) -> FruitbotState:
    width = jnp.where(hard, WIDTH[1], WIDTH[0])
    lo = (W - width) // 2
    rows = _barrier_rows(draws, jnp.where(hard, BARRIERS[1], BARRIERS[0]))
    left, length = _gaps(draws, lo, width, jnp.where(hard, GAP_PCT[1], GAP_PCT[0]))
    rr, cc = jnp.arange(H)[:, None, None], jnp.arange(W)[None, :, None]
    on_row = rr == rows[None, None, :]
    in_gap = (cc >= left) & (cc < left + length)
    barrier = (on_row & ~in_gap).any(-1)
    wall_row = on_row.any(-1)
    inside = (cc[..., 0] >= lo) & (cc[..., 0] < lo + width) & (rr[..., 0] > 1) & (rr[..., 0] < H - 1)
    cells, _ = random_cells(draws.uniform((H * W,)), inside & ~wall_row, 2 * ITEMS)
    n_fruit, n_junk = 10 + draws.randint(0, 10), 10 + draws.randint(0, 10)
    k = jnp.arange(ITEMS)
    world = jnp.zeros(H * W, jnp.int32).at[cells[:ITEMS]].set(jnp.where(k < n_fruit, FRUIT_C, EMPTY_C))
    world = world.at[cells[ITEMS:]].set(jnp.where(k < n_junk, JUNK_C, EMPTY_C)).reshape(H, W)
    world = jnp.where(barrier, BARRIER_C, world)
    world = jnp.where((cc[..., 0] < lo) | (cc[..., 0] >= lo + width), OUT_C, world)
    world = world.at[H - 1].set(jnp.where(world[H - 1] == OUT_C, OUT_C, FINISH_C))
    base = fresh_state(world, (0, START_COL), level, total=n_fruit)
    return extend(FruitbotState, base, junk=jnp.int32(0), junk_total=n_junk.astype(jnp.int32))


# --- turn --------------------------------------------------------------------------------------
def _gain(state: FruitbotState, code: jax.Array) -> jax.Array:
    """float32: what entering a cell of `code` pays (fruit, junk, the finish)."""
    fruit = FRUIT_BUDGET / jnp.maximum(state.total, 1)
    junk = JUNK_BUDGET / jnp.maximum(state.junk_total, 1)
    return jnp.select([code == FRUIT_C, code == JUNK_C, code == FINISH_C], [fruit, -junk, FINISH_REWARD], 0.0)


def _side(world: jax.Array, pos: jax.Array, dx: jax.Array) -> jax.Array:
    """Your column after a sideways move (the level's side stops you)."""
    c = pos[1] + dx
    ok = (c >= 0) & (c < W) & (world[pos[0], jnp.clip(c, 0, W - 1)] != OUT_C)
    return jnp.where(ok, c, pos[1]).astype(jnp.int32)


def fruitbot_step(state: FruitbotState, action, params):
    a = jnp.clip(action, 0, len(ACTIONS) - 1)
    c = _side(state.world, state.pos, _DX[a])
    cells = jnp.stack([jnp.stack([state.pos[0] + k, c]) for k in range(3)])  # sideways, fall 1, fall 2
    entered = jnp.array([True, True, True]) & (jnp.arange(3) <= _FALL[a]) & ((jnp.arange(3) > 0) | (c != state.pos[1]))
    world, items, junk, over, crash, won, last = state.world, state.items, state.junk, False, False, False, 0
    for k in range(3):
        r = jnp.clip(cells[k, 0], 0, H - 1)
        go = entered[k] & ~over
        code = world[r, c]
        hit_barrier, at_finish = go & (code == BARRIER_C), go & (code == FINISH_C)
        items = items + (go & (code == FRUIT_C))
        junk = junk + (go & (code == JUNK_C))
        world = world.at[r, c].set(jnp.where(go & ((code == FRUIT_C) | (code == JUNK_C)), EMPTY_C, code))
        last = jnp.where(go & ~hit_barrier, k, last)
        crash, won, over = crash | hit_barrier, won | at_finish, over | hit_barrier | at_finish
    pos = cells[last].astype(jnp.int32)
    earned = (FRUIT_BUDGET * items / jnp.maximum(state.total, 1) - JUNK_BUDGET * junk / jnp.maximum(state.junk_total, 1)
              + jnp.where(won, FINISH_REWARD, 0.0))
    event = jnp.select([crash, won, junk > state.junk, items > state.items], [CRASH, WIN, JUNKED, ATE], 0)
    nxt = state.replace(world=world.astype(jnp.int8), pos=pos, items=items.astype(jnp.int32),
                        junk=junk.astype(jnp.int32), earned=jnp.float32(earned))
    return nxt, (earned - state.earned).astype(jnp.float32), crash | won, event


def fruitbot_paint(state: FruitbotState) -> jax.Array:
    return state.world.astype(jnp.int32)


def _origin(state: FruitbotState) -> jax.Array:
    """The view's top-left cell: ABOVE rows above you, the shaft's first column."""
    return jnp.stack([state.pos[0] - ABOVE, jnp.int32(0)]).astype(jnp.int32)


# --- scripted policy ---------------------------------------------------------------------------
def _action_values(state: FruitbotState, row: jax.Array, v1: jax.Array, v2: jax.Array) -> jax.Array:
    """float32[W, 4]: from each column of `row`, what each action pays now plus the best value
    after it (v1 / v2: best values from rows row+1 / row+2); you never come back to a row, so
    the cells ahead are as the world shows them."""
    world = state.world.astype(jnp.int32)
    cols = jnp.arange(W)
    out = []
    for a in range(len(ACTIONS)):
        dx, fall = DX[a], FALL[a]
        c = jax.vmap(lambda col: _side(world, jnp.stack([row, col]), jnp.int32(dx)))(cols)
        value, alive = jnp.zeros(W), jnp.ones(W, bool)
        steps = [(row, c != cols)] + [(row + k, jnp.ones(W, bool)) for k in range(1, fall + 1)]
        for r, enter in steps:
            code = world[jnp.clip(r, 0, H - 1), c]
            go = alive & enter
            value = value + jnp.where(go & (code != BARRIER_C), _gain(state, code), 0.0)
            alive = alive & ~(go & ((code == BARRIER_C) | (code == FINISH_C)))
        after = (v1 if fall == 1 else v2)[c]
        out.append(value + jnp.where(alive, after, 0.0))
    return jnp.stack(out, axis=1)


def fruitbot_policy(key, state: FruitbotState, params):
    """The best action by dynamic programming over (row, column) from the bottom up: each turn
    takes you at least a row down, so this is the optimal play on the level as it stands."""
    def back(carry, row):
        v1, v2 = carry
        v = _action_values(state, row, v1, v2).max(axis=1)
        return (v, v1), v

    zeros = jnp.zeros(W)
    _, values = jax.lax.scan(back, (zeros, zeros), jnp.arange(H - 2, -1, -1))  # rows H-2 .. 0
    values = jnp.concatenate([values[::-1], jnp.zeros((3, W))])  # row r -> best value from row r
    v1, v2 = values[state.pos[0] + 1], values[state.pos[0] + 2]
    q = _action_values(state, state.pos[0], v1, v2)[state.pos[1]]
    return jnp.argmax(q).astype(jnp.int32)


def _hud(state: FruitbotState):
    """HUD numbers: fruit taken of the level's, junk taken of the level's."""
    return state.items, state.total, state.junk, state.junk_total


FRUITBOT = Game(
    name="fruitbot", world=(H, W), view=VIEW, cells=" " + OUTSIDE + BARRIER + FRUIT + JUNK + FINISH,
    glyphs={BARRIER: "barrier (touching it ends the episode)", FRUIT: "fruit (take it)",
            JUNK: "junk food (costs reward)", FINISH: FINISH_MEANING},
    actions=ACTIONS, descriptions=DESCRIPTIONS,
    rules=("You are a robot falling down a shaft. Each turn LEFT/RIGHT first move you one column "
           "(the shaft's side stops you), then you fall one row; DOWN falls two rows. Every cell "
           "you enter counts: fruit and junk food are taken, entering a barrier ends the "
           "episode, entering the finish at the bottom wins it. Pass each barrier through its gap."),
    reward=("+0.7/F per fruit (F = the level's fruit), -0.7/J per junk item (J = the level's junk), "
            "+0.3 on reaching the finish; touching a barrier ends the episode with nothing more. "
            "Return range [-0.7, 1]."),
    events=EVENTS, success=(WIN,), generate=fruitbot_generate, step=fruitbot_step,
    paint=fruitbot_paint, draws=BARRIERS[1] * 3 + H * W + 2,
    hud="Fruit: {items} / {total}    Junk: {keys} / {airborne}", keys_count=True,
    hud_values=_hud, return_range=(-0.7, 1.0),
    scripted_policy=fruitbot_policy, view_origin=_origin,
    view_note=(f"The grid is a {VIEW[0]}-row x {VIEW[1]}-column window over the shaft: its whole "
               f"width, from {ABOVE} rows above you to {VIEW[0] - ABOVE - 1} below (you are always "
               f"in row {ABOVE} of it)."),
    hard_notes="the shaft is 14 columns wide (easy 10) with 10 barriers (easy 5) and narrower gaps (10-30% of the width; easy 20-40%).")
