"""glyphjax-play and glyphjax-eval on two-player zero-sum games: two humans at one terminal, a
human against the bot or random play in either seat, and array-policy evaluation."""

from __future__ import annotations

import io

import pytest

from eval.play import PlayError, parse_args, play
from eval.runner import evaluate_task


def test_play__two_humans_take_turns_and_each_sees_the_board_from_its_seat():
    out = io.StringIO()
    game = play("zerosum/tictactoe/base", 0, ["A1", "A2", "B1", "B2", "C1"], io.StringIO(), out)
    text = out.getvalue()
    assert game.seat_returns.tolist() == [1.0, -1.0]
    assert "[Grid]\nOOO\nXX·\n···" in text  # the final board as seat 1 (to move) sees it
    assert "returns seat 0 +1, seat 1 -1 after 5 turns (terminated)" in text


@pytest.mark.parametrize("seat", [0, 1])
def test_play__a_human_against_the_bot_in_either_seat_replays_from_its_log(seat):
    out = io.StringIO()
    game = play("zerosum/kuhn/rule-single", 1, ["BET"], io.StringIO(), out, opponent="bot", seat=seat)
    log = out.getvalue().split("action log: ")[1].strip()
    assert log == f"glyphjax-play task=zerosum/kuhn/rule-single seed=1 opponent=bot seat={seat} actions=[BET]"
    assert game.card.num_players == 1 and game.done


def test_play__rejects_a_bad_opponent_or_seat_by_name():
    with pytest.raises(PlayError, match="opponent must be one of"):
        parse_args(["task=zerosum/tictactoe/base", "opponent=alphazero"])
    with pytest.raises(PlayError, match="add opponent=minimax"):
        parse_args(["task=zerosum/tictactoe/base", "opponent=random", "depth=3"])
    with pytest.raises(PlayError, match="depth must be an integer >= 1"):
        parse_args(["task=zerosum/tictactoe/base", "opponent=minimax", "depth=0"])
    with pytest.raises(PlayError, match="opponent=minimax: zerosum/kuhn/base has no minimax bot"):
        play("zerosum/kuhn/base", 0, [], io.StringIO(), io.StringIO(), opponent="minimax")
    with pytest.raises(PlayError, match="seat must be 0 or 1"):
        parse_args(["task=zerosum/tictactoe/base", "seat=2"])
    with pytest.raises(PlayError, match="needs a two-player task"):
        play("classics/snake-easy", 0, [], io.StringIO(), io.StringIO(), opponent="bot")


def test_play__the_minimax_opponent_blocks_the_humans_open_line_and_the_log_names_its_depth():
    out = io.StringIO()
    play("zerosum/tictactoe/base", 0, ["B2", "A1"], io.StringIO(), out, opponent="minimax", seat=0, depth=2)
    text = out.getvalue()
    log = text.split("action log: ")[1].strip()
    assert log == "glyphjax-play task=zerosum/tictactoe/base seed=0 opponent=minimax seat=0 depth=2 actions=[B2,A1]"
    final = text.split("[Grid]\n")[-1].split("\n")[:3]
    assert final[2][2] == "O", f"the bot must block the diagonal A1-B2-C3:\n" + "\n".join(final)


def test_eval__bots_or_random_play_in_both_seats_end_every_game_with_a_zero_sum_result():
    bots = evaluate_task("zerosum/tictactoe/base", "scripted", range(256), batch_size=256)
    rand = evaluate_task("zerosum/tictactoe/base", "random", range(256), batch_size=256)
    assert bots.terminated.all() and rand.terminated.all()
    assert abs(bots.returns.mean()) <= 1 and set(bots.returns.tolist()) <= {-1.0, 0.0, 1.0}
    # uniform random actions (legal or not) often forfeit early; the bots never play illegally
    assert rand.lengths.mean() < bots.lengths.mean()
