"""The verification battery (gamesmith.md §4): replay tests, fingerprint, degeneracy, playability.

Every replay test is one predicate over a fixed seed set: a driver picks the actions, two
environments are run on the same seeds, and a relation must hold on every seed. Drivers and runs
are vmapped over seeds inside one compiled program per template program (`Env.program`): params
are an argument, so every variant of a board size shares the compile.

Tests (status per gamesmith.md §4; `# ours:` readings are marked):
- determinism (ours): the variant rebuilt from its declaration, and replayed with a different
  step-key stream, gives the identical trajectory (legal sets, canonical views, rewards, ends);
- outcome: every seed's rewards and end agree with the independent reference (the spec's
  results), rewards are zero-sum in {-1, 0, 1}; scripted positions live in the tests;
- encoding invariance (ours): the re-encoded variant, driven by the same canonical moves named
  through its own label dictionary, gives the same canonical trajectory and draws the same board;
- agreement: identical legal sets, canonical views of both seats and outcomes as the reference;
- fingerprint / degeneracy / playability / duplicate, as defined in gamesmith.md §4.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.rollout import policy_key, reset_key, step_key
from glyphjax.core.sampling import uniform_true
from glyphjax.core.types import NO_ACTION

DRIVE = -2  # an action slot the driver fills (random legal, sometimes any action)
ILLEGAL_SHARE = 0.05  # ours: share of driver moves drawn over all actions (exercises forfeits)
FINGERPRINT_EPISODES = 80  # gamesmith.md §4
DUPLICATE_SEEDS = 60


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The result of one battery test on one variant."""

    test: str
    passed: bool
    detail: str = ""


class Trajectories(NamedTuple):
    """Host arrays of a batch of episodes, indexed [seed, ply] (before the ply's move)."""

    actions: np.ndarray  # int32: the move played (-1 once the game is over)
    legal: np.ndarray  # bool[A]: the mover's legal set
    views: np.ndarray  # int32[2, A]: canonical view of each seat
    grids: np.ndarray  # uint32[2, H, W]: the drawn grid of each seat
    rewards: np.ndarray  # float32[2]: the ply's rewards
    done: np.ndarray  # bool: the game is over after the ply
    fill: np.ndarray  # float32 [seed]: occupied share of valid cells at the end
    chance: np.ndarray  # [seed, ...]: the chance outcomes of the reset (the deal), for references


_COMPILED: dict = {}


MIXED, LEGAL, BOTS = 0, 1, 2  # driver kinds (a traced argument: one compile serves all three)


def _compiled(env):
    """Jitted (seeds, actions, salt, driver, params) -> trajectories for one program. Drivers:
    MIXED (random legal, ILLEGAL_SHARE of moves over all actions), LEGAL, or BOTS (both seats
    play the template's reference bot)."""
    if env.program in _COMPILED:
        return _COMPILED[env.program]
    n_act = env.card.num_actions

    def drive(k, s, driver, params):
        u = jax.random.uniform(k, (2,))
        legal = env.legal(s, params)
        anything = jnp.floor(u[1] * n_act).astype(jnp.int32)
        pick = jnp.where(jnp.any(legal), uniform_true(legal, u[1]), NO_ACTION)
        pick = jnp.where((u[0] < ILLEGAL_SHARE) & (driver == MIXED), anything, pick)
        return jnp.where(driver == BOTS, env.bot_policy(k, s, params), pick)

    def episode(seed, actions, salt, driver, params):
        def ply(s, t):
            a = jnp.where(actions[t] == DRIVE, drive(policy_key(seed, t), s, driver, params), actions[t])
            legal = env.legal(s, params)
            views = jnp.stack([env.canonical_view(s, seat, params) for seat in (0, 1)])
            grids = jnp.stack([env.render(s, params, seat).grid for seat in (0, 1)])
            was_done = s.done
            s2, tr = env.step(jax.random.fold_in(step_key(seed, t), salt), s, a, params)
            return s2, (jnp.where(was_done, -1, a), legal, views, grids, tr.reward, s2.done)

        s0 = env.reset(reset_key(seed), params)
        s, out = jax.lax.scan(ply, s0, jnp.arange(env.card.max_steps, dtype=jnp.int32))
        return (*out, env.fill(s, params), env.chance(s0))

    _COMPILED[env.program] = jax.jit(jax.vmap(episode, in_axes=(0, 0, None, None, None)))
    return _COMPILED[env.program]


