"""Variant sampling for zero-sum training (rl/variants.py): uniform groups over (variant, seat),
an encoding drawn per episode, held-out ids never drawn, and mixed batches in one vmapped call."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import glyphjax  # noqa: E402
from glyphjax.core.rollout import random_legal_policy  # noqa: E402
from glyphjax.zerosum.corpus import with_encoding  # noqa: E402
from glyphjax.zerosum.splits import heldout_ids  # noqa: E402
from rl import rollout as R  # noqa: E402
from rl.train_cli import compose  # noqa: E402
from rl.trainer import ConfigError, Trainer, validate  # noqa: E402
from rl.variants import draw_update, episode_env, variant_pool  # noqa: E402

# chi-square critical value for df = k - 1 at p = 1e-4 (Wilson-Hilferty), so a fair sampler
# fails about once in 10,000 runs and a sampler off by a few percent on some pair fails always
def _chi2_bound(df: int, z: float = 3.719) -> float:
    return df * (1 - 2 / (9 * df) + z * np.sqrt(2 / (9 * df))) ** 3


def _train_ids() -> list[str]:
    held = set(heldout_ids(glyphjax.task_ids("zerosum/*")))
    return [t for t in glyphjax.task_ids("zerosum/*") if t not in held]


@pytest.fixture(scope="module")
def seat_pool():
    return variant_pool(_train_ids(), "random", None)


def test_variant_pool__encodings_join_their_family_and_held_out_ids_stay_out(seat_pool):
    ids = _train_ids()
    held = set(heldout_ids(glyphjax.task_ids("zerosum/*")))
    pool = dataclasses.replace(seat_pool, pairs=tuple(dict.fromkeys((t, None) for t, _ in seat_pool.pairs)))
    variants = {t for t, _ in pool.pairs}
    assert not any("/enc-" in t for t in variants)  # every family has a game-changing id
    assert variants == {t for t in ids if "/enc-" not in t}
    drawn_encodings = {e for encs in pool.encodings.values() for e in encs if e is not None}
    assert drawn_encodings == {t for t in ids if "/enc-" in t}
    assert not (variants | drawn_encodings) & held
    fam = "zerosum/tictactoe/"
    assert set(pool.encodings[fam + "rule-misere"]) == {None} | {t for t in ids if t.startswith(fam + "enc-")}


def test_draw_update__groups_are_uniform_over_variant_and_seat(seat_pool):
    pool = seat_pool
    assert len(pool.pairs) == 2 * len({t for t, _ in pool.pairs})  # each variant in both seats
    index = {p: i for i, p in enumerate(pool.pairs)}
    counts = np.zeros(len(pool.pairs))
    updates, k = 400, 26
    for u in range(updates):
        for d in draw_update(pool, k, 5, seed=3, update=u):
            counts[index[d.task, d.seat]] += 1
    expected = updates * k / len(pool.pairs)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < _chi2_bound(len(pool.pairs) - 1), (chi2, counts.min(), counts.max())
    # the same statistic flags a sampler that favours the first half of the pairs by 20%
    skew = counts * np.where(np.arange(len(counts)) < len(counts) // 2, 1.2, 0.8)
    assert float(((skew - expected) ** 2 / expected).sum()) > _chi2_bound(len(pool.pairs) - 1)


def test_draw_update__same_update_same_draw_and_encodings_vary_within_groups():
    pool = variant_pool([t for t in _train_ids() if "/connect4/" in t or "/kuhn/" in t], "self", None)
    a, b = draw_update(pool, 26, 5, 0, 7), draw_update(pool, 26, 5, 0, 7)
    assert a == b and a != draw_update(pool, 26, 5, 0, 8)
    mixed = sum(len(set(d.encodings)) > 1 for d in a)
    assert mixed >= 20  # 7 encodings per family: a group of 5 is all one encoding with p = 7**-4
    assert all(d.seat is None for d in a)


def test_with_encoding__shares_the_program_and_equals_the_registered_encoding_variant():
    enc = "zerosum/tictactoe/enc-m1-rc-rot90"
    env = with_encoding("zerosum/tictactoe/base", enc)
    registered = glyphjax.make(enc)
    assert env.card.id == "zerosum/tictactoe/base"
    assert env.card.actions == registered.card.actions and env.card.rules == registered.card.rules
    assert with_encoding("zerosum/tictactoe/rule-misere", enc).program == glyphjax.make("zerosum/tictactoe/base").program
    with pytest.raises(ValueError, match="encoding variant"):
        with_encoding("zerosum/tictactoe/base", "zerosum/connect4/enc-m1-rc-rot90")


def test_run_rollouts__mixed_variants_and_encodings_play_in_one_batch_as_alone():
    """Episodes of several variants and encodings of one program: one stacked batch, each
    episode's text in its own encoding, and every episode equal to playing it alone."""
    base = glyphjax.make("zerosum/tictactoe/base")
    player = R.NarratedPlayer(random_legal_policy(base), "random-narrated")
    plan = [("zerosum/tictactoe/base", None), ("zerosum/tictactoe/rule-misere", "zerosum/tictactoe/enc-m1-rc-rot90"),
            ("zerosum/tictactoe/rule-torus", "zerosum/tictactoe/enc-m2-index-rot180"),
            ("zerosum/tictactoe/base", "zerosum/tictactoe/enc-m3-keypad-flip-lr")]
    episodes = [(t, 11 + i) for i, (t, _) in enumerate(plan)]
    envs = [episode_env(t, e) for t, e in plan]
    seats = {0: player, 1: player}
    mixed = R.run_rollouts(player, episodes, opponents=seats, episode_envs=envs)
    assert (base.program, True) in R._COMPILED
    alone = [r for ep, env in zip(episodes, envs) for r in R.run_rollouts(player, [ep], opponents=seats, envs={ep[0]: env})]
    assert [(r.task, r.seed, r.seat, r.joint_actions, r.returns) for r in mixed] == \
           [(r.task, r.seed, r.seat, r.joint_actions, r.returns) for r in alone]
    assert [r.turns[0].observation for r in mixed] == [r.turns[0].observation for r in alone]
    for r in mixed:
        env = envs[r.seed - 11]
        assert r.system_prompt.count(env.card.actions[4]) >= 1  # the drawn encoding's cell names
        assert all(t.action_name in env.card.actions for t in r.turns)
        _, trans = glyphjax.replay(env, r.seed, r.joint_actions)
        assert list(np.asarray(trans.reward).sum(axis=0)) == pytest.approx(r.returns)


