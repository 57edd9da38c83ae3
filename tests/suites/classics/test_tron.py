"""Tron (classics/tron against the AI through `versus`; classics/tron-2p): walls, trails, head-on
and swap collisions, no reversing, AI, golden, half-move rounds and the hidden heading."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from tests.seat_checks import seat_views

ENV = glyphjax.make("classics/tron")
STEP = jax.jit(ENV.step)  # one compile per module; eager stepping is slow
UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3


def state(you, you_dir, ai, ai_dir, mine=(), theirs=()):
    s = ENV.reset(glyphjax.reset_key(0))
    trail = np.zeros((15, 15), np.int32)
    for rc in (you, *mine):
        trail[rc] = 1
    for rc in (ai, *theirs):
        trail[rc] = 2
    return s.replace(game=s.game.replace(trail=jnp.asarray(trail), pos=jnp.array([you, ai], jnp.int32),
                                         heading=jnp.array([you_dir, ai_dir], jnp.int32)))


def step(s, a, t=0):
    return STEP(glyphjax.step_key(0, t), s, a)


def test_tron__wall_crash_loses():
    s2, tr = step(state((7, 13), RIGHT, (3, 3), RIGHT), RIGHT)
    assert float(tr.reward) == -1.0 and bool(tr.terminated) and int(tr.event) == 2


def test_tron__trail_crash_own_and_other():
    _, tr = step(state((5, 5), RIGHT, (10, 10), LEFT, mine=[(5, 6)]), RIGHT)
    assert float(tr.reward) == -1.0
    _, tr = step(state((5, 5), RIGHT, (10, 10), LEFT, theirs=[(5, 6)]), RIGHT)
    assert float(tr.reward) == -1.0


def test_tron__ai_boxed_in_crashes_you_win():
    _, tr = step(state((7, 7), RIGHT, (1, 1), LEFT, theirs=[(2, 1), (1, 2)]), RIGHT)
    assert float(tr.reward) == 1.0 and bool(tr.terminated) and int(tr.event) == 1


def test_tron__head_on_and_swap_are_draws():
    # the AI's only safe move is (7, 6), which you also enter
    s = state((7, 5), RIGHT, (7, 7), LEFT, theirs=[(6, 7), (8, 7), (7, 8)])
    s2, tr = step(s, RIGHT)
    assert float(tr.reward) == 0.0 and bool(tr.terminated) and int(tr.event) == 3
    # adjacent cycles moving into each other's cells (swap): both crash
    s = state((7, 5), RIGHT, (7, 6), LEFT, theirs=[(6, 6), (8, 6), (7, 7)])
    s2, tr = step(s, RIGHT)
    assert float(tr.reward) == 0.0 and bool(tr.terminated) and int(tr.event) == 3


def test_tron__reversing_is_ignored():
    s = ENV.reset(glyphjax.reset_key(0))
    s2, tr = step(s, LEFT)
    assert int(s2.game.heading[0]) == RIGHT and tuple(np.asarray(s2.game.pos[0])) == (7, 4) and not bool(tr.terminated)
    s3, _ = step(s2, UP, 1)
    assert int(s3.game.heading[0]) == UP and tuple(np.asarray(s3.game.pos[0])) == (6, 4)
    assert np.asarray(s3.game.trail)[7, 3:5].tolist() == [1, 1]  # trail persists


def test_tron__ai_outlives_a_straight_runner():
    res = glyphjax.rollout(ENV, lambda k, s, p: jnp.int32(RIGHT), jnp.arange(16, dtype=jnp.uint32))
    assert (np.asarray(res.returns) == -1.0).all()  # you hit the right wall (or the AI's trail) first


def test_tron__golden_board():
    s = ENV.reset(glyphjax.reset_key(0))
    s, _ = step(s, UP)  # you: (7,3) -> (6,3); the AI moves somewhere from (7,11)
    text = glyphjax.render_text(ENV.card, ENV.render(s))
    rows = text.grid.split("\n")
    assert rows[0] == "█" * 15 and rows[14] == "█" * 15
    assert rows[6][:5] == "█··☺·" and rows[7][:5] == "█··▞·"
    ai = tuple(np.asarray(s.game.pos[1]))
    assert ai in ((6, 11), (8, 11), (7, 10)) and rows[ai[0]][ai[1]] == "☻" and rows[7][11] == "▚"
    assert text.hud.endswith("Your heading: UP    AI heading: " + ("UP", "DOWN", "LEFT")[
        [(6, 11), (8, 11), (7, 10)].index(ai)])
    assert sum(r.count("·") for r in rows) == 13 * 13 - 4


def test_tron__ai_avoids_dead_end_and_contested_cell():
    # AI at (7,11) heading LEFT: UP leads into a one-cell pocket, LEFT is a cell you (at (7,9),
    # heading RIGHT) could enter next turn; DOWN is the only good move, whatever the key
    pocket = ((5, 11), (6, 10), (6, 12))
    for t in range(8):
        s = state((7, 9), RIGHT, (7, 11), LEFT, mine=((7, 8),), theirs=pocket)
        s2, tr = step(s, UP, t)  # you turn away so nobody crashes
        assert int(s2.game.heading[1]) == DOWN and not bool(tr.terminated), t
    # without you nearby, both open moves beat the pocket
    for t in range(8):
        s = state((2, 2), RIGHT, (7, 11), LEFT, theirs=pocket)
        s2, _ = step(s, RIGHT, t)
        assert int(s2.game.heading[1]) in (DOWN, LEFT), t


GAME = glyphjax.make("classics/tron-2p")
GAME_STEP = jax.jit(GAME.step)


def texts(state):
    return [view.render() for view in seat_views(GAME, state)]


def test_tron_2p__a_round_is_two_half_moves_and_the_first_choice_stays_hidden():
    s0 = GAME.reset(glyphjax.reset_key(0))
    after_first = [GAME_STEP(glyphjax.step_key(0, 0), s0, a)[0] for a in (UP, DOWN, LEFT, RIGHT)]
    for s in after_first:
        assert int(GAME.to_play(s)) == 1 and (np.asarray(s.pos) == np.asarray(s0.pos)).all()
    seat1_views = {texts(s)[1] for s in after_first}
    assert len(seat1_views) == 1, "seat 1 can tell which heading seat 0 chose"
    assert "The opponent has chosen its heading" in seat1_views.pop()
    s, tr = GAME_STEP(glyphjax.step_key(0, 1), after_first[0], DOWN)  # seat 0 UP, seat 1 DOWN
    assert int(GAME.to_play(s)) == 0 and not bool(tr.terminated)
    assert np.asarray(s.pos).tolist() == [[6, 3], [8, 11]]
    assert np.asarray(s.heading).tolist() == [UP, DOWN]


def test_tron_2p__crash_pays_per_seat_and_no_move_forfeits():
    s = GAME.reset(glyphjax.reset_key(0))
    trail = np.zeros((15, 15), np.int32)
    trail[7, 3], trail[1, 1], trail[2, 1], trail[1, 2] = 1, 2, 1, 1
    s = s.replace(trail=jnp.asarray(trail), pos=jnp.array([[7, 3], [1, 1]], jnp.int32),
                  heading=jnp.array([RIGHT, LEFT], jnp.int32))
    s1, _ = GAME_STEP(glyphjax.step_key(0, 0), s, RIGHT)
    s2, tr = GAME_STEP(glyphjax.step_key(0, 1), s1, UP)  # seat 1 is boxed in: every move crashes
    np.testing.assert_array_equal(tr.reward, [1.0, -1.0])
    assert bool(tr.terminated)
    msgs = [view.message for view in seat_views(GAME, s2)]
    assert msgs == ["The opponent crashed. You win!", "You crashed. You lose."]
    _, tr = GAME_STEP(glyphjax.step_key(0, 1), s1, glyphjax.NO_ACTION)
    np.testing.assert_array_equal(tr.reward, [1.0, -1.0])  # seat 1 made no move: it forfeits


def test_tron_2p__each_seat_sees_its_own_cycle_as_mine():
    s = GAME.reset(glyphjax.reset_key(0))
    rows0, rows1 = (t.split("[Grid]\n")[1].split("\n")[:15] for t in texts(s))
    assert rows0[7] == "█··☺·······⬢··█" and rows1[7] == "█··⬢·······☺··█"
