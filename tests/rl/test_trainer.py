"""The training loop: configuration errors come first, seeds and budget semantics, learnability.

Learnability: the tiny random Qwen3 in action-token mode with the compact harness goes on
dummy/arrow-1 from chance (0.25) to a held-out mean return >= 0.9 (LR 2e-3, far above the paper's
1e-6; G = 16, K = 2, 60 updates, fixed seed 0). See docs/training.md.
"""

import json

import numpy as np
import pytest

from rl.seeds import EVAL_SEEDS_START
from rl.train_cli import compose
from rl.trainer import ConfigError, Trainer, train, validate


def _cfg(out, **over):
    items = {"rl.action_tokens": "true", "rl.group_size": 4, "rl.groups_per_update": 1, "rl.rollout_budget": 8,
             "rl.lr": "1e-3", "eval.every": 0,
             "policy.max_new_tokens": 1, "rl.micro_batch_size": 8, "ckpt_every": 0, "log.console": "false", **over}
    return compose([f"{k}={v}" for k, v in items.items()], out)


@pytest.fixture
def no_model_loading(monkeypatch):
    """Fail the test if anything expensive (loading the model) happens."""
    import rl.models.hf_io as hf_io

    def boom(*a, **k):
        raise AssertionError("the model was loaded before the configuration was rejected")
    monkeypatch.setattr(hf_io, "load_model", boom)


@pytest.mark.parametrize("over, message", [
    ({"rl.rollout_budget": 10}, "not a multiple of rl.group_size"),
    ({"rl.loss": "ppo"}, "unknown rl.loss='ppo'"),
    ({"rl.advantage": "gae"}, "unknown rl.advantage='gae'"),
    ({"rl.lr": 0}, "rl.lr must be a positive number"),
    ({"tasks.ids": "[classics/snake-extreme]"}, "unknown task id"),
    ({"resume": "true"}, "resume=true but"),
    ({"policy": "vllm"}, "needs server.url"),
    ({"policy": "vllm", "server.url": "http://127.0.0.1:9"}, "not usable"),
])
def test_train__bad_configuration_is_a_clear_error_before_any_model_loads(tmp_path, no_model_loading, over, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("(", r"\(")):
        train(_cfg(tmp_path / "run", **over))


def test_train_cli__configuration_error_exits_2_with_one_line(tmp_path):
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-m", "rl.train_cli", f"hydra.run.dir={tmp_path}", "rl.group_size=7",
                           "rl.groups_per_update=1", "rl.rollout_budget=64"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "not a multiple of rl.group_size * rl.groups_per_update = 7 * 1" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_validate__budget_gives_budget_over_group_times_groups_updates(tmp_path):
    plan = validate(_cfg(tmp_path, **{"rl.rollout_budget": 6144, "rl.group_size": 128, "rl.groups_per_update": 3}))
    assert plan.num_updates == 16
    plan = validate(compose(["+experiment=snake_grid", "rl.group_size=512"], tmp_path))
    assert plan.num_updates == 12 and plan.task_ids == ["classics/snake-easy"]


def test_trainer__groups_cycle_tasks_on_distinct_training_seeds(tmp_path):
    tr = Trainer(_cfg(tmp_path, **{"tasks.ids": "[dummy/arrow-1,dummy/arrow-4]", "rl.groups_per_update": 3,
                                   "rl.rollout_budget": 24}))
    seen = []
    for _ in range(2):
        groups = tr.next_groups()
        assert [t for t, _ in groups] == (["dummy/arrow-1", "dummy/arrow-4", "dummy/arrow-1"] if not seen
                                          else ["dummy/arrow-4", "dummy/arrow-1", "dummy/arrow-4"])
        seen.extend((t, s) for t, seeds in groups for s in seeds)
    assert len(seen) == len(set(seen)), "a (task, seed) pair was used twice"
    assert all(s < EVAL_SEEDS_START for _, s in seen)
    assert sorted(s for t, s in seen if t == "dummy/arrow-1") == list(range(12))


def test_trainer__metrics_log_one_line_per_update_with_the_documented_fields(tmp_path):
    recs = train(_cfg(tmp_path, **{"eval.every": 2, "eval.seeds": 2}))
    lines = [json.loads(l) for l in open(tmp_path / "metrics.jsonl")]
    train_lines = [r for r in lines if r["kind"] == "train"]
    assert [r["update"] for r in train_lines] == [1, 2]
    assert [r["rollouts"] for r in train_lines] == [4, 8]
    for r in train_lines:
        assert len(r["returns"]) == 4 and r["return_mean"] == pytest.approx(np.mean(r["returns"]))
        assert r["trainable_tokens"] == 4  # one sampled action token per one-turn episode
        assert r["parse_failures"] == 0 and r["weight_version"] == r["update"]
        for k in ("loss", "grad_norm", "masked_token_frac", "logp_mismatch", "time_rollout", "time_step"):
            assert np.isfinite(r[k]), k
        # on-policy: the trainer's log-probs equal the sampler's up to float error
        assert r["logp_mismatch"] < 1e-4, r["logp_mismatch"]
    evals = [r for r in lines if r["kind"] == "eval"]
    assert [r["update"] for r in evals] == [0, 2] and evals[0]["episodes"] == 2


LEARN = {"rl.group_size": 16, "rl.groups_per_update": 2, "rl.rollout_budget": 1920, "rl.lr": "2e-3",
         "rl.micro_batch_size": 32, "harness": "compact", "model.random_init_std": 0.02,
         "eval.every": 60, "eval.seeds": 64, "seed": 0}


