"""glyphjax-tasks: the listing table, the card + first observation, and one-line errors."""

from __future__ import annotations

import pytest

from eval.tasks_cli import main


class RecordingPolicy:
    """Answers UP to everything and keeps the conversations the rollout engine sent."""

    name = "recording"

    def __init__(self):
        self.conversations = []

    def complete(self, conversations, sampling):
        from rl.policies.base import FINISH_STOP, Completion
        self.conversations.extend(conversations)
        return [Completion("<action>UP</action>", [1], [2], [0.0], FINISH_STOP) for _ in conversations]


def _rows(stdout: str) -> dict[str, list[str]]:
    lines = stdout.strip().splitlines()
    assert lines[0].split() == ["id", "suite", "track", "actions", "max_steps"], lines[0]
    return {ln.split()[0]: ln.split() for ln in lines[2:] if ln.strip() and "task(s)" not in ln}


def test_tasks_list__one_row_per_matching_id_with_suite_track_actions_and_max_steps(capsys):
    assert main(["dummy/*", "classics/snake-easy"]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    # values from the games' rules: arrow-k lasts k turns, Snake and the arrows have 4 moves
    assert rows == {"dummy/arrow-1": ["dummy/arrow-1", "dummy", "standard", "4", "1"],
                    "dummy/arrow-4": ["dummy/arrow-4", "dummy", "standard", "4", "4"],
                    "classics/snake-easy": ["classics/snake-easy", "classics", "standard", "4", "200"]}
    assert out.strip().endswith("3 task(s)")


def test_tasks_list__no_pattern_lists_every_registered_id(capsys):
    import glyphjax
    assert main([]) == 0
    assert sorted(_rows(capsys.readouterr().out)) == glyphjax.all_ids()


@pytest.mark.parametrize("harness", ["basic", "compact"])
def test_tasks_show__prints_the_prompt_the_rollout_engine_sends_on_turn_one(capsys, harness):
    from glyphjax.harness.prompt import HarnessConfig
    from rl.policies.base import SamplingParams
    from rl.rollout import run_rollouts

    policy = RecordingPolicy()
    run_rollouts(policy, [("classics/snake-easy", 7)], HarnessConfig(name=harness), SamplingParams(), max_turns=1)
    system, user = (m["content"] for m in policy.conversations[0])
    assert main(["show", "classics/snake-easy", "--seed", "7", "--harness", harness]) == 0
    out = capsys.readouterr().out
    assert f"### System prompt\n{system}\n\n### First user message\n{user}" in out


def test_tasks_show__card_sections_name_rules_actions_glyphs_reward_and_success(capsys):
    import glyphjax
    card = glyphjax.make("dummy/arrow-1").card
    assert main(["show", "dummy/arrow-1"]) == 0
    out = capsys.readouterr().out
    for section in ("## Rules", "## Actions (4)", "## Glyphs", "## Reward", "## Success"):
        assert section in out, section
    assert "    0  UP: " in out and "    3  RIGHT: " in out
    assert "  ↑  arrow pointing up" in out
    assert card.rules.strip() in out


@pytest.mark.parametrize("args, close", [(["show", "classics/snak-easy"], "classics/snake-easy"),
                                         (["minigrid/doorkey-5x5x"], "minigrid/doorkey-5x5")])
def test_tasks_cli__unknown_id_is_one_line_naming_close_matches(capsys, args, close):
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("glyphjax-tasks: error: unknown task id"), err
    assert close in err[0]


def test_tasks_cli__show_without_an_id_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["show"])
    assert exc.value.code == 2
    assert "show takes exactly one task id" in capsys.readouterr().err
