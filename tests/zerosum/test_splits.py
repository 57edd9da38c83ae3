"""The game-side held-out zero-sum set (glyphjax/zerosum/splits.py): its rule, the task-set files
that list it, and training refusing it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import glyphjax
from glyphjax.zerosum.splits import check_not_heldout, heldout_ids

CONF = Path(__file__).resolve().parents[2] / "conf" / "tasks"


def test_heldout_ids__one_rule_size_and_encoding_variant_of_18_families():
    held = heldout_ids(glyphjax.task_ids("zerosum/*"))
    families = {t.split("/")[1] for t in held}
    assert len(held) == 54 and len(families) == 18
    for f in families:
        kinds = sorted(t.split("/")[2].split("-")[0] for t in held if t.split("/")[1] == f)
        assert kinds == ["enc", "rule", "size"]
    toy = ["zerosum/a/base", "zerosum/a/rule-x", "zerosum/a/rule-y", "zerosum/a/size-5", "zerosum/a/enc-e",
           "zerosum/b/base", "zerosum/b/rule-x"]  # b lacks size and encoding variants: not eligible
    assert heldout_ids(toy) == ["zerosum/a/enc-e", "zerosum/a/rule-y", "zerosum/a/size-5"]


def test_task_set_files__list_exactly_the_heldout_ids():
    held = heldout_ids(glyphjax.task_ids("zerosum/*"))
    heldout = yaml.safe_load((CONF / "zerosum_heldout.yaml").read_text())
    train = yaml.safe_load((CONF / "zerosum_train.yaml").read_text())
    assert heldout["ids"] == held and train["exclude"] == held and train["ids"] == ["zerosum/*"]


def test_training__refuses_heldout_variants_naming_the_task_set(tmp_path):
    held = heldout_ids(glyphjax.task_ids("zerosum/*"))
    with pytest.raises(ValueError, match="held-out zero-sum variants .*tasks=zerosum_train"):
        check_not_heldout(["zerosum/tictactoe/base", held[0]])
    check_not_heldout(["zerosum/tictactoe/base", "classics/snake-easy"])  # not held out: fine
    from rl.train_cli import compose
    from rl.trainer import ConfigError, validate
    with pytest.raises(ConfigError, match="held-out"):
        validate(compose([f"tasks.ids=[{held[0]}]"], tmp_path))
