"""Array evaluations resume task by task, and Ctrl-C stops them cleanly (one line, exit 130,
finished tasks kept)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import types

import numpy as np
import pytest

from eval.benchmark import EvaluationInterrupted, partial_path, run_tasks
from eval.results import TaskResult
from eval.runid import array_identity
from eval.seeds import eval_seeds

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
TASKS = ["a/one", "a/two", "b/three", "b/four"]
ARRAY = array_identity()


def interrupting_evaluator(calls: list, after: int | None):
    """Evaluates like a real one; raises KeyboardInterrupt (Ctrl-C) on call number `after` + 1."""
    def evaluate(task, seeds):
        if after is not None and len(calls) == after:
            raise KeyboardInterrupt
        calls.append(task)
        return TaskResult(task=task, seeds=seeds, returns=np.asarray(seeds) % 3, lengths=np.ones(len(seeds)),
                          terminated=np.ones(len(seeds), bool), truncated=np.zeros(len(seeds), bool),
                          success=np.asarray(seeds) % 3 == 2)
    return evaluate


def test_run_tasks__ctrl_c_keeps_finished_tasks_and_resume_does_the_rest(tmp_path, capsys):
    out, seeds = tmp_path / "res.json", eval_seeds(4)
    calls: list[str] = []
    with pytest.raises(EvaluationInterrupted) as e:
        run_tasks(TASKS, seeds, interrupting_evaluator(calls, after=2), "random", out, identity=ARRAY)
    assert (e.value.finished, e.value.total) == (2, 4)
    assert isinstance(e.value, KeyboardInterrupt), "callers catching Ctrl-C must still see one"
    assert str(partial_path(out)) in str(e.value) and "resume" in str(e.value)
    calls.clear()
    resumed = run_tasks(TASKS, seeds, interrupting_evaluator(calls, None), "random", out, identity=ARRAY)
    assert calls == ["b/three", "b/four"]
    assert f"resumed 8 of 16 episodes from {partial_path(out)}" in capsys.readouterr().err
    fresh = run_tasks(TASKS, seeds, interrupting_evaluator([], None), "random", None)
    for t in TASKS:
        np.testing.assert_array_equal(resumed[t].returns, fresh[t].returns, err_msg=t)


LONG_RUN = ["dummy/arrow-1", *(f"minigrid/{n}" for n in (
    "doorkey-8x8", "keycorridor-s3r3", "lockedroom", "obstructedmaze-2q", "putnear-8x8-n3", "fourrooms",
    "multiroom-n4-s5", "redbluedoors-8x8", "memory-s13", "playground", "crossing-n3", "unlockpickup"))]


def test_run_tasks__ctrl_c_swallowed_inside_a_task_still_stops_before_the_next(tmp_path, monkeypatch):
    """Library code that catches BaseException can eat the KeyboardInterrupt, and Python "ignores"
    (prints) one raised inside a garbage-collector callback (JAX's runs often); the run must still
    stop after the current task, which is kept, without that report."""
    out, seeds, calls, reported = tmp_path / "res.json", eval_seeds(2), [], []
    inner = interrupting_evaluator(calls, None)
    monkeypatch.setattr(sys, "unraisablehook", lambda info: reported.append(info.exc_value))

    def evaluate(task, seeds):
        if task == "a/two":
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
            except BaseException as e:  # what a careless library (or Python in a gc callback) does
                sys.unraisablehook(types.SimpleNamespace(exc_type=type(e), exc_value=e, exc_traceback=None,
                                                         err_msg="Exception ignored in", object=None))
        return inner(task, seeds)

    with pytest.raises(EvaluationInterrupted) as e:
        run_tasks(TASKS, seeds, evaluate, "random", out)
    assert calls == ["a/one", "a/two"] and e.value.finished == 2
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "the handler is restored"
    assert reported == [], "the ignored KeyboardInterrupt is not reported"


def _eval_cmd(out, tasks) -> list[str]:
    return [sys.executable, "-c", "from eval.cli import eval_main; eval_main()", "policy=random",
            f"tasks.ids=[{','.join(tasks)}]", "seeds=8", f"out={out}", "progress=false"]


def test_glyphjax_eval__sigint_prints_one_line_exits_130_and_rerun_resumes(tmp_path):
    """Interrupted after its first task (of 13, so there is work left to interrupt); a rerun over
    the finished tasks plus one more evaluates only that one."""
    out = tmp_path / "res.json"
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.Popen(_eval_cmd(out, LONG_RUN), cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    part = partial_path(out)
    deadline = time.time() + 240
    while not (part.exists() and part.read_text().count("\n") >= 1) and proc.poll() is None:
        assert time.time() < deadline, "no task finished within 240 s"
        time.sleep(0.05)
    assert proc.poll() is None, f"the run ended before the interrupt:\n{proc.communicate()[1][-2000:]}"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1 and "interrupted" in lines[0] and str(out) in lines[0], err  # names where results are
    finished = [json.loads(l)["result"]["task"] for l in part.read_text().splitlines()]
    assert 1 <= len(finished) < len(LONG_RUN) and not out.exists()

    rerun = finished + [t for t in LONG_RUN if t not in finished][:1]
    p = subprocess.run(_eval_cmd(out, rerun), cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert f"resumed {8 * len(finished)} of {8 * len(rerun)} episodes from {part}" in p.stderr
    doc = json.loads(out.read_text())
    assert sorted(doc["runs"]["random"]["episodes"]) == sorted(rerun)
    again = [json.loads(l)["result"]["task"] for l in part.read_text().splitlines()]
    assert again == finished + rerun[-1:], "only the missing task was evaluated"


def test_baselines__ctrl_c_after_one_task_keeps_it_and_exits_130(tmp_path, monkeypatch, capsys):
    import eval.runner
    from eval import baselines
    real, seen = eval.runner.evaluate_task, []

    def evaluate_task(task, policy, seeds, batch_size=4096):
        if task == "dummy/arrow-4":
            raise KeyboardInterrupt
        seen.append((task, policy))
        return real(task, policy, seeds, batch_size)

    monkeypatch.setattr(eval.runner, "evaluate_task", evaluate_task)
    out = tmp_path / "b.json"
    argv = ["--tasks", "dummy/arrow-1", "dummy/arrow-4", "--seeds", "16", "--out", str(out)]
    assert baselines.main(argv) == 130
    err = [l for l in capsys.readouterr().err.strip().splitlines() if not l.startswith("[baselines]")]
    assert len(err) == 1 and "interrupted" in err[0] and str(out) in err[0], err  # besides progress lines
    doc = json.loads(out.read_text())
    assert doc["complete"] is False and list(doc["tasks"]) == ["dummy/arrow-1"]
    assert seen == [("dummy/arrow-1", "random"), ("dummy/arrow-1", "scripted")]


def test_partial_file__task_finished_after_a_torn_line_is_kept(tmp_path):
    """A kill while a line was being written leaves it torn; the next task's line must not be
    glued onto it (that task would be lost on the next resume)."""
    from eval.benchmark import load_partial, run_key
    out, seeds = tmp_path / "res.json", eval_seeds(3)
    run_tasks(TASKS[:1], seeds, interrupting_evaluator([], None), "random", out)
    with open(partial_path(out), "a") as f:
        f.write('{"key": "random@')
    run_tasks(TASKS[:2], seeds, interrupting_evaluator([], None), "random", out)
    assert sorted(load_partial(partial_path(out), run_key("random", seeds))) == ["a/one", "a/two"]
