"""eval.craftax_study: the observation-format study's score (100 R / 226), 95% t intervals, and
unrun cells said plainly (pixels need a vision model), from a sweep folder of trajectories."""

from __future__ import annotations

import json

import pytest

from eval.craftax_study import main, report

W = 1 / 226  # the weight of an easy achievement as craftax/full pays it


def _write(path, episodes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in episodes))


def _ep(fmt, harness, rewards, task="craftax/full"):
    return {"task": task, "obs_format": fmt, "harness": harness, "turns": [{"reward": r} for r in rewards]}


def test_study_report__scores_t_intervals_and_unrun_cells(tmp_path, capsys):
    # glyph/basic: R = 1..5 easy achievements -> scores 100/226 x [1..5]; a death step (-1) does not count
    _write(tmp_path / "0" / "trajectories.jsonl",
           [_ep("glyph", "basic", [0.0] + [W] * k + ([-1.0] if k == 3 else [])) for k in range(1, 6)])
    _write(tmp_path / "1" / "trajectories.jsonl",
           [_ep("native_text", "guided_memory", [3 * W, 0.0]), _ep("glyph", "basic", [W], task="craftax/classic")])
    main([str(tmp_path)])
    text = (tmp_path / "craftax_obs_formats.md").read_text()
    unit = 100 / 226
    # mean 3 units; s = sqrt(2.5) units; t(0.975, 4) = 2.776445; half = 2.776445 * sqrt(2.5) / sqrt(5) units
    mean, half = 3 * unit, 2.776445 * (2.5 ** 0.5) / 5 ** 0.5 * unit
    rows = {ln.split(" | ")[0].strip("| "): ln for ln in text.splitlines()[2:]}
    assert f"| {mean:.2f} ± {half:.2f} (n=5) |" in rows["glyph"]  # the craftax/classic episode is not counted
    assert rows["native_text"].endswith(f"| {3 * unit:.2f} (n=1) |")
    assert rows["pixels"] == ("| pixels | not run: needs a vision model (policy=vllm serving one) | "
                              "not run: needs a vision model (policy=vllm serving one) |")
    assert (tmp_path / "craftax_obs_formats.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "figure:" in capsys.readouterr().out


def test_study_report__an_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no craftax/full episodes"):
        report(tmp_path)
