"""Train -> export -> evaluate: the README's main job ends with a final model, a learning curve and
a glyphjax-eval command whose result equals the trainer's own held-out figure, episode for episode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from eval.cli import CONF_DIR, rewrite_model_arg, run_eval
from rl.train_cli import compose as compose_train
from rl.trainer import train

EVAL_SEEDS = 32


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """The README job (+experiment=learn_arrow) cut to 4 updates, held-out evaluation before and after."""
    out = tmp_path_factory.mktemp("learn-arrow") / "run"
    train(compose_train(["+experiment=learn_arrow", "rl.rollout_budget=128", "rl.lr=2e-2", "eval.every=4",
                         f"eval.seeds={EVAL_SEEDS}", "log.console=false"], out))
    return out


def _evals(run: Path) -> list[dict]:
    lines = (run / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == "eval"]


def test_train_export_evaluate__glyphjax_eval_of_the_final_model_equals_the_trainers_heldout_return(
        finished_run, tmp_path):
    before, after = _evals(finished_run)
    assert (before["update"], after["update"]) == (0, 4)
    assert before["returns"] != after["returns"], "training did not change the held-out episodes"
    summary = json.loads((finished_run / "summary.json").read_text())
    args = [a for a in summary["eval_overrides"] if not a.startswith("out=")]
    assert f"model={finished_run / 'model'}" in args
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        cfg = compose("eval", overrides=rewrite_model_arg(args + [f"out={tmp_path / 'eval.json'}", "resume=false",
                                                                   "progress=false"]))
    doc = run_eval(cfg)
    (run,) = doc["runs"].values()
    episodes = run["episodes"]["dummy/arrow-1"]
    assert len(episodes["returns"]) == EVAL_SEEDS
    assert episodes["returns"] == after["returns"]
    assert run["summary"]["dummy/arrow-1"]["mean_return"] == after["return_mean"]


def test_train_summary__names_the_model_curve_metrics_and_before_after_figures(finished_run):
    from rl.export import run_model_dir
    summary = json.loads((finished_run / "summary.json").read_text())
    before, after = _evals(finished_run)
    assert summary["heldout"] == [[0, before["return_mean"]], [4, after["return_mean"]]]
    assert summary["model"] == str(finished_run / "model") and summary["checkpoints"] is None
    assert json.loads((finished_run / "model" / "glyphjax_export.json").read_text())["update"] == 4
    assert run_model_dir(finished_run) == finished_run / "model"  # policy=local model=RUN loads it
    curve = Path(summary["curve"])
    assert curve == finished_run / "report" / "learning_curves.png"
    assert curve.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert summary["eval_command"].startswith("glyphjax-eval policy=local model=")


def test_train_summary__stopped_run_saves_no_final_model_and_says_how_to_resume(tmp_path, capsys):
    out = tmp_path / "run"
    train(compose_train(["rl.action_tokens=true", "rl.group_size=4", "rl.rollout_budget=8", "policy.max_new_tokens=1", "rl.groups_per_update=1", "eval.every=0",
                         "harness=compact", "ckpt_every=1", "stop_after=1"], out))
    printed = capsys.readouterr().out
    assert "== glyphjax-train finished: 1 of 2 updates" in printed
    assert "stopped after 1 of 2 updates; continue with resume=true" in printed
    assert "held-out return: not evaluated" in printed
    assert not (out / "model").exists()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["checkpoints"] == str(out / "checkpoints") and summary["eval_command"] is None


def test_eval_command__carries_the_trainers_action_decoding_and_turn_cap(tmp_path, monkeypatch):
    """A constrained-decoding run with a turn cap (+experiment=learn_minigrid): the printed command
    composes, and glyphjax-eval builds its local policy with the trainer's constrained decoding and
    cuts episodes at the trainer's rl.max_turns (without them it would score free text on full
    episodes). The equality of the replayed episodes is measured in docs/training.md."""
    import eval.llm
    import rl.llm_eval
    from rl.run_summary import eval_overrides
    from omegaconf import OmegaConf
    train_cfg = OmegaConf.to_container(compose_train(["+experiment=learn_minigrid"], tmp_path / "run"), resolve=True)
    args = eval_overrides(train_cfg, ["minigrid/empty-random-5x5"], "tiny", tmp_path / "eval.json")
    assert "policy.constrained_actions=true" in args and "max_turns=8" in args
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        cfg = compose("eval", overrides=rewrite_model_arg(args))
    seen = {}
    monkeypatch.setattr(rl.llm_eval, "evaluate_llm", lambda **kw: seen.update(kw) or [])
    monkeypatch.setattr(eval.llm, "_episodes", lambda out: {})
    try:
        eval.llm.llm_evaluator(cfg)("minigrid/empty-random-5x5", [1_000_000_000])
    except Exception:  # the stubbed evaluation returns no episodes; only its arguments matter here
        pass
    assert seen["policy_kwargs"] == {"constrained_actions": True} and seen["max_turns"] == 8
