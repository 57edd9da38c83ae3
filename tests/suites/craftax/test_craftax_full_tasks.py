"""Focused full-engine Craftax tasks: start states hold what their cards say, scripted actions pay
the hand-computed rewards, cards state what the code pays, and the planner solves the tasks.

All tasks share one compiled program; the module compiles one batched reset, one batched step
(every task in one batch, params stacked) and one planner rollout.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.core.rollout import stack_params
from glyphjax.suites.craftax import engine, native
from glyphjax.suites.craftax.certify import focused_envs, mixed_rollout

pytestmark = pytest.mark.xdist_group("craftax")
A = {n: i for i, n in enumerate(engine.FULL_ACTIONS)}
SEED = 3


@pytest.fixture(scope="module")
def batch():
    """(ids, jitted step over the batch, start states): every full-engine task at seed SEED."""
    envs = focused_envs("full")
    ids = [e.card.id for e in envs]
    env, params = envs[0], stack_params(envs)
    seeds = jnp.full((len(envs),), SEED, jnp.uint32)
    reset = jax.jit(jax.vmap(lambda s, p: env.reset(glyphjax.reset_key(s), p)))
    step = jax.jit(jax.vmap(lambda t, s, a, p: env.step(glyphjax.step_key(jnp.uint32(SEED), t), s, a, p)))
    states = reset(seeds, params)
    return ids, (lambda t, s, a: step(jnp.full((len(envs),), t, jnp.int32), s, a, params)), states


def _game(batch, task_id):
    ids, _, states = batch
    return jax.device_get(jax.tree.map(lambda x: x[ids.index(task_id)], states.game))


@pytest.mark.parametrize("level", range(1, 8))
def test_full_start__floor_task_starts_on_its_up_ladder_with_the_ladder_open(batch, level):
    game = _game(batch, f"craftax/floor{level}")
    assert int(game.player_level) == level
    np.testing.assert_array_equal(game.player_position, game.up_ladders[level])
    assert int(game.monsters_killed[level]) >= engine.FULL_CLEAR_KILLS
    assert int(game.inventory.sword) >= 2 and int(game.inventory.pickaxe) >= 2


def test_full_start__dungeon_clear_has_its_ladder_closed_and_diamond_gear(batch):
    game = _game(batch, "craftax/dungeon-clear")
    assert int(game.player_level) == 1 and int(game.monsters_killed[1]) == 0
    assert int(game.inventory.sword) == 4 and game.inventory.armour.tolist() == [2, 2, 2, 2]
    assert int(game.inventory.stone) == 20


@pytest.mark.parametrize("task_id, level, pool, type_id, count, lo, hi", [
    ("craftax/fight-bats", 2, "passive_mobs", 1, 3, 2, 5),  # bats
    ("craftax/fight-archers", 4, "ranged_mobs", 4, 2, 3, 6),  # archers
    ("craftax/fight-kobolds", 3, "ranged_mobs", 3, 2, 3, 6),  # kobolds
])
def test_full_start__fight_tasks_place_the_floor_mobs_in_their_ring(batch, task_id, level, pool, type_id, count, lo, hi):
    game = _game(batch, task_id)
    mobs = getattr(game, pool)
    live = mobs.mask[level]
    assert int(game.player_level) == level and int(live.sum()) == count
    assert (mobs.type_id[level][live] == type_id).all()
    dist = np.abs(mobs.position[level][live] - game.player_position).max(axis=1)
    assert ((dist >= lo) & (dist <= hi)).all(), dist
    assert game.mob_map[level][tuple(mobs.position[level][live].T)].all()
    assert (mobs.health[level][live] > 0).all()


def test_full_start__enchant_sword_has_a_fire_table_to_the_right_and_a_ruby(batch):
    game = _game(batch, "craftax/enchant-sword")
    r, c = game.player_position
    assert int(game.map[0][r, c + 1]) == engine.full_constants.BlockType.ENCHANTMENT_TABLE_FIRE.value
    assert int(game.inventory.ruby) == 1 and int(game.inventory.sword) == 3 and int(game.player_mana) == 9


NATIVE_TEXT_TASKS = ("enchant-sword", "drink-potions", "dungeon-clear", "fight-bats", "fight-kobolds", "fight-archers",
                     "light-the-mines", "floor6", "floor7")  # floors 0-7, tables, potions, gear, mobs, darkness


def test_native_text__equals_the_package_text_on_task_starts(batch):
    """Floors 0-7, darkness, mobs, armour, potions, enchantment tables: our native text is the
    package's `render_craftax_text` string on the start states of tasks that show them (the
    package's renderer costs ~0.4 CPU-s a call)."""
    from craftax.craftax.renderer import render_craftax_text
    texts = {}
    for task_id in (f"craftax/{t}" for t in NATIVE_TEXT_TASKS):
        game = _game(batch, task_id)
        texts[task_id] = native.full_native_text(game)
        assert texts[task_id] == render_craftax_text(game), task_id
    assert any("Darkness" in t for t in texts.values()) and any(" on " in t for t in texts.values())
    assert "Diamond Sword with No enchantment" in texts["craftax/dungeon-clear"]


