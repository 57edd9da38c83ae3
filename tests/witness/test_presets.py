"""The WITNESS RL presets compose (GPU scale: the paper's 22 games x 8 episodes, 300-call
episodes through the WITNESS harness, thinking off, checkpoints chosen on the validation games)
and a preset pointed at a test game is refused with the split named."""

from __future__ import annotations

import pytest


def test_witness_rl_preset__composes_on_the_training_split_and_refuses_test_games():
    from glyphjax.witness.games import check_training_ids
    from rl.train_cli import compose
    cfg = compose(["+experiment=witness_rl"])
    assert list(cfg.tasks.ids) == ["witness/train/*"]
    assert (cfg.rl.group_size, cfg.rl.groups_per_update, cfg.rl.call_budget) == (8, 22, 300)
    assert cfg.harness.name == "witness" and cfg.policy.chat_template_kwargs == {"enable_thinking": False}
    assert list(cfg.eval.tasks) == ["witness/val/*"] and cfg.eval.select and cfg.eval.seeds == 3
    asked = compose(["+experiment=witness_rl", "tasks.ids=[witness/test/polyomino]"]).tasks.ids
    with pytest.raises(ValueError, match="test split"):
        check_training_ids(asked)
    from rl.trainer import ConfigError, validate  # what glyphjax-train runs before anything else
    for split, game in (("test", "witness/test/polyomino"), ("val", "witness/val/stars")):
        with pytest.raises(ConfigError, match=f"tasks.ids: .*{split} split: {game}"):
            validate(compose(["+experiment=witness_rl", f"tasks.ids=[{game}]"]))
