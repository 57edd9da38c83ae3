"""Training by seat: who sits where (rl.opponent, rl.train_seats), advantages per (group, seat),
and the trainer learning only from the chosen seats' tokens."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from seat_games import TASK_ID, registered_secret_ttt  # noqa: E402

from rl import seating  # noqa: E402
from rl.advantages import make_estimator  # noqa: E402
from rl.policies.base import Completion  # noqa: E402
from rl.rollout import ArrayPlayer  # noqa: E402
from rl.train_cli import compose  # noqa: E402
from rl.trainer import ConfigError, Trainer, validate  # noqa: E402
from rl.trajectory import EpisodeRecord  # noqa: E402


@pytest.fixture(scope="module")
def game():
    with registered_secret_ttt() as env:
        yield env


def _cfg(out, **over):
    items = {"tasks.ids": f"[{TASK_ID}]", "rl.group_size": 4, "rl.rollout_budget": 4, "rl.lr": "1e-3",
             "policy.max_new_tokens": 4, "rl.micro_batch_size": 8, "rl.groups_per_update": 1, "eval.every": 0,
             "rl.action_tokens": "false", "model.random_init_std": "null", "ckpt_every": 0, "log.console": "false",
             "harness": "compact", **over}
    return compose([f"{k}={v}" for k, v in items.items()], out)


class SeatTaggingPolicy:
    """Fake text policy: marks the first free cell; its completion ids are [100 + seat, cell], so a
    training sample tells which seat's turn it came from."""

    name = "tagging"

    def complete(self, conversations, sampling):
        out = []
        for conv in conversations:
            seat = int(re.search(r"You play seat (\d)", conv[0]["content"]).group(1))
            grid = conv[-1]["content"].split("[Grid]\n", 1)[1][:11].replace("\n", "")
            cell = grid.index("·")
            out.append(Completion(f"<action>CELL_{cell}</action>", [1, 2, 3], [100 + seat, cell], [-0.1, -0.2], "stop"))
        return out


def _record(task, seed, seat, ret, multi=True) -> EpisodeRecord:
    return EpisodeRecord(task=task, seed=seed, harness="basic", policy="p", system_prompt="", turns=[],
                         episode_return=ret, length=0, terminated=True, truncated=False, prompt_tokens=0,
                         completion_tokens=0, parse_failures=0, parse_status_counts={}, truncations=0,
                         context_drops=0, context_overflows=0, seat=seat,
                         returns=[ret, -ret] if multi else None)


@pytest.mark.parametrize("value, expected", [("all", None), (None, None), ([1], (1,)), ([0, 1], (0, 1)), (0, (0,))])
def test_parse_train_seats__accepts_all_or_distinct_seats(value, expected):
    assert seating.parse_train_seats(value) == expected


@pytest.mark.parametrize("value", ["first", [], [0, 0], [-1], [True], 1.5])
def test_parse_train_seats__rejects_anything_else_naming_the_key(value):
    with pytest.raises(ValueError, match="rl.train_seats"):
        seating.parse_train_seats(value)


def test_seatings__array_opponent_takes_every_seat_but_the_policys_which_rotates(game):
    eps = [(TASK_ID, s) for s in range(4)] + [("dummy/arrow-1", 9)]
    out = seating.seatings(eps, [0, 1, 2, 3, 0], "random", None)
    assert [sorted(o) for o in out] == [[1], [0], [1], [0], []]  # the policy plays 0, 1, 0, 1; arrow: alone
    assert all(isinstance(p, ArrayPlayer) and p.name == "random" for o in out for p in o.values())
    assert seating.seatings(eps, [0, 1, 2, 3, 0], "random", (1,))[:4] == [{0: out[1][0]}] * 4
    assert seating.seatings(eps, [0, 1, 2, 3, 0], "self", None) == [{}] * 5


def test_seat_advantages__group_mean_compares_a_seat_with_the_same_seat_of_its_group():
    groups = [("g/a", [0, 1]), ("g/b", [5, 6])]
    recs = [_record("g/a", 0, 0, 1.0), _record("g/a", 0, 1, -1.0), _record("g/a", 1, 0, 0.0),
            _record("g/a", 1, 1, 0.0), _record("g/b", 5, 0, 0.5, multi=False), _record("g/b", 6, 0, 0.0, multi=False)]
    adv = seating.seat_advantages(recs, groups, make_estimator("group_mean"))
    # (g/a, seat 0): returns 1, 0 -> mean 0.5; (g/a, seat 1): -1, 0 -> mean -0.5; g/b: 0.5, 0 -> 0.25
    np.testing.assert_allclose(adv, [0.5, -0.5, -0.5, 0.5, 0.25, -0.25])