SCRIPTS = {  # task: actions (NOOP after), hand-computed reward per step, terminated on the last listed step
    "craftax/enchant-sword": (["RIGHT", "ENCHANT_SWORD"], [0.0, 1.0]),
    "craftax/enchant-armour": (["LEFT", "ENCHANT_ARMOUR"], [0.0, 1.0]),
    "craftax/drink-potions": (["DRINK_POTION_RED", "DRINK_POTION_GREEN", "DRINK_POTION_BLUE"], [1 / 3] * 3),
    "craftax/read-and-cast": (["READ_BOOK", "LEVEL_UP_DEXTERITY"], [0.5, 0.0]),
}


def test_full_reward__scripted_actions_pay_the_hand_computed_rewards(batch):
    """Scripted actions for three tasks in one batch; read-and-cast's cast is checked apart, as the
    book teaches a random spell (casting the other one pays nothing)."""
    ids, step, states = batch
    turns = max(len(a) for a, _ in SCRIPTS.values())
    table = np.full((len(ids), turns + 1), A["NOOP"], np.int32)
    for task_id, (names, _) in SCRIPTS.items():
        table[ids.index(task_id), :len(names)] = [A[n] for n in names]
    learned = None
    rewards, terminated = [], []
    for t in range(turns + 1):
        if t == turns:  # cast the spell read-and-cast learned
            learned = np.asarray(states.game.learned_spells[ids.index("craftax/read-and-cast")])
            table[ids.index("craftax/read-and-cast"), t] = A["CAST_FIREBALL"] if learned[0] else A["CAST_ICEBALL"]
        states, tr = step(t, states, jnp.asarray(table[:, t]))
        rewards.append(np.asarray(tr.reward))
        terminated.append(np.asarray(tr.terminated))
    rewards, terminated = np.stack(rewards, 1), np.stack(terminated, 1)
    for task_id, (names, want) in SCRIPTS.items():
        i = ids.index(task_id)
        np.testing.assert_allclose(rewards[i, :len(want)], np.float32(want), rtol=0, atol=1e-6, err_msg=task_id)
    i = ids.index("craftax/read-and-cast")
    assert learned.sum() == 1 and rewards[i, turns] == np.float32(0.5) and terminated[i, turns]
    for task_id in ("craftax/enchant-sword", "craftax/enchant-armour", "craftax/drink-potions"):
        i, n = ids.index(task_id), len(SCRIPTS[task_id][0])
        assert terminated[i, n - 1] and not terminated[i, :n - 1].any(), task_id


# Every other full-engine task on a scripted action sequence from a constructed start: the task's
# reset state (seed SEED) with the player facing up, optionally moved onto the floor's ladder down,
# every mob of the floor removed, the 7 x 7 cells around the player made path (mob cases), then the
# blocks and mobs below (mobs boxed in by stone, at health 0.5 so one hit of any weapon kills,
# attack cooldown 0). Rewards per step are computed by hand from each card's rule and the package's
# mechanics (DESCEND on an open ladder down moves one floor down, ASCEND on the up-ladder back onto
# the ladder down above; DO on a chest opens it; a torch goes on a free path cell, not onto another
# item; a monster next to the player with cooldown 0 hits it that turn). The cases run in passes of
# the module's one compiled batch step (one row per task, params fixed), NOOP elsewhere.
U, L, R, D = (-1, 0), (0, -1), (0, 1), (1, 0)


