"""Snake rules: growth, self-collision, wall collision, food placement, win, step budget."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.types import NO_ACTION
from glyphjax.suites.classics.snake import SnakeState

UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3


def snake_state(env, cells, heading, food, t=0):
    """A hand-built state: `cells` lists the body from head to tail as (row, col)."""
    s = env.size
    body = np.zeros((s, s), np.int16)
    n = len(cells)
    for i, (r, c) in enumerate(cells):
        body[r, c] = n - i
    fields = dict(t=jnp.int32(t), done=jnp.bool_(False), event=jnp.int32(0))
    return SnakeState(**fields, body=jnp.asarray(body), head=jnp.array(cells[0], jnp.int32),
                      heading=jnp.int32(heading), length=jnp.int32(n), food=jnp.array(food, jnp.int32),
                      eaten=jnp.int32(0))


def grid_text(env, state):
    return glyphjax.render_text(env.card, env.render(state)).grid


@pytest.fixture(scope="module")
def env():
    return glyphjax.make("classics/snake-easy")


KEY = jax.random.PRNGKey(0)


def test_snake__initial_board_golden(env):
    state = snake_state(env, [(5, 5), (5, 4), (5, 3)], RIGHT, (2, 7))
    expected = "\n".join([
        "██████████",
        "█········█",
        "█······●·█",
        "█········█",
        "█········█",
        "█··■■▶···█",
        "█········█",
        "█········█",
        "█········█",
        "██████████",
    ])
    assert grid_text(env, state) == expected


def test_snake__moves_and_keeps_length_without_food(env):
    state = snake_state(env, [(5, 5), (5, 4), (5, 3)], RIGHT, (2, 7))
    state, tr = env.step(KEY, state, UP)
    expected = "\n".join([
        "██████████",
        "█········█",
        "█······●·█",
        "█········█",
        "█····▲···█",
        "█···■■···█",
        "█········█",
        "█········█",
        "█········█",
        "██████████",
    ])
    assert grid_text(env, state) == expected
    assert float(tr.reward) == 0.0 and int(state.length) == 3 and not bool(tr.terminated)


def test_snake__eating_grows_and_pays_one_over_target(env):
    state = snake_state(env, [(5, 5), (5, 4), (5, 3)], RIGHT, (5, 6))
    state, tr = env.step(KEY, state, RIGHT)
    assert int(state.length) == 4 and int(state.eaten) == 1
    assert float(tr.reward) == pytest.approx(1 / 61)
    # tail stayed: body cells are the head + 3 others
    assert int((state.body > 0).sum()) == 4
    assert tuple(np.asarray(state.head)) == (5, 6)
    # new food is on a free interior cell
    fr, fc = np.asarray(state.food)
    assert int(state.body[fr, fc]) == 0 and 0 < fr < 9 and 0 < fc < 9


def test_snake__food_never_spawns_on_snake(env):
    # a long snake filling most of the board: spawn many times from different keys
    cells = [(r, c) for r in range(1, 9) for c in (range(1, 9) if r % 2 else range(8, 0, -1))][:60]
    cells = cells[::-1]  # head at the end of the serpentine
    free_cells = {(r, c) for r in range(1, 9) for c in range(1, 9)} - set(cells)
    head = cells[0]
    # put food adjacent to the head so the next step eats
    hr, hc = head
    heading, food = None, None
    for a, (dr, dc) in enumerate([(-1, 0), (1, 0), (0, -1), (0, 1)]):
        if (hr + dr, hc + dc) in free_cells:
            heading, food = a, (hr + dr, hc + dc)
            break
    assert food is not None
    state = snake_state(env, cells, heading, food)
    keys = jax.random.split(jax.random.PRNGKey(1), 500)
    nxt, tr = jax.vmap(lambda k: env.step(k, state, heading))(keys)
    foods = np.asarray(nxt.food)
    body = np.asarray(nxt.body)
    assert np.all(body[np.arange(500), foods[:, 0], foods[:, 1]] == 0)
    spawned = {tuple(f) for f in foods.tolist()}
    assert spawned <= free_cells - {food} and len(spawned) == len(free_cells) - 1


def test_snake__wall_collision_ends_episode_without_penalty(env):
    state = snake_state(env, [(5, 8), (5, 7), (5, 6)], RIGHT, (2, 2))
    state, tr = env.step(KEY, state, RIGHT)
    assert bool(tr.terminated) and not bool(tr.truncated) and float(tr.reward) == 0.0
    assert int(state.event) == 2


def test_snake__self_collision_ends_episode(env):
    # head at (5,5) moving up into its own body at (4,5)
    cells = [(5, 5), (5, 6), (4, 6), (4, 5), (4, 4)]
    state = snake_state(env, cells, LEFT, (2, 2))
    state, tr = env.step(KEY, state, UP)
    assert bool(tr.terminated) and int(state.event) == 3


def test_snake__may_enter_the_cell_the_tail_leaves(env):
    # a 4-cycle: head (5,5), body (5,6), (4,6), tail (4,5); moving up enters the tail's cell
    cells = [(5, 5), (5, 6), (4, 6), (4, 5)]
    state = snake_state(env, cells, LEFT, (2, 2))
    state, tr = env.step(KEY, state, UP)
    assert not bool(tr.terminated)
    assert tuple(np.asarray(state.head)) == (4, 5)


def test_snake__reversing_is_ignored(env):
    state = snake_state(env, [(5, 5), (5, 4), (5, 3)], RIGHT, (2, 2))
    state, _ = env.step(KEY, state, LEFT)
    assert tuple(np.asarray(state.head)) == (5, 6) and int(state.heading) == RIGHT


def test_snake__no_action_keeps_heading(env):
    state = snake_state(env, [(5, 5), (5, 4), (5, 3)], DOWN, (2, 2))
    state, _ = env.step(KEY, state, NO_ACTION)
    assert tuple(np.asarray(state.head)) == (6, 5)


def test_snake__filling_the_board_wins_with_return_one():
    env = glyphjax.make("classics/snake-easy")
    # serpentine covering all 64 cells except the last one, which holds the food
    order = [(r, c) for r in range(1, 9) for c in (range(1, 9) if r % 2 else range(8, 0, -1))]
    cells = order[:-1][::-1]
    state = snake_state(env, cells, LEFT, order[-1])
    state = state.replace(eaten=jnp.int32(env.target - 1))
    state, tr = env.step(KEY, state, LEFT)
    assert bool(tr.terminated) and int(state.event) == 4
    assert float(tr.reward) == pytest.approx(1 / env.target)
    assert "●" not in grid_text(env, state)


def test_snake__step_budget_truncates(env):
    # circle forever in a 2x2 loop of length 4 (always entering the leaving tail cell)
    state = snake_state(env, [(5, 5), (5, 6), (4, 6), (4, 5)], LEFT, (1, 1), t=env.card.max_steps - 3)
    for a in (UP, RIGHT):
        state, tr = env.step(KEY, state, a)
        assert not bool(tr.truncated | tr.terminated)
    state, tr = env.step(KEY, state, DOWN)
    assert bool(tr.truncated) and not bool(tr.terminated) and int(state.t) == env.card.max_steps


@pytest.mark.parametrize("task_id,size,target,steps", [
    ("classics/snake-easy", 10, 61, 200), ("classics/snake-medium", 12, 97, 300),
    ("classics/snake-hard", 15, 166, 500)])
def test_snake__variants_match_reference_parameters(task_id, size, target, steps):
    env = glyphjax.make(task_id)
    frame = env.render(env.reset(glyphjax.reset_key(0)))
    assert frame.grid.shape == (size, size)
    assert env.target == target and env.card.max_steps == steps


def test_snake__greedy_baseline_beats_random():
    env = glyphjax.make("classics/snake-easy")
    seeds = jnp.arange(256)
    rand = glyphjax.rollout(env, glyphjax.random_policy(4), seeds).returns.mean()
    greedy = glyphjax.rollout(env, env.scripted_policy, seeds).returns.mean()
    assert float(greedy) > 5 * float(rand) and float(greedy) > 0.1


SQUARE = [(5, 5), (5, 4), (4, 4), (4, 5)]  # head ... tail, head heading RIGHT next to the tail


def test_snake_tail_rule__reference_variant_dies_on_the_leaving_tail_cell_in_the_same_program(env):
    """The GlyphBench reference counts the cell the tail is leaving as body: the same move dies."""
    from glyphjax.suites.classics.snake import EV_SELF, snake_variant
    ref = snake_variant("easy", tail_is_deadly=True)
    assert not bool(env.default_params().tail_is_deadly) and bool(ref.default_params().tail_is_deadly)
    assert ref.program == env.program and ref.card.id == "classics/snake-easy-tail-deadly"
    assert "also counts as hitting the body" in ref.card.rules and "is allowed" in env.card.rules
    start = snake_state(env, SQUARE, RIGHT, (1, 1))
    state, tr = env.step(KEY, start, UP, ref.default_params())
    assert bool(tr.terminated) and int(tr.event) == EV_SELF and state.head.tolist() == [5, 5]
    # the scripted policy of each rule: only the default one may steer into the leaving tail
    away = snake_state(env, SQUARE, RIGHT, (2, 5))  # the food lies beyond the tail
    keys = jax.random.split(KEY, 16)
    ref_moves = {int(ref.scripted_policy(k, away, ref.default_params())) for k in keys}
    def_moves = {int(env.scripted_policy(k, away, env.default_params())) for k in keys}
    assert UP not in ref_moves and def_moves == {UP}, (ref_moves, def_moves)
