"""harness.obs_format: rollouts send an env's own text observation when asked (Craftax's native
text) or its image (pixels: an OpenAI image_url content part, to a policy that takes images),
refuse a format the task does not offer, and the Craftax study presets compose."""

from __future__ import annotations

import base64
import io
import sys
from pathlib import Path

import numpy as np
import pytest

from glyphjax.harness.prompt import (NATIVE_TEXT_CONVENTIONS, PIXEL_CONVENTIONS, HarnessConfig, system_prompt,
                                     with_image)
from glyphjax.suites.dummy.arrow import Arrow
from rl.policies.base import Completion, SamplingParams
from rl.rollout import run_rollouts

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai import FakeOpenAIServer  # noqa: E402

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


def test_craftax_obs_formats_preset__three_formats_by_two_harnesses_five_episodes():
    from hydra import compose, initialize_config_dir

    from eval.config import register_eval_schema
    register_eval_schema()
    with initialize_config_dir(config_dir=str(CONF), version_base=None):
        cfg = compose(config_name="eval", overrides=["+experiment=craftax_obs_formats"], return_hydra_config=True)
        one = compose(config_name="eval", overrides=["+experiment=craftax_obs_formats", "harness=basic",
                                                     "harness.obs_format=pixels"])
        toy = compose(config_name="eval", overrides=["+experiment=craftax_obs_formats_toy"], return_hydra_config=True)
    assert list(cfg.tasks.ids) == ["craftax/full"] and cfg.seeds == 5 and cfg.policy.name == "vllm"
    assert cfg.hydra.sweeper.params["harness.obs_format"] == "glyph,native_text,pixels"
    assert cfg.hydra.sweeper.params["harness"] == "basic,guided_memory"
    assert HarnessConfig(**cfg.harness).guided and HarnessConfig(**cfg.harness).obs_format == "glyph"
    assert HarnessConfig(**one.harness) == HarnessConfig(name="basic", obs_format="pixels")
    assert toy.policy.name == "local" and toy.max_turns == 6 and list(toy.tasks.ids) == ["craftax/full"]
    assert toy.hydra.sweeper.params["harness.obs_format"] == "glyph,native_text"  # no vision model in the toy


# ---- pixels: an image message to the model ----------------------------------------------------

H, W = 12, 20


class PixelArrow(Arrow):
    """dummy/arrow with a pixel observation: a picture that depends on the arrow and the step."""

    obs_formats = ("glyph", "pixels")

    def observation(self, state, obs_format="glyph", params=None):
        assert obs_format == "pixels"
        y, x = np.mgrid[0:H, 0:W]
        img = np.stack([(x * 13 + y * 7) % 256, np.full((H, W), 60 * int(state.arrow)),
                        np.full((H, W), 30 * int(state.t)) + y], -1)
        return (img / 255.0).astype(np.float32)


def _decode_png(url: str) -> np.ndarray:
    from PIL import Image
    head = "data:image/png;base64,"
    assert url.startswith(head)
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(url[len(head):]))).convert("RGB"))


def test_rollout_pixels__the_request_carries_the_view_as_a_png_beside_the_hud_text():
    from glyphjax.core.rollout import reset_key, step_key
    from rl.policies.vllm import VLLMPolicy
    env, seed, turns = PixelArrow(5), 11, 3
    with FakeOpenAIServer(lambda body, n: "<action>UP</action>") as srv:
        pol = VLLMPolicy(srv.url, "fake-model", sleep=lambda s: None)
        rec, = run_rollouts(pol, [("dummy/arrow-4", seed)], HarnessConfig(obs_format="pixels"),
                            SamplingParams(max_new_tokens=16), envs={"dummy/arrow-4": env}, max_turns=turns)
        bodies = [b for p, b in srv.requests if p == "/v1/chat/completions"]
    assert rec.obs_format == "pixels" and rec.length == turns == len(bodies)
    assert PIXEL_CONVENTIONS in rec.system_prompt and "[Legend]" not in rec.system_prompt
    params, state = env.default_params(), env.reset(reset_key(seed), env.default_params())
    for t, body in enumerate(bodies):
        system, user = body["messages"]
        assert system == {"role": "system", "content": rec.system_prompt}
        text, image = user["content"]
        assert text["type"] == "text" and image["type"] == "image_url"
        assert text["text"] == rec.turns[t].observation
        assert text["text"].startswith(f"[HUD]\nStep: {t} / 5") and f"attached: the view, {W} x {H} px" in text["text"]
        got = _decode_png(image["image_url"]["url"])
        want = np.round(env.observation(state, "pixels") * 255).astype(np.uint8)
        assert got.shape == (H, W, 3) and np.array_equal(got, want), f"turn {t}"
        state, *_ = env.step(step_key(seed, t), state, 0, params)  # UP = action 0


def test_rollout_pixels__a_text_only_policy_is_refused_naming_the_option():
    from rl.policies.local import load_local_policy
    local = load_local_policy()
    assert local.accepts_images is False
    with pytest.raises(ValueError, match=r"harness.obs_format=pixels sends images, but policy 'local' is text-only"):
        run_rollouts(local, [("dummy/arrow-4", 0)], HarnessConfig(obs_format="pixels"),
                     envs={"dummy/arrow-4": PixelArrow(4)})
    image_turn = [{"role": "user", "content": with_image("hud", "AAAA")}]
    with pytest.raises(ValueError, match=r"text-only.*harness.obs_format=pixels"):
        local.complete([image_turn], SamplingParams(max_new_tokens=1))
    with pytest.raises(ValueError, match=r"offers glyph, native_text$"):  # a task without pixels
        run_rollouts(UpPolicy(), [("dummy/arrow-4", 0)], HarnessConfig(obs_format="pixels"),
                     envs={"dummy/arrow-4": NativeArrow(4)})
