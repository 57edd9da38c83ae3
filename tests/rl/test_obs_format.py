"""harness.obs_format: rollouts send an env's own text observation when asked (Craftax's native
text), refuse a format the task does not offer, and the Craftax study preset composes."""

from __future__ import annotations

from pathlib import Path

import pytest

from glyphjax.harness.prompt import NATIVE_TEXT_CONVENTIONS, HarnessConfig, system_prompt
from glyphjax.suites.dummy.arrow import Arrow
from rl.policies.base import Completion
from rl.rollout import run_rollouts

CONF = Path(__file__).resolve().parents[2] / "conf"


class NativeArrow(Arrow):
    """dummy/arrow-4 with a 'native' text observation that names the step and the arrow's row."""

    text_formats = ("glyph", "native_text")

    def observation(self, state, obs_format="glyph", params=None):
        assert obs_format == "native_text"
        return f"native view at step {int(state.t)}"


class UpPolicy:
    name = "up"

    def __init__(self):
        self.users = []

    def complete(self, conversations, sampling):
        self.users += [c[-1]["content"] for c in conversations]
        return [Completion("<action>UP</action>", [1], [2], [-0.1], "stop") for _ in conversations]


def test_rollout_obs_format__native_text_is_what_the_model_reads():
    pol = UpPolicy()
    env = NativeArrow(4)
    recs = run_rollouts(pol, [("dummy/arrow-4", 0), ("dummy/arrow-4", 1)], HarnessConfig(obs_format="native_text"),
                        envs={"dummy/arrow-4": env}, max_turns=3)
    for rec in recs:
        assert rec.obs_format == "native_text"
        assert [t.observation for t in rec.turns] == [f"native view at step {k}" for k in range(rec.length)]
        assert NATIVE_TEXT_CONVENTIONS in rec.system_prompt and "[Legend]" not in rec.system_prompt
    assert all(u.startswith("native view at step") and "[Grid]" not in u for u in pol.users)


def test_rollout_obs_format__a_task_without_it_is_refused_by_name():
    with pytest.raises(ValueError, match=r"dummy/arrow-4: harness.obs_format='native_text' .* offers glyph"):
        run_rollouts(UpPolicy(), [("dummy/arrow-4", 0)], HarnessConfig(obs_format="native_text"),
                     envs={"dummy/arrow-4": Arrow(4)})


def test_harness_config__unknown_obs_format_names_the_choices():
    with pytest.raises(ValueError, match="choose one of glyph, native_text, pixels"):
        HarnessConfig(obs_format="pixel")
    assert "[Legend]" in system_prompt(Arrow(4).card, HarnessConfig())


def test_craftax_obs_formats_preset__memory_harness_five_episodes_swept_over_text_formats():
    from hydra import compose, initialize_config_dir

    from eval.config import register_eval_schema
    register_eval_schema()
    with initialize_config_dir(config_dir=str(CONF), version_base=None):
        cfg = compose(config_name="eval", overrides=["+experiment=craftax_obs_formats"], return_hydra_config=True)
        one = compose(config_name="eval", overrides=["+experiment=craftax_obs_formats",
                                                     "harness.obs_format=native_text"])
    assert list(cfg.tasks.ids) == ["craftax/full"] and cfg.seeds == 5
    assert cfg.harness.name == "memory" and cfg.harness.memory and cfg.harness.obs_format == "glyph"
    assert cfg.hydra.sweeper.params["harness.obs_format"] == "glyph,native_text"
    assert HarnessConfig(**one.harness).obs_format == "native_text"
