"""Bomberman: the 3-turn fuse, blast radius and blocking, crate scoring, revealing and reaching
the exit, death netting the return to -1, movement blocking, generation, and a golden board."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics import bomberman as bm

ENV = glyphjax.make("classics/bomberman")
UP, DOWN, LEFT, RIGHT, BOMB, WAIT = range(6)
KEY = glyphjax.step_key(0, 0)
STEP = jax.jit(ENV.step)
RESET = jax.jit(ENV.reset)
RENDER = jax.jit(ENV.render)


def _state(player, crates, exit_, n_crates, earned=0.0):
    s = RESET(glyphjax.reset_key(0))
    c = np.zeros((bm.S, bm.S), bool)
    for r, cc in crates:
        c[r, cc] = True
    return s.replace(player=jnp.array(player, jnp.int32), crates=jnp.asarray(c),
                     exit=jnp.array(exit_, jnp.int32), n_crates=jnp.int32(n_crates),
                     earned=jnp.float32(earned))


def _run(s, actions):
    out = []
    for a in actions:
        s, tr = STEP(KEY, s, jnp.int32(a))
        out.append(tr)
    return s, out


def test_bomberman__bomb_explodes_after_three_turns_and_first_crate_stops_the_blast():
    s = _state([1, 1], [(1, 3), (1, 4), (5, 5)], [1, 3], 3)
    s, trs = _run(s, [BOMB, DOWN, DOWN])
    assert int(s.fuse) == 1 and not bool(s.crates[1, 3] == 0)
    s, trs = _run(s, [RIGHT])
    tr = trs[0]
    assert not bool(tr.terminated), "the player at (3, 2) is outside the blast"
    assert not bool(s.crates[1, 3]) and bool(s.crates[1, 4]), "the first crate stops the blast"
    assert abs(float(tr.reward) - 0.5 / 3) < 1e-6 and int(tr.event) == bm.EV_REVEAL
    blast = np.asarray(s.blast)
    assert blast[1, 1] and blast[1, 2] and blast[1, 3] and blast[2, 1] and blast[3, 1]
    assert not blast[1, 4] and not blast[3, 2] and blast.sum() == 5


def test_bomberman__reaching_the_revealed_exit_pays_half_and_wins():
    s = _state([1, 1], [(1, 3), (1, 4), (5, 5)], [1, 3], 3)
    s, _ = _run(s, [BOMB, DOWN, DOWN, RIGHT, LEFT, UP, UP, RIGHT])
    s, trs = _run(s, [RIGHT])
    assert bool(trs[0].terminated) and float(trs[0].reward) == 0.5 and int(trs[0].event) == bm.EV_EXIT


def test_bomberman__blast_death_pays_minus_one_net_of_earnings():
    s = _state([1, 1], [(3, 1), (5, 5)], [5, 5], 2, earned=0.25)
    s, trs = _run(s, [BOMB, DOWN, WAIT, WAIT])
    tr = trs[-1]
    assert bool(tr.terminated) and int(tr.event) == bm.EV_DEAD
    assert abs(float(tr.reward) - (-1.25)) < 1e-6, "death pays -1 - earned"


def test_bomberman__walls_crates_and_bombs_block_movement():
    s = _state([1, 1], [(1, 2)], [1, 2], 1)
    s2, _ = _run(s, [RIGHT, UP, LEFT])
    assert s2.player.tolist() == [1, 1]
    s3, _ = _run(_state([3, 1], [], [5, 5], 1), [BOMB, UP, DOWN])
    assert s3.player.tolist() == [2, 1], "cannot walk back onto the bomb"


def test_bomberman__generation_keeps_the_start_clear_and_hides_the_exit():
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(200, dtype=jnp.uint32))
    st = jax.device_get(jax.jit(jax.vmap(ENV.reset))(keys))
    for seed in range(200):
        c = st.crates[seed]
        assert not c[1, 1] and not c[1, 2] and not c[2, 1], f"seed {seed}: start corner blocked"
        assert c[tuple(st.exit[seed])], f"seed {seed}: exit not under a crate"
        assert not (c & np.asarray(bm._fixed_walls())).any()
        assert st.n_crates[seed] == c.sum()
    frac = st.crates.sum() / (200 * 62)
    assert 0.35 < frac < 0.5, f"crate density {frac}"


def test_bomberman__golden_board_at_the_explosion():
    s = _state([1, 1], [(1, 3), (1, 4), (5, 5)], [1, 3], 3)
    s, _ = _run(s, [BOMB, DOWN, DOWN, RIGHT])
    expected = "\n".join([
        "███████████",
        "█✶✶✶▦·····█",
        "█✶█·█·█·█·█",
        "█✶@·······█",
        "█·█·█·█·█·█",
        "█····▦····█",
        "█·█·█·█·█·█",
        "█·········█",
        "█·█·█·█·█·█",
        "█·········█",
        "███████████",
    ])
    got = glyphjax.render_text(ENV.card, RENDER(s)).grid
    assert got == expected, f"classics/bomberman step 4:\n{got}"
