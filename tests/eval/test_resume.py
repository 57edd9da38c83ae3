"""LLM-eval resume is keyed by everything that changes results (eval.runid): a changed harness,
sampling setting or checkpoint content evaluates again; an identical config reuses the episodes
and says so."""

from __future__ import annotations

import os
import types

import pytest
from hydra import compose, initialize_config_dir

from eval.cli import CONF_DIR, rewrite_model_arg, run_eval
from eval.fixtures import synthetic_episode
from eval.runid import checkpoint_digest, code_version, config_identity

TASKS = "tasks.ids=[dummy/arrow-4,dummy/arrow-1]"


def compose_eval(overrides):
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return compose("eval", overrides=overrides)


@pytest.fixture
def fake_llm(monkeypatch, tmp_path):
    """evaluate_llm replaced by recorded synthetic episodes; returns the list of evaluated tasks."""
    import rl.llm_eval
    calls: list[str] = []

    def fake_evaluate_llm(policy, task_ids, seeds, harness=None, sampling=None, out_path=None, **kw):
        calls.extend(task_ids)
        eps = [synthetic_episode(t, s, max_turns=4) for t in task_ids for s in seeds]
        return types.SimpleNamespace(episodes=eps)

    monkeypatch.setattr(rl.llm_eval, "evaluate_llm", fake_evaluate_llm)
    monkeypatch.setenv("GLYPHJAX_CACHE", str(tmp_path / "cache"))
    return calls


@pytest.fixture
def checkpoint(tmp_path):
    d = tmp_path / "ckpt"
    d.mkdir()
    (d / "config.json").write_text('{"model_type": "qwen3"}')
    (d / "tokenizer.json").write_text('{"version": "1.0"}')
    (d / "model.safetensors").write_bytes(bytes(range(256)) * 64)
    return d


def _run(checkpoint, out, *extra):
    args = rewrite_model_arg(["policy=local", f"model={checkpoint}", TASKS, "seeds=2", f"out={out}",
                              "progress=false", *extra])
    return run_eval(compose_eval(args))


def test_resume__identical_config_reuses_episodes_and_says_so(fake_llm, checkpoint, tmp_path, capsys):
    out = tmp_path / "r.json"
    first = _run(checkpoint, out)
    assert fake_llm == ["dummy/arrow-4", "dummy/arrow-1"]
    capsys.readouterr()
    fake_llm.clear()
    again = _run(checkpoint, out)
    assert fake_llm == [], "an identical config must resume every finished task"
    assert f"resumed 4 of 4 episodes from {out}.partial.jsonl" in capsys.readouterr().err
    label = next(iter(first["runs"]))
    assert again["runs"][label]["summary"] == first["runs"][label]["summary"]


@pytest.mark.parametrize("change", [["harness=memory"], ["policy.temperature=0"], ["policy.max_new_tokens=8"],
                                    ["policy.top_p=0.5"], ["harness.history=2"]])
def test_resume__changed_setting_evaluates_again(fake_llm, checkpoint, tmp_path, capsys, change):
    out = tmp_path / "r.json"
    _run(checkpoint, out)
    fake_llm.clear()
    capsys.readouterr()
    _run(checkpoint, out, *change)
    assert fake_llm == ["dummy/arrow-4", "dummy/arrow-1"], f"{change}: stale episodes were served"
    err = capsys.readouterr().err
    assert "resumed" not in err and "another config" in err, err


def test_resume__changed_checkpoint_bytes_evaluate_again(fake_llm, checkpoint, tmp_path):
    out = tmp_path / "r.json"
    _run(checkpoint, out)
    weights = checkpoint / "model.safetensors"
    st = weights.stat()
    data = bytearray(weights.read_bytes())
    data[100] ^= 0xFF  # same size; the mtime is put back as a careless copy tool would leave it
    weights.write_bytes(bytes(data))
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns))
    fake_llm.clear()
    _run(checkpoint, out)
    assert fake_llm == ["dummy/arrow-4", "dummy/arrow-1"], "new weights must not resume old episodes"
    fake_llm.clear()
    _run(checkpoint, out)
    assert fake_llm == [], "the new weights' own episodes resume"


def test_checkpoint_digest__depends_on_bytes_of_model_files_only(checkpoint, monkeypatch, tmp_path):
    monkeypatch.setenv("GLYPHJAX_CACHE", str(tmp_path / "cache"))
    base = checkpoint_digest(checkpoint)
    assert checkpoint_digest(checkpoint) == base, "same bytes, same digest"
    (checkpoint / "trainer_log.csv").write_text("step,loss\n")  # not part of the model
    assert checkpoint_digest(checkpoint) == base
    for name in ("tokenizer.json", "config.json"):
        old = (checkpoint / name).read_text()
        (checkpoint / name).write_text(old.replace("1", "2").replace("qwen3", "qwen2"))
        assert checkpoint_digest(checkpoint) != base, f"{name} content is part of the checkpoint"
        (checkpoint / name).write_text(old)
        assert checkpoint_digest(checkpoint) == base
    assert checkpoint_digest(tmp_path / "no-such-dir") == "none"


def test_run_identity__ignores_output_and_display_keys_only():
    cfg = {"out": "a.json", "progress": True, "resume": True, "seeds": 3, "policy": {"temperature": 1.0},
           "harness": {"name": "basic"}}
    ident = config_identity(cfg)
    assert ident == {"policy": {"temperature": 1.0}, "harness": {"name": "basic"}}
    assert config_identity({**cfg, "new_setting": 1}) != ident, "unknown keys count (no stale resume)"
    assert code_version().startswith(__import__("glyphjax").__version__)
