"""The grid-placement template: exact random-play rates of Tic-Tac-Toe, scripted outcomes with a
golden board, one compiled program per board size, and encodings whose text and labels agree."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.zerosum import corpus
from glyphjax.zerosum.encoding import all_encodings
from glyphjax.zerosum.gridgame import GridGame

TTT = "zerosum/tictactoe/base"


def test_tictactoe__uniform_random_play_matches_the_exact_rates():
    env = glyphjax.make(TTT)
    n = 100_000
    r = glyphjax.rollout(env, glyphjax.random_legal_policy(env), jnp.arange(n, dtype=jnp.uint32))
    ret = np.asarray(r.returns)
    rates = np.array([(ret[:, 0] == 1).mean(), (ret[:, 1] == 1).mean(), (ret[:, 0] == 0).mean()])
    exact = np.array([0.5849, 0.2881, 0.1270])  # 737/1260 etc. (gamesmith.md §8 item 8)
    se = np.sqrt(exact * (1 - exact) / n)
    assert np.all(np.abs(rates - exact) < 4 * se), f"rates {rates} vs exact {exact} (4 SE = {4 * se})"
    assert np.abs(ret.sum(axis=1)).max() == 0


def _play(task_id, cells):
    env = glyphjax.make(task_id)
    s = env.reset(glyphjax.reset_key(0))
    rewards = []
    for t, c in enumerate(cells):
        s, tr = env.step(glyphjax.step_key(0, t), s, c)
        rewards.append(np.asarray(tr.reward).tolist())
    return env, s, rewards


@pytest.mark.parametrize("cells, last_reward, plies", [
    ((0, 3, 1, 4, 2), [1.0, -1.0], 5),  # seat 0 takes the top row
    ((0, 1, 3, 4, 8, 7), [-1.0, 1.0], 6),  # seat 1 takes the middle column
    ((0, 1, 2, 4, 3, 5, 7, 6, 8), [0.0, 0.0], 9),  # full board, no line: draw
    ((4, 4), [1.0, -1.0], 2),  # seat 1 plays a taken cell: forfeit
])
def test_tictactoe__scripted_games_end_with_the_known_outcome(cells, last_reward, plies):
    env, s, rewards = _play(TTT, cells)
    assert rewards[-1] == last_reward and all(r == [0.0, 0.0] for r in rewards[:-1])
    assert bool(s.done) and int(s.t) == plies


def test_tictactoe__seat_views_draw_own_marks_as_x_golden():
    env, s, _ = _play(TTT, (4, 0, 8))
    views = [glyphjax.render_text(env.card, env.render(s, seat=seat)).render() for seat in (0, 1)]
    assert views[0] == ("[Legend]\nO — the opponent's mark\nX — your mark\n· — an empty cell\n\n"
                        "[HUD]\nStep: 3 / 9    Opponent's last move: A1\n\n[Grid]\nO··\n·X·\n··X\n\n"
                        "[Message]\nYou placed a mark; the opponent moves next.")
    assert "[Grid]\nX··\n·O·\n··O" in views[1] and "Opponent's last move: C3" in views[1]
    assert views[1].endswith("The opponent placed a mark; your move.")


def test_grid_line_check__the_3x3_table_equals_the_shifts_on_every_board_and_clause_set():
    """3x3 boards look lines up in a table (`line_table`); every 3x3 mark set under every line
    length, direction set and torus flag gets the answer of the shifting check."""
    from glyphjax.zerosum import gridgame
    params = glyphjax.make(TTT).default_params()
    masks = jnp.asarray(((np.arange(512)[:, None] >> np.arange(9)) & 1).astype(bool).reshape(512, 3, 3))
    assert 3 in gridgame.LINE_TABLE_SIDES
    checked = 0
    for k in (2, 3):
        for torus in (False, True):
            for bits in range(1, 16):
                p = params.replace(k=jnp.int32(k), torus=jnp.bool_(torus),
                                   dirs=jnp.array([(bits >> d) & 1 == 1 for d in range(4)]))
                table = jax.vmap(lambda m: gridgame.has_line(m, p))(masks)
                shifts = jax.vmap(lambda m: gridgame._line_shifts(m, p))(masks)
                assert np.array_equal(np.asarray(table), np.asarray(shifts)), (k, torus, bits)
                checked += int(np.sum(np.asarray(shifts)))
    assert checked > 0  # some boards hold lines


def test_dropfour__gravity_allows_only_the_lowest_free_cell_of_each_column():
    env, s, _ = _play("zerosum/dropfour/base", (22,))  # row 4 (bottom), column 2
    legal = np.asarray(env.legal(s)).reshape(5, 5)
    want = np.zeros((5, 5), bool)
    want[4] = True
    want[4, 2], want[3, 2] = False, True
    np.testing.assert_array_equal(legal, want)


def test_grid_corpus__one_program_per_board_size_and_mixed_batches_match():
    progs = {k: v for k, v in glyphjax.programs("zerosum/*").items() if isinstance(glyphjax.make(k), GridGame)}
    sizes = {glyphjax.make(ids[0]).n for ids in progs.values()}
    assert len(progs) == len(sizes) == 5  # boards 3x3 .. 7x7
    ids = next(ids for ids in progs.values() if TTT in ids)  # every 3x3 variant
    envs = [glyphjax.make(t) for t in ids]
    seeds = jnp.arange(len(ids) * 8, dtype=jnp.uint32)
    rows = np.repeat(np.arange(len(ids)), 8)
    params = jax.tree.map(lambda x: x[rows], glyphjax.stack_params(envs))
    policy = glyphjax.random_legal_policy(envs[0])
    mixed = glyphjax.rollout(envs[0], policy, seeds, params, batched_params=True)
    for i, env in enumerate(envs):
        alone = glyphjax.rollout(env, policy, seeds[rows == i])
        np.testing.assert_array_equal(np.asarray(mixed.returns)[rows == i], np.asarray(alone.returns), err_msg=ids[i])


@pytest.mark.parametrize("n", [3, 4, 5])
def test_encodings__rules_text_layout_names_every_action_once_at_its_drawn_cell(n):
    for enc in all_encodings():
        names = enc.action_names(n)
        layout = [row.split() for row in enc.layout(n).splitlines()]
        flat = [x for row in layout for x in row]
        assert sorted(flat) == sorted(names) and len(set(names)) == n * n, enc.name
        display = enc.display(n)
        for pos, cell in enumerate(display):  # the cell drawn at `pos` is named by the layout there
            assert names[cell] == flat[pos], f"{enc.name}: cell {cell}"


def test_rules_text__is_written_through_the_label_dictionary():
    env = glyphjax.make("zerosum/tictactoe/enc-m1-rc-rot90")
    assert "Your marks are ●; the opponent's marks are ○." in env.card.rules
    layout = env.card.rules.split("top row first):\n")[1].split("\n")
    assert layout == ["R1C1 R1C2 R1C3", "R2C1 R2C2 R2C3", "R3C1 R3C2 R3C3"]
    nocentre = corpus.corpus()["zerosum/connect4/rule-nocentre"]().card.rules  # a declared, unregistered id
    assert "The very first move may not take C3." in nocentre


def test_grid_rules__a_clause_that_does_not_fit_the_board_names_itself():
    from glyphjax.zerosum.gridrules import GridRules
    with pytest.raises(ValueError, match="line length k=5"):
        GridRules(k=5).check(3)
    with pytest.raises(ValueError, match="blocked cells"):
        GridRules(blocked=(9,)).check(3)


def _position(env, board, mover):
    s = env.reset(glyphjax.reset_key(0))
    b = jnp.asarray(board, jnp.int8)
    return s.replace(board=b, t=jnp.int32(int((b != 0).sum())), mover=jnp.int32(mover))


@pytest.mark.parametrize("board, mover, want", [
    ([[1, 1, 0], [2, 2, 0], [0, 0, 0]], 0, 1.0),  # seat 0 completes the top row now
    ([[1, 1, 0], [2, 2, 0], [1, 0, 0]], 1, 1.0),  # seat 1 completes the middle row now
    ([[1, 0, 1], [0, 2, 0], [1, 0, 2]], 1, -1.0),  # seat 1 faces two threats (a fork): every reply loses
    ([[1, 2, 1], [1, 2, 2], [2, 1, 0]], 0, 0.0),  # the last cell: a draw either way
])
def test_grid_value__is_the_forced_outcome_within_two_plies(board, mover, want):
    env = glyphjax.make(TTT)
    s = _position(env, board, mover)
    v = jax.jit(lambda s, seat: env.value(s, env.default_params(), seat))
    assert float(v(s, mover)) == want and float(v(s, 1 - mover)) == -want


def test_grid_value__playouts_are_deterministic_and_encoding_invariant():
    base, enc = glyphjax.make(TTT), glyphjax.make("zerosum/tictactoe/enc-m1-rc-rot90")
    s = _position(base, [[1, 0, 0], [0, 2, 0], [0, 0, 1]], 1)
    v = jax.jit(lambda s, p: base.value(s, p, 1))
    first = float(v(s, base.default_params()))
    assert -1.0 < first < 1.0 and first == float(v(s, base.default_params()))
    assert float(v(s, enc.default_params())) == first


def test_corpus__no_two_game_changing_variants_declare_the_same_game():
    seen: dict = {}
    decls = [((n, r), t) for t, (n, r, _) in corpus.declarations().items()]
    decls += [(r, t) for t, (r, _) in corpus.bet_declarations().items()]
    decls += [(r, t) for t, (r, _) in corpus.trade_declarations().items()]
    for key, task_id in decls:
        if "/enc-" in task_id:
            continue
        assert key not in seen, f"{task_id} declares the same game as {seen[key]}"
        seen[key] = task_id
