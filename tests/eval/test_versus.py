"""Per-seat evaluation against an opponent bot (eval/versus.py): `glyphjax-eval ... opponent=...`
plays each policy in both seats of every seed and reports win / draw / loss rates per seat."""

from __future__ import annotations

import json

import numpy as np
import pytest

from eval.versus import check_opponent, playable, seat_evaluator
from tests.eval.test_cli import EVAL, run


def test_glyphjax_eval__opponent_plays_the_other_seat_and_rates_are_reported_per_seat(tmp_path):
    out = tmp_path / "res.json"
    p = run([*EVAL, "tasks.ids=[zerosum/tictactoe/base,zerosum/kuhn/rule-single,dummy/arrow-1]",
             "policy=scripted", "opponent=minimax", "opponent.depth=9", "seeds=24", "batch_size=24",
             f"out={out}", "progress=false"])
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert set(doc["runs"]) == {"scripted@seat0", "scripted@seat1"} and doc["opponent"] == "minimax(depth=9)"
    skipped = doc["skipped"]["scripted"]
    assert "zerosum/kuhn/rule-single" in skipped and "no minimax bot" in skipped and "dummy/arrow-1: one seat" in skipped
    rates = doc["seats"]["scripted"]["zerosum/tictactoe/base"]
    for seat in (0, 1):
        returns = np.array(doc["runs"][f"scripted@seat{seat}"]["episodes"]["zerosum/tictactoe/base"]["returns"])
        assert len(returns) == 24
        r = rates[f"seat{seat}"]
        for name, sign in (("win", 1), ("draw", 0), ("loss", -1)):
            rate, lo, hi = r[name]
            assert rate == pytest.approx(np.mean(np.sign(returns) == sign)) and lo <= rate <= hi, (seat, name)
        # full-depth minimax plays 3x3 Tic-Tac-Toe perfectly: the one-step bot never beats it
        assert r["win"][0] == 0.0, f"seat {seat}: the scripted bot beat depth-9 minimax"
    assert "policy scripted vs minimax(depth=9), per seat" in p.stdout


def test_seat_evaluator__the_same_bot_in_both_seats_gives_mirrored_returns_seed_by_seed():
    seeds = np.arange(64)
    first = seat_evaluator("scripted", "scripted", 2, 0, batch_size=64)("zerosum/kuhn/rule-single", seeds)
    second = seat_evaluator("scripted", "scripted", 2, 1, batch_size=64)("zerosum/kuhn/rule-single", seeds)
    np.testing.assert_array_equal(second.returns, -first.returns)
    assert np.abs(first.returns).sum() > 0, "some single-round Kuhn game must be decided"
    np.testing.assert_array_equal(second.success, second.returns > 0)


def test_opponent_config__bad_names_depths_and_unplayable_tasks_say_what_to_use():
    with pytest.raises(ValueError, match="opponent.name='alphazero' is not a bot; choose one of random"):
        check_opponent("alphazero", 2)
    with pytest.raises(ValueError, match="opponent.depth=0 must be an integer >= 1"):
        check_opponent("minimax", 0)
    ok, why = playable(["zerosum/barter/base", "zerosum/connect4/base"], "random", "minimax", 2)
    assert ok == ["zerosum/connect4/base"] and "use scripted or random" in why["zerosum/barter/base"]


def test_glyphjax_eval__opponent_with_an_llm_policy_is_refused_in_one_line():
    p = run([*EVAL, "tasks.ids=[zerosum/tictactoe/base,dummy/arrow-1]", "policy=vllm", "opponent=random", "seeds=2",
             "out=null"])
    assert p.returncode == 2 and "series on zero-sum variants only" in p.stderr
    assert "Traceback" not in p.stderr