def run(env, seeds, actions=None, salt: int = 0, params: Any = None, driver: int = MIXED) -> Trajectories:
    """Episodes of `env` on `seeds`; `actions` [B, T] fixes moves (DRIVE = the driver's choice)."""
    seeds = jnp.asarray(seeds, jnp.uint32)
    if actions is None:
        actions = np.full((seeds.shape[0], env.card.max_steps), DRIVE, np.int32)
    params = env.default_params() if params is None else params
    out = jax.device_get(_compiled(env)(seeds, jnp.asarray(actions, jnp.int32), jnp.uint32(salt),
                                         jnp.int32(driver), params))
    return Trajectories(*out)


def _first_difference(a: Trajectories, b: Trajectories, fields=("legal", "views", "rewards", "done")) -> str:
    for name in fields:
        x, y = getattr(a, name), getattr(b, name)
        diff = np.argwhere(np.any((x != y).reshape(x.shape[0], x.shape[1], -1), axis=2))
        if diff.size:
            seed, ply = diff[0]
            return f"{name} differ first at seed index {seed}, ply {ply}"
    return ""


def determinism(declare, seeds) -> Verdict:
    """Two builds of the variant, the second replayed with another step-key stream, agree."""
    env_a, env_b = declare(), declare()
    a = run(env_a, seeds)
    b = run(env_b, seeds, actions=a.actions, salt=1)
    why = _first_difference(a, b) or _first_difference(a, b, ("actions",))
    return Verdict("determinism", not why, why)


def reference_run(ref, actions: np.ndarray, chance: np.ndarray) -> dict[str, np.ndarray]:
    """The reference implementation replaying recorded moves from the same chance outcomes:
    legal sets, views, rewards, ends."""
    b, t = actions.shape
    legal, views = [], []
    rewards = np.zeros((b, t, 2), np.float32)
    done = np.zeros((b, t), bool)
    for i in range(b):
        s = ref.initial(chance[i].tolist())
        lg, vw = [], []
        for j in range(t):
            lg.append(ref.legal(s))
            vw.append([ref.view(s, 0), ref.view(s, 1)])
            if not s.done:
                s = ref.step(s, int(actions[i, j]))
                rewards[i, j] = s.rewards
            done[i, j] = s.done
        legal.append(lg)
        views.append(vw)
    return {"legal": np.array(legal, bool), "views": np.array(views, np.int32), "rewards": rewards, "done": done}


def outcome(env, ref, seeds) -> Verdict:
    """Rewards and ends equal the reference's, and every step pays a zero-sum reward in {-1,0,1}."""
    a = run(env, seeds)
    want = reference_run(ref, a.actions, a.chance)
    if np.any(np.abs(a.rewards.sum(-1)) > 0) or not np.isin(a.rewards, (-1.0, 0.0, 1.0)).all():
        return Verdict("outcome", False, "a step paid rewards that are not zero-sum in {-1, 0, 1}")
    for name in ("rewards", "done"):
        bad = np.argwhere(np.any((a._asdict()[name] != want[name]).reshape(len(a.done), a.done.shape[1], -1), axis=2))
        if bad.size:
            seed, ply = bad[0]
            return Verdict("outcome", False, f"{name} differ from the spec at seed index {seed}, ply {ply}")
    return Verdict("outcome", True)


def agreement(env, ref, seeds) -> Verdict:
    """Identical legal sets, canonical views of both seats and outcomes as the reference."""
    a = run(env, seeds)
    want = reference_run(ref, a.actions, a.chance)
    for name in ("legal", "views", "rewards", "done"):
        x = a._asdict()[name]
        bad = np.argwhere(np.any((x != want[name]).reshape(x.shape[0], x.shape[1], -1), axis=2))
        if bad.size:
            seed, ply = bad[0]
            return Verdict("agreement", False, f"{name} differ at seed index {seed}, ply {ply}")
    return Verdict("agreement", True)


