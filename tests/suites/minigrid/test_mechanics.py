"""MiniGrid engine rules on hand-built states, hand-written golden boards and partial views."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.suites.minigrid import make_task
from glyphjax.suites.minigrid.engine import (BALL, BOX, CLOSED, DONE, DOOR, DROP, EV_LOCKED,
                                             EV_UNLOCK, GOAL, KEY, LAVA, LOCKED, MOVE_FORWARD,
                                             OBSTACLE, OPEN, PICKUP, TOGGLE, TURN_LEFT, TURN_RIGHT,
                                             WALL, pack)

# colour indices in Farama order, written out here (not imported) on purpose
RED_, GREEN_, BLUE_, PURPLE_, YELLOW_, GREY_ = range(6)
CELLS = {"#": pack(WALL), ".": 0, "*": pack(GOAL), "~": pack(LAVA), "o": pack(OBSTACLE, BLUE_),
         "k": pack(KEY, YELLOW_), "q": pack(KEY, RED_), "a": pack(BALL, RED_),
         "D": pack(DOOR, YELLOW_, LOCKED), "C": pack(DOOR, YELLOW_, CLOSED), "O": pack(DOOR, YELLOW_, OPEN),
         "x": pack(BOX, BLUE_, 0, pack(KEY, BLUE_)), "X": pack(BOX, GREY_)}
ARROWS = {">": 0, "v": 1, "<": 2, "^": 3}


_JIT: dict = {}


def _jit(env, name):
    key = (env.card.id, name)
    if key not in _JIT:
        _JIT[key] = jax.jit(getattr(env, name))
    return _JIT[key]


def board(task: str, rows: list[str], carry: int = 0, t: int = 0, **fields):
    """(env, state) with the level drawn in ASCII (agent as > v < ^ on floor)."""
    env = make_task(task)
    s = _jit(env, "reset")(glyphjax.reset_key(0))
    g = np.zeros((len(rows), len(rows[0])), np.int32)
    pos = d = None
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            if ch in ARROWS:
                pos, d = (r, c), ARROWS[ch]
            else:
                g[r, c] = CELLS[ch]
    obst = np.argwhere((g & 15) == OBSTACLE).astype(np.int32)
    s = s.replace(grid=jnp.asarray(g), pos=jnp.asarray(pos, jnp.int32), dir=jnp.int32(d),
                  carry=jnp.int32(carry), t=jnp.int32(t),
                  **({"obstacles": jnp.asarray(obst)} if len(obst) and len(obst) == s.obstacles.shape[0] else {}),
                  **{k: jnp.asarray(v, jnp.int32) for k, v in fields.items()})
    return env, s


def step(env, s, a, seed=0):
    return _jit(env, "step")(glyphjax.step_key(seed, int(s.t)), s, jnp.int32(a))


def text(env, s):
    return glyphjax.render_text(env.card, _jit(env, "render")(s)).grid


def test_door__locked_door_opens_only_with_the_key_of_its_colour():
    rows = ["#####", "#>D.#", "#####"]
    env, s = board("doorkey-5x5", rows, carry=pack(KEY, RED_))
    s2, tr = step(env, s, TOGGLE)
    assert int(s2.grid[1, 2]) == pack(DOOR, YELLOW_, LOCKED), "red key must not open a yellow door"
    assert int(tr.event) == EV_LOCKED
    s3, _ = step(env, s2, MOVE_FORWARD)
    assert tuple(np.asarray(s3.pos)) == (1, 1), "walked through a locked door"
    env, s = board("doorkey-5x5", rows, carry=pack(KEY, YELLOW_))
    s2, tr = step(env, s, TOGGLE)
    assert int(s2.grid[1, 2]) == pack(DOOR, YELLOW_, OPEN) and int(tr.event) == EV_UNLOCK
    s3, _ = step(env, s2, MOVE_FORWARD)
    assert tuple(np.asarray(s3.pos)) == (1, 2), "could not walk into the unlocked door"
    assert int(s3.carry) == pack(KEY, YELLOW_), "the key is kept after unlocking"


def test_door__toggle_opens_and_closes_and_closed_blocks():
    env, s = board("multiroom-n2-s4", ["#####", "#>C.#", "#####"])
    s1, _ = step(env, s, MOVE_FORWARD)
    assert tuple(np.asarray(s1.pos)) == (1, 1), "walked through a closed door"
    s2, _ = step(env, s1, TOGGLE)
    assert int(s2.grid[1, 2]) == pack(DOOR, YELLOW_, OPEN)
    s3, _ = step(env, s2, TOGGLE)
    assert int(s3.grid[1, 2]) == pack(DOOR, YELLOW_, CLOSED)


def test_box__toggle_releases_contents_and_empty_box_vanishes():
    env, s = board("obstructedmaze-1dlh", ["#####", "#>xX#", "#####"])
    s1, _ = step(env, s, TOGGLE)
    assert int(s1.grid[1, 2]) == pack(KEY, BLUE_), "box did not turn into the key it held"
    env, s = board("obstructedmaze-1dlh", ["#####", "#.>X#", "#####"])
    s1, _ = step(env, s, TOGGLE)
    assert int(s1.grid[1, 3]) == 0, "an empty box should leave empty floor"


def test_pickup_drop__one_item_in_hand_and_drop_needs_empty_cell():
    env, s = board("blockedunlockpickup", ["######", "#>ak.#", "######"])
    s1, _ = step(env, s, PICKUP)
    assert int(s1.carry) == pack(BALL, RED_) and int(s1.grid[1, 2]) == 0
    s2, _ = step(env, s1, MOVE_FORWARD)
    s3, _ = step(env, s2, PICKUP)  # hands full: the key stays
    assert int(s3.carry) == pack(BALL, RED_) and int(s3.grid[1, 3]) == pack(KEY, YELLOW_)
    s4, _ = step(env, s3, DROP)  # key in front: cannot drop there
    assert int(s4.carry) == pack(BALL, RED_) and int(s4.grid[1, 3]) == pack(KEY, YELLOW_)
    s5, _ = step(env, s4, TURN_LEFT)  # face the wall above
    s6, _ = step(env, s5, DROP)
    assert int(s6.carry) == pack(BALL, RED_), "dropped onto a wall"
    s7, _ = step(env, s6, TURN_LEFT)  # face west: the cell we came from is empty
    s8, _ = step(env, s7, DROP)
    assert int(s8.carry) == 0 and int(s8.grid[1, 1]) == pack(BALL, RED_)


def test_goal__reward_is_one_minus_point_nine_t_over_T():
    env, s = board("empty-5x5", ["#####", "#.>*#", "#####"], t=9)
    s1, tr = step(env, s, MOVE_FORWARD)
    assert bool(tr.terminated)
    np.testing.assert_allclose(float(tr.reward), 1 - 0.9 * 10 / 100, rtol=1e-6)


def test_lava__stepping_in_ends_the_episode_with_zero():
    env, s = board("lavagap-s5", ["#####", "#>~*#", "#####"])
    s1, tr = step(env, s, MOVE_FORWARD)
    assert bool(tr.terminated) and float(tr.reward) == 0.0 and tuple(np.asarray(s1.pos)) == (1, 2)


def test_obstacles__move_to_free_neighbours_and_never_onto_goal_or_agent():
    for seed in range(30):
        env = make_task("dynamic-obstacles-5x5")
        s0 = _jit(env, "reset")(glyphjax.reset_key(0))
        g = np.asarray(s0.grid).copy()
        g[(g & 15) == OBSTACLE] = 0
        g[2, 2] = pack(OBSTACLE, BLUE_)
        g[1, 3] = pack(OBSTACLE, BLUE_)
        s = s0.replace(grid=jnp.asarray(g), pos=jnp.array([1, 1], jnp.int32), dir=jnp.int32(1),
                       obstacles=jnp.array([[2, 2], [1, 3]], jnp.int32))
        s1, tr = step(env, s, TURN_LEFT, seed=seed)
        g1 = np.asarray(s1.grid)
        cells = {tuple(p) for p in np.argwhere((g1 & 15) == OBSTACLE)}
        assert cells == {tuple(p) for p in np.asarray(s1.obstacles)}, f"seed {seed}: pool and grid disagree"
        assert len(cells) == 2, f"seed {seed}: obstacle lost"
        for old, new in zip([(2, 2), (1, 3)], np.asarray(s1.obstacles)):
            assert max(abs(old[0] - new[0]), abs(old[1] - new[1])) <= 1, f"seed {seed}: jumped"
        assert (1, 1) not in cells and (3, 3) not in cells, f"seed {seed}: onto agent or goal"
        assert int(g1[3, 3]) == pack(GOAL)


def test_obstacles__moves_follow_farama_odds_in_turn():
    """Farama moves obstacle 0, then obstacle 1, each to a uniformly random free neighbour. With
    the agent at (1, 1), the goal at (3, 3) and obstacles at (2, 2) then (1, 3) in the 3x3 room,
    obstacle 0 has 5 free neighbours (1/5 each); obstacle 1 then has (1, 2), (2, 2), (2, 3) minus
    the cell obstacle 0 took: 1/10 per pair if it took one of those, else 1/15. Chi-square over
    6000 step keys (12 degrees of freedom; 45 is exceeded with probability ~1e-5)."""
    env, s = board("dynamic-obstacles-5x5", ["#####", "#v.o#", "#.o.#", "#..*#", "#####"])
    s = s.replace(obstacles=jnp.array([[2, 2], [1, 3]], jnp.int32))  # this order: (2, 2) moves first
    n = 6000
    keys = jax.vmap(lambda i: glyphjax.step_key(i, 0))(jnp.arange(n, dtype=jnp.uint32))
    s1, _ = jax.jit(jax.vmap(env.step, in_axes=(0, None, None)))(keys, s, jnp.int32(TURN_LEFT))
    got: dict = {}
    for o in np.asarray(s1.obstacles).tolist():
        got[tuple(map(tuple, o))] = got.get(tuple(map(tuple, o)), 0) + 1
    want = {}
    for first in [(1, 2), (2, 1), (2, 3), (3, 1), (3, 2)]:
        seconds = [c for c in [(1, 2), (2, 2), (2, 3)] if c != first]
        for second in seconds:
            want[(first, second)] = 1 / 5 / len(seconds)
    assert set(got) <= set(want), f"impossible moves: {set(got) - set(want)}"
    chi2 = sum((got.get(k, 0) - n * p) ** 2 / (n * p) for k, p in want.items())
    assert chi2 < 45, f"chi-square {chi2:.1f}: {got}"


def test_obstacles__running_into_one_ends_the_episode_with_zero():
    env = make_task("dynamic-obstacles-5x5")
    s0 = _jit(env, "reset")(glyphjax.reset_key(0))
    g = np.asarray(s0.grid).copy()
    g[(g & 15) == OBSTACLE] = 0
    g[1, 2] = pack(OBSTACLE, BLUE_)
    g[3, 1] = pack(OBSTACLE, BLUE_)
    s = s0.replace(grid=jnp.asarray(g), pos=jnp.array([1, 1], jnp.int32), dir=jnp.int32(0),
                   obstacles=jnp.array([[1, 2], [3, 1]], jnp.int32))
    _, tr = step(env, s, MOVE_FORWARD)
    assert bool(tr.terminated) and float(tr.reward) == 0.0


def test_fetch__wrong_object_fails_right_object_pays():
    env, s = board("fetch-5x5-n2", ["#####", "#>a.#", "#...#", "#####"], target_item=pack(KEY, RED_))
    _, tr = step(env, s, PICKUP)
    assert bool(tr.terminated) and float(tr.reward) == 0.0
    env, s = board("fetch-5x5-n2", ["#####", "#>q.#", "#...#", "#####"], target_item=pack(KEY, RED_))
    _, tr = step(env, s, PICKUP)
    assert bool(tr.terminated) and float(tr.reward) > 0.9


def test_gotodoor__done_next_to_target_pays_elsewhere_fails():
    rows = ["#####", "#.>.C", "#...#", "#####"]
    env, s = board("gotodoor-5x5", rows, target=[1, 4])
    _, tr = step(env, s, DONE)
    assert bool(tr.terminated) and float(tr.reward) == 0.0, "DONE two cells away must fail"
    s1, _ = step(env, s, MOVE_FORWARD)
    _, tr = step(env, s1, DONE)
    assert bool(tr.terminated) and float(tr.reward) > 0.9


def test_redbluedoors__blue_before_red_fails():
    rows = ["#######", "#C.>.C#", "#######"]
    env, s = board("redbluedoors-6x6", rows, target=[1, 1], aux=[1, 5])
    s = s.replace(grid=s.grid.at[1, 1].set(pack(DOOR, RED_, CLOSED)).at[1, 5].set(pack(DOOR, BLUE_, CLOSED)))
    s1, _ = step(env, s, MOVE_FORWARD)
    _, tr = step(env, s1, TOGGLE)
    assert bool(tr.terminated) and float(tr.reward) == 0.0
    for a in (TURN_LEFT, TURN_LEFT, MOVE_FORWARD, MOVE_FORWARD):
        s, _ = step(env, s, a)
    s, tr = step(env, s, TOGGLE)
    assert not bool(tr.terminated) and int(s.grid[1, 1]) == pack(DOOR, RED_, OPEN)
    for a in (TURN_LEFT, TURN_LEFT, MOVE_FORWARD, MOVE_FORWARD, MOVE_FORWARD):
        s, _ = step(env, s, a)
    _, tr = step(env, s, TOGGLE)
    assert bool(tr.terminated) and float(tr.reward) > 0.9


def test_empty_5x5__golden_trajectory():
    env = make_task("empty-5x5")
    s = _jit(env, "reset")(glyphjax.reset_key(0))
    assert text(env, s) == "█████\n█→··█\n█···█\n█··★█\n█████"
    s, _ = step(env, s, TURN_RIGHT)
    s, _ = step(env, s, MOVE_FORWARD)
    assert text(env, s) == "█████\n█···█\n█↓··█\n█··★█\n█████"
    s, _ = step(env, s, MOVE_FORWARD)
    s, _ = step(env, s, TURN_LEFT)
    s, _ = step(env, s, MOVE_FORWARD)
    assert text(env, s) == "█████\n█···█\n█···█\n█·→★█\n█████"
    obs = glyphjax.render_text(env.card, _jit(env, "render")(s))
    assert obs.hud == "Step: 5 / 100    Carrying: nothing    Mission: get to the green goal square"
    s, tr = step(env, s, MOVE_FORWARD)
    assert bool(tr.terminated)
    np.testing.assert_allclose(float(tr.reward), 1 - 0.9 * 6 / 100, rtol=1e-6)
    assert text(env, s) == "█████\n█···█\n█···█\n█··→█\n█████"
    assert glyphjax.render_text(env.card, _jit(env, "render")(s)).message == "Mission complete!"


def test_doorkey__golden_board_with_key_door_and_carrying_hud():
    env, s = board("doorkey-5x5", ["#####", "#k#*#", "#^D.#", "#####"])
    assert text(env, s) == "█████\n█y█★█\n█↑Ɏ·█\n█████"
    s, _ = step(env, s, PICKUP)
    obs = glyphjax.render_text(env.card, _jit(env, "render")(s))
    assert obs.grid == "█████\n█·█★█\n█↑Ɏ·█\n█████" and "Carrying: yellow key" in obs.hud
    s, _ = step(env, s, TURN_RIGHT)
    s, _ = step(env, s, TOGGLE)
    assert text(env, s) == "█████\n█·█★█\n█→ʏ·█\n█████"
    assert "yellow door, open" in glyphjax.render_text(env.card, _jit(env, "render")(s)).legend


def test_partial_view__empty_room_from_the_corner():
    env = make_task("empty-8x8", partial=True)
    s = _jit(env, "reset")(glyphjax.reset_key(0))
    want = "\n".join(["░░█████"] + ["░░█····"] * 5 + ["░░█↑···"])
    assert text(env, s) == want


@pytest.mark.parametrize("door,beyond", [("C", False), ("O", True)])
def test_partial_view__walls_and_closed_doors_hide_what_is_behind(door, beyond):
    rows = (["#########"] + ["#.......#"] * 3 + ["####" + door + "####"] + ["#.......#"] * 2
            + ["#...^...#", "#########"])
    env = make_task("empty-8x8", partial=True)
    _, s = board("empty-8x8", rows)
    glyph = "Y" if door == "C" else "ʏ"
    far = "·······" if beyond else "░░░░░░░"
    want = "\n".join([far] * 3 + ["███" + glyph + "███", "·······", "·······", "···↑···"])
    assert text(env, s) == want


@pytest.mark.parametrize("size", [11, 13, 17])
def test_memory_partial__cue_is_not_visible_from_the_choice_hallway(size):
    env = make_task(f"memory-s{size}", partial=True)
    for seed in range(4):
        s = _jit(env, "reset")(glyphjax.reset_key(seed))
        mid, end = size // 2, size - 3
        g = s.grid.at[mid - 1, 1].set(pack(BOX, PURPLE_))  # a glyph drawn nowhere else
        for row in range(1, size - 1):
            for d in range(4):
                view = text(env, s.replace(grid=g, pos=jnp.array([row, end + 1], jnp.int32), dir=jnp.int32(d)))
                assert "⒫" not in view, f"memory-s{size} seed {seed}: cue seen from ({row}, {end + 1}) dir {d}"


@pytest.mark.parametrize("size", [7, 9])
def test_memory_partial__small_sizes_show_the_cue_from_the_junction_as_in_farama(size):
    env = make_task(f"memory-s{size}", partial=True)
    s = _jit(env, "reset")(glyphjax.reset_key(0))
    mid, end = size // 2, size - 3
    g = s.grid.at[mid - 1, 1].set(pack(BOX, PURPLE_))
    view = text(env, s.replace(grid=g, pos=jnp.array([mid, end + 1], jnp.int32), dir=jnp.int32(2)))
    assert "⒫" in view


def test_memory__matching_object_pays_other_fails():
    env = make_task("memory-s7")
    for seed in range(6):
        s = _jit(env, "reset")(glyphjax.reset_key(seed))
        cue = int(s.grid[2, 1])
        top = int(s.grid[1, 5])
        good_row = 2 if top == cue else 4
        s = s.replace(pos=jnp.array([3, 5], jnp.int32), dir=jnp.int32(3 if good_row == 2 else 1))
        _, tr = step(env, s, MOVE_FORWARD)
        assert bool(tr.terminated) and float(tr.reward) > 0.9, f"seed {seed}"
        s = s.replace(dir=jnp.int32(1 if good_row == 2 else 3))
        _, tr = step(env, s, MOVE_FORWARD)
        assert bool(tr.terminated) and float(tr.reward) == 0.0, f"seed {seed}"


def test_suite__every_task_has_the_same_glyph_table_and_actions():
    ids = glyphjax.task_ids("minigrid")
    assert len([i for i in ids if not i.endswith("-partial")]) == 71
    cards = [glyphjax.make(i).card for i in ids]
    for c in cards:
        assert dict(c.glyphs) == dict(cards[0].glyphs), c.id
        assert c.actions == ("TURN_LEFT", "TURN_RIGHT", "MOVE_FORWARD", "PICKUP", "DROP", "TOGGLE", "DONE")
        assert c.return_range == (0.0, 1.0) and c.max_steps <= 512


def test_no_action__changes_nothing_but_time():
    env = make_task("doorkey-8x8")
    s = _jit(env, "reset")(glyphjax.reset_key(5))
    s1, tr = env.step(glyphjax.step_key(5, 0), s, glyphjax.NO_ACTION)
    for a, b in zip(jax.tree.leaves(s.replace(t=s1.t, event=s1.event)), jax.tree.leaves(s1)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert float(tr.reward) == 0.0


def _process_vis_reference(clear: np.ndarray) -> np.ndarray:
    """Farama MiniGrid `process_vis`, ported loop for loop (view row 6 col 3 is the agent)."""
    n = 7
    mask = np.zeros((n, n), bool)
    mask[6, 3] = True
    for j in reversed(range(n)):
        for i in range(0, n - 1):
            if mask[j, i] and clear[j, i]:
                mask[j, i + 1] = True
                if j > 0:
                    mask[j - 1, i + 1] = mask[j - 1, i] = True
        for i in reversed(range(1, n)):
            if mask[j, i] and clear[j, i]:
                mask[j, i - 1] = True
                if j > 0:
                    mask[j - 1, i - 1] = mask[j - 1, i] = True
    return mask


def test_partial_view__visibility_equals_farama_process_vis_on_random_views():
    from glyphjax.suites.minigrid.render import visibility
    rng = np.random.default_rng(0)
    vis = jax.jit(visibility)
    for n in range(400):
        cells = np.where(rng.random((7, 7)) < rng.uniform(0.05, 0.6), pack(WALL), 0).astype(np.int32)
        cells[6, 3] = 0
        clear = cells == 0
        got = np.asarray(vis(jnp.asarray(cells)))
        np.testing.assert_array_equal(got, _process_vis_reference(clear), err_msg=f"random view {n}")
