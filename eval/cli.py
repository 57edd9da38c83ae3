"""`glyphjax-eval`: evaluate policies over a task set on held-out seeds (Hydra config conf/eval.yaml).

    glyphjax-eval                                    random + scripted baselines on Snake, 1,000 seeds
    glyphjax-eval policy=random tasks=classics seeds=200
    glyphjax-eval tasks.ids='[classics/snake-*,dummy/*]'
    glyphjax-eval policy=local model=PATH            LLM evaluation through rl.llm_eval.evaluate_llm
    glyphjax-eval policy=vllm server.url=URL model=NAME

Prints a table per policy (a row per task: mean return with 95% bootstrap interval, success rate,
mean length; the suite-balanced score) and writes the results JSON to `out`. Errors a user can
cause (unknown task id, bad values) print one message and exit with status 2, no traceback.
"""

from __future__ import annotations

import os
import sys

import hydra
from omegaconf import DictConfig, OmegaConf

CONF_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, "conf"))
EXIT_USAGE = 2


def fail(message: str) -> None:
    print(f"glyphjax-eval: error: {message}", file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


def model_label(cfg: DictConfig) -> str | None:
    """The model an LLM policy runs: `model=PATH_OR_NAME`, else the preset's path or name."""
    if cfg.get("model_ref"):
        return str(cfg.model_ref)
    m = cfg.get("model")
    if m:
        return str(m.get("path") or m.get("name"))
    return None


def run_eval(cfg: DictConfig) -> dict:
    """The evaluation the config asks for; returns the results document."""
    import glyphjax
    from eval.benchmark import array_evaluator, results_document, run_tasks, write_json
    from eval.runid import array_identity
    from eval.runner import NoScriptedPolicy
    from eval.seeds import eval_seeds
    from eval.tables import print_summary_table
    from eval.tasksets import tasks_from_config

    try:
        tasks = tasks_from_config(cfg.tasks)
    except glyphjax.UnknownTaskError as e:
        fail(str(e))
    pol = cfg.policy
    try:
        n_seeds = int(cfg.seeds if cfg.seeds is not None else pol.get("default_seeds", 1000))
        seeds = eval_seeds(n_seeds, int(cfg.seed_start))
        if int(cfg.batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, got {cfg.batch_size}")
    except (ValueError, TypeError) as e:
        fail(f"bad seeds/seed_start/batch_size ({e}); e.g. seeds=1000 seed_start=1000000000")
    runs, skipped = {}, {}
    if pol.get("kind") == "array":
        for name in pol.policies:
            evaluate = array_evaluator(name, int(cfg.batch_size))
            usable = tasks
            if name == "scripted":
                usable = [t for t in tasks if glyphjax.make(t).scripted_policy is not None]
                missing = [t for t in tasks if t not in usable]
                if missing:
                    skipped[name] = f"no scripted policy for {len(missing)} task(s): {', '.join(missing)}"
                if not usable:
                    continue
            try:
                runs[name] = run_tasks(usable, seeds, evaluate, name, out=cfg.out, resume=bool(cfg.resume),
                                       progress=bool(cfg.progress), identity=array_identity())
            except NoScriptedPolicy as e:
                fail(str(e))
    elif pol.get("kind") == "llm":
        from eval.llm import llm_evaluator, llm_identity
        try:
            evaluate = llm_evaluator(cfg)
        except (ValueError, RuntimeError) as e:
            fail(str(e))
        label = f"{pol.name}:{model_label(cfg)}"
        try:
            runs[label] = run_tasks(tasks, seeds, evaluate, label, out=cfg.out, resume=bool(cfg.resume),
                                    progress=bool(cfg.progress), identity=llm_identity(cfg))
        except (OSError, RuntimeError, ValueError) as e:  # unreachable server, bad checkpoint, ...
            saved = f"; finished tasks are saved in {cfg.out}.partial.jsonl, rerun to resume" if cfg.out else ""
            fail(f"{pol.name} evaluation failed: {type(e).__name__}: {e}{saved}")
    else:
        fail(f"policy {pol.get('name')!r} has unknown kind {pol.get('kind')!r} (expected 'array' or 'llm')")
    doc = results_document(runs, OmegaConf.to_container(cfg, resolve=True),
                           int(cfg.bootstrap.resamples), int(cfg.bootstrap.seed), float(cfg.bootstrap.confidence))
    if skipped:
        doc["skipped"] = skipped
    print_summary_table(doc)
    if cfg.out:
        write_json(cfg.out, doc)
        print(f"results written to {cfg.out}")
    return doc


@hydra.main(version_base=None, config_path=CONF_DIR, config_name="eval")
def _hydra_main(cfg: DictConfig) -> None:
    from eval.benchmark import EXIT_INTERRUPTED, EvaluationInterrupted
    try:
        run_eval(cfg)
    except EvaluationInterrupted as e:  # Ctrl-C: one line, finished tasks kept for a resume
        print(f"glyphjax-eval: {e}", file=sys.stderr)
        raise SystemExit(EXIT_INTERRUPTED) from None


def model_presets() -> set[str]:
    d = os.path.join(CONF_DIR, "model")
    return {f[:-5] for f in os.listdir(d) if f.endswith(".yaml")} if os.path.isdir(d) else set()


def rewrite_model_arg(argv: list[str]) -> list[str]:
    """`model=PATH_OR_NAME` -> `model_ref=...` unless it names a conf/model preset (then it stays a
    Hydra config-group choice), so both `model=tiny` and `model=/ckpt/dir` work."""
    presets = model_presets()
    out = []
    for a in argv:
        if a.startswith("model=") and a[len("model="):] not in presets and a != "model=null":
            a = "model_ref=" + a[len("model="):]
        out.append(a)
    return out


def eval_main() -> None:
    """Console-script entry point (`glyphjax-eval`)."""
    sys.argv[1:] = rewrite_model_arg(sys.argv[1:])
    try:
        _hydra_main()
    except KeyboardInterrupt:  # outside an evaluation (start-up, writing results)
        print("glyphjax-eval: interrupted", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    eval_main()