def _boxed(*cells) -> dict:
    """Stone on every neighbour of each mob cell except the player's cell and the mob cells."""
    return {(r + dr, c + dc): "STONE" for r, c in cells for dr, dc in (U, L, R, D)
            if (r + dr, c + dc) != (0, 0) and (r + dr, c + dc) not in cells}


def _fcase(task, actions, rewards, ends, on_ladder=False, blocks=(), mobs=(), health=None):
    """mobs: (class, cell); health: the player's, when set."""
    return dict(task=f"craftax/{task}", actions=list(actions), rewards=rewards, ends=ends, on_ladder=on_ladder,
                blocks={**_boxed(*[cell for _, cell in mobs]), **dict(blocks)}, mobs=list(mobs), health=health)


FULL_CASES = {
    "reach-dungeon": _fcase("reach-dungeon", ["NOOP", "DESCEND"], [0, 1], True, on_ladder=True),
    **{f"floor{n}": _fcase(f"floor{n}", ["NOOP", "DESCEND"], [0, 1], True, on_ladder=True) for n in range(1, 8)},
    # the first descent pays 1/4; back up and down again is no new floor
    "speedrun": _fcase("speedrun", ["DESCEND", "ASCEND", "DESCEND"], [.25, 0, 0], False, on_ladder=True),
    "dungeon-explore": _fcase("dungeon-explore", ["DO", "DESCEND"], [.5, .5], True, on_ladder=True,
                              blocks={U: "CHEST"}),
    "dungeon-clear": _fcase("dungeon-clear", ["DO", "NOOP"], [1 / 8, 0], False, mobs=[("melee", U)]),
    # the kill earns 1/8, but the other monster's hit kills the player (health 0.01) that turn: -1 instead
    "dungeon-clear/death": _fcase("dungeon-clear", ["DO"], [-1], True, mobs=[("melee", U), ("melee", L)],
                                  health=0.01),
    "fight-archers": _fcase("fight-archers", ["DO", "DOWN", "DO"], [.5, 0, .5], True,
                            mobs=[("ranged", U), ("ranged", D)]),
    "fight-kobolds": _fcase("fight-kobolds", ["DO", "DOWN", "DO"], [.5, 0, .5], True,
                            mobs=[("ranged", U), ("ranged", D)]),
    "fight-bats": _fcase("fight-bats", ["DO", "LEFT", "DO", "RIGHT", "DO"], [1 / 3, 0, 1 / 3, 0, 1 / 3], True,
                         mobs=[("passive", U), ("passive", L), ("passive", R)]),
    # a second torch on the same cell is refused; walk left, place; walk down, place
    "light-the-mines": _fcase("light-the-mines", ["PLACE_TORCH", "PLACE_TORCH", "LEFT", "PLACE_TORCH", "DOWN",
                                                  "PLACE_TORCH"], [1 / 3, 0, 0, 1 / 3, 0, 1 / 3], True),
}
_PATH_WINDOW = {"light-the-mines"}  # cases without mobs that also get the 7 x 7 path window


def _full_constructed(game, case):
    """The case's start: a host copy of one task's reset game, changed as the module comment says."""
    from craftax.craftax.constants import FLOOR_MOB_MAPPING, BlockType
    lvl = int(game.player_level)
    pos = np.array(game.down_ladders[lvl] if case["on_ladder"] else game.player_position)
    grid, mob_map = np.array(game.map), np.array(game.mob_map)
    if case["mobs"] or case["task"].split("/")[1] in _PATH_WINDOW:
        grid[lvl, pos[0] - 3:pos[0] + 4, pos[1] - 3:pos[1] + 4] = BlockType.PATH.value
    for (dr, dc), block in case["blocks"].items():
        grid[lvl, pos[0] + dr, pos[1] + dc] = BlockType[block].value
    mob_map[lvl] = False
    pools = {}
    for c, name in enumerate(("passive_mobs", "melee_mobs", "ranged_mobs")):
        pool = getattr(game, name)
        mask, position, health = np.array(pool.mask), np.array(pool.position), np.array(pool.health)
        cooldown, type_id = np.array(pool.attack_cooldown), np.array(pool.type_id)
        mask[lvl] = False
        cls = ("passive", "melee", "ranged")[c]
        for i, (dr, dc) in enumerate(cell for k, cell in case["mobs"] if k == cls):
            mask[lvl, i], position[lvl, i], health[lvl, i] = True, pos + (dr, dc), 0.5
            cooldown[lvl, i], type_id[lvl, i] = 0, int(FLOOR_MOB_MAPPING[lvl, c])
            mob_map[lvl, pos[0] + dr, pos[1] + dc] = True
        pools[name] = pool.replace(mask=mask, position=position, health=health, attack_cooldown=cooldown,
                                   type_id=type_id)
    extra = {} if case["health"] is None else {"player_health": np.asarray(case["health"], np.float32)}
    return game.replace(map=grid, mob_map=mob_map, player_position=pos.astype(np.int32),
                        player_direction=np.asarray(A["UP"], np.asarray(game.player_direction).dtype),
                        **pools, **extra)


