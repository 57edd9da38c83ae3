"""Game-side series evaluation of the zero-sum corpus (gamesmith.md §6.2) in `glyphjax-eval`.

    glyphjax-eval tasks=zerosum_heldout policy=random opponent=minimax
    glyphjax-eval tasks=zerosum_heldout policy=local model=RUN_A opponent=random
    glyphjax-eval tasks=zerosum_heldout policy=local model=RUN_A opponent=checkpoint:RUN_B   head-to-head

Player A is the policy, player B the opponent. Per variant, `seeds` episodes (default 40) on
consecutive held-out seeds; episode k plays seed k with A in seat k mod 2 (20 per seat), and the
first 39 form 13 best-of-three series (eval/series.py). An invalid move forfeits inside the game
(the zero-sum cards' `illegal: forfeit`; an unparseable reply is no action, which is illegal) and
a reply that ran to the token budget loses the game for whoever sent it first. Prints per variant
and overall the share of series A won with its bootstrap interval (variants resampled).

Both players are array bots (random / scripted / minimax; vmapped) or at least one is a text
policy (the rollout engine): an LLM policy against a bot, or against another checkpoint
(`opponent=checkpoint:<dir>`: a model directory or a glyphjax-train run directory, played by the
local JAX model with the same sampling settings as the policy).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from eval.series import game_score, series_share

EPISODES_PER_VARIANT = 40
CHECKPOINT = "checkpoint:"


def series_plan(seeds: Sequence[int]) -> list[tuple[int, int]]:
    """(seed, A's seat) of each episode of a variant: seeds in order, A's seat alternating."""
    return [(int(s), k % 2) for k, s in enumerate(seeds)]


def array_games(task: str, policy: str, opponent: str, depth: int, seeds: Sequence[int]) -> list[tuple[int, float]]:
    """(seed, A's score) of every episode of one variant between two array bots (vmapped per seat)."""
    from eval.runner import evaluate_task
    plan = series_plan(seeds)
    games = []
    for seat in (0, 1):
        mine = np.array([s for s, a in plan if a == seat], np.int64)
        if len(mine):
            result = evaluate_task(task, _seated(task, policy, opponent, depth, seat), mine, len(mine), seat=seat)
            games += [(int(s), game_score(float(r))) for s, r in zip(result.seeds, result.returns)]
    return games


_SEATED: dict = {}


def _seated(task: str, policy: str, opponent: str, depth: int, seat: int):
    """The two bots seated as one array policy, built once per compiled program and seating (the
    bots read only the state and the traced params), so the variants of a program, and A vs B
    with B vs A, share one compile."""
    import glyphjax
    from glyphjax.core.bots import DEFAULT_DEPTH, bot, seated
    env = glyphjax.make(task)
    def player(name: str, d: int) -> tuple[str, int | None]:
        return name, d if name == "minimax" else None  # only minimax has a depth
    names = [player(opponent, depth)] * env.card.num_players
    names[seat] = player(policy, DEFAULT_DEPTH)
    key = (env.program, tuple(names))
    if key not in _SEATED:
        _SEATED[key] = seated(env, [bot(env, name, d or DEFAULT_DEPTH) for name, d in names])
    return _SEATED[key]


def over_budget(record) -> int | None:
    """Index of the first turn of a seat's record whose reply ran to the token budget, or None."""
    return next((k for k, t in enumerate(record.turns) if t.finish_reason == "length"), None)


def text_games(policy: Any, opponent: Any, task: str, seeds: Sequence[int], harness=None, sampling=None,
               max_turns: int | None = None) -> list[tuple[int, float]]:
    """(seed, A's score) of every episode of one variant, A a text policy and the opponent a text
    policy or an ArrayPlayer, played in one batched rollout."""
    from rl.rollout import run_rollouts
    plan = series_plan(seeds)
    episodes = [(task, s) for s, _ in plan]
    seatings = [{1 - a: opponent} for _, a in plan]
    records = run_rollouts(policy, episodes, harness, sampling, opponents=seatings, max_turns=max_turns)
    by_episode: dict[tuple[int, int], Any] = {(r.seed, r.seat): r for r in records}
    games = []
    for seed, a in plan:
        mine = by_episode[seed, a]
        theirs = by_episode.get((seed, 1 - a))  # None when the opponent is an array bot
        games.append((seed, game_score(float(mine.episode_return), over_budget(mine),
                                       None if theirs is None else over_budget(theirs))))
    return games


def evaluate_series(tasks: Sequence[str], seeds: Sequence[int], play: Callable[[str, Sequence[int]], list],
                    n_resamples: int, seed: int, confidence: float) -> dict:
    """Every variant's games through `play(task, seeds)`, then the series share (eval/series.py)."""
    from eval.series import series_scores
    from eval.stats import mean_ci
    games = {t: play(t, seeds) for t in tasks}
    doc = series_share(games, n_resamples, seed, confidence)
    doc["per_variant_ci95"] = {t: list(mean_ci(series_scores(games[t]), n_resamples, seed, confidence)[1:])
                               for t in doc["per_variant"]}
    doc["games"] = {t: [[s, g] for s, g in v] for t, v in games.items()}
    return doc


def print_series(doc: Mapping, a: str, b: str, file=None) -> None:
    """Per variant the share of series A won, then the overall share with its interval."""
    from rich.table import Table
    from eval.tables import _console
    t = Table(title=f"{a} vs {b}: share of best-of-three series won by {a}", title_justify="left")
    for col in ("variant", "series won"):
        t.add_column(col, justify="left" if col == "variant" else "right")
    for task, share in doc["per_variant"].items():
        v_lo, v_hi = doc["per_variant_ci95"][task]
        t.add_row(task, f"{share:.1%} [{v_lo:.1%}, {v_hi:.1%}]")
    lo, hi = doc["ci95"]
    t.add_row("overall", f"{doc['share']:.1%} [{lo:.1%}, {hi:.1%}] ({doc['series']} series, {doc['variants']} variants)")
    _console(file).print(t)


def is_series_run(cfg) -> bool:
    """Series mode: `series=true`; by default (`series` unset) on when an opponent is given and
    the task set is `zerosum_heldout`, the policy is an LLM or the opponent is a checkpoint, with
    every task a zero-sum variant (array policies on other sets keep the per-seat tables)."""
    opp = cfg.get("opponent")
    if opp is None:
        return False
    if cfg.get("series") is not None:
        return bool(cfg.series)
    zero_sum = all(str(t).startswith("zerosum/") for t in cfg.tasks.ids)
    wanted = (cfg.tasks.get("name") == "zerosum_heldout" or cfg.policy.get("kind") == "llm"
              or str(opp.name) == "checkpoint")
    return zero_sum and wanted


def run_series(cfg, tasks: Sequence[str], seeds: Sequence[int]) -> dict:
    """The series evaluation a `glyphjax-eval` config asks for: {label: series document}, printed."""
    from eval.versus import check_opponent, opponent_label
    opp, pol = cfg.opponent, cfg.policy
    bootstrap = (int(cfg.bootstrap.resamples), int(cfg.bootstrap.seed), float(cfg.bootstrap.confidence))
    checkpoint = str(opp.name) == "checkpoint"
    if checkpoint and not opp.get("path"):
        raise ValueError("opponent=checkpoint needs its directory: opponent=checkpoint:<dir> "
                         "(a model directory or a glyphjax-train run directory)")
    if not checkpoint:
        check_opponent(str(opp.name), opp.depth)
    b = f"checkpoint:{opp.path}" if checkpoint else opponent_label(str(opp.name), int(opp.depth))
    out = {}
    if pol.get("kind") == "array":
        if checkpoint:
            raise ValueError("opponent=checkpoint:<dir> plays a text policy; give the array bot as the opponent "
                             "instead, e.g. policy=local model=<dir> opponent=random")
        for name in pol.policies:
            out[str(name)] = evaluate_series(tasks, seeds, lambda t, s, name=str(name): array_games(
                t, name, str(opp.name), int(opp.depth), s), *bootstrap)
    else:
        policy, sampling, harness = _text_policy(cfg)
        other = _text_opponent(cfg) if checkpoint else None
        for task in tasks:
            if other is None and opp.name != "random":
                _array_opponent(task, str(opp.name), int(opp.depth))  # fail early on a bot the task lacks

        def play(task, s):
            player = other if other is not None else _array_opponent(task, str(opp.name), int(opp.depth))
            return text_games(policy, player, task, s, harness, sampling)
        out[f"{pol.name}:{_model(cfg)}"] = evaluate_series(tasks, seeds, play, *bootstrap)
    for label, doc in out.items():
        print_series(doc, label, b)
    return {"opponent": b, "series": out}


def _model(cfg) -> str | None:
    from eval.llm import resolve_model
    return resolve_model(cfg)


def _sampling(pol):
    from omegaconf import OmegaConf
    from rl.policies.base import SamplingParams
    fields = ("temperature", "top_p", "top_k", "max_new_tokens", "seed")
    return SamplingParams(**{k: v for k, v in OmegaConf.to_container(pol, resolve=True).items() if k in fields})


def _text_policy(cfg):
    """(policy, sampling, harness) of an LLM policy config."""
    from omegaconf import OmegaConf
    from rl.llm_eval import _harness, make_policy
    model = _model(cfg)
    if cfg.policy.name == "vllm" and not cfg.server.url:
        raise ValueError("policy=vllm needs server.url=http://HOST:PORT/v1")
    policy = make_policy(str(cfg.policy.name), model=model, server_url=cfg.server.url, **_constrained(cfg))
    return policy, _sampling(cfg.policy), _harness(OmegaConf.to_container(cfg.harness, resolve=True))


def _constrained(cfg) -> dict:
    """policy=local settings the sampler takes: policy.constrained_actions=true (decode one legal
    action name per turn) and policy.batch_buckets (rows per sampler call; fewer = less memory)."""
    out = {"constrained_actions": True} if cfg.policy.get("constrained_actions", False) else {}
    if cfg.policy.name == "local" and cfg.policy.get("batch_buckets"):
        out["batch_buckets"] = tuple(int(b) for b in cfg.policy.batch_buckets)
    return out


def _text_opponent(cfg):
    """The checkpoint opponent: the local JAX model over `opponent.path` (constrained like the policy)."""
    from rl.llm_eval import make_policy
    return make_policy("local", model=str(cfg.opponent.path), **_constrained(cfg))


def _array_opponent(task: str, name: str, depth: int):
    """The bot `name` in a text policy's rollout (built once per task, so it compiles once)."""
    import glyphjax
    from glyphjax.core.bots import bot
    from rl.rollout import ArrayPlayer
    key = (task, name, depth)
    if key not in _BOTS:
        _BOTS[key] = ArrayPlayer(bot(glyphjax.make(task), name, depth), name)
    return _BOTS[key]


_BOTS: dict = {}
