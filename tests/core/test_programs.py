"""Variants as traced params: envs of one program share compiles, and a batch mixing variants
plays each exactly as it plays alone."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.rollout import random_policy, reset_key
from glyphjax.suites.minigrid.tasks import TASKS, MiniGrid

CARD_DIGESTS = Path(__file__).parent / "data" / "card_digests.json"  # cards before variants were params
CROSSING = ["minigrid/crossing-n1", "minigrid/crossing-n1-safe", "minigrid/simplecrossing-n1"]
OBSTRUCTED = ["minigrid/obstructedmaze-1q", "minigrid/obstructedmaze-2dl", "minigrid/obstructedmaze-2dlh",
              "minigrid/obstructedmaze-2dlhb"]


CARD_FIELDS = ("id", "rules", "actions", "action_descriptions", "glyphs", "hud", "hud_fields", "max_steps",
               "reward", "events", "hud_enums", "track", "return_range", "grid_labels", "num_players", "notes")


def card_digest(card: glyphjax.TaskCard) -> str:
    """sha256 of the card fields CARD_DIGESTS was written with (the function that wrote it)."""
    d = {name: getattr(card, name) for name in CARD_FIELDS}
    d = {k: (dict(v) if isinstance(v, dict) or hasattr(v, "items") else v) for k, v in d.items()}
    return hashlib.sha256(json.dumps(d, sort_keys=True, ensure_ascii=False, default=list).encode()).hexdigest()[:20]


def test_programs__same_size_same_generator_share_and_others_do_not():
    groups = glyphjax.programs("minigrid/*")
    by_id = {t: first for first, ids in groups.items() for t in ids}
    for family in (CROSSING, OBSTRUCTED, ["minigrid/distshift1", "minigrid/distshift2"],
                   ["minigrid/empty-5x5", "minigrid/empty-random-5x5"]):
        assert len({by_id[t] for t in family}) == 1, f"{family} should be one program"
    for a, b in (("minigrid/empty-5x5", "minigrid/empty-6x6"),  # grid size is static
                 ("minigrid/doorkey-8x8", "minigrid/doorkey-8x8-partial"),  # the view is static
                 ("minigrid/obstructedmaze-1q", "minigrid/obstructedmaze-2q"),  # room count is static
                 ("minigrid/simplecrossing-n1", "minigrid/simplecrossing-easy-n1")):  # generator graph
        assert by_id[a] != by_id[b], f"{a} and {b} must be different programs"
    assert sorted(t for ids in groups.values() for t in ids) == glyphjax.task_ids("minigrid/*")


def test_env__program_keys_by_static_config_not_params_and_envs_keep_identity():
    a, b, c = (glyphjax.make(t) for t in CROSSING)
    assert a.program == b.program == c.program and len({a.program, b.program, c.program}) == 1
    assert a != b and len({a, b, c}) == 3  # identity equality: safe as keys of JAX's weakref caches
    pa, pb = a.default_params(), b.default_params()
    assert int(pa.level["obstacle"]) != int(pb.level["obstacle"])  # lava vs wall rivers
    assert a.program != glyphjax.make("minigrid/crossing-n2").program
    snake_easy, snake_hard = glyphjax.make("classics/snake-easy"), glyphjax.make("classics/snake-hard")
    assert snake_easy.program == glyphjax.make("classics/snake-easy").program != snake_hard.program


def test_stack_params__refuses_envs_of_different_programs():
    with pytest.raises(ValueError, match="one compiled program.*glyphjax.programs"):
        glyphjax.stack_params([glyphjax.make("minigrid/crossing-n1"), glyphjax.make("minigrid/crossing-n2")])


@pytest.mark.parametrize("family", [CROSSING, OBSTRUCTED], ids=["crossing-n1", "obstructedmaze-q1"])
def test_rollout__batch_mixing_variants_equals_each_variant_alone(family):
    envs = [glyphjax.make(t) for t in family]
    n_per, k = 16, len(envs)
    which = np.arange(n_per * k) % k  # episode i plays variant i % k
    seeds = np.arange(n_per * k, dtype=np.uint32) + 100
    params = glyphjax.stack_params([envs[w] for w in which])
    policy = random_policy(envs[0].card.num_actions)
    mixed = jax.device_get(glyphjax.rollout(envs[0], policy, seeds, params, record_actions=True,
                                            batched_params=True))
    for v, env in enumerate(envs):
        rows = np.flatnonzero(which == v)
        alone = jax.device_get(glyphjax.rollout(env, policy, seeds[rows], record_actions=True))
        for name in ("returns", "lengths", "terminated", "truncated"):
            np.testing.assert_array_equal(getattr(mixed, name)[rows], getattr(alone, name), err_msg=f"{env.card.id} {name}")
        t = alone.actions.shape[1]
        np.testing.assert_array_equal(mixed.actions[rows][:, :t], alone.actions, err_msg=env.card.id)

    # first frames too: one vmapped reset + render over mixed params, against each env alone
    env0 = envs[0]
    frames = jax.jit(jax.vmap(lambda s, p: env0.render(env0.reset(reset_key(s), p), p)))(seeds, params)
    for i in (0, 1, k, len(seeds) - 1):
        env = envs[which[i]]
        alone = env.render(env.reset(reset_key(seeds[i])))
        np.testing.assert_array_equal(np.asarray(frames.grid[i]), np.asarray(alone.grid), err_msg=env.card.id)


def test_rollout__one_trace_serves_every_variant_of_a_program(monkeypatch):
    traces = []
    original = MiniGrid._step

    def counted(self, key, state, action, params):
        traces.append(self.card.id)
        return original(self, key, state, action, params)
    monkeypatch.setattr(MiniGrid, "_step", counted)

    def policy(key, state, params):  # a new policy: nothing compiled for it yet
        return jax.random.randint(key, (), 0, 3, dtype=jnp.int32)
    seeds = jnp.arange(32, dtype=jnp.uint32)
    results = [jax.device_get(glyphjax.rollout(glyphjax.make(t), policy, seeds)) for t in CROSSING]
    assert len(traces) == 1, f"traced {len(traces)} times for {len(CROSSING)} variants: {traces}"
    # the one compile plays each variant's own level: lava deaths (terminated, return 0) happen
    # with lava rivers (crossing-n1), never with wall rivers (the other two)
    deaths = [int((r.terminated & (r.returns == 0)).sum()) for r in results]
    assert deaths[0] > 0 and deaths[1] == deaths[2] == 0, deaths


def test_cards__built_from_params_match_the_cards_before_variants_were_params():
    golden = {t: d for t, d in json.loads(CARD_DIGESTS.read_text()).items() if t.startswith("minigrid/")}
    ids = glyphjax.task_ids("minigrid/*")
    assert sorted(golden) == sorted(ids)
    changed = [t for t in ids if card_digest(glyphjax.make(t).card) != golden[t]]
    assert not changed, f"cards changed: {changed}"


def test_minigrid__rules_compiled_in_but_off_change_nothing_and_can_be_mixed():
    """Two variants of empty-5x5 with the same compiled rules (goal + pickup_target): one wins by
    the goal (as the registered task), one only by a pickup (never possible in an empty room)."""
    base = TASKS["empty-5x5"]
    by_goal = MiniGrid("minigrid/empty-5x5", dataclasses.replace(base, also_compile=("pickup_target",)))
    by_pickup = MiniGrid("minigrid/empty-5x5", dataclasses.replace(base, goal=False, pickup_target=True,
                                                                   also_compile=("goal",)))
    assert by_goal.program == by_pickup.program != glyphjax.make("minigrid/empty-5x5").program
    seeds = np.arange(64, dtype=np.uint32)
    params = glyphjax.stack_params([by_goal] * 32 + [by_pickup] * 32)
    policy = random_policy(by_goal.card.num_actions)
    mixed = jax.device_get(glyphjax.rollout(by_goal, policy, seeds, params, batched_params=True))
    registered = jax.device_get(glyphjax.rollout(glyphjax.make("minigrid/empty-5x5"), policy, seeds[:32]))
    np.testing.assert_array_equal(mixed.returns[:32], registered.returns)
    np.testing.assert_array_equal(mixed.lengths[:32], registered.lengths)
    assert (registered.returns > 0).any()
    assert (mixed.returns[32:] == 0).all() and mixed.truncated[32:].all()


def test_minigrid__unknown_rule_in_also_compile_is_refused():
    cfg = dataclasses.replace(TASKS["empty-5x5"], also_compile=("teleport",))
    with pytest.raises(ValueError, match="unknown rules.*teleport.*valid: goal"):
        MiniGrid("minigrid/empty-5x5", cfg).program