@pytest.fixture(scope="module")
def full_scripts(batch):
    """{case: (rewards [T], terminated [T], events [T])} of every FULL_CASES script: passes of the
    module's batch step, each holding at most one case per task (that task's row)."""
    ids, step, states0 = batch
    host = jax.device_get(states0)
    rows = [jax.tree.map(lambda x, i=i: np.array(x[i]), host) for i in range(len(ids))]
    pending, out = dict(FULL_CASES), {}
    while pending:
        this = {}
        for name, case in list(pending.items()):
            if case["task"] not in {c["task"] for c in this.values()}:
                this[name] = pending.pop(name)
        starts = list(rows)
        turns = max(len(c["actions"]) for c in this.values())
        table = np.full((len(ids), turns), A["NOOP"], np.int32)
        for name, case in this.items():
            i = ids.index(case["task"])
            starts[i] = rows[i].replace(game=_full_constructed(rows[i].game, case))
            table[i, :len(case["actions"])] = [A[a] for a in case["actions"]]
        states = jax.tree.map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *starts)
        acc = [], [], []
        for t in range(turns):
            states, tr = step(t, states, jnp.asarray(table[:, t]))
            for a, x in zip(acc, (tr.reward, tr.terminated, tr.event)):
                a.append(np.asarray(x))
        rewards, terminated, events = (np.stack(x, 1) for x in acc)
        for name, case in this.items():
            i = ids.index(case["task"])
            out[name] = rewards[i], terminated[i], events[i]
    return out


@pytest.mark.parametrize("name", sorted(FULL_CASES))
def test_full_reward__every_task_pays_its_hand_computed_rewards(full_scripts, name):
    case = FULL_CASES[name]
    rewards, terminated, events = full_scripts[name]
    n, want = len(case["actions"]), np.float32(case["rewards"])
    np.testing.assert_allclose(rewards[:n], want, rtol=0, atol=1e-6, err_msg=name)
    assert not terminated[:n - 1].any(), f"{name}: ended early at turn {np.flatnonzero(terminated)[0]}"
    assert bool(terminated[n - 1]) == case["ends"], name
    if case["ends"]:
        assert int(events[n - 1]) == (2 if want.min() < 0 else 1), name


def test_full_reward__every_full_task_has_a_scripted_reward_case():
    covered = {c["task"] for c in FULL_CASES.values()} | set(SCRIPTS)
    assert covered == {e.card.id for e in focused_envs("full")}


def test_full_tasks__share_one_compiled_program_apart_from_classic():
    full, classic = focused_envs("full"), focused_envs("classic")
    assert len(full) == 19 and len(classic) + len(full) == 60
    assert len(glyphjax.programs([e.card.id for e in full])) == 1
    assert len(glyphjax.programs([e.card.id for e in full + classic])) == 2


PLANNER_SEEDS = 2
# solved on 1 of the 2 test seeds (a death on the other): ranged monsters and the dungeon's waves
WEAK = {"craftax/dungeon-clear", "craftax/fight-archers", "craftax/floor1"}


