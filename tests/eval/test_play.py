"""glyphjax-play: movement keys press the card's moves, the running return is shown, `--save`
writes a trajectory line that the replay opens and rebuilds exactly, and on a terminal the screen
is redrawn in place with keys acting at once."""

from __future__ import annotations

import io
import os
import select
import subprocess
import sys
import time

import pytest

from eval.keys import CLEAR_HOME
from eval.play import PlayError, movement_keys, parse_args, play
from eval.replay import check_episode, load_episodes, replay_main


def _play(task: str, typed: str, seed: int = 1, **kw):
    out = io.StringIO()
    game = play(task, seed, None, io.StringIO(typed), out, tty=False, **kw)
    return game, out.getvalue()


def _names(game) -> list[str]:
    return [game.card.actions[a] for a in game.actions]


def test_play__wasd_and_arrow_lines_press_grid_moves():
    game, text = _play("dummy/arrow-4", "w\na\n\x1b[C\nD\n")
    assert _names(game) == ["UP", "LEFT", "RIGHT", "RIGHT"]
    assert CLEAR_HOME not in text and "\x1b" not in text, "no ANSI codes when stdout is not a terminal"


def test_play__movement_keys_steer_heading_games_and_refuse_missing_directions():
    assert movement_keys(__import__("glyphjax").make("minigrid/empty-5x5").card) == {"UP": 2, "LEFT": 0, "RIGHT": 1}
    game, text = _play("minigrid/empty-5x5", "w\ns\na\nd\n\x1b[A\n")
    assert _names(game) == ["MOVE_FORWARD", "TURN_LEFT", "TURN_RIGHT", "MOVE_FORWARD"]
    assert "no action for the DOWN key in minigrid/empty-5x5" in text


def test_play__running_return_is_shown_after_every_turn():
    game, text = _play("dummy/arrow-4", "UP\nDOWN\nLEFT\n", seed=5)
    assert [tr["reward"] for tr in game.turns] == [0.25, 0.0, 0.25], "dummy/arrow-4 seed 5 answers"
    for k, running in enumerate([0.25, 0.25, 0.5], 1):
        assert f"turn {k} · return {running:+.4f} >" in text
    assert "return so far +0.5000" in text


def test_play__save_appends_lines_that_replay_rebuilds_exactly(tmp_path):
    path = tmp_path / "me.jsonl"
    g1, _ = _play("classics/snake-easy", "w\nd\nd\ns\n", seed=3, save=str(path))
    g2, text = _play("dummy/arrow-4", "UP\nq\n", seed=2, save=str(path))
    assert f"saved the episode to {path}" in text
    eps = load_episodes(path)
    assert [(e["task"], e["seed"]) for e in eps] == [("classics/snake-easy", 3), ("dummy/arrow-4", 2)]
    for ep, game in zip(eps, (g1, g2)):
        assert [t["action"] for t in ep["turns"]] == game.actions
        assert ep["return"] == pytest.approx(game.ret)
        rebuilt, bad, error = check_episode(ep)
        assert error is None and bad == [], f"{ep['task']}: recorded frames differ at {bad}"
    replay_main([str(path), "-o", str(tmp_path / "me.html")])
    assert "classics/snake-easy" in (tmp_path / "me.html").read_text(encoding="utf-8")
    from rl.trajectory import read_episodes
    assert [r.actions for r in read_episodes(path)] == [g1.actions, g2.actions]


def test_parse_args__save_as_flag_or_key():
    for argv in (["task=dummy/arrow-4", "--save", "a.jsonl"], ["--save=a.jsonl", "task=dummy/arrow-4"],
                 ["task=dummy/arrow-4", "save=a.jsonl"]):
        assert parse_args(argv)["save"] == "a.jsonl", argv
    assert parse_args(["task=dummy/arrow-4"])["save"] is None
    with pytest.raises(PlayError, match="--save needs a file name"):
        parse_args(["task=dummy/arrow-4", "--save"])


def _read_until(fd: int, needle: bytes, buf: bytearray, timeout: float = 120.0, missing_ok: bool = False) -> None:
    """Read the terminal into `buf` until it holds `needle` (or the child closes it)."""
    end = time.time() + timeout
    while needle not in buf:
        left = end - time.time()
        if left <= 0 and missing_ok:
            return
        assert left > 0, f"timed out waiting for {needle!r}; got {bytes(buf[-2000:])!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            buf += chunk


def _terminal_session(args: list[str], steps: list[tuple[bytes, bytes]]) -> str:
    """Run `python -m ARGS` on a pseudo-terminal; for each (wait_for, send) wait until the output
    holds `wait_for`, then type `send`. Returns all output once the process exits (status 0)."""
    import pty
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", *args], stdin=slave, stdout=slave, stderr=slave,
                            cwd=os.getcwd(), close_fds=True)
    os.close(slave)
    buf = bytearray()
    try:
        for wait_for, send in steps:
            _read_until(master, wait_for, buf)
            os.write(master, send)
        assert proc.wait(timeout=60) == 0, bytes(buf[-2000:])
        _read_until(master, b"\x00never", buf, timeout=1, missing_ok=True)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return buf.decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_play_tty__redraws_in_place_and_keys_act_without_enter(tmp_path):
    save = tmp_path / "tty.jsonl"
    text = _terminal_session(
        ["eval.play", "task=dummy/arrow-4", "seed=5", "--save", str(save)],
        [("turn 0 ·".encode(), b"\x1b[C"),  # right arrow, no Enter
         ("turn 1 ·".encode(), b"w"), ("turn 2 ·".encode(), b"q")])
    assert text.count(CLEAR_HOME) == 3, "one redraw per turn shown (turns 0, 1, 2)"
    assert "actions=[RIGHT,UP]" in text and "saved the episode" in text
    assert [t["action_name"] for t in load_episodes(save)[0]["turns"]] == ["RIGHT", "UP"]


def test_play_cli__unwritable_save_file_fails_before_play_in_one_line(tmp_path, capsys):
    from eval.play import play_main
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(SystemExit) as e:
        play_main(["task=dummy/arrow-4", "--save", str(blocker / "me.jsonl")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot write --save file" in err and "Traceback" not in err


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_replay_tui_tty__single_keys_step_and_q_quits(tmp_path):
    from eval.fixtures import write_fixture
    traj = tmp_path / "two.jsonl"
    write_fixture(traj, ["dummy/arrow-4"], [1, 2], fail_every=0)
    text = _terminal_session(["eval.replay", str(traj), "--tui"],
                             [(b"[q] quit >", b"\x1b[C"), (b"turn 1 ", b"q")])  # right arrow: next turn
    shown = text.split("done", 1)[-1]  # after the "rebuilding frames" progress line, which names each episode
    assert "dummy/arrow-4 seed 1" in text and "seed 2" not in shown.replace("\x1b[1;36m", "").replace("\x1b[0m", ""), (
        "q quits the whole replay")
