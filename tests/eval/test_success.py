"""Success rates come from the game's outcome declared on the card (`TaskCard.success`), not from
the return reaching its maximum (which move costs and time-discounted rewards never allow).

The expected outcomes below are written from each game's reward rule (its card text), independently
of the card's `success` declaration: e.g. a maze pays -1/T per move and +1 at the exit, and the
episode terminates only at the exit, so "solved" = "terminated"; a death in bomberman pays exactly
-1 while reaching the exit pays at least +0.5.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import glyphjax
from eval.results import TaskResult, from_episodes
from eval.runner import evaluate_task
from eval.seeds import eval_seeds
from glyphjax.core.types import MAX_RETURN, NO_SUCCESS, TaskCard

EPS = 1e-6


def _max(r, term, hi):  # the win is the only way to the maximum return
    return r >= hi - EPS


def _terminated(r, term, hi):  # the episode ends early only when solved (else the step budget runs out)
    return term


def _not_dead(r, term, hi):  # dying pays exactly -1; the other ending is the finish line
    return term & (r > -1 + EPS)


def _half(r, term, hi):  # the goal pays +0.5 and ends the game; dying pays exactly -1
    return term & (r >= 0.5 - EPS)


SOLVED_BY_REWARD_RULE = {
    "2048": _max, "artillery": _max, "battleship": _max, "bomberman": _half, "connectfour": _max,
    "farm": _max, "flappy": _max, "floodfill": _max, "frogger": _max, "gravitymaze": _max,
    "guardevasion": _max, "icesliding": _terminated, "lightsout": _terminated, "lunarlander": _max,
    "match3": _max, "maze": _terminated, "memorymatch": _max, "minesweeper": _max, "mirrorlaser": _max,
    "nim": _max, "nonogram": _max, "pipeconnect": _max, "platformer": _half, "rushhour": _terminated,
    "ski": _not_dead, "snake": _max, "sokoban": _terminated, "tetris": _max, "towerdefense": _max,
    "tron": _max, "warehouse": _max, "wavedefense": _max, "arrow": _max,
}
SCRIPTED = [t for t in glyphjax.all_ids() if t.split("/")[0] in ("classics", "dummy")
            and glyphjax.make(t).scripted_policy is not None]
SEEDS = eval_seeds(32)


def _game(task: str) -> str:
    return task.split("/")[1].split("-")[0]


@pytest.mark.parametrize("task", glyphjax.all_ids())
def test_card__every_registered_task_declares_its_success_outcome(task):
    card = glyphjax.make(task).card
    assert card.success != (), (f"{task}: declare success on the card: TaskCard(success=(EV_WIN,)) "
                                f"(event indices), success=MAX_RETURN or success=NO_SUCCESS")


def test_card__success_events_must_name_real_events():
    base = dict(id="t/x", rules="", actions=("A",), action_descriptions=("a",), glyphs={}, hud="",
                hud_fields=(), max_steps=5, reward="", events=("", "won"))
    assert TaskCard(**base, success=(1,)).has_success
    assert not TaskCard(**base, success=NO_SUCCESS).has_success
    for bad in ((0,), (2,), "win"):
        with pytest.raises(ValueError, match="success"):
            TaskCard(**base, success=bad)


def test_expected_outcomes__cover_every_scripted_game():
    assert {_game(t) for t in SCRIPTED} <= set(SOLVED_BY_REWARD_RULE)


@pytest.mark.parametrize("task", SCRIPTED)
def test_scripted__success_rate_equals_share_solved_by_reward_rule(task):
    r = evaluate_task(task, "scripted", SEEDS)
    hi = glyphjax.make(task).card.return_range[1]
    solved = SOLVED_BY_REWARD_RULE[_game(task)](r.returns, r.terminated, hi)
    wrong = np.flatnonzero(r.success != solved)
    assert wrong.size == 0, (f"{task}: success {r.success[wrong[:5]].tolist()} but solved "
                             f"{solved[wrong[:5]].tolist()} for seeds {r.seeds[wrong[:5]].tolist()} "
                             f"(returns {r.returns[wrong[:5]].tolist()})")


@pytest.mark.parametrize("task", ["classics/maze-easy", "classics/icesliding-easy", "classics/lightsout-easy",
                                  "classics/rushhour-easy"])
def test_scripted__solver_with_move_costs_reports_its_wins(task):
    """The optimal solvers of move-cost puzzles win every seed: 100%, not the 0% of 'return = max'."""
    r = evaluate_task(task, "scripted", SEEDS)
    assert r.success.mean() == 1.0 and r.returns.max() < 1.0, f"{task}: success {r.success.mean():.2f}"


def test_random__memory_s7_reports_the_share_that_reached_the_goal():
    """MiniGrid pays 1 - 0.9 t/T > 0 only on success and 0 on every failure."""
    r = evaluate_task("minigrid/memory-s7", "random", eval_seeds(256))
    reached = r.returns > 0
    assert 0.1 < reached.mean() < 0.6, "random play on memory-s7 sometimes picks the right object"
    np.testing.assert_array_equal(r.success, reached)


def _episode(task: str, seed: int, actions: list[int]) -> dict:
    """A recorded episode (trajectory format, only the fields eval reads) of these actions."""
    env = glyphjax.make(task)
    _, tr = glyphjax.replay(env, seed, actions)
    done = np.asarray(tr.terminated) | np.asarray(tr.truncated)
    n = int(np.argmax(done)) + 1 if done.any() else len(actions)
    return {"task": task, "seed": seed, "return": float(np.sum(np.asarray(tr.reward[:n], np.float64))),
            "length": n, "terminated": bool(tr.terminated[:n].any()),
            "truncated": bool(tr.truncated[:n].any()),
            "turns": [{"action": int(a), "parse_status": "ok"} for a in actions[:n]]}


@pytest.mark.parametrize("name", ["doorkey-8x8", "lavagap-s7", "putnear-6x6-n2"])
def test_minigrid_solver__recorded_episodes_succeed_exactly_when_solved(name):
    """Planner episodes as LLM trajectories (success found by replaying their actions): every full
    plan succeeds, the same plan cut before its last action does not."""
    from glyphjax.suites.minigrid._solver import plan
    task = f"minigrid/{name}"
    env = glyphjax.make(task)
    seeds = [int(s) for s in eval_seeds(6)]
    plans = [plan(env.cfg, env.reset(glyphjax.reset_key(s))) for s in seeds]
    assert all(p for p in plans), f"{task}: no plan for some seed"
    full = from_episodes(task, [_episode(task, s, p) for s, p in zip(seeds, plans)])
    cut = from_episodes(task, [_episode(task, s, p[:-1]) for s, p in zip(seeds, plans)])
    assert full.success.all() and (full.returns > 0).all(), f"{task}: {full.success}"
    assert not cut.success.any() and (cut.returns == 0).all(), f"{task}: {cut.success}"


def test_no_success_notion__json_null_and_table_dash():
    from eval.benchmark import results_document
    from eval.tables import print_summary_table
    r = TaskResult(task="dummy/arrow-4", seeds=[1, 2], returns=[0.5, 1.0], lengths=[4, 4],
                   terminated=[True, True], truncated=[False, False], success=None)
    assert TaskResult.from_json(r.to_json()).success is None
    doc = results_document({"random": {r.task: r}}, n_resamples=100)
    assert doc["runs"]["random"]["summary"]["dummy/arrow-4"]["success_rate"] is None
    out = io.StringIO()
    print_summary_table(doc, file=out)
    row = next(line for line in out.getvalue().splitlines() if "dummy/arrow-4" in line)
    assert "—" in row and "%" not in row, row


def test_no_success_notion__card_gives_no_mask():
    card = glyphjax.make("dummy/arrow-4").card
    assert card.success == MAX_RETURN
    plain = TaskCard(id="t/endless", rules="", actions=("A",), action_descriptions=("a",), glyphs={},
                     hud="", hud_fields=(), max_steps=5, reward="", success=NO_SUCCESS)
    assert plain.success_mask([1.0], [True], [0]) is None


def test_rollout__final_event_is_the_event_of_each_episodes_last_step():
    """Checked against an un-vmapped replay of the recorded actions, for rollout and run_episode."""
    import jax
    env = glyphjax.make("minigrid/memory-s7")
    pol = glyphjax.random_policy(env.card.num_actions)
    seeds = np.arange(100, 124)
    res = jax.device_get(glyphjax.rollout(env, pol, seeds, record_actions=True))
    single = jax.jit(lambda s: glyphjax.run_episode(env, pol, s))
    for i, seed in enumerate(seeds):
        _, tr = glyphjax.replay(env, int(seed), res.actions[i][: res.lengths[i]])
        assert res.final_event[i] == tr.event[-1], f"seed {seed}"
        assert int(single(np.uint32(seed)).final_event) == int(tr.event[-1]), f"seed {seed}"
    assert len(set(res.final_event.tolist())) == 3, "success, failure and time-out endings all occur"