def encoding_invariance(base, encoded, relabel, decode_base, decode_encoded, seeds) -> Verdict:
    """`encoded` driven by the base run's moves, each named through its label dictionary
    (`relabel`: canonical action -> label), yields the base's canonical trajectory, and the board
    read back from its drawn grids (`decode_*`: grids -> canonical views) equals the base's."""
    a = run(base, seeds)
    moves = np.array([[m if m < 0 else encoded.card.action_index(relabel(m)) for m in row]
                      for row in a.actions.tolist()], np.int32)
    b = run(encoded, seeds, actions=moves)
    why = _first_difference(a, b)
    if not why:
        same = decode_base(a.grids) == decode_encoded(b.grids)
        bad = np.argwhere(~np.all(same.reshape(*a.done.shape, -1), axis=2))
        why = f"drawn board differs at seed index {bad[0][0]}, ply {bad[0][1]}" if bad.size else ""
    return Verdict("encoding", not why, why)


@dataclasses.dataclass(frozen=True)
class Fingerprint:
    """Random-play statistics of a variant (gamesmith.md §4)."""

    length: float  # mean plies
    branching: float  # legal moves per decision, pooled over decisions
    decisive: float  # share of episodes not drawn
    first_mover: float  # seat-0 wins / decisive episodes
    fill: float  # occupied / valid cells at the end (grid games)
    outcomes: tuple[int, ...]  # per seed: +1 seat 0 won, -1 seat 1 won, 0 draw

    def close_to(self, other: "Fingerprint") -> bool:
        """gamesmith.md §4 'close': length within 2, decisive within 0.1, fill within 0.1."""
        return (abs(self.length - other.length) <= 2 and abs(self.decisive - other.decisive) <= 0.1
                and abs(self.fill - other.fill) <= 0.1)


def outcomes_of(traj: Trajectories) -> np.ndarray:
    return np.sign(traj.rewards[..., 0].sum(axis=1)).astype(np.int32)


def fingerprint(env, seeds=None) -> Fingerprint:
    """Statistics of episodes on `seeds` (default: the first 80) under random legal play."""
    seeds = np.arange(FINGERPRINT_EPISODES) if seeds is None else np.asarray(seeds)
    t = run(env, seeds, driver=LEGAL)
    played = t.actions >= 0
    result = outcomes_of(t)
    decisive = result != 0
    return Fingerprint(
        length=float(played.sum(1).mean()),
        branching=float(t.legal.sum(-1)[played].sum() / max(1, played.sum())),
        decisive=float(decisive.mean()),
        first_mover=float((result == 1).sum() / max(1, decisive.sum())),
        fill=float(t.fill.mean()), outcomes=tuple(result.tolist()))


def degeneracy(fp: Fingerprint, grid: bool) -> Verdict:
    """Excluded if only draws, first-mover share outside [0.1, 0.9], or a grid game < 4 plies."""
    if fp.decisive == 0:
        return Verdict("degeneracy", False, "every random episode is a draw")
    if not 0.1 <= fp.first_mover <= 0.9:
        return Verdict("degeneracy", False, f"first-mover win share {fp.first_mover:.2f} outside [0.1, 0.9]")
    if grid and fp.length < 4:
        return Verdict("degeneracy", False, f"mean length {fp.length:.2f} plies < 4")
    return Verdict("degeneracy", True)


def playability(env, seeds) -> Verdict:
    """At least 25% of episodes between two score-maximising reference bots are decisive."""
    share = float((outcomes_of(run(env, seeds, driver=BOTS)) != 0).mean())
    return Verdict("playability", share >= 0.25, f"{share:.2f} of bot-vs-bot episodes decisive")


def duplicate(env, fp: Fingerprint, admitted: dict[str, tuple[Any, Fingerprint]]) -> Verdict:
    """Reject when an admitted game of the template has a close fingerprint and the same outcome
    on all 60 shared seeds (`admitted`: id -> (env, fingerprint))."""
    seeds = np.arange(DUPLICATE_SEEDS)
    mine = None
    for other_id, (other, ofp) in admitted.items():
        if not fp.close_to(ofp):
            continue
        mine = outcomes_of(run(env, seeds, driver=LEGAL)) if mine is None else mine
        if np.array_equal(mine, outcomes_of(run(other, seeds, driver=LEGAL))):
            return Verdict("duplicate", False, f"same outcomes as {other_id} on {DUPLICATE_SEEDS} seeds")
    return Verdict("duplicate", True)