@pytest.mark.slow
def test_train__tiny_random_model_learns_arrow_1_from_chance(tmp_path):
    """The issue's learnability item, through the real loop (local action-token sampler, default
    dppo loss, group-mean advantage, jitted AdamW step): a randomly initialised tiny Qwen3 goes from
    chance to >= 0.9 mean return on 64 held-out evaluation seeds (docs/training.md, 'Learnability')."""
    recs = train(_cfg(tmp_path, **LEARN))
    evals = [r for r in recs if r["kind"] == "eval"]
    curve = [round(r["return_mean"], 3) for r in recs if r["kind"] == "train"]
    assert [r["update"] for r in evals] == [0, 60] and all(r["episodes"] == 64 for r in evals)
    assert evals[0]["return_mean"] < 0.5, f"dummy/arrow-1: the random policy should be near chance 0.25: {evals[0]}"
    assert evals[-1]["return_mean"] >= 0.9, \
        f"dummy/arrow-1: held-out mean return {evals[-1]['return_mean']:.3f} < 0.9 after 60 updates; curve {curve}"


def test_save_model__untie_writes_lm_head_equal_to_embedding_and_untied_config(tiny_ckpt, tmp_path):
    from rl.models import hf_io
    from rl.models.qwen3 import positions_from_mask
    import jax.numpy as jnp

    model = hf_io.load_model(tiny_ckpt)
    assert model.config.tie_word_embeddings, "the fixture should be tied"
    out = hf_io.save_model(model, tmp_path / "untied", untie=True, copy_tokenizer_from=tiny_ckpt)
    cfg = json.loads((out / "config.json").read_text())
    tensors = dict(hf_io.read_checkpoint_tensors(out))
    assert cfg["tie_word_embeddings"] is False
    np.testing.assert_array_equal(tensors["lm_head.weight"], tensors["model.embed_tokens.weight"])
    # the embedding written is the model's own (not a stale copy): equal to the source checkpoint's
    src = dict(hf_io.read_checkpoint_tensors(tiny_ckpt))
    assert "lm_head.weight" not in src
    np.testing.assert_array_equal(tensors["model.embed_tokens.weight"], src["model.embed_tokens.weight"])
    # the untied export computes the same logits as the tied model
    ids = jnp.asarray([[5, 17, 200, 33]], jnp.int32)
    mask = jnp.ones_like(ids, bool)
    a = model(ids, positions_from_mask(mask), mask)
    b = hf_io.load_model(out)(ids, positions_from_mask(mask), mask)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-5)
    # default stays tied (no lm_head.weight)
    tied = hf_io.save_model(model, tmp_path / "tied")
    assert "lm_head.weight" not in dict(hf_io.read_checkpoint_tensors(tied))
    assert json.loads((tied / "config.json").read_text())["tie_word_embeddings"] is True


def test_trainer__vllm_weight_push_exports_an_untied_checkpoint(tmp_path):
    from rl.models import hf_io

    tr = Trainer(_cfg(tmp_path, **{"rl.action_tokens": "false", "policy.max_new_tokens": 4}))
    calls = []

    class FakeServer:
        def pause(self):
            calls.append("pause")

        def reload_weights(self, path):
            calls.append(("reload", path))

        def resume(self):
            calls.append("resume")
    tr.policy, tr.plan.policy = FakeServer(), "vllm"
    tr.push_weights()
    path = tmp_path / "weights" / "current"
    assert calls == ["pause", ("reload", str(path.resolve())), "resume"]
    cfg = json.loads((path / "config.json").read_text())
    tensors = dict(hf_io.read_checkpoint_tensors(path))
    assert cfg["tie_word_embeddings"] is False, "vLLM 0.32 keeps a tied model's old lm_head on reload"
    np.testing.assert_array_equal(tensors["lm_head.weight"], tensors["model.embed_tokens.weight"])
    assert json.loads((path / "glyphjax_weight_version.json").read_text())["version"] == 1


def test_snake_figures__trailing_means_cross_batch_boundaries_and_peak_needs_a_full_window():
    from eval.snake_figures import peak_and_final, trailing_means
    np.testing.assert_allclose(trailing_means([[1, 0], [1, 1]], window=3), [0.5, 2 / 3])
    assert peak_and_final([[1, 1], [0, 0]], window=2) == (1.0, 0.0)
    # the first point (2 rollouts < window 3) cannot be the peak even though it is the largest
    assert peak_and_final([[1, 1], [0, 0], [0, 0]], window=3) == (pytest.approx(1 / 3), 0.0)


@pytest.mark.parametrize("over, message", [
    ({"rl.num_levels": 50}, "tasks.ids has none"),
    ({"tasks.ids": "[procgen/maze]", "rl.num_levels": -3}, "rl.num_levels must be an integer >= 0"),
    ({"tasks.ids": "[procgen/maze]", "rl.start_level": 1 << 30}, "rl.start_level=1073741824"),
])
def test_validate__bad_level_set_is_a_clear_error(tmp_path, no_model_loading, over, message):
    with pytest.raises(ConfigError, match=message):
        validate(_cfg(tmp_path, **over))


def test_trainer__procgen_episodes_play_only_the_configured_training_levels(tmp_path):
    import re
    tr = Trainer(_cfg(tmp_path, **{"tasks.ids": "[procgen/maze]", "rl.num_levels": 3, "rl.start_level": 10,
                                   "rl.max_turns": 1, "rl.group_size": 8, "rl.rollout_budget": 8}))
    records = tr.collect(tr.next_groups(), update_seed=0)
    levels = [int(re.search(r"Level seed: (\d+)", r.turns[0].observation).group(1)) for r in records]
    assert len(levels) == 8 and set(levels) <= {10, 11, 12} and len(set(levels)) > 1