class _ForfeitingPolicy:
    """Fake text policy: an unknown action every turn (the game forfeits it at once)."""

    name = "forfeit"

    def complete(self, conversations, sampling):
        from rl.policies.base import Completion
        return [Completion("<action>PASS</action>", [1, 2], [3, 4], [-0.1, -0.2], "stop") for _ in conversations]

    def update_model(self, model):
        pass


def _cfg(out, **over):
    ids = [t for t in _train_ids() if t.startswith("zerosum/tictactoe/") and "/size-" not in t]  # one program
    items = {"tasks.ids": "[" + ",".join(ids) + "]", "rl.group_size": 4, "rl.rollout_budget": 32, "rl.lr": "1e-3",
             "policy.max_new_tokens": 4, "rl.groups_per_update": 4, "eval.every": 0, "rl.action_tokens": "false",
             "model.random_init_std": "null", "ckpt_every": 0, "log.console": "false", "harness": "compact",
             "rl.variant_sampling": "uniform", "rl.state_value_beta": 0, **over}
    return compose([f"{k}={v}" for k, v in items.items()], out)


def test_trainer__uniform_sampling_logs_groups_of_one_variant_and_seat_with_drawn_encodings(tmp_path):
    tr = Trainer(_cfg(tmp_path, **{"rl.opponent": "random"}))
    tr.policy = _ForfeitingPolicy()
    tr.step.step = lambda batch: {"loss": 0.0}  # the log is under test, not the gradient step
    for _ in range(2):
        tr.train_update()
    lines = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    held = set(heldout_ids(glyphjax.task_ids("zerosum/*")))
    for line in lines:
        assert len(line["tasks"]) == len(line["group_seats"]) == len(line["encodings"]) == 4
        assert not set(line["tasks"]) & held and all("/enc-" not in t for t in line["tasks"])
        assert all(s in (0, 1) for s in line["group_seats"])
        seats = iter(line["seats"])  # one record per episode (the policy's seat), group by group
        for seat, encs in zip(line["group_seats"], line["encodings"]):
            assert [next(seats) for _ in encs] == [seat] * 4
            assert not {f"zerosum/tictactoe/{e}" for e in encs} & held
    assert any(len(set(e)) > 1 for line in lines for e in line["encodings"])


def test_validate__unknown_variant_sampling_or_with_task_weights_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="rl.variant_sampling='often'"):
        validate(_cfg(tmp_path, **{"rl.variant_sampling": "often"}))
    with pytest.raises(ConfigError, match="rl.task_weights"):
        validate(_cfg(tmp_path, **{"+rl.task_weights": "{zerosum/*: 2}"}))
