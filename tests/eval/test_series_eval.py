"""Series evaluation of zero-sum variants (eval/series_eval.py): `glyphjax-eval tasks=zerosum_heldout
policy=... opponent=...` plays 40 episodes per variant (20 per seat) -> 13 best-of-three series."""

from __future__ import annotations

import json

import numpy as np
import pytest

from eval.series_eval import array_games, evaluate_series, series_plan, text_games
from rl.policies.base import Completion
from tests.eval.test_cli import EVAL, run

SEEDS = list(range(1_000_000_000, 1_000_000_040))


def test_series_plan__alternates_seats_over_ordered_seeds():
    plan = series_plan(SEEDS)
    assert [a for _, a in plan] == [0, 1] * 20 and [s for s, _ in plan] == SEEDS


def test_evaluate_series__minimax_beats_random_in_nearly_all_series_and_random_loses_them():
    tasks = ["zerosum/tictactoe/base", "zerosum/tictactoe/rule-torus"]
    strong = evaluate_series(tasks, SEEDS, lambda t, s: array_games(t, "minimax", "random", 2, s), 200, 0, 0.95)
    weak = evaluate_series(tasks, SEEDS, lambda t, s: array_games(t, "random", "minimax", 2, s), 200, 0, 0.95)
    assert strong["series"] == 26 and strong["variants"] == 2 and len(strong["games"]["zerosum/tictactoe/base"]) == 40
    assert strong["share"] >= 0.9 and weak["share"] <= 0.1, (strong["per_variant"], weak["per_variant"])
    lo, hi = strong["ci95"]
    assert lo <= strong["share"] <= hi and weak["ci95"][1] < lo  # the intervals separate the two players


class _Replies:
    """Fake text policy: a fixed action name, or a reply cut at the token budget."""

    name = "fake"

    def __init__(self, text: str, finish: str = "stop"):
        self.text, self.finish = text, finish

    def complete(self, conversations, sampling):
        return [Completion(self.text, [1], [2], [-0.1], self.finish) for _ in conversations]


def test_text_games__a_reply_over_the_token_budget_loses_and_an_invalid_move_forfeits():
    from eval.series_eval import _array_opponent
    rnd = _array_opponent("zerosum/tictactoe/base", "random", 2)
    seeds = SEEDS[:6]
    over = text_games(_Replies("<action>B2", "length"), rnd, "zerosum/tictactoe/base", seeds)
    assert [g for _, g in over] == [0.0] * 6
    invalid = text_games(_Replies("<action>Z9</action>"), rnd, "zerosum/tictactoe/base", seeds)
    assert [g for _, g in invalid] == [0.0] * 6
    # head-to-head of two text policies: the first over-budget reply loses, whoever sends it
    h2h = text_games(_Replies("<action>B2</action>"), _Replies("<action>A1", "length"), "zerosum/tictactoe/base", seeds)
    assert [g for _, g in h2h] == [1.0] * 6


def test_glyphjax_eval__tiny_model_head_to_head_with_a_checkpoint_prints_series(tmp_path):
    from rl.tiny import tiny_checkpoint
    out = tmp_path / "series.json"
    p = run([*EVAL, "tasks.ids=[zerosum/tictactoe/base]", "policy=local", "model=tiny", "policy.max_new_tokens=6",
             f"opponent=checkpoint:{tiny_checkpoint()}", "seeds=6", f"out={out}", "progress=false"], timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["opponent"] == f"checkpoint:{tiny_checkpoint()}"
    (label, series), = doc["series"].items()
    assert label.startswith("local:") and series["series"] == 2 and len(series["games"]["zerosum/tictactoe/base"]) == 6
    printed = " ".join(p.stdout.split())  # the table title wraps at the terminal width
    assert 0.0 <= series["share"] <= 1.0 and "share of best-of-three series won" in printed
    assert "zerosum/tictactoe/base" in printed and "overall" in printed


def test_glyphjax_eval__checkpoint_opponent_without_a_text_policy_says_what_to_do(capsys):
    from eval.cli import eval_main
    with pytest.raises(SystemExit) as e:
        eval_main(["tasks.ids=[zerosum/tictactoe/base]", "policy=random", "opponent=checkpoint:/nowhere", "out=null",
                   "progress=false"])
    assert e.value.code == 2 and "policy=local model=<dir> opponent=random" in capsys.readouterr().err
