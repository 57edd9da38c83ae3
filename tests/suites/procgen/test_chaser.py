"""Procgen chaser on hand-built corridors: eating, the power star, ghosts catching and being
eaten, the clear bonus and a golden frame; expected values from the rules in chaser.py."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.core import entities
from glyphjax.suites.procgen import chaser as ch
from glyphjax.suites.procgen.engine import fresh_state
from glyphjax.suites.procgen.planner import single_level

KEY = glyphjax.step_key(0, 0)


def _corridor(cells: str, ghosts=(), total=None):
    """A one-row corridor at row 1 (walls around) from a string: @ you, . orb, * star, G ghost
    (standing on an orb), ' ' empty."""
    w = np.full((ch.SIZE, ch.SIZE), ch.C_OUT, np.int8)
    w[0:3, 0:len(cells) + 2] = ch.C_WALL
    you, ghost_cells = None, []
    for i, c in enumerate(cells):
        w[1, i + 1] = {"@": ch.C_EMPTY, ".": ch.C_ORB, "*": ch.C_STAR, "G": ch.C_ORB, " ": ch.C_EMPTY}[c]
        if c == "@":
            you = (1, i + 1)
        if c == "G":
            ghost_cells.append((1, i + 1))
    pool = entities.empty(ch.MAX_GHOSTS)
    for cell in ghost_cells:
        pool = entities.spawn(pool, jnp.array(cell), jnp.zeros(2, jnp.int32), 0)
    n = int(np.sum((w == ch.C_ORB) | (w == ch.C_STAR))) if total is None else total
    return fresh_state(w, you, 3, total=n, pool=pool, timer=0)


def _play(env, state, actions):
    out = []
    for a in actions:
        state, tr = env.step(KEY, state, env.card.action_index(a))
        out.append((state, float(tr.reward), bool(tr.terminated), int(tr.event)))
    return out


def test_chaser__orbs_pay_half_over_their_count_and_the_last_adds_the_clear_bonus():
    env = glyphjax.make("procgen/chaser")
    steps = _play(env, _corridor("@.."), ["RIGHT", "LEFT", "RIGHT", "RIGHT"])
    assert [x[1] for x in steps[:3]] == [0.25, 0.0, 0.0]  # 0.5 / 2 orbs; going back eats nothing
    assert steps[3][2:] == (True, ch.EV_CLEAR) and abs(steps[3][1] - (0.25 + 0.3)) < 1e-6
    assert int(steps[3][0].items) == 2


def test_chaser__a_hunting_ghost_that_meets_you_ends_the_game():
    env = glyphjax.make("procgen/chaser")
    # you step onto the orb, the ghost (only way: left) steps onto the same cell: caught; the orb
    # eaten on that turn is still paid (0.5 / 3: the orbs under the ghost and at the end count)
    (s, r, term, ev), = _play(env, _corridor("@.G."), ["RIGHT"])
    assert (term, ev) == (True, ch.EV_CAUGHT) and abs(r - 0.5 / 3) < 1e-7
    # swapping cells also meets: ghost at (1,3) heading left, you at (1,2) move right
    (s, r, term, ev), = _play(env, _corridor(" @G."), ["RIGHT"])
    assert (term, ev) == (True, ch.EV_CAUGHT)


def test_chaser__a_star_makes_ghosts_flee_and_a_met_fleeing_ghost_is_eaten():
    env = glyphjax.make("procgen/chaser")
    s = _corridor("@*.G")  # 3 orbs/stars pay 0.5/3 each; the ghost's orb is one of them
    (s1, r1, t1, e1), (s2, r2, t2, e2) = _play(env, s, ["RIGHT", "RIGHT"])
    # turn 0: star eaten, ghosts flee; the ghost's only open cell is (1,3), towards you
    assert e1 == ch.EV_STAR and abs(r1 - 0.5 / 3) < 1e-7 and int(s1.timer) == ch.POWER_TURNS - 1
    assert tuple(np.asarray(s1.pool.pos[0])) == (1, 3)
    # turn 1: a fleeing ghost moves on even turns only, so it stays; you walk onto it and eat it
    # and the orb under it: 0.5/3 + 0.2/3 (3 ghosts in an easy level)
    assert (t2, e2) == (False, ch.EV_GHOST) and abs(r2 - (0.5 / 3 + 0.2 / 3)) < 1e-6
    assert not bool(s2.pool.alive[0])


def test_chaser__golden_frame_draws_ghosts_by_mood():
    env = glyphjax.make("procgen/chaser")
    s = _corridor("@.*G")
    row = lambda mid: "░" * 9 + mid + "░" * (11 - len(mid))  # you sit at column 10 of the view
    frame = glyphjax.render_text(env.card, env.render(s)).grid.split("\n")
    assert frame[5:8] == [row("██████"), row("█@◦★☻█"), row("██████")]
    s = s.replace(timer=jnp.int32(5))
    assert glyphjax.render_text(env.card, env.render(s)).grid.split("\n")[6] == row("█@◦★☺█")


def test_chaser__a_level_seed_gives_the_same_level_whatever_the_episode_key():
    env = glyphjax.make("procgen/chaser-hard")
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(4, dtype=jnp.uint32))
    one = reset(keys, single_level(env.default_params(), 777))
    for leaf in jax.tree.leaves(one):
        assert (np.asarray(leaf) == np.asarray(leaf)[:1]).all()
    w = np.asarray(one.world[0])
    assert int(one.pool.alive[0].sum()) == 4 and w[1, 1] == ch.C_STAR and w[17, 17] == ch.C_STAR  # 9 x 9 cells
    assert int(one.total[0]) == int(np.sum((w == ch.C_ORB) | (w == ch.C_STAR)))