@pytest.mark.slow  # compiles a full-engine rollout with a whole-floor BFS planner (minutes of CPU)
def test_full_planner__reaches_the_goal_of_every_task():
    """The planned policy solves each task on most seeds (WEAK: on one seed or with a positive mean
    return); rates over many seeds come from `python -m glyphjax.suites.craftax.certify --engine full`."""
    envs = focused_envs("full")
    failed = []
    for task_id, (ret, ok) in mixed_rollout(envs, envs[0].scripted_policy, PLANNER_SEEDS).items():
        assert ((ret >= -1 - 1e-6) & (ret <= 1 + 1e-6)).all()
        solved = (ok.any() or ret.mean() > 0) if task_id in WEAK else ok.mean() > 0.5
        if not solved:
            failed.append(f"{task_id}: {ok.sum()}/{PLANNER_SEEDS} solved, returns {ret.round(3).tolist()}")
    assert not failed, "; ".join(failed)


def test_guided_memory_hooks__floor_key_events_and_guidance_per_floor(batch):
    """harness=guided_memory reads floor, health and achievements off the state and shows the
    floor's own guidance (glyphjax/suites/craftax/guidance.py)."""
    from glyphjax.harness import guided
    from glyphjax.suites.craftax.guidance import FLOOR_GUIDANCE
    ids, _, states = batch
    env = glyphjax.make("craftax/floor1")
    seen = set()
    for level in range(1, 8):
        game = _game(batch, f"craftax/floor{level}")
        state = jax.tree.map(lambda x: x[ids.index(f"craftax/floor{level}")], states)
        sig = guided.Signals.of(np.asarray(env.memory_signals(state)))
        assert sig == guided.Signals(level, float(game.player_health), int(game.achievements.sum()))
        name = env.floor_name(level)
        assert f"({name})" in glyphjax.make(f"craftax/floor{level}").card.rules  # the card's floor name
        assert guided.floor_key(env, sig) == f"floor {level} ({name})"
        seen.add(guided.guidance(env, sig))
    assert len(seen) == 7 and "Lava" in env.floor_guidance(6) and "fire" in env.floor_guidance(7)
    assert len(set(FLOOR_GUIDANCE)) == 9 and "ladder" in env.floor_guidance(0)
    hurt = guided.Signals(sig.floor, sig.health - 2, sig.achievements + 1)
    assert guided.events(sig, hurt, 0.0) == [f"you took damage (health {sig.health:g} -> {hurt.health:g})",
                                             "you unlocked 1 achievement"]
    with pytest.raises(ValueError, match="floors 0..8, not 9"):
        env.floor_guidance(9)


def test_full_start__every_task_builds_its_declared_start(batch):
    """All 19 full-engine tasks: floor, start cell (the floor's up-ladder below the overworld),
    inventory, armour, potions, vitals, XP, spells, open ladders and fixed blocks as declared."""
    from glyphjax.suites.craftax.full_rules import FULL_INVENTORY_FIELDS
    for env in focused_envs("full"):
        task, game = env.task, _game(batch, env.card.id)
        lvl, where = task.level, env.card.id
        assert int(game.player_level) == lvl, where
        pos = np.asarray(game.player_position)
        if lvl > 0:
            assert (pos == np.asarray(game.up_ladders)[lvl]).all(), where
        inv = game.inventory
        assert {k: int(getattr(inv, k)) for k in FULL_INVENTORY_FIELDS} == \
            {k: task.inventory.get(k, 0) for k in FULL_INVENTORY_FIELDS}, where
        assert tuple(np.asarray(inv.armour).tolist()) == task.armour, where
        assert tuple(np.asarray(inv.potions).tolist()) == task.potions, where
        assert (float(game.player_health), int(game.player_food), int(game.player_drink), int(game.player_energy),
                int(game.player_mana)) == task.vitals, where
        assert int(game.player_xp) == task.xp and tuple(np.asarray(game.learned_spells).tolist()) == task.spells, where
        kills = np.asarray(game.monsters_killed)
        assert all(kills[f] >= 8 for f in task.open_floors), where
        assert lvl == 0 or lvl in task.open_floors or kills[lvl] < 8, where  # a closed ladder stays closed (the
        # overworld's is open in every package world)
        grid = np.asarray(game.map)[lvl]
        for dr, dc, block in task.fixed:
            assert grid[pos[0] + dr, pos[1] + dc] == engine.full_constants.BlockType[block].value, f"{where}: {block}"
