"""glyphjax-eval run directories (a run never overwrites another, a sweep keeps every job), task ids
where a task set is expected, typed values, its own help and a one-line Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
EVAL = ["-c", "from eval.cli import eval_main; eval_main()"]
TINY = ["tasks=dummy/arrow-1", "seeds=6", "progress=false"]


def run_in(cwd: Path, args: list[str]) -> subprocess.CompletedProcess:
    """glyphjax-eval from this checkout, run in `cwd` (where runs/ is created)."""
    env = {**os.environ, "COLUMNS": "160", "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, *EVAL, *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)


def test_glyphjax_eval__second_run_gets_its_own_directory(tmp_path):
    first = run_in(tmp_path, ["policy=random", *TINY])
    second = run_in(tmp_path, ["policy=scripted", *TINY])
    dirs = []
    for p in (first, second):
        assert p.returncode == 0, p.stderr[-3000:]
        start = re.search(r"glyphjax-eval: writing to (\S+)", p.stdout).group(1)
        end = re.search(r"glyphjax-eval: results in (\S+)", p.stdout).group(1)
        assert start == end
        dirs.append(Path(start))
    assert dirs[0] != dirs[1] and all(d.parent == tmp_path / "runs" / "eval" for d in dirs)
    for d, policy in zip(dirs, ("random", "scripted")):
        doc = json.loads((d / "results.json").read_text())
        assert list(doc["runs"]) == [policy]
        assert (d / ".hydra" / "config.yaml").is_file()
    assert not (tmp_path / "eval_results.json").exists()


def test_glyphjax_eval__sweep_keeps_every_jobs_results(tmp_path):
    p = run_in(tmp_path, ["-m", "policy=random,scripted", *TINY, f"hydra.sweep.dir={tmp_path / 'sweep'}"])
    assert p.returncode == 0, p.stderr[-3000:]
    docs = {job: json.loads((tmp_path / "sweep" / job / "results.json").read_text()) for job in ("0", "1")}
    assert list(docs["0"]["runs"]) == ["random"] and list(docs["1"]["runs"]) == ["scripted"]
    scripted = docs["1"]["runs"]["scripted"]["episodes"]["dummy/arrow-1"]["returns"]
    assert np.allclose(scripted, 1.0), "the arrow oracle answers every seed right"
    assert len(docs["0"]["runs"]["random"]["episodes"]["dummy/arrow-1"]["returns"]) == 6


def test_glyphjax_eval__default_sweep_dir_is_under_runs_eval_sweep(tmp_path):
    p = run_in(tmp_path, ["-m", "policy=random,scripted", *TINY])
    assert p.returncode == 0, p.stderr[-3000:]
    (sweep,) = (tmp_path / "runs" / "eval-sweep").iterdir()
    assert sorted(d.name for d in sweep.iterdir() if d.is_dir()) == ["0", "1"]
    assert all((sweep / j / "results.json").is_file() for j in ("0", "1"))


def test_glyphjax_eval__explicit_out_still_writes_there(tmp_path):
    out = tmp_path / "mine.json"
    p = run_in(tmp_path, ["policy=random", *TINY, f"out={out}"])
    assert p.returncode == 0, p.stderr[-3000:]
    assert list(json.loads(out.read_text())["runs"]) == ["random"]
    assert f"results in {out}" in p.stdout


def test_glyphjax_eval__task_id_where_a_task_set_is_expected(tmp_path):
    from eval.cli import run_eval
    from eval.config import register_eval_schema
    from hydra import compose, initialize_config_dir
    from rl.hydra_cli import CONF_DIR, rewrite_task_arg
    register_eval_schema()
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        cfg = compose("eval", overrides=rewrite_task_arg(["tasks=dummy/arrow-*", "policy=scripted", "seeds=3",
                                                          "progress=false", f"out={tmp_path / 'r.json'}"]))
    doc = run_eval(cfg)
    assert sorted(doc["runs"]["scripted"]["summary"]) == sorted(__import__("glyphjax").task_ids("dummy/arrow-*"))


def test_glyphjax_eval__fractional_seeds_are_refused(capsys):
    from eval.cli import eval_main
    with pytest.raises(SystemExit) as e:
        eval_main(["seeds=2.5"])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and err == ["glyphjax-eval: error: configuration: bad value for 'seeds': "
                                         "'2.5' (float); it takes an integer or null"]


def test_glyphjax_eval__help_shows_its_own_groups(capsys):
    from eval.cli import eval_main
    eval_main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("glyphjax-eval: ")
    groups = [l.split(":")[0].strip() for l in out.split("Config groups")[1].split("\n\n")[0].splitlines()[1:]]
    assert groups == ["tasks", "policy", "opponent", "harness", "model"], groups
    assert "experiment" not in out and "  seeds=null" in out and "  batch_size=4096" in out


def test_glyphjax_eval__ctrl_c_is_one_line_naming_the_run_dir_exit_130(capsys, monkeypatch, tmp_path):
    import eval.cli

    def interrupted(cfg, run_dir=None):
        raise KeyboardInterrupt
    monkeypatch.setattr(eval.cli, "run_eval", interrupted)
    with pytest.raises(SystemExit) as e:
        eval.cli.eval_main([f"hydra.run.dir={tmp_path}"])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 130 and len(err) == 1, err
    assert err[0].startswith(f"glyphjax-eval: interrupted; partial results in {tmp_path}")


def test_glyphjax_eval__llm_run_dir_holds_results_trajectories_and_replay(tmp_path, monkeypatch, capsys):
    import rl.llm_eval
    from eval.cli import eval_main
    from eval.fixtures import synthetic_episode

    def fake_evaluate_llm(policy, task_ids, seeds, harness=None, sampling=None, out_path=None, **kw):
        eps = [synthetic_episode(t, s, fail_every=3, max_turns=4) for t in task_ids for s in seeds]
        with open(out_path, "a", encoding="utf-8") as f:  # what run_rollouts streams to out_path
            f.writelines(json.dumps(e) + "\n" for e in eps)
        return type("Result", (), {"episodes": eps})()
    monkeypatch.setattr(rl.llm_eval, "evaluate_llm", fake_evaluate_llm)
    run_dir = tmp_path / "run"
    eval_main(["policy=vllm", "server.url=http://127.0.0.1:9", "model=served", "tasks=dummy/arrow-4", "seeds=2",
               "progress=false", f"hydra.run.dir={run_dir}"])
    assert f"results in {run_dir} (results.json, trajectories.jsonl)" in capsys.readouterr().out
    lines = (run_dir / "trajectories.jsonl").read_text().splitlines()
    assert [json.loads(l)["seed"] for l in lines] == [1_000_000_000, 1_000_000_001]
    assert list(json.loads((run_dir / "results.json").read_text())["runs"]) == ["vllm:served"]
    page = (run_dir / "replay.html").read_text()
    assert page.startswith("<!") and "dummy/arrow-4" in page


def test_glyphjax_eval__server_model_names_the_served_model_like_in_training():
    from hydra import compose, initialize_config_dir

    from eval.config import register_eval_schema
    from eval.llm import resolve_model
    from rl.hydra_cli import CONF_DIR
    register_eval_schema()
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        assert resolve_model(compose("eval", overrides=["policy=vllm", "server.model=served"])) == "served"
        assert resolve_model(compose("eval", overrides=["policy=vllm", "server.model=served",
                                                        "model_ref=other"])) == "other"
        assert resolve_model(compose("eval", overrides=["policy=vllm"])) is None
