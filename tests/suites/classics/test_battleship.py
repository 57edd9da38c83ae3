"""Battleship (classics/battleship): fleet placement, hits/misses/sinking, hidden ships, golden."""

import jax
import jax.numpy as jnp
import numpy as np

import glyphjax
from glyphjax.suites.classics.battleship import place_fleet

ENV = glyphjax.make("classics/battleship")
STEP = jax.jit(ENV.step)  # one compile per module; eager stepping is slow


def test_battleship__fleet_placement_in_bounds_no_overlap_straight():
    ships = np.asarray(jax.jit(jax.vmap(place_fleet))(jax.vmap(glyphjax.reset_key)(jnp.arange(1000))))
    for seed, board in enumerate(ships):
        for sid, length in zip(range(1, 6), (5, 4, 3, 3, 2)):
            rr, cc = np.nonzero(board == sid)
            assert len(rr) == length, f"seed {seed}: ship {sid} has {len(rr)} cells, want {length}"
            straight_h = len(set(rr)) == 1 and sorted(cc) == list(range(cc.min(), cc.min() + length))
            straight_v = len(set(cc)) == 1 and sorted(rr) == list(range(rr.min(), rr.min() + length))
            assert straight_h or straight_v, f"seed {seed}: ship {sid} not a straight segment"
        assert (board > 0).sum() == 17  # ships occupy disjoint cells (17 in all)


def test_battleship__hit_miss_sink_rewards_and_win():
    state = ENV.reset(glyphjax.reset_key(0))
    ships = np.zeros((10, 10), np.int32)
    ships[0, 0:5] = 1; ships[2, 0:4] = 2; ships[4, 0:3] = 3; ships[6, 0:3] = 4; ships[8, 0:2] = 5
    state = state.replace(ships=jnp.asarray(ships))
    s, tr = STEP(glyphjax.step_key(0, 0), state, 95)
    assert float(tr.reward) == 0.0 and int(tr.event) == 1  # miss
    s, tr = STEP(glyphjax.step_key(0, 1), s, 95)
    assert float(tr.reward) == 0.0 and int(tr.event) == 4  # again
    s, tr = STEP(glyphjax.step_key(0, 2), s, 80)
    assert abs(float(tr.reward) - 1 / 17) < 1e-7 and int(tr.event) == 2
    s, tr = STEP(glyphjax.step_key(0, 3), s, 81)
    assert int(tr.event) == 3  # ship 5 sunk
    total = 2 / 17
    for i, cell in enumerate([c for c in range(100) if ships.flat[c] and c not in (80, 81)]):
        s, tr = STEP(glyphjax.step_key(0, 4 + i), s, cell)
        total += float(tr.reward)
    assert bool(tr.terminated) and int(tr.event) == 5 and abs(total - 1.0) < 1e-5


def test_battleship__unshot_cells_do_not_reveal_ships():
    for seed in range(5):
        s = ENV.reset(glyphjax.reset_key(seed))
        grid = np.asarray(ENV.render(s).grid)
        assert (grid == ord("≋")).all(), f"seed {seed}: fresh board shows something"


def test_battleship__golden_board():
    state = ENV.reset(glyphjax.reset_key(0))
    ships = np.zeros((10, 10), np.int32)
    ships[0, 0:5] = 1; ships[9, 5:9] = 2; ships[3:6, 3] = 3; ships[5, 5:8] = 4; ships[7:9, 0] = 5
    s = state.replace(ships=jnp.asarray(ships))
    for t, a in enumerate([70, 80, 0, 99, 55]):
        s, _ = STEP(glyphjax.step_key(0, t), s, a)
    text = glyphjax.render_text(ENV.card, ENV.render(s))
    want = "\n".join([
        "  0123456789",
        "0 ✖≋≋≋≋≋≋≋≋≋",
        "1 ≋≋≋≋≋≋≋≋≋≋",
        "2 ≋≋≋≋≋≋≋≋≋≋",
        "3 ≋≋≋≋≋≋≋≋≋≋",
        "4 ≋≋≋≋≋≋≋≋≋≋",
        "5 ≋≋≋≋≋✖≋≋≋≋",
        "6 ≋≋≋≋≋≋≋≋≋≋",
        "7 ⊠≋≋≋≋≋≋≋≋≋",
        "8 ⊠≋≋≋≋≋≋≋≋≋",
        "9 ≋≋≋≋≋≋≋≋≋◌",
    ])
    assert text.grid == want
    assert text.hud.endswith("Hits: 4 / 17    Ships sunk: 1 / 5")


def test_battleship__scripted_policy_sinks_fleet():
    pol = ENV.scripted_policy
    res = glyphjax.rollout(ENV, pol, jnp.arange(64, dtype=jnp.uint32))
    r = np.asarray(res.returns)
    assert np.allclose(r, 1.0, atol=1e-5), f"hunt/target should sink all within 200 shots: {r.min()}"
