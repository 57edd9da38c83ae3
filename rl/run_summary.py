"""The end of a training run: save the final model, draw the learning curve, say where things are.

`finish_run(trainer, records)` runs when `rl.trainer.train`'s loop returns. A run that spent its
budget gets `RUN/model`, its final weights as a Hugging Face directory (rl.export.write_model_dir;
`policy=local model=RUN` loads it). Every run gets `RUN/report/` (learning curve and report.md
drawn by eval.reports from `RUN/metrics.jsonl`: the one place rl reaches up into eval, imported
lazily at the very end), `RUN/summary.json`, and a printed summary: held-out return before and
after, the paths, and the `glyphjax-eval` command that evaluates the final model on the trainer's
own held-out episodes (same tasks, seeds, harness, sampling seed and temperature, through the
same code path, rl.llm_eval.evaluate_per_task), so it reproduces the final figure exactly.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import Path
from typing import Any, Sequence


@dataclasses.dataclass
class RunSummary:
    """What a finished (or stopped) run produced and where it is."""

    out_dir: Path
    updates: int
    num_updates: int
    heldout: list[tuple[int, float]]  # (update, held-out mean return) of every evaluation, in order
    metrics: Path
    checkpoints: Path | None
    model: Path | None
    curve: Path | None
    eval_overrides: list[str] | None
    notes: list[str]

    @property
    def eval_command(self) -> str | None:
        return None if self.eval_overrides is None else shlex.join(["glyphjax-eval", *self.eval_overrides])

    def lines(self) -> list[str]:
        """The printed summary, one fact per line."""
        out = [f"== glyphjax-train finished: {self.updates} of {self.num_updates} updates, out_dir {self.out_dir} =="]
        if self.heldout:
            (u0, r0), (u1, r1) = self.heldout[0], self.heldout[-1]
            out.append(f"held-out return: {r0:.3f} at update {u0} -> {r1:.3f} at update {u1}")
        else:
            out.append("held-out return: not evaluated (set eval.every=N for held-out evaluations)")
        out += [f"metrics:        {self.metrics}",
                f"checkpoints:    {self.checkpoints or 'none (ckpt_every=0)'}",
                f"final model:    {self.model or 'not saved (the run stopped before its budget)'}",
                f"learning curve: {self.curve or 'not drawn'}"]
        if self.eval_command:
            out.append(f"evaluate the final model on the same held-out episodes:\n  {self.eval_command}")
        return out + [f"note: {n}" for n in self.notes]

    def to_json(self) -> dict:
        d = {k: (str(v) if isinstance(v, Path) else v) for k, v in dataclasses.asdict(self).items()}
        return {**d, "eval_command": self.eval_command}


def _get(cfg: Any, path: str, default: Any = None) -> Any:
    cur = cfg
    for part in path.split("."):
        cur = cur.get(part) if isinstance(cur, dict) else None
    return default if cur is None else cur


def eval_overrides(cfg: dict, task_ids: Sequence[str], model_dir: Path | str, out: Path | str) -> list[str]:
    """`glyphjax-eval` arguments that play the trainer's held-out evaluation with the model in
    `model_dir`: the trainer's tasks, seeds, harness and evaluation sampling (rl/trainer.py evaluate)."""
    temperature = _get(cfg, "eval.temperature", _get(cfg, "policy.temperature", 1.0))
    max_new = _get(cfg, "policy.max_new_tokens", 4096)
    h = cfg.get("harness") or {}
    return ["policy=local", f"model={model_dir}", f"tasks.ids=[{','.join(task_ids)}]",
            f"seeds={int(_get(cfg, 'eval.seeds', 4))}", f"harness={h.get('name', 'basic')}",
            f"harness.history={int(h.get('history', 0))}", f"harness.memory={str(bool(h.get('memory'))).lower()}",
            f"harness.memory_chars={int(h.get('memory_chars', 2000))}",
            f"policy.temperature={float(temperature)}", f"policy.top_p={float(_get(cfg, 'policy.top_p', 1.0))}",
            f"policy.top_k={int(_get(cfg, 'policy.top_k', 0))}", f"policy.max_new_tokens={int(max_new)}",
            f"policy.seed={int(_get(cfg, 'eval.sampling_seed', 12345))}",
            f"policy.action_tokens={str(bool(_get(cfg, 'rl.action_tokens', False))).lower()}"] \
        + (["policy.constrained_actions=true"] if _get(cfg, "policy.constrained_actions") else []) \
        + ([f"max_turns={int(_get(cfg, 'rl.max_turns'))}"] if _get(cfg, "rl.max_turns") else []) + [f"out={out}"]


