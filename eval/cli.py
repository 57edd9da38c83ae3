"""`glyphjax-eval`: evaluate policies over a task set on held-out seeds (conf/eval.yaml, keys in eval/config.py).

    glyphjax-eval                                    random + scripted baselines on Snake, 1,000 seeds
    glyphjax-eval policy=random tasks=classics seeds=200
    glyphjax-eval tasks=classics/snake-easy          a task id or glob where a task set is expected
    glyphjax-eval tasks.ids='[classics/snake-*,dummy/*]'
    glyphjax-eval policy=local model=PATH            LLM evaluation through rl.llm_eval.evaluate_llm
    glyphjax-eval policy=vllm server.url=URL model=NAME
    glyphjax-eval -m policy=random,scripted          a sweep: one directory per job
    glyphjax-eval suite=reasoning_gym policy=vllm server.url=URL model=NAME [reasoning_gym.compare=RESULTS]
                                                     Reasoning Gym transfer (eval/reasoning_transfer.py)

Every run writes to its own directory (Hydra's run dir `runs/eval/<time>`, for `-m`
`runs/eval-sweep/<time>/<job>`): `.hydra/config.yaml`, `results.json`, and for LLM policies
`trajectories.jsonl` and `replay.html`; `out=PATH` puts the results JSON (and the trajectories
beside it, `PATH.trajectories.jsonl`) there instead. Prints a table per policy (a row per task:
mean return with 95% bootstrap interval, success rate, mean length; the suite-balanced score).
Errors a user can cause (unknown key or task id, bad values) print one line and exit with status
2; Ctrl-C prints where the partial results are and exits with status 130.
"""

from __future__ import annotations

import os
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from eval.config import EvalConfig, register_eval_schema
from rl.hydra_cli import CONF_DIR, CLISpec, interrupted, run_cli
from rl.hydra_cli import fail as cli_fail

APP = "glyphjax-eval"
EXIT_USAGE = 2
register_eval_schema()  # conf/eval.yaml extends schema/eval: composing it (tests, notebooks) needs this


def fail(message: str) -> None:
    cli_fail(APP, message)


def spec() -> CLISpec:
    return CLISpec(
        app=APP, description="evaluate a policy over a task set on held-out seeds; each run gets its own directory",
        config_name="eval", register=register_eval_schema, schema=EvalConfig,
        groups={"tasks": None, "policy": None, "opponent": None, "harness": None, "model": None},
        examples=["glyphjax-eval                                  random + scripted baselines on Snake",
                  "glyphjax-eval policy=random tasks=classics seeds=200",
                  "glyphjax-eval tasks=classics/snake-easy policy=scripted",
                  "glyphjax-eval tasks=zerosum policy=random opponent=minimax opponent.depth=2   per seat",
                  "glyphjax-eval tasks=zerosum_heldout policy=local model=RUN opponent=checkpoint:RUN2   series",
                  "glyphjax-eval policy=local model=PATH tasks=snake seeds=25",
                  "glyphjax-eval -m policy=random,scripted tasks=dummy   one directory per job",
                  "glyphjax-eval suite=reasoning_gym policy=vllm server.url=URL model=NAME   transfer eval"])


def output_paths(cfg: DictConfig, run_dir: Path | None) -> tuple[str | None, str | None]:
    """(results JSON, trajectories JSONL): `out=PATH` when given, else inside the run directory."""
    if cfg.out:
        return str(cfg.out), f"{cfg.out}.trajectories.jsonl"
    if run_dir is None:
        return None, None
    return str(run_dir / "results.json"), str(run_dir / "trajectories.jsonl")


def model_label(cfg: DictConfig) -> str | None:
    """The model an LLM policy runs: `model=PATH_OR_NAME`, else the preset's path or name."""
    if cfg.get("model_ref"):
        return str(cfg.model_ref)
    m = cfg.get("model")
    if m:
        return str(m.get("path") or m.get("name"))
    return None


