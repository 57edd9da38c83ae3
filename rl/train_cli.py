"""`glyphjax-train`: the Hydra entry point of the trainer (conf/train.yaml).

pyproject: `glyphjax-train = "rl.train_cli:main"`. Configuration errors (rl/trainer.py
`ConfigError`, a bad checkpoint) print one clear line and exit with status 2 before any model is
loaded or any rollout runs. A policy server that fails mid-run prints one line (what was done,
the last checkpoint, how to resume) and exits with status 3.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

CONF_DIR = str(Path(__file__).resolve().parent.parent / "conf")


def _run(cfg) -> None:
    from rl.checkpoint import CheckpointError
    from rl.policies.vllm import PolicyServerError
    from rl.trainer import ConfigError, train
    try:
        train(cfg)
    except (ConfigError, CheckpointError) as e:
        print(f"glyphjax-train: configuration error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    except PolicyServerError as e:
        print(f"glyphjax-train: policy server error: {e}", file=sys.stderr)
        raise SystemExit(3) from None


def main(argv: list[str] | None = None) -> None:
    import hydra

    if argv is not None:
        sys.argv = [sys.argv[0], *argv]
    hydra.main(version_base=None, config_path=CONF_DIR, config_name="train")(_run)()


def compose(overrides: list[str] | None = None, out_dir: str | os.PathLike | None = None):
    """The composed training config without running Hydra's job machinery (tests, notebooks)."""
    from hydra import compose as hcompose
    from hydra import initialize_config_dir
    from omegaconf import OmegaConf, open_dict

    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        cfg = hcompose(config_name="train", overrides=list(overrides or []))
    with open_dict(cfg):
        cfg.out_dir = str(out_dir) if out_dir is not None else "runs/train/compose"
    OmegaConf.set_struct(cfg, False)
    return cfg


if __name__ == "__main__":
    main()
