"""The verification battery on the grid corpus and on deliberately broken candidates: each
injected defect is rejected by the test that names it, and the verdicts hold on a fresh seed set;
and V(s)'s encoding invariance over every registered variant."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.rollout import policy_key, reset_key, step_key
from glyphjax.core.sampling import uniform_true
from glyphjax.zerosum import battery, corpus
from glyphjax.zerosum.encoding import Encoding
from glyphjax.zerosum.gridgame import GridGame
from glyphjax.zerosum.gridrules import GridRules

SEEDS = np.arange(24)
FRESH = np.arange(5000, 5024)
DECL = corpus.declarations()


def _sample_ids() -> list[str]:
    """Every 3x3 game-changing variant and the first encoding of each 3x3 base (one compiled
    program); the whole corpus is certified by `python -m glyphjax.zerosum.certify`."""
    out = []
    for fam in corpus.GRID_FAMILIES:
        names = [v for v in fam.variants() if DECL.get(f"zerosum/{fam.name}/{v}", (0,))[0] == 3]
        encs = [v for v in names if v.startswith("enc-")][:1]
        out += [f"zerosum/{fam.name}/{v}" for v in names if not v.startswith("enc-")] + \
            [f"zerosum/{fam.name}/{v}" for v in encs]
    return out


@pytest.fixture(scope="module")
def admitted():
    """The battery run over the sample, bases first (so the duplicate test has a pool)."""
    pool: dict = {}
    verdicts = {t: battery.assess(corpus.grid_candidate(t, *DECL[t]), SEEDS, pool) for t in _sample_ids()}
    return pool, verdicts


def test_battery__every_sampled_corpus_variant_passes_every_test(admitted):
    _, verdicts = admitted
    for task_id, vs in verdicts.items():
        assert [v.test for v in vs] == list(battery.ORDER), f"{task_id}: stopped at {vs[-1]}"
        assert all(v.passed for v in vs), f"{task_id}: {[v for v in vs if not v.passed]}"


def _first_failure(candidate, pool=None, seeds=SEEDS) -> battery.Verdict:
    vs = battery.assess(candidate, seeds, dict(pool or {}))
    return vs[-1] if not vs[-1].passed else battery.Verdict("none", True)


class ReversedOutcome(GridGame):
    """Injected defect: the winner is paid -1 and the loser +1."""

    def _step(self, key, state, action, params):
        nxt, reward, done, event = super()._step(key, state, action, params)
        return nxt, -reward, done, event


class KeyedOutcome(GridGame):
    """Injected defect: a hook that draws from the step key (completing a line wins only on a
    coin flip), so the same moves can end differently."""

    def _step(self, key, state, action, params):
        nxt, reward, done, event = super()._step(key, state, action, params)
        keep = jax_uniform(key) < 0.5
        return nxt, jnp.where(keep, reward, 0.0 * reward), done, event


def jax_uniform(key):
    return jax.random.uniform(key)


def _build(cls, task_id="zerosum/faulty/x", n=3, rules=GridRules(), enc=Encoding()):
    from glyphjax.zerosum.gridrules import grid_params, rules_text
    return lambda: cls(task_id, n, grid_params(rules, n, enc), rules_text(rules, n, enc.labels(n)), enc)


@pytest.mark.parametrize("seeds", [SEEDS, FRESH], ids=["fixed-seeds", "fresh-seeds"])
def test_fault__reversed_outcome_is_rejected_by_the_outcome_test(seeds):
    c = corpus.grid_candidate("zerosum/faulty/reversed", 3, GridRules(), Encoding(), build=_build(ReversedOutcome))
    assert _first_failure(c, seeds=seeds).test == "outcome"


@pytest.mark.parametrize("seeds", [SEEDS, FRESH], ids=["fixed-seeds", "fresh-seeds"])
def test_fault__key_dependent_hook_is_rejected_by_the_determinism_test(seeds):
    c = corpus.grid_candidate("zerosum/faulty/keyed", 3, GridRules(), Encoding(), build=_build(KeyedOutcome))
    assert _first_failure(c, seeds=seeds).test == "determinism"


@pytest.mark.parametrize("seeds", [SEEDS, FRESH], ids=["fixed-seeds", "fresh-seeds"])
def test_fault__corrupted_action_label_is_rejected_by_the_encoding_test(seeds):
    enc = Encoding(1, "rc", 1)
    good = _build(GridGame, enc=enc)

    def corrupted():
        env = good()
        names = list(env.card.actions)
        names[0], names[4] = names[4], names[0]  # two cells swap names on the card only
        env.card = dataclasses.replace(env.card, actions=tuple(names))
        return env
    c = corpus.grid_candidate("zerosum/faulty/label", 3, GridRules(), enc, build=corrupted)
    assert _first_failure(c, seeds=seeds).test == "encoding"
    clean = corpus.grid_candidate("zerosum/faulty/label", 3, GridRules(), enc, build=good)
    assert _first_failure(clean, seeds=seeds).passed


@pytest.mark.parametrize("seeds", [SEEDS, FRESH], ids=["fixed-seeds", "fresh-seeds"])
def test_fault__always_draw_rule_is_rejected_by_the_degeneracy_test(seeds):
    rules = GridRules(dirs=(False, False, True, True), blocked=(4,))  # no diagonal line can exist
    c = corpus.grid_candidate("zerosum/faulty/draw", 3, rules, Encoding())
    v = _first_failure(c, seeds=seeds)
    assert (v.test, v.detail) == ("degeneracy", "every random episode is a draw")


def test_fault__relabelled_clone_is_rejected_and_a_real_rule_variant_admitted(admitted):
    pool, _ = admitted
    clone = corpus.grid_candidate("zerosum/clone/base", 3, GridRules(), Encoding(2, "index", 2))
    clone = dataclasses.replace(clone, encodes=None)  # put up as a new game, not as an encoding
    v = _first_failure(clone, pool)
    assert v.test == "duplicate" and "zerosum/tictactoe/base" in v.detail
    misere = corpus.grid_candidate("zerosum/other/base", 3, GridRules(misere=True), Encoding())
    assert _first_failure(misere, {k: x for k, x in pool.items() if "misere" not in k}).passed


def test_fault__unplayable_rule_is_rejected_by_the_playability_test():
    rules = GridRules(blocked=(4,))  # without the centre, reference bots almost always draw
    v = _first_failure(corpus.grid_candidate("zerosum/faulty/blocked", 3, rules, Encoding()))
    assert v.test == "playability"


def test_fingerprint__tictactoe_matches_the_exact_expectations_within_3_se():
    fp = battery.fingerprint(glyphjax.make("zerosum/tictactoe/base"))
    se = np.sqrt(0.873 * 0.127 / 80)
    assert abs(fp.decisive - 0.873) < 3 * se
    assert abs(fp.length - 7.63) < 0.5 and abs(fp.fill - 0.847) < 0.06 and abs(fp.branching - 5.58) < 0.4


@pytest.mark.parametrize("fp, why", [
    (battery.Fingerprint(7, 5, 0.0, 0.5, 0.8, ()), "every random episode is a draw"),
    (battery.Fingerprint(7, 5, 0.9, 0.95, 0.8, ()), "first-mover win share 0.95 outside [0.1, 0.9]"),
    (battery.Fingerprint(3, 5, 0.9, 0.5, 0.8, ()), "mean length 3.00 plies < 4"),
])
def test_degeneracy__each_rule_rejects(fp, why):
    assert battery.degeneracy(fp, grid=True) == battery.Verdict("degeneracy", False, why)


VALUE_SEEDS = np.arange(1)  # ~150 CPU-s on the 2-core VM, compile-dominated (2 seeds cost the same)


def _encoding_rows() -> dict:
    """Every registered game-changing variant drawn in the identity encoding and in one of its
    family's registered encodings (the k-th variant takes the k-th, round robin, so every
    encoding is drawn; `corpus.with_encoding`), grouped by compiled program:
    program -> [(task id, encoding id or None, env, canonical move -> the env's action index)]."""
    grid, bet, trade = corpus.declarations(), corpus.bet_declarations(), corpus.trade_declarations()
    ids = glyphjax.task_ids("zerosum/*")
    groups: dict = {}
    for k, task_id in enumerate(t for t in ids if "/enc-" not in t):
        encodings = [t for t in ids if t.startswith(task_id.rsplit("/", 1)[0] + "/enc-")]
        for enc_id in (None, encodings[k % len(encodings)]):
            env = corpus.with_encoding(task_id, enc_id)
            if task_id in grid:  # canonical cell -> the name the rules text's layout gives it
                n, rules, _ = grid[task_id]
                name = corpus.relabel_through_text(grid[enc_id][2] if enc_id else Encoding(), n)
            else:  # canonical action -> its name in the encoding's label dictionary
                rules, own = (bet if task_id in bet else trade)[task_id]
                enc = (bet if task_id in bet else trade)[enc_id][1] if enc_id else type(own)()
                name = enc.labels(rules.n_ranks if task_id in bet else rules)["actions"].__getitem__
            amap = np.array([env.card.action_index(name(m)) for m in range(env.card.num_actions)], np.int32)
            groups.setdefault(env.program, []).append((task_id, enc_id, env, amap))
    return groups


def _value_trace(env):
    """Jitted (seed, params, amap) -> per ply: V(s) of both seats, the canonical move, rewards and
    end; the move is a random legal canonical move (seeded by the seed and ply only), played under
    the env's own label for it. One compile per program: params and the label map are traced."""
    def episode(seed, params, amap):
        def ply(s, t):
            values = jnp.stack([env.value(s, params, seat) for seat in (0, 1)])
            move = uniform_true(env.legal(s, params)[amap], jax.random.uniform(policy_key(seed, t)))
            s2, tr = env.step(step_key(seed, t), s, amap[move], params)
            return s2, (values, jnp.where(s.done, -1, move), tr.reward, s2.done)
        s, out = jax.lax.scan(ply, env.reset(reset_key(seed), params),
                              jnp.arange(env.card.max_steps, dtype=jnp.int32))
        final = jnp.stack([env.value(s, params, seat) for seat in (0, 1)])
        return (*out, final)
    return jax.jit(jax.vmap(episode))


def test_value__is_encoding_invariant_along_random_legal_play_in_every_registered_variant():
    """gamesmith.md §3: V(s) is a function of the seat's information, never of its encoding. Each
    registered game-changing variant plays the same random legal canonical moves in the identity
    encoding and in one of its family's encodings: V of both seats at every ply, the moves, the
    rewards and the ends must agree exactly."""
    groups = _encoding_rows()
    assert sum(len(rows) for rows in groups.values()) == 2 * len([t for t in glyphjax.task_ids("zerosum/*")
                                                                   if "/enc-" not in t])
    for rows in groups.values():
        reps = len(VALUE_SEEDS)
        seeds = jnp.asarray(np.tile(VALUE_SEEDS, len(rows)), jnp.uint32)
        params = jax.tree.map(lambda x: jnp.repeat(x, reps, axis=0), glyphjax.stack_params([r[2] for r in rows]))
        amaps = jnp.asarray(np.repeat(np.stack([r[3] for r in rows]), reps, axis=0))
        out = jax.device_get(_value_trace(rows[0][2])(seeds, params, amaps))
        values = np.concatenate([out[0], out[4][:, None]], axis=1)  # [row, ply + final, seat]
        base = {}
        for i, (task_id, enc_id, _, _) in enumerate(rows):
            got = [x[i * reps:(i + 1) * reps] for x in (values, *out[1:4])]
            if enc_id is None:
                base[task_id] = got
                continue
            for what, x, y in zip(("V(s)", "moves", "rewards", "ends"), base[task_id], got):
                bad = np.argwhere(np.any((x != y).reshape(reps, x.shape[1], -1), axis=2))
                assert not bad.size, (f"{task_id} drawn as {enc_id}: {what} differ first at seed "
                                      f"{VALUE_SEEDS[bad[0][0]]}, ply {bad[0][1]}")