def run_eval(cfg: DictConfig, run_dir: Path | None = None) -> dict:
    """The evaluation the config asks for, written under `run_dir` (or `out`); returns the results document."""
    import glyphjax
    from eval.benchmark import array_evaluator, results_document, run_tasks, write_json
    from eval.runid import array_identity
    from eval.runner import NoScriptedPolicy
    from eval.seeds import eval_seeds
    from eval.tables import print_summary_table
    from eval.tasksets import tasks_from_config

    if cfg.get("suite") is not None:
        return run_suite(cfg, run_dir)
    try:
        tasks = tasks_from_config(cfg.tasks, hosts=True)
    except glyphjax.UnknownTaskError as e:
        fail(str(e))
    from glyphjax.core.host import is_host
    hosts = [t for t in tasks if is_host(t)]
    pol = cfg.policy
    max_turns = cfg.get("max_turns")
    if max_turns is not None and int(max_turns) < 1:
        fail(f"max_turns must be >= 1 (or null for the task's step budget), got {max_turns}")
    if max_turns is not None and pol.get("kind") == "array" and len(hosts) < len(tasks):
        fail("max_turns caps host tasks (nethack/full) and LLM episodes; array policies on JAX tasks play "
             "the task's full step budget: drop max_turns or the JAX tasks")
    if hosts and (cfg.get("split") is not None or cfg.get("opponent") is not None):
        fail(f"{', '.join(hosts)}: a host env (the real game, one player, no level split) takes no "
             "split= or opponent=; drop them")
    try:
        n_seeds = int(cfg.seeds if cfg.seeds is not None else pol.get("default_seeds", 1000))
        seeds = eval_seeds(n_seeds, int(cfg.seed_start))
        if int(cfg.batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, got {cfg.batch_size}")
    except (ValueError, TypeError) as e:
        fail(f"bad seeds/seed_start/batch_size ({e}); e.g. seeds=1000 seed_start=1000000000")
    split = cfg.get("split")
    if split is not None:
        from eval.generalisation import split_params
        try:
            for t in tasks:
                split_params(t, str(split), int(cfg.num_levels))
        except ValueError as e:
            fail(str(e))
        if pol.get("kind") != "array":
            fail("split= is supported for array policies (random, scripted) only; "
                 "drop split for LLM evaluation")
    out, trajectories = output_paths(cfg, run_dir)
    from eval.series_eval import is_series_run
    if is_series_run(cfg):
        return _series(cfg, tasks, out)
    runs, skipped, seats, errors = {}, {}, False, {}
    if cfg.get("opponent") is not None:
        if pol.get("kind") != "array" or split is not None:
            fail("opponent= with an LLM policy plays best-of-three series on zero-sum variants only "
                 "(e.g. tasks=zerosum_heldout); on other tasks opponent= plays array policies (random, scripted) "
                 "per seat; drop opponent for LLM evaluation (glyphjax-train eval.opponent sets the opponent of training-time evaluation)")
        runs, skipped = _versus_runs(cfg, tasks, seeds, out)
        seats = True
    elif pol.get("kind") == "array":
        from eval.host import HOST_ARRAY_POLICIES, not_applicable, with_host_tasks
        for name in pol.policies:
            evaluate = array_evaluator(name, int(cfg.batch_size), split, int(cfg.num_levels))
            usable = tasks
            if hosts:  # host tasks: policy=random through their batch (eval/host.py), others skipped
                evaluate = with_host_tasks(evaluate, str(name), max_turns, int(cfg.batch_size))
                if name not in HOST_ARRAY_POLICIES:
                    usable = [t for t in tasks if t not in hosts]
                    skipped[name] = "; ".join(not_applicable(str(name), t) for t in hosts)
                    if not usable:
                        continue
            if name == "scripted":
                usable = [t for t in usable if glyphjax.make(t).scripted_policy is not None]
                missing = [t for t in tasks if t not in usable and t not in hosts]
                if missing:
                    skipped[name] = "; ".join(filter(None, [
                        skipped.get(name), f"no scripted policy for {len(missing)} task(s): {', '.join(missing)}"]))
                if not usable:
                    continue
            identity = array_identity() if max_turns is None else f"{array_identity()} max_turns={int(max_turns)}"
            try:
                runs[name] = run_tasks(usable, seeds, evaluate, name, out=out, resume=bool(cfg.resume),
                                       progress=bool(cfg.progress), identity=identity)
            except NoScriptedPolicy as e:
                fail(str(e))
            if getattr(evaluate, "errors", None) and any(evaluate.errors.values()):
                errors[name] = {t: e for t, e in evaluate.errors.items() if e}
        if hosts and not runs:
            fail("; ".join(skipped.values()))
    elif pol.get("kind") == "llm":
        from eval.llm import llm_evaluator, llm_identity
        try:
            evaluate = llm_evaluator(cfg, trajectories=trajectories)
        except (ValueError, RuntimeError) as e:
            fail(str(e))
        label = f"{pol.name}:{model_label(cfg)}"
        try:
            runs[label] = run_tasks(tasks, seeds, evaluate, label, out=out, resume=bool(cfg.resume),
                                    progress=bool(cfg.progress), identity=llm_identity(cfg))
            if any(evaluate.errors.values()):
                errors[label] = {t: e for t, e in evaluate.errors.items() if e}
        except (OSError, RuntimeError, ValueError) as e:  # unreachable server, bad checkpoint, ...
            again = f"rerun with hydra.run.dir={run_dir}" if run_dir and not cfg.out else "rerun"
            saved = f"; finished tasks are saved in {out}.partial.jsonl, {again} to resume" if out else ""
            fail(f"{pol.name} evaluation failed: {type(e).__name__}: {e}{saved}")
    else:
        fail(f"policy {pol.get('name')!r} has unknown kind {pol.get('kind')!r} (expected 'array' or 'llm')")
    doc = results_document(runs, OmegaConf.to_container(cfg, resolve=True),
                           int(cfg.bootstrap.resamples), int(cfg.bootstrap.seed), float(cfg.bootstrap.confidence))
    if skipped:
        doc["skipped"] = skipped
    if errors:  # episodes whose game failed (host tasks): kept as truncated, the reason per seed
        doc["errors"] = {label: {t: {str(s): why for s, why in e.items()} for t, e in per.items()}
                         for label, per in errors.items()}
    print_summary_table(doc)
    if seats:
        from eval.versus import opponent_label, print_seat_tables, seat_summary
        doc["seats"] = seat_summary(runs, int(cfg.bootstrap.resamples), int(cfg.bootstrap.seed),
                                    float(cfg.bootstrap.confidence))
        doc["opponent"] = opponent_label(str(cfg.opponent.name), int(cfg.opponent.depth))
        print_seat_tables(doc["seats"], doc["opponent"])
    witness = [t for t in tasks if t.startswith("witness/")]
    if witness and pol.get("kind") == "array":  # WITNESS: RHAE-L5/L20, solved slots (eval/witness.py)
        from eval.witness import play_runs, report
        for name in runs:
            print(f"\nWITNESS RHAE, policy {name}:\n" + report(play_runs(witness, name, list(seeds))))
    elif witness and getattr(evaluate, "witness_runs", None):  # text policy: runs replayed from its actions
        from eval.witness import report
        print(f"\nWITNESS RHAE, policy {label}:\n" + report(evaluate.witness_runs))
        doc["witness_runs"] = [r.to_json() for r in evaluate.witness_runs]  # per run: solved, calls, why it ended
    if out:
        write_json(out, doc)
    if trajectories and cfg.replay and Path(trajectories).is_file():
        write_replay(trajectories, Path(trajectories).with_name("replay.html") if run_dir and not cfg.out
                     else Path(trajectories).with_suffix(".html"))
    return doc


def _series(cfg: DictConfig, tasks: list[str], out: str | None) -> dict:
    """Best-of-three series against the opponent (eval/series_eval.py): `seeds` episodes per
    variant (default 40), written to `out`."""
    from eval.benchmark import write_json
    from eval.seeds import eval_seeds
    from eval.series_eval import EPISODES_PER_VARIANT, run_series
    try:
        seeds = eval_seeds(int(cfg.seeds) if cfg.seeds is not None else EPISODES_PER_VARIANT, int(cfg.seed_start))
        doc = run_series(cfg, tasks, [int(s) for s in seeds])
    except (ValueError, FileNotFoundError) as e:
        fail(str(e))
    doc["config"] = OmegaConf.to_container(cfg, resolve=True)
    if out:
        write_json(out, doc)
    return doc


def run_suite(cfg: DictConfig, run_dir: Path | None) -> dict:
    """`suite=NAME`: a non-game evaluation suite (reasoning_gym: eval/reasoning_transfer.py)."""
    if cfg.suite != "reasoning_gym":
        fail(f"unknown suite {cfg.suite!r}; the suites are: reasoning_gym (or leave suite unset for games)")
    from eval.reasoning_transfer import run_from_config
    try:
        return run_from_config(cfg, output_paths(cfg, run_dir)[0])
    except (ImportError, OSError, RuntimeError, ValueError) as e:
        fail(f"reasoning_gym evaluation failed: {type(e).__name__}: {e}")


def _versus_runs(cfg: DictConfig, tasks: list[str], seeds, out: str | None) -> tuple[dict, dict]:
    """Per-seat runs of each array policy against `cfg.opponent` (eval/versus.py): (runs labelled
    `<policy>@seat<i>`, skipped tasks per policy)."""
    from eval.benchmark import run_tasks
    from eval.runid import array_identity
    from eval.versus import check_opponent, opponent_label, playable, seat_evaluator
    name, depth = str(cfg.opponent.name), cfg.opponent.depth
    try:
        check_opponent(name, depth)
    except ValueError as e:
        fail(str(e))
    runs, skipped = {}, {}
    identity = array_identity() + "|vs " + opponent_label(name, int(depth))
    for policy in cfg.policy.policies:
        usable, why = playable(tasks, str(policy), name, int(depth))
        if why:
            skipped[str(policy)] = f"{len(why)} task(s) skipped: " + "; ".join(f"{t}: {w}" for t, w in why.items())
        if not usable:
            continue
        for seat in range(max(_seats(t) for t in usable)):
            label = f"{policy}@seat{seat}"
            runs[label] = run_tasks([t for t in usable if seat < _seats(t)], seeds,
                                    seat_evaluator(str(policy), name, int(depth), seat, int(cfg.batch_size)),
                                    label, out=out, resume=bool(cfg.resume), progress=bool(cfg.progress),
                                    identity=identity)
    if not runs:
        fail(f"opponent={name}: no task of the set can be played per seat ({'; '.join(skipped.values())})")
    return runs, skipped


def _seats(task: str) -> int:
    """How many seats the task has."""
    import glyphjax
    return glyphjax.make(task).card.num_players


def write_replay(trajectories: str, page: Path) -> None:
    """The self-contained HTML replay of a run's trajectories (recorded observations, no re-simulation)."""
    from eval.replay import build_html, load_episodes, page_data
    page.write_text(build_html(page_data(load_episodes(trajectories), rebuild=False),
                               title=f"glyphjax replay: {page.parent.name}"), encoding="utf-8")


def _job(cfg: DictConfig) -> None:
    """One Hydra job: say where it writes, evaluate, say where it wrote; Ctrl-C keeps what finished."""
    from hydra.core.hydra_config import HydraConfig
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    where = str(cfg.out) if cfg.out else str(run_dir)
    print(f"{APP}: writing to {where}", flush=True)
    try:
        run_eval(cfg, run_dir)
    except KeyboardInterrupt:
        interrupted(APP, f"{where} (finished tasks in *.partial.jsonl; rerun with hydra.run.dir={run_dir} to resume)")
    out, trajectories = output_paths(cfg, run_dir)
    written = [p for p in (out, trajectories) if p and Path(p).is_file()]
    print(f"{APP}: results in {where}" + (f" ({', '.join(Path(p).name for p in written)})" if written else ""),
          flush=True)


def model_presets() -> set[str]:
    d = os.path.join(CONF_DIR, "model")
    return {f[:-5] for f in os.listdir(d) if f.endswith(".yaml")} if os.path.isdir(d) else set()


def rewrite_model_arg(argv: list[str]) -> list[str]:
    """`model=PATH_OR_NAME` -> `model_ref=...` unless it names a conf/model preset (then it stays a
    Hydra config-group choice), so both `model=tiny` and `model=/ckpt/dir` work."""
    presets = model_presets()
    out = []
    for a in argv:
        if a.startswith("opponent=checkpoint:"):  # opponent=checkpoint:<dir>: the checkpoint preset + its path
            out += ["opponent=checkpoint", "opponent.path=" + a[len("opponent=checkpoint:"):]]
            continue
        if a.startswith("model=") and a[len("model="):] not in presets and a != "model=null":
            a = "model_ref=" + a[len("model="):]
        out.append(a)
    return out


def eval_main(argv: list[str] | None = None) -> None:
    """Console-script entry point (`glyphjax-eval`)."""
    run_cli(spec(), _job, argv, rewrite=rewrite_model_arg)


if __name__ == "__main__":
    eval_main()
