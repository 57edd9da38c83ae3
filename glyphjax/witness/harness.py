"""The WITNESS harness (witness.md §6): a persistent within-game rule memory updated by
reflections, plans, strategy notices and the run's call budget. Host side: it drives one env with
any `model(prompt: str) -> str` (an LLM client, or a scripted fake in tests).

A reflection reply is JSON: `{"analysis": str, "memory_ops": [...], "plan": [ACTION, ...]}` or,
without a plan, `"action": ACTION`. Memory ops (evidence = observation ids shown in the prompt):
`{"op": "add", "rule": text, "evidence": [ids]}`, `{"op": "support" | "counter", "id": k,
"evidence": [ids]}`, `{"op": "delete", "id": k}`. Enforced mechanically: at most 2 adds per
reflection, each with >= 2 distinct known observations; a rule whose counter-evidence reaches its
support is deleted; plans hold at most 16 actions and are abandoned after 3 consecutive no-ops
(refused moves or actions that change nothing); memory persists across levels and resets and is
cleared between games. Unparseable replies count as parse failures and consume a call.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.render.text import render_text
from glyphjax.witness.engine import EV_ALL_SOLVED, EV_REJECTED, EV_SOLVED, EVENTS
from glyphjax.witness.layout import BUDGET

MAX_ADDS, MIN_SUPPORT, MAX_PLAN, NOOP_LIMIT = 2, 2, 16, 3
CALL_BUDGET, CALL_BUDGET_RL = 1000, 300
EXPLORE_STOP, NO_CHANGE_SWITCH = 0.95, 10


@dataclasses.dataclass
class Rule:
    text: str
    support: set[int]
    counter: set[int] = dataclasses.field(default_factory=set)


@dataclasses.dataclass
class RuleMemory:
    """Hypothesised rules with their supporting and contradicting observation ids."""

    rules: dict[int, Rule] = dataclasses.field(default_factory=dict)
    next_id: int = 1
    refused_ops: int = 0  # ops the harness refused (too many adds, too little evidence, unknown id)

    def apply(self, ops: list[dict], known: int) -> None:
        """Apply one reflection's ops; `known` is the number of observations so far (ids 0..known-1)."""
        adds = 0
        for op in ops:
            evidence = {int(e) for e in op.get("evidence", []) if 0 <= int(e) < known}
            kind, rule = op.get("op"), self.rules.get(op.get("id"))
            if kind == "add" and adds < MAX_ADDS and len(evidence) >= MIN_SUPPORT and op.get("rule"):
                self.rules[self.next_id] = Rule(str(op["rule"]), evidence)
                self.next_id += 1
                adds += 1
            elif kind == "support" and rule and evidence:
                rule.support |= evidence - rule.counter
            elif kind == "counter" and rule and evidence:
                rule.counter |= evidence - rule.support
                if len(rule.counter) >= len(rule.support):
                    del self.rules[op["id"]]
            elif kind == "delete" and rule:
                del self.rules[op["id"]]
            else:
                self.refused_ops += 1

    def text(self) -> str:
        return "\n".join(f"[{k}] {r.text} (support {len(r.support)}, counter {len(r.counter)})"
                         for k, r in self.rules.items()) or "(empty)"


@dataclasses.dataclass
class Step:
    """One env action of a run: the call whose plan it belongs to, the board shown before it, the
    rule memory after that call's ops, and what the engine answered (event, reward, run ended)."""

    call: int
    action: int
    observation: str
    memory: str
    event: str
    reward: float
    done: bool


@dataclasses.dataclass
class RunLog:
    calls: int = 0
    parse_failures: int = 0
    abandoned_plans: int = 0
    actions: list[int] = dataclasses.field(default_factory=list)
    notices: list[str] = dataclasses.field(default_factory=list)
    memory: RuleMemory = dataclasses.field(default_factory=RuleMemory)
    steps: list[Step] = dataclasses.field(default_factory=list)
    failed: list[tuple[int, str]] = dataclasses.field(default_factory=list)  # (call, board shown) of unparseable replies


def parse_reply(text: str, actions: tuple[str, ...]) -> tuple[list[dict], list[int]] | None:
    """(memory ops, action indices) of a reply, or None when it is not a valid reflection."""
    try:
        reply = json.loads(text)
        names = reply["plan"] if "plan" in reply else [reply["action"]]
        index = [actions.index(str(n).strip().upper()) for n in names]
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if not index:
        return None
    return list(reply.get("memory_ops", [])), index[:MAX_PLAN]


def _prompt(env, obs: str, log: RunLog, recent: list[str], notices: list[str]) -> str:
    parts = [env.card.rules, "Actions: " + ", ".join(env.card.actions), obs, "Rule memory:\n" + log.memory.text(),
             "Recent observations:\n" + "\n".join(recent[-10:])]
    return "\n\n".join(parts + notices)


_COMPILED: dict = {}


def compiled(env) -> tuple:
    """(step(key, state, action, params), render(state, params)) jitted once per engine program
    (every WITNESS game shares one)."""
    if env.program not in _COMPILED:
        _COMPILED[env.program] = (jax.jit(lambda k, s, a, p: env.step(k, s, a, p)),
                                  jax.jit(lambda s, p: env.render(s, p)))
    return _COMPILED[env.program]


def play(env, model: Callable[[str], str], seed: int = 0, call_budget: int = CALL_BUDGET) -> tuple[object, RunLog]:
    """One run of a game: reflections until the game ends or the call budget is spent."""
    key, params = jax.random.PRNGKey(seed), env.default_params()
    step_fn, render_fn = compiled(env)
    step = lambda s, a: step_fn(key, s, jnp.int32(a), params)  # noqa: E731
    frame = lambda s: render_text(env.card, jax.device_get(render_fn(s, params))).render()  # noqa: E731
    state, log, recent, no_change = env.reset(key), RunLog(), [], 0
    while not bool(state.done) and log.calls < call_budget:
        notices = []
        if int(state.used) > EXPLORE_STOP * BUDGET:
            notices.append("Notice: over 95% of this level's actions are spent; stop exploring.")
        if no_change >= NO_CHANGE_SWITCH:
            notices.append(f"Notice: {no_change} actions in a row changed nothing; switch strategy.")
        log.notices += notices
        obs = frame(state)
        log.calls += 1
        parsed = parse_reply(model(_prompt(env, obs, log, recent, notices)), env.card.actions)
        if parsed is None:
            log.parse_failures += 1
            log.failed.append((log.calls, obs))
            continue
        ops, plan = parsed
        log.memory.apply(ops, len(recent))
        noops = 0
        for a in plan:
            before = np.asarray(state.path).copy(), int(state.path_len), int(state.level)
            shown = obs if not log.steps or log.steps[-1].call != log.calls else \
                frame(state)
            state, tr = step(state, a)
            log.actions.append(a)
            log.steps.append(Step(log.calls, a, shown, log.memory.text(), EVENTS[int(tr.event)], float(tr.reward), bool(state.done)))
            recent.append(f"({len(recent)}) {env.card.actions[a]}: {EVENTS[int(tr.event)]}")
            unchanged = (int(state.path_len), int(state.level)) == before[1:] and \
                (np.asarray(state.path) == before[0]).all() and int(tr.event) not in (EV_REJECTED, EV_SOLVED, EV_ALL_SOLVED)
            no_change = no_change + 1 if unchanged else 0
            noops = noops + 1 if unchanged else 0
            if bool(state.done):
                break
            if noops >= NOOP_LIMIT and len(plan) > 1:
                log.abandoned_plans += 1
                break
    return state, log