def test_descriptor__zero_sum_variants_share_a_key_across_encodings_other_tasks_use_their_id():
    base = seating.descriptor("zerosum/avoidthree/base")
    assert base == {"template": "GridGame", "family": "avoidthree", "rule": "base", "size": "base"}
    assert seating.descriptor("zerosum/avoidthree/enc-m1-rc-rot90") == base  # encoding: not a key field
    assert seating.descriptor("zerosum/avoidthree/rule-nodiag")["rule"] == "rule-nodiag"
    assert seating.descriptor("classics/snake-easy") == {"task": "classics/snake-easy"}


def test_estimator_log__draw_rate_zero_advantages_and_crab_moments():
    from rl.trainer import _estimator_log
    recs = [_record("zerosum/avoidthree/base", i, i % 2, r) for i, r in enumerate([1.0, -1.0, 0.0, 0.0])]
    recs += [_record("zerosum/avoidthree/enc-m1-rc-rot90", 9, 0, 1.0)]
    log = _estimator_log(make_estimator("group_mean"), np.array([0.5, 0.0, 0.0, -0.5, 0.0]), recs)
    assert log["draw_rate"] == pytest.approx(2 / 5) and log["adv_zero_share"] == pytest.approx(3 / 5)
    assert "kappa_hat" not in log  # group_mean has no moments
    crab = make_estimator("crab", kappa=4.0)
    adv = seating.seat_advantages(recs, [("zerosum/avoidthree/base", [0, 1, 2, 3]),
                                         ("zerosum/avoidthree/enc-m1-rc-rot90", [9])], crab)
    log = _estimator_log(crab, adv, recs)
    # Crab groups by (variant, seat) across encodings: seat 0 holds returns 1, 0, 1; seat 1: -1, 0
    # pooled sigma2 = ((1/9 + 4/9 + 1/9) + (1/4 + 1/4)) / (2 + 1) = (2/3 + 1/2) / 3
    assert log["sigma2_hat"] == pytest.approx((2 / 3 + 1 / 2) / 3)
    assert log["kappa_used"] == 4.0 and "tau2_enc" in log


def test_trained__single_agent_records_always_multi_seat_only_chosen_seats():
    assert seating.trained(_record("g/a", 0, 0, 0.0, multi=False), (1,))
    assert not seating.trained(_record("g/a", 0, 0, 0.0), (1,))
    assert seating.trained(_record("g/a", 0, 1, 0.0), (1,)) and seating.trained(_record("g/a", 0, 0, 0.0), None)


