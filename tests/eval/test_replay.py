"""Replay viewer: frames rebuilt from (task, seed, actions) agree with recorded runs; model text
is escaped; terminal replay reads the same format."""

from __future__ import annotations

import json
import re

import pytest

from eval.replay import build_html, check_episode, load_episodes, page_data, tui_replay

INJECT = '<script>window.__pwned = 1</script></script><script>window.__pwned = 2</script><img src=x onerror="window.__pwned=3">'


class StubPolicy:
    """A text policy without a model: cycles through answers, some unparseable."""

    name = "stub"
    max_model_len = None

    def __init__(self):
        self.calls = 0

    def complete(self, conversations, sampling):
        from rl.policies.base import Completion
        out = []
        for conv in conversations:
            self.calls += 1
            k = self.calls
            text = (f"{INJECT} I keep going. <action>{['UP', 'LEFT', 'DOWN', 'RIGHT', 'up'][k % 5]}</action>"
                    if k % 4 else "I am not sure what to do.")
            out.append(Completion(text=text, prompt_ids=[1] * (10 + k % 3), completion_ids=[2] * 5,
                                  logprobs=[-0.1] * 5, finish_reason="stop"))
        return out


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory):
    """A run recorded by the real rollout engine (rl.rollout) with a stub policy."""
    from glyphjax.harness.prompt import HarnessConfig
    from rl.policies.base import SamplingParams
    from rl.rollout import run_rollouts
    path = tmp_path_factory.mktemp("run") / "run.jsonl"
    episodes = [(t, s) for t in ("classics/snake-easy", "dummy/arrow-4") for s in (1_000_000_000, 1_000_000_001, 7)]
    run_rollouts(StubPolicy(), episodes, HarnessConfig(), SamplingParams(max_new_tokens=32), str(path), max_turns=40)
    return path


def test_replay__rebuilt_frames_match_every_recorded_episode(recorded_run):
    eps = load_episodes(recorded_run)
    assert len(eps) == 6
    for ep in eps:
        rebuilt, bad, error = check_episode(ep)
        assert error is None, f"{ep['task']} seed {ep['seed']}: {error}"
        assert bad == [], f"{ep['task']} seed {ep['seed']}: recorded frames differ at turns {bad}"
        assert len(rebuilt) == len(ep["turns"]) + 1
    assert any(t["parse_status"] != "ok" for ep in eps for t in ep["turns"]), "the run should hold parse failures"


def test_replay__a_tampered_frame_is_flagged_at_its_turn(recorded_run):
    ep = load_episodes(recorded_run)[0]
    k = min(3, len(ep["turns"]) - 1)
    ep["turns"][k]["observation"] = ep["turns"][k]["observation"].replace("█", "#", 1)
    _, bad, _ = check_episode(ep)
    assert bad == [k]
    d = page_data([ep])[0]
    assert d["mismatches"] == [k] and d["turns"][k]["mismatch"] and d["turns"][k]["recorded"].count("#") == 1
    html = build_html([d])
    assert "disagrees with the frame rebuilt" in html  # the page's warning text


def test_replay__page_embeds_model_text_escaped(recorded_run):
    data = page_data(load_episodes(recorded_run))
    page = build_html(data)
    assert page.count("<script") == 2, "only the data block and the viewer script may be script elements"
    assert "window.__pwned" in page  # the text is there...
    assert "<script>window" not in page and "<img" not in page  # ...but never as markup
    block = re.search(r'<script type="application/json" id="episode-data">(.*?)</script>', page, re.S).group(1)
    back = json.loads(block)
    assert back == json.loads(json.dumps(data)), "escaping must round-trip the data exactly"
    assert any(INJECT in t["completion"] for d in back for t in d["turns"])
    assert not re.search(r"https?://", page), "the page must not load external assets"


def test_replay__tui_shows_each_turn_and_failure(recorded_run):
    from rich.console import Console
    import io
    eps = load_episodes(recorded_run)
    data = page_data([max(eps, key=lambda e: sum(t["parse_status"] != "ok" for t in e["turns"]))])
    buf = io.StringIO()
    tui_replay(data, interactive=False, console=Console(file=buf, width=120))
    out = buf.getvalue()
    n = len(data[0]["turns"])
    assert out.count("turn ") >= n + 1
    assert "no_tag" in out  # the stub's unparseable answers are marked
    assert data[0]["turns"][0]["grid"].splitlines()[0] in out


