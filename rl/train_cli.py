"""`glyphjax-train`: the Hydra entry point of the trainer (conf/train.yaml, keys in rl/config.py).

pyproject: `glyphjax-train = "rl.train_cli:main"`. Bare `glyphjax-train` is the quick CPU demo;
paper settings are presets (`+experiment=glyphbench`, `-m +experiment=snake_grid`). Configuration
errors (an unknown key or wrong type, rl/trainer.py `ConfigError`, a bad checkpoint) print one
line and exit with status 2 before any model is loaded or any rollout runs. A policy server that
fails mid-run prints one line (what was done, the last checkpoint, how to resume) and exits with
status 3; Ctrl-C prints where the partial results are and exits with status 130.
"""

from __future__ import annotations

import os
from pathlib import Path

from rl.hydra_cli import CONF_DIR, CLISpec, fail, interrupted, run_cli

APP = "glyphjax-train"


def spec() -> CLISpec:
    from rl.config import MOVED_KEYS, TrainConfig, register_train_schema
    return CLISpec(
        app=APP, description="group-relative RL of a language-model policy on glyph games (rl/trainer.py)",
        config_name="train", register=register_train_schema,
        groups={"model": None, "policy": ["local", "vllm"], "rl": None, "tasks": None, "harness": None,
                "experiment": None},
        examples=["glyphjax-train                                  the quick CPU demo (tiny model, dummy/arrow-1)",
                  "glyphjax-train +experiment=glyphbench model.path=CKPT policy=vllm server.url=URL",
                  "glyphjax-train -m +experiment=snake_grid_toy    the Snake grid at toy scale (~16 min, 2 CPUs)",
                  "glyphjax-train out_dir=runs/x resume=true       continue a run from its last checkpoint"],
        moved_keys=MOVED_KEYS, schema=TrainConfig)


def _interrupted_where(cfg) -> str:
    """The run directory and, when a checkpoint exists, the command that continues from it."""
    from rl import checkpoint as ckpt
    out = str(cfg.out_dir)
    ckpt_dir = str(cfg.ckpt_dir or Path(out) / "checkpoints")
    step = ckpt.latest_step(ckpt_dir) if Path(ckpt_dir).is_dir() else None
    resume = (f"; continue from update {step} with out_dir={out} resume=true" if step is not None
              else " (no checkpoint yet)")
    return f"{out} (metrics.jsonl){resume}"


def _run(cfg) -> None:
    from rl.checkpoint import CheckpointError
    from rl.distributed import initialize
    from rl.policies.vllm import PolicyServerError
    from rl.trainer import ConfigError, train
    try:
        initialize(cfg.get("distributed"))
    except ValueError as e:
        fail(APP, f"configuration: {e}")
    try:
        train(cfg)
    except (ConfigError, CheckpointError) as e:
        fail(APP, f"configuration: {e}")
    except PolicyServerError as e:
        fail(APP, f"policy server: {e}", status=3)
    except KeyboardInterrupt:
        interrupted(APP, _interrupted_where(cfg))


def main(argv: list[str] | None = None) -> None:
    run_cli(spec(), _run, argv)


def compose(overrides: list[str] | None = None, out_dir: str | os.PathLike | None = None):
    """The composed training config without running Hydra's job machinery (tests, notebooks)."""
    from hydra import compose as hcompose
    from hydra import initialize_config_dir
    from omegaconf import OmegaConf, open_dict

    from rl.config import register_train_schema
    register_train_schema()
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        cfg = hcompose(config_name="train", overrides=list(overrides or []))
    with open_dict(cfg):
        cfg.out_dir = str(out_dir) if out_dir is not None else "runs/train/compose"
    OmegaConf.set_struct(cfg, False)
    return cfg


if __name__ == "__main__":
    main()
