"""Training run -> Hugging Face model directory: `glyphjax-export RUN_DIR [--step N] OUT`.

A run directory is what `glyphjax-train` writes (`out_dir`): `config.json` (the resolved training
config), `checkpoints/<step>/` (Orbax) and, at the end of a run, `model/` (the final weights,
rl/run_summary.py). An export reads the weights of one checkpoint (the latest, or `--step N`),
rebuilds the architecture from the run's base model (`model.path`; null = the tiny checkpoint)
and writes `config.json` + safetensors (rl.models.hf_io) + the base model's tokenizer files +
`chat_template.jinja`, which `policy=local`, transformers and vLLM load. Weights keep the
trainer's dtype (float32 by default) unless `--dtype` casts them; tied embeddings stay tied.

`run_model_dir(RUN_DIR)` is how `model=RUN_DIR` / `model.path=RUN_DIR` load a run: the final
model if the run finished, else the latest checkpoint exported once into `RUN_DIR/export/step-N`
and reused. `glyphjax_export.json` in an exported directory names the run and step it came from.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

from rl.checkpoint import CheckpointError

EXPORT_MARKER = "glyphjax_export.json"
FINAL_MODEL_DIR = "model"
EXPORT_CACHE_DIR = "export"


# --- run directories -----------------------------------------------------------------------------

def read_run_config(run_dir: str | os.PathLike) -> dict:
    """The resolved training config a run directory holds (`config.json` written by the trainer)."""
    path = Path(run_dir) / "config.json"
    if not path.is_file():
        raise CheckpointError(f"{run_dir} is not a training run directory (no config.json); pass the out_dir "
                              "of a glyphjax-train run (runs/train/<date>)")
    try:
        cfg = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise CheckpointError(f"{path} is not valid JSON ({e}); is this a glyphjax-train run directory?") from None
    if not isinstance(cfg, dict) or "rl" not in cfg:
        raise CheckpointError(f"{path} is not a training config (no `rl` section); pass the out_dir of a "
                              "glyphjax-train run, or use a Hugging Face model directory as it is")
    return cfg


def is_run_dir(path: str | os.PathLike) -> bool:
    """True for a glyphjax-train output directory (its config.json is a training config, not HF's)."""
    try:
        read_run_config(path)
    except CheckpointError:
        return False
    return True


def checkpoint_dir(run_dir: str | os.PathLike, cfg: dict) -> Path:
    """Where the run's Orbax checkpoints are: `ckpt_dir` if it was set (and exists), else RUN/checkpoints."""
    own = Path(run_dir) / "checkpoints"
    configured = cfg.get("ckpt_dir")
    if configured and Path(configured).is_dir() and not own.is_dir():
        return Path(configured)
    return own


def _steps(run_dir: Path, cfg: dict) -> tuple[Path, list[int]]:
    from rl import checkpoint as ckpt

    directory = checkpoint_dir(run_dir, cfg)
    steps = ckpt.all_steps(str(directory))
    if not steps:
        final = run_dir / FINAL_MODEL_DIR
        hint = (f"; its final model is already a Hugging Face directory: {final}" if (final / EXPORT_MARKER).is_file()
                else "; train with ckpt_every=N to save checkpoints (every N updates and at the end)")
        raise CheckpointError(f"run {run_dir} has no checkpoints in {directory}{hint}")
    return directory, steps


def base_model_path(cfg: dict) -> Path:
    """The Hugging Face directory the run started from (architecture and tokenizer)."""
    from rl.tiny import resolve_model_path

    model = cfg.get("model") or {}
    return resolve_model_path(model.get("path"), seed=int(model.get("seed") or 0))


# --- weights -------------------------------------------------------------------------------------

def checkpoint_model(run_dir: str | os.PathLike, step: int | None = None) -> tuple[Any, int, Path]:
    """(Qwen3 model with the checkpoint's weights, step, base model path) of a run's checkpoint."""
    from flax import nnx

    from rl import checkpoint as ckpt
    from rl.models import hf_io
    from rl.models.qwen3 import Qwen3Config

    run_dir = Path(run_dir)
    cfg = read_run_config(run_dir)
    directory, steps = _steps(run_dir, cfg)
    if step is None:
        step = steps[-1]
    elif step not in steps:
        raise CheckpointError(f"run {run_dir} has no checkpoint for step {step}; saved steps: "
                              f"{', '.join(map(str, steps))} (in {directory})")
    base = base_model_path(cfg)
    config = Qwen3Config.from_json(base / "config.json")
    dtype = (cfg.get("model") or {}).get("dtype")
    if dtype:
        config = dataclasses.replace(config, dtype=dtype)
    graphdef, state, rest = nnx.split(hf_io._abstract_model(config), nnx.Param, ...)
    params, _ = ckpt.restore_params(str(directory), nnx.to_pure_dict(state), step)
    nnx.replace_by_pure_dict(state, params)
    return nnx.merge(graphdef, state, rest), step, base


def write_model_dir(model: Any, base: str | os.PathLike, out: str | os.PathLike, origin: dict,
                    dtype: str | None = None) -> Path:
    """Write `model` as a complete Hugging Face directory at `out` (weights, config, the base model's
    tokenizer files, chat template, `glyphjax_export.json` = origin). Written beside `out` and renamed
    into place, so a half-written export is never left under the final name."""
    from rl.models import hf_io

    base, out = Path(base), Path(out)
    if out.exists() and any(out.iterdir()) and not (out / EXPORT_MARKER).is_file():
        raise CheckpointError(f"{out} exists and is not a glyphjax export (no {EXPORT_MARKER}); it is left "
                              "untouched: choose a new directory or remove it yourself")
    if not (base / "tokenizer.json").is_file() and not (base / "vocab.json").is_file():
        raise CheckpointError(f"the run's base model {base} has no tokenizer files (tokenizer.json or vocab.json); "
                              "an export needs them to be loadable: point model.path at a complete checkpoint")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        hf_io.save_model(model, tmp, dtype=dtype, copy_tokenizer_from=base)
        _write_chat_template(tmp)
        (tmp / EXPORT_MARKER).write_text(json.dumps(origin, indent=1, default=str) + "\n")
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _write_chat_template(directory: Path) -> None:
    """`chat_template.jinja` from tokenizer_config.json's template when the base has no separate file
    (transformers >= 4.43 and vLLM read either); an export without any template is refused."""
    jinja = directory / "chat_template.jinja"
    if jinja.is_file():
        return
    cfg_path = directory / "tokenizer_config.json"
    template = json.loads(cfg_path.read_text()).get("chat_template") if cfg_path.is_file() else None
    if not isinstance(template, str) or not template:
        raise CheckpointError(f"the run's base model has no chat template (tokenizer_config.json "
                              f"`chat_template` or chat_template.jinja); cannot export a chat model to {directory}")
    jinja.write_text(template)


def export_run(run_dir: str | os.PathLike, out: str | os.PathLike, step: int | None = None,
               dtype: str | None = None) -> Path:
    """Export checkpoint `step` (latest if None) of a run to the Hugging Face directory `out`."""
    model, step, base = checkpoint_model(run_dir, step)
    origin = {"run_dir": str(Path(run_dir).resolve()), "step": step, "source": "checkpoint",
              "base_model": str(base)}
    return write_model_dir(model, base, out, origin, dtype=dtype)


def run_model_dir(run_dir: str | os.PathLike) -> Path:
    """A loadable model directory for a run: RUN/model (the final weights) if present, else the
    latest checkpoint exported to RUN/export/step-N (exported once, then reused)."""
    run_dir = Path(run_dir)
    final = run_dir / FINAL_MODEL_DIR
    if (final / EXPORT_MARKER).is_file():
        return final
    cfg = read_run_config(run_dir)
    _, steps = _steps(run_dir, cfg)
    cached = run_dir / EXPORT_CACHE_DIR / f"step-{steps[-1]}"
    if not (cached / EXPORT_MARKER).is_file():
        print(f"[glyphjax] exporting {run_dir} checkpoint step {steps[-1]} to {cached}", file=sys.stderr)
        export_run(run_dir, cached, steps[-1])
    return cached


# --- CLI -----------------------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    """`glyphjax-export RUN_DIR [--step N] OUT`; returns the exit status (2 on a bad run/step/checkpoint)."""
    ap = argparse.ArgumentParser(prog="glyphjax-export", description="Write a training run's checkpoint as a "
                                 "Hugging Face model directory (safetensors, config, tokenizer, chat template) "
                                 "for policy=local, transformers and vLLM.")
    ap.add_argument("run_dir", metavar="RUN_DIR", help="a glyphjax-train out_dir (runs/train/<date>)")
    ap.add_argument("out", metavar="OUT", help="the directory to write (a previous export there is replaced; "
                    "any other non-empty directory is refused)")
    ap.add_argument("--step", type=int, default=None, help="checkpoint step (default: the latest)")
    ap.add_argument("--dtype", choices=("float32", "bfloat16", "float16"), default=None,
                    help="cast the weights (default: the trainer's dtype)")
    args = ap.parse_args(argv)
    from rl.models.hf_io import CheckpointError as WeightsError
    try:
        path = export_run(args.run_dir, args.out, args.step, args.dtype)
    except (CheckpointError, WeightsError, OSError) as e:
        print(f"glyphjax-export: error: {e}", file=sys.stderr)
        return 2
    origin = json.loads((path / EXPORT_MARKER).read_text())
    print(f"exported {args.run_dir} step {origin['step']} to {path}")
    return 0


def export_main() -> None:
    sys.exit(main())


if __name__ == "__main__":
    export_main()