def _exactness_notes(cfg: dict) -> list[str]:
    """Settings under which glyphjax-eval cannot replay the trainer's held-out episodes exactly."""
    notes = []
    if int(_get(cfg, "eval.repeats", 1)) != 1:
        notes.append("eval.repeats != 1: glyphjax-eval plays each seed once, so its figure can differ")
    if _get(cfg, "policy.name") == "vllm":
        notes.append("the trainer sampled through vLLM; policy=local samples the same weights with its own RNG")
    return notes


def _heldout(metrics: Path) -> list[tuple[int, float]]:
    from eval.reports import load_metrics  # lazily: rl depends on eval only here, at the end of a run
    if not metrics.is_file():
        return []
    return [(int(e["update"]), float(e["return_mean"])) for e in load_metrics(metrics)[1]]


def _draw_curve(metrics: Path, out_dir: Path, notes: list[str]) -> Path | None:
    """Learning curve + report.md under out_dir/report by eval.reports; a failure is a note, not a crash."""
    if not metrics.is_file():
        return None
    try:
        from eval.reports import make_report
        report = make_report(metrics=[metrics], out_dir=out_dir / "report")
    except ImportError as e:
        notes.append(f"learning curve not drawn: {e} (pip install 'glyphjax[plot]')")
        return None
    except (OSError, ValueError, KeyError) as e:
        notes.append(f"learning curve not drawn: {type(e).__name__}: {e}")
        return None
    return report.parent / "learning_curves.png"


def finish_run(trainer: Any, records: Sequence[dict]) -> RunSummary | None:
    """Save the final model (when the budget is spent), draw the curve, write and print the summary
    (across processes: process 0; the others return None)."""
    import jax

    from rl import checkpoint as ckpt
    from rl.export import FINAL_MODEL_DIR, write_model_dir

    plan, cfg = trainer.plan, trainer.cfg
    out = plan.out_dir
    notes: list[str] = []
    model_dir = None
    done = trainer.update >= plan.num_updates
    model = trainer.step.model() if done else None  # across processes these are collectives (every process
    saved = bool(ckpt.all_steps(str(plan.ckpt_dir)))  # gathers the weights, opens the Orbax manager) ...
    if jax.process_index() != 0:  # ... and only process 0 writes the run's files
        return None
    if done:
        model_dir = write_model_dir(model, trainer.model_path, out / FINAL_MODEL_DIR,
                                    {"run_dir": str(out.resolve()), "update": trainer.update, "source": "final"})
    else:
        notes.append(f"stopped after {trainer.update} of {plan.num_updates} updates; continue with resume=true")
    metrics = out / "metrics.jsonl"
    heldout = _heldout(metrics)
    overrides = None
    if model_dir is not None and heldout:
        overrides = eval_overrides(cfg, plan.eval_ids or plan.task_ids, model_dir, out / "eval_final.json")
        notes += _exactness_notes(cfg)
    if getattr(trainer, "best", None) is not None:  # eval.select: the checkpoint chosen on the held-out tasks
        notes.append(f"best held-out return {trainer.best[0]:.3f} at update {trainer.best[1]}: weights in {out / 'best'}")
    if overrides and _get(cfg, "eval.call_budget"):
        notes.append(f"the trainer's held-out runs used eval.call_budget={_get(cfg, 'eval.call_budget')} model calls; "
                     "glyphjax-eval plays 1,000 per run")
    summary = RunSummary(out, trainer.update, plan.num_updates, heldout, metrics,
                         plan.ckpt_dir if saved else None, model_dir,
                         _draw_curve(metrics, out, notes), overrides, notes)
    (out / "summary.json").write_text(json.dumps(summary.to_json(), indent=1) + "\n")
    if _get(cfg, "log.console", True):
        print("\n".join(summary.lines()))
    return summary