class RecordingPolicy(StubPolicy):
    """StubPolicy that keeps every conversation it was sent, with varied log-probs."""

    def __init__(self):
        super().__init__()
        self.seen: list[list[dict]] = []

    def complete(self, conversations, sampling):
        out = super().complete(conversations, sampling)
        for conv, c in zip(conversations, out):
            self.seen.append([dict(m) for m in conv])
            c.logprobs = [-0.1 * (self.calls % 7), -1.5, -0.2, -0.3, -0.4]
        return out


def test_replay__page_prompt_is_the_conversation_the_policy_was_sent(tmp_path):
    from glyphjax.harness.prompt import HarnessConfig
    from rl.policies.base import SamplingParams
    from rl.rollout import run_rollouts
    path = tmp_path / "hist.jsonl"
    policy = RecordingPolicy()
    run_rollouts(policy, [("dummy/arrow-4", 11)], HarnessConfig(history=2), SamplingParams(max_new_tokens=32),
                 str(path), max_turns=6)
    ep = load_episodes(path)[0]
    view = page_data([ep])[0]
    assert len(policy.seen) == len(view["turns"]) >= 3
    for k, (conv, turn) in enumerate(zip(policy.seen, view["turns"])):
        assert [m["role"] for m in conv] == ["system", "user"]
        assert conv[0]["content"] == view["system_prompt"], f"turn {k}: system prompt"
        assert conv[1]["content"] == turn["user_message"], f"turn {k}: user message with history"
    assert "turns ago" in view["turns"][2]["user_message"]


def test_replay__page_turn_tokens_logprobs_and_running_return(recorded_run):
    ep = load_episodes(recorded_run)[0]
    view = page_data([ep])[0]
    running = 0.0
    for raw, turn in zip(ep["turns"], view["turns"]):
        running += raw["reward"]
        assert turn["return_so_far"] == pytest.approx(running)
        assert (turn["prompt_tokens"], turn["completion_tokens"]) == (len(raw["prompt_ids"]), len(raw["completion_ids"]))
        lp = raw["logprobs"]
        assert turn["logprob_mean"] == pytest.approx(sum(lp) / len(lp)) and turn["logprob_min"] == min(lp)
    assert view["final"]["return_so_far"] == pytest.approx(ep["return"])


def test_glyph_colour__same_meaning_same_colour_in_every_task():
    from eval.replay import glyph_colour, glyph_styles
    import glyphjax
    colours: dict[str, set[str]] = {}
    for task in ("minigrid/doorkey-5x5", "minigrid/fourrooms", "classics/snake-easy", "classics/maze-easy"):
        for g, style in glyph_styles(glyphjax.make(task).card.glyphs).items():
            colours.setdefault(style["meaning"], set()).add(style["color"])
    assert all(len(c) == 1 for c in colours.values())
    assert glyph_colour("green key") == glyph_colour("Green  door") != glyph_colour("red door")
    assert glyph_colour("wall") != glyph_colour("empty floor")


def _tui(data, typed: str | None) -> str:
    from rich.console import Console
    import io
    buf = io.StringIO()
    tui_replay(data, interactive=typed is not None, console=Console(file=buf, width=160),
               keys=io.StringIO(typed or ""))
    return buf.getvalue()


def test_replay_tui__shows_the_legend_of_each_turn(recorded_run):
    data = page_data(load_episodes(recorded_run)[:1])
    out = _tui(data, None)
    for line in data[0]["turns"][0]["legend"].splitlines():
        assert line in out, f"legend line {line!r} missing"
    assert "legend" in out


def test_replay_tui__q_quits_n_skips_episode_p_goes_back(recorded_run):
    eps = load_episodes(recorded_run)
    data = page_data([eps[0], eps[3], eps[4]])
    headers = [f"{d['task']} seed {d['seed']} ·" for d in data]
    out = _tui(data, "\n\np\nn\nq\n")  # turns 0, 1, 2, back to 1, next episode (turn 0), quit
    assert headers[0] in out and headers[1] in out and headers[2] not in out, "q must stop the whole replay"
    first, second = out.split(headers[1])
    assert re.findall(r"turn (\d+)(?: \(final\))? ", first) == ["0", "1", "2", "1"]
    assert re.findall(r"turn (\d+)(?: \(final\))? ", second) == ["0"]
    assert _tui(data, "").count("turn 0 ") == 1, "end of input quits"