@pytest.mark.parametrize("over, message", [
    ({"rl.opponent": "minimax"}, "unknown rl.opponent='minimax'"),
    ({"rl.train_seats": "[2]"}, "rl.train_seats has seats [2] but testseats/secret-ttt has seats 0..1"),
    ({"rl.opponent": "scripted"}, "rl.opponent=scripted but testseats/secret-ttt has no scripted policy"),
    ({"eval.opponent": "best"}, "unknown eval.opponent='best'"),
])
def test_validate__bad_seating_is_a_config_error_naming_the_key(game, tmp_path, over, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        validate(_cfg(tmp_path, **over))


def test_trainer__self_play_trains_only_the_chosen_seats_tokens(game, tmp_path):
    tr = Trainer(_cfg(tmp_path, **{"rl.train_seats": "[1]"}))
    tr.policy = SeatTaggingPolicy()
    groups = tr.next_groups()
    records = tr.collect(groups, update_seed=0)
    assert sorted({r.seat for r in records}) == [0, 1] and len(records) == 8  # both seats played
    samples, adv, kept = tr.samples_from(records, groups)
    assert [r.seat for r in kept] == [1] * 4
    seat1_turns = sum(r.length for r in records if r.seat == 1)
    assert len(samples) == seat1_turns > 0
    assert all(s.completion_ids[0] == 101 for s in samples)  # no seat-0 token is trained on
    np.testing.assert_allclose(adv, [r.episode_return - np.mean([k.episode_return for k in kept]) for r in kept])


def test_trainer__against_random_opponent_update_logs_the_trained_seat(game, tmp_path):
    tr = Trainer(_cfg(tmp_path, **{"rl.opponent": "random", "rl.train_seats": "[0]"}))
    rec = tr.train_update()
    assert rec["seats"] == [0, 0, 0, 0] and len(rec["returns"]) == 4
    assert rec["return_by_seat"] == {"0": pytest.approx(np.mean(rec["returns"]))}
    assert rec["samples"] == rec["length_mean"] * 4 > 0  # one sample per turn of the 4 seat-0 records
    assert np.isfinite(rec["loss"]) and rec["logp_mismatch"] < 1e-4
    line = json.loads((tmp_path / "metrics.jsonl").read_text().splitlines()[-1])
    assert line["seats"] == [0, 0, 0, 0]


def test_seatings__scripted_opponent_is_the_games_own_ai(tmp_path):
    import glyphjax
    task = "classics/connectfour-2p"
    plan = validate(_cfg(tmp_path, **{"tasks.ids": f"[{task}]", "rl.opponent": "scripted", "rl.train_seats": "[1]"}))
    assert plan.opponent == "scripted" and plan.train_seats == (1,)
    (seating_0,) = seating.seatings([(task, 3)], [0], "scripted", (1,))
    assert list(seating_0) == [0] and seating_0[0].fn is glyphjax.make(task).scripted_policy


def test_trainer__frozen_text_opponent_plays_the_other_seat_and_is_never_trained_on(game, tmp_path, tiny_ckpt):
    tr = Trainer(_cfg(tmp_path, **{"rl.opponent": f"checkpoint:{tiny_ckpt}", "rl.train_seats": "[0]"}))
    assert isinstance(tr.opponent_policy, seating.FrozenOpponent)
    tr.policy = SeatTaggingPolicy()
    tr.opponent_policy = seating.FrozenOpponent(SeatTaggingPolicy())  # the checkpoint's replies, faked for speed
    groups = tr.next_groups()
    records = tr.collect(groups, update_seed=0)
    assert sorted((r.seat, r.policy) for r in records) == [(0, "tagging")] * 4 + [(1, seating.TEXT_OPPONENT)] * 4
    samples, adv, kept = tr.samples_from(records, groups)
    assert [r.seat for r in kept] == [0] * 4 and all(s.completion_ids[0] == 100 for s in samples)


def test_trainer__vllm_opponent_is_served_by_its_own_server(game, tmp_path):
    from fake_openai import FakeOpenAIServer

    def first_free(body, n):  # the served opponent: marks the first free cell it is shown
        grid = body["messages"][-1]["content"].split("[Grid]\n", 1)[1][:11].replace("\n", "")
        return f"<action>CELL_{grid.index('·')}</action>"
    with FakeOpenAIServer(first_free) as srv:
        tr = Trainer(_cfg(tmp_path, **{"rl.opponent": "vllm", "rl.opponent_server.url": srv.url, "rl.train_seats": "[1]",
                                       "policy.max_new_tokens": 32}))
        tr.policy = SeatTaggingPolicy()
        groups = tr.next_groups()
        records = tr.collect(groups, update_seed=0)
    served = [r for r in records if r.policy == seating.TEXT_OPPONENT]
    assert [r.seat for r in served] == [0] * 4 and srv.chat_count == sum(r.length for r in served) > 0
    assert all(t.parse_status == "ok" for r in served for t in r.turns)
    _, _, kept = tr.samples_from(records, groups)
    assert [r.seat for r in kept] == [1] * 4


@pytest.mark.parametrize("over, message", [
    ({"rl.opponent": "checkpoint:/nowhere"}, "rl.opponent=checkpoint:/nowhere: /nowhere has no config.json"),
    ({"rl.opponent": "vllm"}, "rl.opponent=vllm needs rl.opponent_server.url"),
    ({"eval.opponent": "vllm"}, "eval.opponent=vllm is a text policy")])
def test_validate__text_opponent_problems_name_the_key(game, tmp_path, over, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        validate(_cfg(tmp_path, **over))
