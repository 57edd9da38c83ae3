"""Bad trajectory files give one clear line, not a traceback: a negative seed, a bad line in the
middle (named by its line number); a cut-off last line is skipped with a warning and counted."""

from __future__ import annotations

import json
import warnings

import pytest

from eval.fixtures import synthetic_episode
from eval.replay import load_trajectory, replay_main
from rl.trajectory import TruncatedLineWarning, read_episodes


@pytest.fixture(scope="module")
def episodes():
    return [synthetic_episode("dummy/arrow-4", s, max_turns=6) for s in (1, 2, 3)]


def _write(path, lines: list[str]) -> None:
    path.write_text("".join(lines), encoding="utf-8")


def _lines(eps) -> list[str]:
    return [json.dumps(e, ensure_ascii=False) + "\n" for e in eps]


def test_replay_cli__negative_seed_is_one_line_naming_the_line(tmp_path, episodes, capsys):
    bad = dict(episodes[1], seed=-1)
    traj = tmp_path / "neg.jsonl"
    _write(traj, _lines([episodes[0], bad]))
    with pytest.raises(SystemExit) as e:
        replay_main([str(traj), "-o", str(tmp_path / "x.html")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{traj}:2:" in err and "seed -1" in err and "[0, 2**32)" in err
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("seed", [2 ** 32, 1.5, "7", True])
def test_load_trajectory__seed_outside_uint32_or_not_integer_is_refused(tmp_path, episodes, seed):
    traj = tmp_path / "bad.jsonl"
    _write(traj, _lines([dict(episodes[0], seed=seed)]))
    with pytest.raises(ValueError, match=r":1: seed .* is not an integer in \[0, 2\*\*32\)"):
        load_trajectory(traj)


def test_load_trajectory__cut_off_last_line_is_skipped_and_counted(tmp_path, episodes):
    traj = tmp_path / "cut.jsonl"
    lines = _lines(episodes)
    _write(traj, lines[:2] + [lines[2][: len(lines[2]) // 2]])
    with pytest.warns(TruncatedLineWarning, match=r"cut\.jsonl:3: skipped the last line"):
        eps, skipped = load_trajectory(traj)
    assert skipped == 1 and [e["seed"] for e in eps] == [1, 2]


def test_load_trajectory__complete_last_line_without_newline_is_kept(tmp_path, episodes):
    traj = tmp_path / "nonl.jsonl"
    lines = _lines(episodes)
    _write(traj, lines[:2] + [lines[2].rstrip("\n")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eps, skipped = load_trajectory(traj)
    assert skipped == 0 and [e["seed"] for e in eps] == [1, 2, 3]


def test_load_trajectory__bad_line_in_the_middle_names_its_line_number(tmp_path, episodes):
    traj = tmp_path / "mid.jsonl"
    lines = _lines(episodes)
    _write(traj, [lines[0], "\n", lines[1][:40] + "\n", lines[2]])
    with pytest.raises(ValueError, match=r"mid\.jsonl:3: not a JSON line"):
        load_trajectory(traj)


def test_replay_cli__cut_off_last_line_warns_once_and_still_writes_the_page(tmp_path, episodes, capsys):
    traj = tmp_path / "cut.jsonl"
    lines = _lines(episodes)
    _write(traj, lines[:2] + [lines[2][:100]])
    out = tmp_path / "cut.html"
    replay_main([str(traj), "-o", str(out), "--no-rebuild"])
    cap = capsys.readouterr()
    assert cap.err.count("warning:") == 1 and "skipped 1 cut-off last line" in cap.err
    assert "2 episodes read" in cap.err and "wrote" in cap.out and out.exists()


def test_read_episodes__skips_a_cut_off_last_line_and_raises_on_a_bad_middle_line(tmp_path):
    from rl.trajectory import EpisodeRecord
    rec = EpisodeRecord.from_dict(synthetic_episode("dummy/arrow-4", 5, max_turns=4))
    line = rec.to_json() + "\n"
    cut = tmp_path / "cut.jsonl"
    cut.write_text(line + line + line[:-30], encoding="utf-8")
    with pytest.warns(TruncatedLineWarning):
        assert list(read_episodes(cut)) == [rec, rec]
    mid = tmp_path / "mid.jsonl"
    mid.write_text(line + '{"task": 1}\n' + line, encoding="utf-8")
    with pytest.raises(ValueError, match=r"mid\.jsonl:2: not an episode record"):
        list(read_episodes(mid))