@dataclasses.dataclass(frozen=True)
class Twin:
    """A re-encoding to check against the identity encoding (the encoding-invariance test)."""

    base: Any  # the identity-encoded env
    encoded: Any  # the re-encoded env
    relabel: Any  # canonical action -> the label the encoded text gives it
    decode_base: Any  # drawn grids of `base` -> canonical views
    decode_encoded: Any  # drawn grids of `encoded` -> canonical views


@dataclasses.dataclass(frozen=True)
class Candidate:
    """A variant put up for admission: how to build it, its independent reference, its twins."""

    id: str
    build: Any  # () -> Env (a fresh build of the declaration)
    reference: Any  # the independent implementation (initial / legal / step / view)
    twins: tuple[Twin, ...] = ()
    grid: bool = True  # grid games also face the minimum-length rule
    encodes: str | None = None  # an encoding variant: the id of the game it re-encodes


ORDER = ("determinism", "outcome", "hiding", "encoding", "degeneracy", "playability", "agreement", "duplicate")


def assess(c: Candidate, seeds, admitted: dict[str, tuple[Any, Fingerprint]]) -> list[Verdict]:
    """The battery in admission order (gamesmith.md §4, ours): stop at the first failed test.
    `admitted` (id -> (env, fingerprint)) is what the duplicate test compares with; an admitted
    candidate is added to it."""
    env = c.build()
    seeds = np.asarray(seeds)
    verdicts: list[Verdict] = []
    fp = None
    for test in ORDER:
        if test == "determinism":
            v = determinism(c.build, seeds)
        elif test == "outcome":
            v = outcome(env, c.reference, seeds)
        elif test == "hiding":
            v = hiding(env, seeds)
        elif test == "encoding":
            v = next((w for w in (encoding_invariance(t.base, t.encoded, t.relabel, t.decode_base,
                                                       t.decode_encoded, seeds) for t in c.twins)
                      if not w.passed), Verdict("encoding", True))
        elif test == "degeneracy":
            fp = fingerprint(env)
            v = degeneracy(fp, c.grid)
        elif test == "playability":
            v = playability(env, seeds)
        elif test == "agreement":
            v = agreement(env, c.reference, seeds)
        elif c.encodes is not None:  # a re-encoding is the same game by construction
            v = Verdict("duplicate", True, f"encoding variant of {c.encodes}")
        else:
            v = duplicate(env, fp, admitted)
        verdicts.append(v)
        if not v.passed:
            return verdicts
    if c.encodes is None:
        admitted[c.id] = (env, fp)
    return verdicts


def hiding(env, seeds) -> Verdict:
    """Resampling the other seat's hidden state (`env.perturb_private`) leaves every grid and HUD
    this seat is shown identical; a game without hidden state passes trivially."""
    if env.perturb_private is None:
        return Verdict("hiding", True, "no hidden state")
    params = env.default_params()
    t = run(env, seeds)
    leaks = _leaks(env, params, jnp.asarray(seeds, jnp.uint32), jnp.asarray(t.actions))
    bad = np.argwhere(np.asarray(leaks))
    if bad.size:
        return Verdict("hiding", False, f"seat {bad[0][2]}'s view changed with the other seat's hidden "
                                        f"state at seed index {bad[0][0]}, ply {bad[0][1]}")
    return Verdict("hiding", True)


_LEAKS: dict = {}


def _leaks(env, params, seeds, actions):
    """bool[B, T, 2]: seat o's frame changes when the other seat's private state is resampled
    (one compile per program; params are an argument)."""
    if env.program not in _LEAKS:
        def episode(seed, acts, params):
            def ply(s, t):
                out = []
                for seat in (0, 1):
                    other = env.perturb_private(jax.random.fold_in(policy_key(seed, t), seat), s, jnp.int32(1 - seat))
                    fa, fb = env.render(s, params, seat), env.render(other, params, seat)
                    out.append(jnp.any(fa.grid != fb.grid) | jnp.any(fa.hud != fb.hud) | (fa.event != fb.event))
                s2, _ = env.step(step_key(seed, t), s, acts[t], params)
                return s2, jnp.stack(out) & ~s.done
            s0 = env.reset(reset_key(seed), params)
            return jax.lax.scan(ply, s0, jnp.arange(env.card.max_steps, dtype=jnp.int32))[1]
        _LEAKS[env.program] = jax.jit(jax.vmap(episode, in_axes=(0, 0, None)))
    return _LEAKS[env.program](seeds, actions, params)
