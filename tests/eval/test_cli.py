"""CLI behaviour through subprocesses: glyphjax-eval and glyphjax-play."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))


def run(args, stdin=None, timeout=300):
    """This checkout's tools, run in a fresh directory (glyphjax-eval creates runs/ where it runs)."""
    env = {**os.environ, "COLUMNS": "160", "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": os.pathsep.join([REPO, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True,
                          cwd=tempfile.mkdtemp(prefix="glyphjax-cli-"), env=env, timeout=timeout)


EVAL = ["-c", "from eval.cli import eval_main; eval_main()"]
PLAY = ["-m", "eval.play"]


def test_glyphjax_eval__default_run_prints_table_and_json(tmp_path):
    out = tmp_path / "res.json"
    p = run([*EVAL, "seeds=12", f"out={out}"])
    assert p.returncode == 0, p.stderr[-3000:]
    for task in ("classics/snake-easy", "classics/snake-medium", "classics/snake-hard"):
        assert p.stdout.count(task) == 2, f"{task} should have a row for random and scripted:\n{p.stdout}"
    assert "policy: random" in p.stdout and "policy: scripted" in p.stdout
    doc = json.loads(out.read_text())
    assert set(doc["runs"]) == {"random", "scripted"}
    for policy in ("random", "scripted"):
        for task, s in doc["runs"][policy]["summary"].items():
            eps = doc["runs"][policy]["episodes"][task]
            assert eps["seeds"] == list(range(1_000_000_000, 1_000_000_012)), task
            assert s["mean_return"] == pytest.approx(np.mean(eps["returns"])), task
            lo, hi = s["return_ci"]
            assert lo <= s["mean_return"] <= hi, task
            # the printed row shows the same mean and interval
            assert re.search(re.escape(task) + r".*" + re.escape(f"{s['mean_return']:.3f} [{lo:.3f}, {hi:.3f}]"),
                             p.stdout), f"{policy} {task}: table row disagrees with JSON"
    # the greedy scripted baseline beats random on every Snake task
    for task in doc["runs"]["random"]["summary"]:
        assert (doc["runs"]["scripted"]["summary"][task]["mean_return"]
                > doc["runs"]["random"]["summary"][task]["mean_return"]), task


def test_glyphjax_eval__episode_returns_equal_single_episode_reference(tmp_path):
    import glyphjax
    out = tmp_path / "res.json"
    p = run([*EVAL, "policy=scripted", "tasks.ids=[dummy/arrow-4]", "seeds=5", "seed_start=1000000100",
             f"out={out}"])
    assert p.returncode == 0, p.stderr[-3000:]
    eps = json.loads(out.read_text())["runs"]["scripted"]["episodes"]["dummy/arrow-4"]
    env = glyphjax.make("dummy/arrow-4")
    for seed, ret, length in zip(eps["seeds"], eps["returns"], eps["lengths"]):
        ref = glyphjax.run_episode(env, env.scripted_policy, np.uint32(seed))
        assert ret == pytest.approx(float(ref.returns)) and length == int(ref.lengths), f"seed {seed}"
        assert ret == pytest.approx(1.0), f"the arrow oracle answers every turn right (seed {seed})"


def test_glyphjax_eval__unknown_task_id_names_close_ids_without_traceback():
    p = run([*EVAL, "tasks.ids=[classics/snake-esy]", "seeds=3", "out=null"])
    assert p.returncode != 0
    assert "unknown task id 'classics/snake-esy'" in p.stderr and "classics/snake-easy" in p.stderr
    assert "Traceback" not in p.stderr + p.stdout


def test_glyphjax_eval__bad_override_is_one_line_naming_the_key():
    p = run([*EVAL, "seedz=3"])
    assert p.returncode == 2
    assert "unknown key 'seedz'; top-level keys are:" in p.stderr and "seeds" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    p = run([*EVAL, "-m", "tasks=snake,snak"])
    assert p.returncode == 2 and "no tasks preset 'snak'" in p.stderr and "tasks.ids" in p.stderr
    p = run([*EVAL, "seeds=many"])
    assert p.returncode == 2 and "bad value for 'seeds'" in p.stderr and "Traceback" not in p.stderr


def final_grid(text: str) -> str:
    """The grid of the last observation printed (lines after the last [Grid] header)."""
    lines = text.split("[Grid]\n")[-1].splitlines()
    grid = []
    for line in lines:
        if not line or line.startswith("turn "):
            break
        grid.append(line)
    assert grid, text
    return "\n".join(grid)


def test_glyphjax_play__action_log_replays_final_observation():
    typed = "UP\nleft\n1\n?\nnot-an-action\n3\n2\nDOWN\nRIGHT\n"
    p = run([*PLAY, "task=classics/snake-easy", "seed=11"], stdin=typed)
    assert p.returncode == 0, p.stderr[-3000:]
    m = re.search(r"action log: (glyphjax-play .*)", p.stdout)
    assert m, p.stdout[-2000:]
    log = m.group(1).split()
    assert log[1:3] == ["task=classics/snake-easy", "seed=11"]
    assert log[3] == "actions=[UP,LEFT,DOWN,RIGHT,LEFT,DOWN,RIGHT]", "help and bad input must not consume turns"
    q = run([*PLAY, *log[1:]], stdin="")
    assert q.returncode == 0, q.stderr[-3000:]
    assert final_grid(q.stdout) == final_grid(p.stdout)
    assert "turn 0 >" not in q.stdout, "a given action log replays without reading stdin"
    # and both equal the core replay of the same actions
    import glyphjax
    env = glyphjax.make("classics/snake-easy")
    acts = [env.card.action_index(a) for a in "UP,LEFT,DOWN,RIGHT,LEFT,DOWN,RIGHT".split(",")]
    frames, _ = glyphjax.replay(env, 11, acts)
    last = jax_frame(frames, -1)
    assert glyphjax.render_text(env.card, last).grid == final_grid(q.stdout)


def jax_frame(frames, i):
    import glyphjax
    return glyphjax.Frame(grid=frames.grid[i], hud=frames.hud[i], event=frames.event[i])


def test_glyphjax_play__unknown_task_message():
    p = run([*PLAY, "task=classics/snak"], stdin="")
    assert p.returncode == 2 and "closest:" in p.stderr and "classics/snake-easy" in p.stderr and "Traceback" not in p.stderr
