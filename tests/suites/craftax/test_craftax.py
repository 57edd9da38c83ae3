"""Craftax suite: the wrapped step is the package's step, the glyph window is the package's view,
focused tasks start as their cards say and pay what their cards say, and the planner solves them.

Compiles dominate (a Craftax step is ~8-20 CPU-s to compile): the module shares one compiled
program per engine across its tests (module-scoped fixtures; one xdist group).
"""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from craftax.craftax_classic.envs.craftax_symbolic_env import CraftaxClassicSymbolicEnvNoAutoReset
from craftax.craftax.envs.craftax_symbolic_env import CraftaxSymbolicEnvNoAutoReset
from craftax.craftax.renderer import render_craftax_symbolic as render_full_symbolic
from craftax.craftax_classic.renderer import render_craftax_symbolic

import glyphjax
from glyphjax.suites.craftax import engine, native, render, rules
from glyphjax.core.rollout import stack_params
from glyphjax.suites.craftax.certify import focused_envs, mixed_rollout

pytestmark = pytest.mark.xdist_group("craftax")
A = {n: i for i, n in enumerate(engine.CLASSIC_ACTIONS)}
T_PARITY, B_PARITY = 40, 3
_classic_symbolic = jax.jit(jax.vmap(render_craftax_symbolic))  # one compile shared by the module's tests


def _game_leaves(game):
    return jax.tree_util.tree_leaves_with_path(game)


def _ours(env, seeds, actions, params):
    """Per seed: the start game and (game after each step, terminated) of our env (vmapped)."""
    def one(seed, acts):
        s0 = env.reset(glyphjax.reset_key(seed), params)

        def turn(s, t):
            s2, tr = env.step(glyphjax.step_key(seed, t), s, acts[t], params)
            return s2, (s2.game, tr.terminated)
        return s0.game, jax.lax.scan(turn, s0, jnp.arange(T_PARITY))[1]
    return jax.vmap(one)(seeds, actions)


def _package(pkg, game0, seeds, actions, cparams):
    """Per seed: (game after each step, done) of the package's `step_env` from `game0` (vmapped)."""
    def one(g0, seed, acts):
        def turn(g, t):
            _, g2, _, done, _ = pkg.step_env(glyphjax.step_key(seed, t), g, acts[t], cparams)
            return g2, (g2, done)
        return jax.lax.scan(turn, g0, jnp.arange(T_PARITY))[1]
    return jax.vmap(one)(game0, seeds, actions)


@pytest.fixture(scope="module")
def parity_runs():
    """(ours, package) game trajectories from the same start states and keys: Craftax-Classic
    worlds and focused arenas (survive-wild: cows on the board, spawning on), random actions."""
    pkg = CraftaxClassicSymbolicEnvNoAutoReset()
    classic, arena = glyphjax.make("craftax/classic"), glyphjax.make("craftax/survive-wild")

    package = jax.jit(lambda g, s, a, p: _package(pkg, g, s, a, p))
    seeds = jnp.arange(B_PARITY, dtype=jnp.uint32)
    actions = jax.random.randint(jax.random.PRNGKey(5), (B_PARITY, T_PARITY), 0, len(engine.CLASSIC_ACTIONS))
    out = {}
    for name, env in (("classic", classic), ("arena", arena)):
        params = env.default_params()
        start, (games, term) = jax.jit(lambda s, a, p, env=env: _ours(env, s, a, p))(seeds, actions, params)
        cparams = params if name == "classic" else params.cparams
        pkg_games, pkg_done = package(start, seeds, actions, cparams)
        out[name] = (start, games, term, pkg_games, pkg_done)
    # the package's reset with our params (its default values, as arrays: with Python scalars XLA
    # folds the start light level differently, 1 ulp)
    cparams = classic.default_params()
    pkg_start = jax.jit(jax.vmap(lambda s: pkg.reset_env(glyphjax.reset_key(s), cparams)[1]))(seeds)
    return out, pkg_start


@pytest.mark.parametrize("start", ["classic", "arena"])
def test_wrapped_step__equals_package_step_bit_for_bit(parity_runs, start):
    """Up to the step that ends our episode (after it our shell freezes the state by contract)."""
    runs, _ = parity_runs
    _, games, term, pkg_games, pkg_done = runs[start]
    term = np.asarray(term)
    live = np.cumsum(term, axis=1) - term == 0  # [B, T]: steps up to and including the ending one
    for (path, a), (_, b) in zip(_game_leaves(games), _game_leaves(pkg_games)):
        np.testing.assert_array_equal(np.asarray(a)[live], np.asarray(b)[live],
                                      err_msg=f"{start}: {jax.tree_util.keystr(path)}")
    if start == "classic":  # the whole game ends exactly when the package's game is over
        np.testing.assert_array_equal(term[live], np.asarray(pkg_done)[live])
    assert live.sum() > B_PARITY * T_PARITY // 2, "most steps should be compared"
    moved = np.asarray(games.player_position[:, -1] != games.player_position[:, 0]).any()
    assert moved, "random play never moved the player: the comparison saw no dynamics"


def test_classic_params__hold_the_package_defaults():
    """Our Classic params are the package's defaults (as arrays) except its time limit, which
    is set out of reach because our shell truncates."""
    ours, theirs = glyphjax.make("craftax/classic").default_params(), CraftaxClassicSymbolicEnvNoAutoReset().default_params
    for name, value in vars(theirs).items():
        if name not in ("max_timesteps", "fractal_noise_angles"):
            assert np.asarray(getattr(ours, name)) == np.asarray(value, np.asarray(getattr(ours, name)).dtype), name
    assert int(ours.max_timesteps) > glyphjax.make("craftax/classic").card.max_steps


def test_classic_reset__equals_package_reset(parity_runs):
    runs, pkg_start = parity_runs
    ours = runs["classic"][0]
    for (path, a), (_, b) in zip(_game_leaves(ours), _game_leaves(pkg_start)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=jax.tree_util.keystr(path))


def test_glyph_window__shows_the_package_symbolic_view(parity_runs):
    """Decode our glyph grid back to block ids and mob types; it must equal the package's own
    symbolic observation (its 7 x 9 one-hot block view and mob channels) on every visited state."""
    runs, _ = parity_runs
    games = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), runs["classic"][1])
    grids = np.asarray(jax.jit(jax.vmap(render.classic_grid))(games))
    sym = np.asarray(_classic_symbolic(games))
    h, w = engine.CLASSIC_VIEW
    n_blocks = len(engine.CLASSIC_BLOCKS)
    view = sym[:, : h * w * (n_blocks + 4)].reshape(-1, h, w, n_blocks + 4)
    pkg_blocks, pkg_mobs = view[..., :n_blocks].argmax(-1), view[..., n_blocks:]
    code_of = {ord(render.GLYPHS[b][0]): i for i, b in enumerate(engine.CLASSIC_BLOCKS) if b != "INVALID"}
    mob_codes = [ord(render.GLYPHS[m][0]) for m in ("ZOMBIE", "COW", "SKELETON", "ARROW")]
    player = np.zeros((h, w), bool)
    player[h // 2, w // 2] = True
    is_mob = np.isin(grids, mob_codes)
    blocks = np.vectorize(lambda c: code_of.get(c, -1))(grids)
    plain = ~is_mob & ~player[None]
    np.testing.assert_array_equal(blocks[plain], pkg_blocks[plain])
    for k, code in enumerate(mob_codes):
        assert (pkg_mobs[..., k][grids == code] == 1).all(), f"glyph {chr(code)} where the package has none"
    assert (pkg_mobs.sum(-1)[plain] == 0).all(), "the package shows a mob where we draw a block"
    assert is_mob.any(), "no mob in view on any visited state: the mob check saw nothing"


@pytest.fixture(scope="module")
def full_runs():
    """Full Craftax: our env's trajectories and the package's `step_env` from the same states and keys."""
    pkg = CraftaxSymbolicEnvNoAutoReset()
    env = glyphjax.make("craftax/full")
    params = env.default_params()
    seeds = jnp.arange(2, dtype=jnp.uint32)
    actions = jax.random.randint(jax.random.PRNGKey(6), (2, T_PARITY), 0, len(engine.FULL_ACTIONS))

    start, (games, term) = jax.jit(lambda s, a, p: _ours(env, s, a, p))(seeds, actions, params)
    pkg_games, pkg_done = jax.jit(lambda g, s, a, p: _package(pkg, g, s, a, p))(start, seeds, actions, params)
    pkg_start = jax.jit(jax.vmap(lambda s: pkg.reset_env(glyphjax.reset_key(s), params)[1]))(seeds)
    return start, games, term, pkg_start, pkg_games, pkg_done


def test_full_game__reset_and_step_equal_the_package_bit_for_bit(full_runs):
    start, games, term, pkg_start, pkg_games, pkg_done = full_runs
    for (path, a), (_, b) in zip(_game_leaves(start), _game_leaves(pkg_start)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"reset {jax.tree_util.keystr(path)}")
    term = np.asarray(term)
    live = np.cumsum(term, axis=1) - term == 0
    for (path, a), (_, b) in zip(_game_leaves(games), _game_leaves(pkg_games)):
        np.testing.assert_array_equal(np.asarray(a)[live], np.asarray(b)[live], err_msg=jax.tree_util.keystr(path))
    np.testing.assert_array_equal(term[live], np.asarray(pkg_done)[live])


def test_full_glyph_window__shows_the_package_view_where_lit(full_runs):
    """Blocks and items of our 11 x 9 window equal the package's symbolic view on lit cells
    without a mob; unlit cells are darkness."""
    games = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), full_runs[1])
    grids = np.asarray(jax.jit(jax.vmap(render.full_grid))(games))
    sym = np.asarray(jax.jit(jax.vmap(render_full_symbolic))(games))
    h, w = engine.FULL_VIEW
    nb, ni = len(engine.FULL_BLOCKS), len(engine.FULL_ITEMS)
    per_cell = nb + ni + 40 + 1
    view = sym[:, : h * w * per_cell].reshape(-1, h, w, per_cell)
    blocks, items, mobs, light = (view[..., :nb].argmax(-1), view[..., nb:nb + ni].argmax(-1),
                                  view[..., nb + ni:nb + ni + 40], view[..., -1])
    code = {n: ord(render.GLYPHS[n][0]) for n in render.GLYPHS}
    want = np.vectorize(lambda b: code["OUT_OF_BOUNDS" if b == 0 else engine.FULL_BLOCKS[b]])(blocks)
    want = np.where(items > 0, np.vectorize(lambda i: code[engine.FULL_ITEMS[i]] if i else 0)(items), want)
    centre = np.zeros((h, w), bool)
    centre[h // 2, w // 2] = True
    lit = light > 0.5
    plain = lit & (mobs.sum(-1) == 0) & ~centre[None]
    np.testing.assert_array_equal(grids[plain], want[plain])
    assert (grids[~lit] == code["DARKNESS"]).all()
    assert plain.sum() > 0.5 * plain.size


# ---- native text and pixels (obs_format) -------------------------------------------------------


def _one(tree, *index):
    return jax.tree.map(lambda x: np.asarray(x)[index], jax.device_get(tree))


def test_native_text__full_equals_the_package_text_renderer(full_runs):
    """Our NumPy port gives the package's `render_craftax_text` string, at reset and after steps."""
    from craftax.craftax.renderer import render_craftax_text
    start, games = full_runs[0], full_runs[1]
    states = [_one(start, 0), _one(games, 0, 9), _one(games, 1, T_PARITY - 1)]
    for k, game in enumerate(states):
        assert native.full_native_text(game) == render_craftax_text(game), f"state {k}"


def _parse_native(text: str, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, dict[str, str]]:
    """(block name per cell, mob name per cell or '', the 'Key: value' lines) of a native text."""
    head, rest = text.split("\n\nInventory:\n")
    blocks, mobs = np.empty(shape, object), np.full(shape, "", object)
    for line in head.splitlines()[1:]:
        where, what = line.split(": ")
        dx, dy = map(int, where.split(", "))
        parts = what.split(" on ")
        blocks[dy + shape[0] // 2, dx + shape[1] // 2] = parts[-1]
        mobs[dy + shape[0] // 2, dx + shape[1] // 2] = parts[0] if len(parts) > 1 else ""
    return blocks, mobs, dict(line.split(": ") for line in rest.splitlines())


def test_native_text__classic_says_what_the_package_symbolic_view_holds(parity_runs):
    """The package has no Classic text renderer; ours must agree with its symbolic observation:
    every cell's block and mob, the 12 inventory counts, vitals, direction, light and sleep."""
    runs, _ = parity_runs
    games = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), runs["classic"][1])
    sym = np.asarray(_classic_symbolic(games))
    h, w = engine.CLASSIC_VIEW
    nb = len(engine.CLASSIC_BLOCKS)
    view = sym[:, : h * w * (nb + 4)].reshape(-1, h, w, nb + 4)
    flat = sym[:, h * w * (nb + 4):]
    mob_seen = 0
    for i in range(sym.shape[0]):
        blocks, mobs, fields = _parse_native(native.classic_native_text(_one(games, i)), (h, w))
        want_blocks = np.array([engine.CLASSIC_BLOCKS[b].lower() for b in view[i, ..., :nb].argmax(-1).ravel()])
        assert (blocks.ravel() == want_blocks).all(), f"state {i}: blocks"
        pkg_mobs = view[i, ..., nb:]
        want_mobs = np.where(pkg_mobs.max(-1) > 0.5, np.array(native.CLASSIC_MOB_NAMES)[pkg_mobs.argmax(-1)], "")
        assert (mobs == want_mobs).all(), f"state {i}: mobs"
        mob_seen += int((mobs != "").sum())
        counts = [int(fields[label]) for label, _ in native.CLASSIC_COUNTS]
        np.testing.assert_allclose(np.array(counts) / 10.0, flat[i, :12], atol=2e-3, err_msg=f"state {i}")
        vitals = [int(fields[n]) for n in ("Health", "Food", "Drink", "Energy")]
        np.testing.assert_allclose(np.array(vitals) / 10.0, flat[i, 12:16], atol=2e-3, err_msg=f"state {i}")
        assert fields["Direction"] == ("left", "right", "up", "down")[int(flat[i, 16:20].argmax())]
        assert float(fields["Light"]) == pytest.approx(float(flat[i, 20]), abs=1e-6)
        assert fields["Is Sleeping"] == str(bool(flat[i, 21]))
    assert mob_seen > 0, "no mob in view on any visited state: the mob check saw nothing"


def test_native_text__classic_snapshot_of_craftpickaxe_start(reset_focused):
    """Hand-checked: the table one cell to the right (column +1, row 0), 1 wood, facing up."""
    text = native.classic_native_text(reset_focused("craftax/craftpickaxe", 0).game)
    lines = text.splitlines()
    assert lines[0] == "Map:" and len(lines) == 1 + 63 + 2 + 12 + 4 + 3
    assert "1, 0: crafting_table" in lines and "0, 0: grass" in lines and "-4, -3: grass" in lines
    assert [ln for ln in lines if "crafting_table" in ln] == ["1, 0: crafting_table"]
    assert "Wood: 1" in lines and "Wood pickaxe: 0" in lines and "Direction: up" in lines
    assert lines[-1] == "Is Sleeping: False"


def test_pixels__classic_cells_show_the_package_block_textures(parity_runs):
    """The pixel observation of a reset state: each plain block cell is that block's texture
    (the package's PNG at its agent size), up to the day/night blend (1 - light)."""
    from PIL import Image
    from craftax.craftax_classic import constants as cc
    runs, _ = parity_runs
    start = runs["classic"][0]
    pixels = np.asarray(jax.vmap(native.pixel_renderer(full=False))(start))
    size, (h, w) = cc.BLOCK_PIXEL_SIZE_AGENT, engine.CLASSIC_VIEW
    assert pixels.shape[1:] == (h * size + cc.INVENTORY_OBS_HEIGHT * size, w * size, 3)
    assets = Path(cc.__file__).parent / "assets"
    checked = 0
    for b in range(pixels.shape[0]):
        game = _one(start, b)
        blocks = native._view(np.asarray(game.map), np.asarray(game.player_position), (h, w), 0)
        tol = 1.0 - float(game.light_level) + 1e-4
        for x in range(h):
            for y in range(w):
                name = engine.CLASSIC_BLOCKS[blocks[x, y]].lower()
                if (x, y) == (h // 2, w // 2) or not (assets / f"{name}.png").exists():
                    continue
                png = Image.open(assets / f"{name}.png").convert("RGBA").resize((size, size), Image.NEAREST)
                want = np.asarray(png, np.float64)[..., :3] / 255.0
                tile = pixels[b, x * size:(x + 1) * size, y * size:(y + 1) * size]
                assert np.abs(tile - want).max() <= tol, f"seed {b} cell {(x, y)} {name}"
                checked += 1
    assert checked > 100
    png = Image.open(io.BytesIO(base64.b64decode(native.png_base64(pixels[0]))))  # what a vision model gets
    assert png.format == "PNG" and png.size == (w * size, pixels.shape[1])
    assert np.array_equal(np.asarray(png.convert("RGB")), np.round(pixels[0] * 255).astype(np.uint8))


def test_one_at_a_time__vmapped_package_noise_equals_each_seed_alone():
    """World generation under vmap runs element by element: the package's Perlin noise for a
    16-wide batch equals each key's noise computed alone (XLA CPU miscompiles the plain vmap of
    it for rows 8-15 with jaxlib 0.10.2; the batch here is where that showed)."""
    from craftax.craftax_classic.util.noise import generate_perlin_noise_2d

    def noise(key):
        return generate_perlin_noise_2d(key, (64, 64), (4, 4))
    keys = jax.random.split(jax.random.PRNGKey(0), 16)
    alone = jax.jit(noise)
    want = np.stack([np.asarray(alone(k)) for k in keys])
    got = np.asarray(jax.jit(jax.vmap(engine.one_at_a_time(noise)))(keys))
    np.testing.assert_array_equal(got, want)
    nested = jax.jit(jax.vmap(jax.vmap(engine.one_at_a_time(noise))))(keys.reshape(2, 8, 2))
    np.testing.assert_array_equal(np.asarray(nested).reshape(want.shape), want)


# ---- focused tasks ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reset_focused():
    """One jitted reset for every focused task (they share a program; params pick the task)."""
    env = glyphjax.make("craftax/choptrees")
    fn = jax.jit(lambda seed, params: env.reset(glyphjax.reset_key(seed), params))
    return lambda task_id, seed: jax.device_get(fn(jnp.uint32(seed), glyphjax.make(task_id).default_params()))


def _offsets(game, block: str) -> set[tuple[int, int]]:
    rows, cols = np.nonzero(np.asarray(game.map) == engine.Block[block].value)
    pos = np.asarray(game.player_position)
    return {(int(r - pos[0]), int(c - pos[1])) for r, c in zip(rows, cols)}


def _inventory(game) -> dict[str, int]:
    return {n: int(getattr(game.inventory, n)) for n in engine.CLASSIC_INVENTORY if int(getattr(game.inventory, n))}


def test_focused_start__craftpickaxe_holds_one_wood_beside_a_table(reset_focused):
    game = reset_focused("craftax/craftpickaxe", 3).game
    assert _inventory(game) == {"wood": 1}
    assert _offsets(game, "CRAFTING_TABLE") == {(0, 1)}
    assert int(game.player_direction) == A["UP"]


def test_focused_start__mine_iron_has_iron_on_four_sides(reset_focused):
    game = reset_focused("craftax/mine-iron", 0).game
    assert _offsets(game, "IRON") == {(-1, 0), (1, 0), (0, -1), (0, 1)}
    assert _inventory(game) == {"stone_pickaxe": 1}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_focused_start__fight_zombies_has_three_zombies_3_to_7_cells_away(reset_focused, seed):
    game = reset_focused("craftax/fight-zombies", seed).game
    z = game.zombies
    assert int(np.sum(z.mask)) == 3 and _inventory(game) == {"stone_sword": 1}
    dist = np.abs(np.asarray(z.position) - np.asarray(game.player_position)).max(axis=1)
    assert ((dist >= 3) & (dist <= 7)).all(), dist
    assert np.asarray(game.mob_map)[tuple(np.asarray(z.position).T)].all()
    assert int(np.sum(game.cows.mask)) == 0 and int(np.sum(game.skeletons.mask)) == 0


def test_focused_start__survival_tasks_set_vitals_and_time(reset_focused):
    hunger, thirst = reset_focused("craftax/survive-hunger", 0).game, reset_focused("craftax/survive-thirst", 0).game
    assert int(hunger.player_food) == 2 and int(hunger.player_drink) == 9
    assert int(thirst.player_drink) == 2 and int(thirst.player_food) == 9
    night = reset_focused("craftax/survive-night", 0).game
    assert int(night.timestep) == 150 and float(night.light_level) < 0.5
    water = _offsets(reset_focused("craftax/find-water", 4).game, "WATER")
    assert len(water) == 6 and all(7 <= max(abs(r), abs(c)) <= 12 for r, c in water)


def test_focused_start__every_classic_task_builds_its_declared_arena(reset_focused, seed=5):
    """All 41 Classic tasks: the start state holds the declared inventory, vitals and time, each
    fixed block at its offset, each scatter's blocks in its ring and each mob kind's count in its
    ring (one reset program for all; the prose cards are checked for a few tasks above)."""
    from glyphjax.suites.craftax.arena import CENTER
    for env in focused_envs("classic"):
        task, game = env.task, reset_focused(env.card.id, seed).game
        where = f"{env.card.id} seed {seed}"
        assert _inventory(game) == {k: v for k, v in task.inventory.items() if v}, where
        assert (int(game.player_health), int(game.player_food), int(game.player_drink),
                int(game.player_energy)) == task.vitals, where
        assert int(game.timestep) == task.start_time, where
        grid = np.asarray(game.map)
        for dr, dc, block in task.fixed:
            assert grid[CENTER[0] + dr, CENTER[1] + dc] == engine.Block[block].value, f"{where}: fixed {block}"
        for block, count, lo, hi in task.scatter:
            ring = [(r, c) for r, c in _offsets(game, block) if lo <= max(abs(r), abs(c)) <= hi]
            assert len(ring) >= count, f"{where}: {len(ring)} {block} in ring {lo}-{hi}, declared {count}"
        for kind, pool in (("zombie", game.zombies), ("cow", game.cows), ("skeleton", game.skeletons)):
            count, lo, hi = task.mobs.get(kind, (0, 0, 0))
            mask = np.asarray(pool.mask)
            assert int(mask.sum()) == count, f"{where}: {int(mask.sum())} {kind}s, declared {count}"
            dist = np.abs(np.asarray(pool.position)[mask] - np.asarray(CENTER)).max(axis=1)
            assert ((dist >= max(lo, 1)) & (dist <= hi)).all(), f"{where}: {kind} distances {dist}"


SCRIPTS = {  # task: (actions, hand-computed reward per step, terminated at the end)
    "craftax/craftpickaxe": (["MAKE_WOOD_PICKAXE"], [1.0], True),
    "craftax/craftsword": (["MAKE_WOOD_PICKAXE", "MAKE_STONE_SWORD"], [0.0, 1.0], True),
    "craftax/mine-iron": (["DO", "LEFT", "DO", "RIGHT", "DO"], [1 / 3, 0, 1 / 3, 0, 1 / 3], True),
    "craftax/build-shelter": (["PLACE_STONE", "LEFT", "PLACE_STONE", "RIGHT", "PLACE_STONE", "DOWN", "PLACE_STONE"],
                              [0, 0, 0, 0, 0, 0, 1.0], True),
    "craftax/plant-farm": (["PLACE_PLANT", "NOOP"], [0.25, 0.0], False),
}


@pytest.mark.parametrize("task_id", sorted(SCRIPTS))
def test_focused_reward__scripted_actions_pay_the_hand_computed_rewards(task_id):
    env = glyphjax.make(task_id)
    names, want, ends = SCRIPTS[task_id]
    _, trans = glyphjax.replay(env, 0, [env.card.action_index(n) for n in names])
    np.testing.assert_allclose(trans.reward, np.float32(want), rtol=0, atol=1e-6)
    assert bool(trans.terminated[-1]) == ends and not trans.terminated[:-1].any()
    if ends:
        assert int(trans.event[-1]) == 1  # "Task complete!"


# Every focused Classic task on a scripted action sequence from a constructed start: the task's
# reset state with the 7 x 7 cells around the player reset to the arena's base block, mobs cleared,
# then the blocks, mobs (boxed in by stone so they cannot walk off), inventory and vitals below.
# Rewards per step are computed by hand from the card's rule and the package's mechanics (Classic:
# a tree or ore gives 1 per DO, damage 1 / wood sword 2 / stone 3 / iron 5 against cow 3, zombie
# 5, skeleton 3 health; a zombie next to the player hits for 2 every 6th turn; a cow fills 6 food;
# sleep regains 1 energy per 11 turns and wakes the turn after energy reaches 9). One vmapped jitted
# step plays every case at once (the tasks share a program; params pick the task).
U, L, R, D = (-1, 0), (0, -1), (0, 1), (1, 0)
W = 1 / 200  # survive-wild's per-turn pay


def _boxed(*cells) -> dict:
    """Stone on every neighbour of each mob cell except the player's own cell and the mob cells."""
    out = {}
    for r, c in cells:
        for dr, dc in (U, L, R, D):
            n = (r + dr, c + dc)
            if n != (0, 0) and n not in cells:
                out[n] = "STONE"
    return out


def _walled() -> dict:
    return {U: "STONE", L: "STONE", R: "STONE", D: "STONE"}


def _case(task, actions, rewards, ends, blocks=(), mobs=(), inventory=None, vitals=None, sapling_goal=None):
    """actions: names; rewards: per step (None for the sapling cases, computed from the state);
    mobs: (kind, cell); sapling_goal: the pay on the first turn the sapling count rises."""
    blocks = dict(blocks)
    return dict(task=f"craftax/{task}", actions=list(actions), rewards=rewards, ends=ends,
                blocks={**_boxed(*[cell for _, cell in mobs]), **blocks}, mobs=list(mobs),
                inventory=inventory or {}, vitals=vitals, sapling_goal=sapling_goal)


FIVE = {U: "TREE", L: "TREE", R: "TREE", D: "TREE", (-2, 0): "TREE"}  # four around + one beyond the faced
FIVE_ACTIONS = ["DO", "LEFT", "DO", "RIGHT", "DO", "DOWN", "DO", "UP", "DO"]  # UP walks onto the mined cell
THREE = ["DO", "LEFT", "DO", "RIGHT", "DO"]
CLASSIC_CASES = {
    "choptrees": _case("choptrees", FIVE_ACTIONS, [.2, 0, .2, 0, .2, 0, .2, 0, .2], True, FIVE),
    "minestone": _case("minestone", FIVE_ACTIONS, [.2, 0, .2, 0, .2, 0, .2, 0, .2], True,
                       {k: "STONE" for k in FIVE}),
    "mine-coal": _case("mine-coal", THREE, [1 / 3, 0, 1 / 3, 0, 1 / 3], True, {U: "COAL", L: "COAL", R: "COAL"}),
    "diamond-dig": _case("diamond-dig", THREE, [1 / 3, 0, 1 / 3, 0, 1 / 3], True,
                         {U: "DIAMOND", L: "DIAMOND", R: "DIAMOND"}),
    # a third coal is past the cap of 2: it pays nothing
    "coal-and-iron": _case("coal-and-iron", THREE + ["DOWN", "DO", "DOWN", "DO"], [.25, 0, .25, 0, 0, 0, .25, 0, .25],
                           True, {U: "COAL", L: "COAL", R: "COAL", D: "IRON", (2, 0): "IRON"}),
    "gatherresources": _case("gatherresources", THREE + ["DOWN", "DO", "DOWN", "DO", "DOWN", "DO"],
                             [1 / 6, 0, 1 / 6, 0, 1 / 6, 0, 1 / 6, 0, 1 / 6, 0, 1 / 6], True,
                             {U: "TREE", L: "TREE", R: "TREE", D: "STONE", (2, 0): "STONE", (3, 0): "STONE"},
                             inventory={"wood_pickaxe": 1}),
    # a second iron pickaxe is past its cap of 1
    "craft-ironset": _case("craft-ironset", ["NOOP", "MAKE_IRON_PICKAXE", "MAKE_IRON_PICKAXE", "MAKE_IRON_SWORD"],
                           [0, .5, 0, .5], True, {R: "CRAFTING_TABLE", L: "FURNACE"},
                           inventory={"wood": 3, "stone": 3, "coal": 3, "iron": 3}),
    "craftchain": _case("craftchain", ["DO", "DOWN", "DO", "MAKE_WOOD_PICKAXE", "LEFT", "DO", "MAKE_STONE_SWORD"],
                        [0, 0, 0, 1 / 3, 0, 1 / 3, 1 / 3], True,
                        {U: "TREE", D: "TREE", R: "CRAFTING_TABLE", L: "STONE"}),
    "iron-bootstrap": _case(
        "iron-bootstrap", ["DO", "PLACE_TABLE", "MAKE_WOOD_PICKAXE", "LEFT", "DO", "PLACE_FURNACE",
                           "MAKE_STONE_PICKAXE", "RIGHT", "DO"],
        [1 / 7, 1 / 7, 1 / 7, 0, 1 / 7, 1 / 7, 1 / 7, 0, 1 / 7], True, {U: "TREE", L: "STONE", R: "IRON"},
        inventory={"wood": 3, "stone": 1}),
    "diamond-bootstrap": _case(
        "diamond-bootstrap", ["DO", "PLACE_TABLE", "MAKE_WOOD_PICKAXE", "LEFT", "DO", "PLACE_FURNACE",
                              "MAKE_STONE_PICKAXE", "RIGHT", "DO", "MAKE_IRON_PICKAXE", "DOWN", "DO"],
        [1 / 9, 1 / 9, 1 / 9, 0, 1 / 9, 1 / 9, 1 / 9, 0, 1 / 9, 1 / 9, 0, 1 / 9], True,
        {U: "TREE", L: "STONE", R: "IRON", D: "DIAMOND"}, inventory={"wood": 4, "stone": 2, "coal": 1}),
    "place-table": _case("place-table", ["DO", "LEFT", "DO", "PLACE_TABLE"], [.5, 0, 0, .5], True,
                         {U: "TREE", L: "TREE"}),
    "wood-sword": _case("wood-sword", ["MAKE_WOOD_SWORD", "DO", "MAKE_WOOD_SWORD"], [0, 0, 1], True,
                        {R: "CRAFTING_TABLE", U: "TREE"}),
    "stone-pickaxe": _case("stone-pickaxe", ["MAKE_STONE_PICKAXE", "DO", "MAKE_STONE_PICKAXE"], [0, 0, 1], True,
                           {R: "CRAFTING_TABLE", U: "STONE"}, inventory={"wood": 1}),
    "craft-ironsword": _case("craft-ironsword", ["NOOP", "MAKE_IRON_SWORD"], [0, 1], True,
                             {R: "CRAFTING_TABLE", L: "FURNACE"}),
    "tool-rack": _case("tool-rack", ["MAKE_WOOD_PICKAXE", "MAKE_WOOD_SWORD", "MAKE_WOOD_PICKAXE",
                                     "MAKE_STONE_PICKAXE", "MAKE_STONE_SWORD"], [.25, .25, 0, .25, .25], True,
                       {R: "CRAFTING_TABLE"}, inventory={"wood": 5, "stone": 2}),
    "firstday": _case("firstday", ["DO", "MAKE_WOOD_PICKAXE", "MAKE_WOOD_SWORD"], [1 / 22] * 3, False,
                      {U: "TREE", R: "CRAFTING_TABLE"}, inventory={"wood": 1}),
    "find-diamond": _case("find-diamond", ["NOOP", "DO"], [0, 1], True, {U: "DIAMOND"}),
    "find-water": _case("find-water", ["NOOP", "DO"], [0, 1], True, {U: "WATER"}),
    "drink-fill": _case("drink-fill", ["DO"] * 5, [.2] * 5, True, {U: "WATER"}),  # drink 4 -> 9
    "plant-farm": _case("plant-farm", ["PLACE_PLANT", "LEFT", "DO", "RIGHT", "DO", "DOWN", "DO"],
                        [.25, 0, .25, 0, .25, 0, .25], True, {L: "RIPE_PLANT", R: "RIPE_PLANT", D: "RIPE_PLANT"}),
    "lava-field": _case("lava-field", ["RIGHT", "DO"], [0, 1], True, {R: "DIAMOND", U: "LAVA"}),
    "lava-field/death": _case("lava-field", ["UP"], [-1], True, {U: "LAVA"}),  # lava kills at once
    "fight-cow": _case("fight-cow", ["DO", "DO"], [0, 1], True, mobs=[("cow", U)]),  # wood sword: 3 -> 1 -> dead
    "cow-hunt": _case("cow-hunt", ["DO", "DO", "LEFT", "DO", "DO"], [0, .5, 0, 0, .5], True,
                      mobs=[("cow", U), ("cow", L)]),
    "eat-fill": _case("eat-fill", ["DO"] * 3, [0, 0, 1], True, mobs=[("cow", U)]),  # bare hands; food 3 + 6 = 9
    "fightzombie": _case("fightzombie", ["DO", "DO"], [0, 1], True, mobs=[("zombie", U)]),  # stone sword: 5 -> 2 -> dead
    # three zombies hit at turn 1 (9 -> 3); the last one again at turn 7 (-> 1), before it dies
    "fight-zombies": _case("fight-zombies", ["DO", "DO", "LEFT", "DO", "DO", "RIGHT", "DO", "DO"],
                           [0, 1 / 3, 0, 0, 1 / 3, 0, 0, 1 / 3], True,
                           mobs=[("zombie", U), ("zombie", L), ("zombie", R)]),
    "fight-skeletons": _case("fight-skeletons", ["DO", "DOWN", "DO"], [.5, 0, .5], True,
                             mobs=[("skeleton", U), ("skeleton", D)]),
    "skeleton-duel": _case("skeleton-duel", ["NOOP", "DO"], [0, 1], True, mobs=[("skeleton", U)]),
    "survivehorde": _case("survivehorde", ["DO", "DOWN", "DO"], [.2, 0, .2], False,
                          mobs=[("zombie", U), ("skeleton", D)]),
    # the kill earns 1/5, but the other zombie's hit (2) kills the player that turn: -1 instead
    "survivehorde/death": _case("survivehorde", ["DO"], [-1], True, mobs=[("zombie", U), ("zombie", L)],
                                vitals=(2, 9, 9, 9)),
    "night-defense": _case("night-defense", ["DO", "LEFT", "DO"], [.25, 0, .25], False,
                           mobs=[("zombie", U), ("zombie", L)]),
    "survive-hunger": _case("survive-hunger", ["DO"] * 3 + ["NOOP"] * 97, [0] * 99 + [1], True,
                            mobs=[("cow", U)]),  # eat at turn 3, pay at turn 100
    "survive-thirst": _case("survive-thirst", ["DO"] * 3 + ["NOOP"] * 97, [0] * 99 + [1], True, {U: "WATER"}),
    "survive-thirst/wait": _case("survive-thirst", ["NOOP"] * 100, [0] * 100, False, {U: "WATER"}),
    "survive-night": _case("survive-night", ["NOOP"] * 120, [0] * 119 + [1], True, _walled()),
    "survive-wild": _case("survive-wild", ["NOOP"] * 5, [W] * 5, False, _walled()),
    "wake-up": _case("wake-up", ["SLEEP"] + ["NOOP"] * 88, [0] * 88 + [1], True),  # energy 1 -> 9 in 88 turns
    "collect-sapling": _case("collect-sapling", ["DO"] * 40, None, True, sapling_goal=1.0),
    "garden": _case("garden", ["PLACE_PLANT", "LEFT"] + ["DO"] * 40, None, True, inventory={"sapling": 2},
                    sapling_goal=0.5),
}


def _constructed(state, task, case):
    """The case's start: `state` (a host copy of the task's reset) changed as the module comment says."""
    g = state.game
    pos = np.asarray(g.player_position)
    grid = np.array(g.map)
    base = engine.Block[task.base].value
    grid[pos[0] - 3:pos[0] + 4, pos[1] - 3:pos[1] + 4] = base
    for (dr, dc), block in case["blocks"].items():
        grid[pos[0] + dr, pos[1] + dc] = engine.Block[block].value
    mob_map = np.zeros_like(np.asarray(g.mob_map))
    pools = {}
    for kind, name in (("zombie", "zombies"), ("cow", "cows"), ("skeleton", "skeletons")):
        pool = getattr(g, name)
        mask, position = np.zeros_like(np.asarray(pool.mask)), np.array(pool.position)
        health, cooldown = np.array(pool.health), np.zeros_like(np.asarray(pool.attack_cooldown))
        for i, (dr, dc) in enumerate(cell for k, cell in case["mobs"] if k == kind):
            mask[i], position[i] = True, pos + (dr, dc)
            health[i] = {"zombie": 5, "cow": 3, "skeleton": 3}[kind]
            mob_map[tuple(position[i])] = True
        pools[name] = pool.replace(mask=mask, position=position, health=health, attack_cooldown=cooldown)
    inv = g.inventory.replace(**{k: np.asarray(v, np.asarray(getattr(g.inventory, k)).dtype)
                                 for k, v in case["inventory"].items()})
    vit = {}
    if case["vitals"] is not None:
        names = ("player_health", "player_food", "player_drink", "player_energy")
        vit = {n: np.asarray(v, np.asarray(getattr(g, n)).dtype) for n, v in zip(names, case["vitals"])}
    return state.replace(game=g.replace(map=grid, mob_map=mob_map, inventory=inv, **pools, **vit))


@pytest.fixture(scope="module")
def classic_scripts(reset_focused):
    """{case: (rewards [T], terminated [T], events [T], sapling counts [T + 1])} of every CLASSIC_CASES
    script, all played in one vmapped batch (NOOP after a script's end)."""
    envs = {e.card.id: e for e in focused_envs("classic")}
    names = sorted(CLASSIC_CASES)
    cases = [CLASSIC_CASES[n] for n in names]
    starts = [_constructed(reset_focused(c["task"], 0), envs[c["task"]].task, c) for c in cases]
    states = jax.tree.map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *starts)
    params = stack_params([envs[c["task"]] for c in cases])
    turns = max(len(c["actions"]) for c in cases)
    table = np.full((len(cases), turns), A["NOOP"], np.int32)
    for i, c in enumerate(cases):
        table[i, :len(c["actions"])] = [A[a] for a in c["actions"]]
    env = envs["craftax/choptrees"]
    step = jax.jit(jax.vmap(lambda t, s, a, p: env.step(glyphjax.step_key(jnp.uint32(0), t), s, a, p)))
    out = [], [], [], [np.asarray(states.game.inventory.sapling)]
    for t in range(turns):
        states, tr = step(jnp.full((len(cases),), t, jnp.int32), states, jnp.asarray(table[:, t]), params)
        for acc, x in zip(out, (tr.reward, tr.terminated, tr.event, states.game.inventory.sapling)):
            acc.append(np.asarray(x))
    rewards, terminated, events, saplings = (np.stack(x, 1) for x in out)
    return {n: (rewards[i], terminated[i], events[i], saplings[i]) for i, n in enumerate(names)}


@pytest.mark.parametrize("name", sorted(CLASSIC_CASES))
def test_focused_reward__every_classic_task_pays_its_hand_computed_rewards(classic_scripts, name):
    case = CLASSIC_CASES[name]
    rewards, terminated, events, saplings = classic_scripts[name]
    n = len(case["actions"])
    want = case["rewards"]
    if case["sapling_goal"] is not None:  # DO on grass finds a sapling 1 time in 10: pay on the first find
        rises = np.flatnonzero(np.diff(saplings[:n + 1]) > 0)  # turns whose step raised the count
        assert rises.size, f"{name}: no sapling found in {n} turns (pick another script length)"
        want = np.zeros(n)
        if case["actions"][0] == "PLACE_PLANT":
            want[0] = 0.5  # planting pays its half at once (and uses a sapling: the count falls)
        want[rises[0]] = case["sapling_goal"]
        n = rises[0] + 1
    np.testing.assert_allclose(rewards[:n], np.float32(want[:n]), rtol=0, atol=1e-6, err_msg=name)
    assert not terminated[:n - 1].any(), f"{name}: ended early at turn {np.flatnonzero(terminated)[0]}"
    assert bool(terminated[n - 1]) == case["ends"], name
    if case["ends"]:
        assert int(events[n - 1]) == (2 if min(want) < 0 else 1), name
        assert (rewards[n:] == 0).all(), f"{name}: paid after its end"


def test_pool_kills__counts_a_kill_whose_slot_a_spawn_refilled_in_the_same_step():
    """The package spawns into the first free slot, so a mob killed this step can be replaced at
    once (fight-bats showed it: the first bat's kill went uncounted). Slots: 0 killed and
    refilled far away, 1 walked one cell, 2 killed and left empty, 3 despawned (health left), 4
    far from the player, despawned and refilled (no kill), 5 empty before."""
    from craftax.craftax_classic.envs.craftax_state import Mobs
    player = jnp.array([10, 10])
    before = Mobs(position=jnp.array([[9, 10], [12, 10], [10, 11], [30, 30], [30, 31], [0, 0]]),
                  health=jnp.array([1, 5, 2, 5, 5, 0]), mask=jnp.array([True] * 5 + [False]),
                  attack_cooldown=jnp.zeros(6, jnp.int32))
    after = before.replace(position=jnp.array([[16, 14], [12, 11], [10, 11], [30, 30], [2, 3], [0, 0]]),
                           health=jnp.array([5, 5, 0, 5, 5, 0]), mask=jnp.array([True, True, False, False, True, False]))
    assert int(rules.pool_kills(before, after, player)) == 2  # slots 0 and 2


def test_focused_reward__every_classic_task_has_a_scripted_reward_case():
    covered = {c["task"] for c in CLASSIC_CASES.values()} | set(SCRIPTS)
    assert covered == {e.card.id for e in focused_envs("classic")}


def test_focused_reward__death_pays_minus_one_and_ends(reset_focused):
    """fightzombie with NOOPs: the zombie kills the idle player; that step pays -1 and ends."""
    env = glyphjax.make("craftax/fightzombie")
    deaths = 0
    for seed in range(3):
        _, trans = glyphjax.replay(env, seed, [A["NOOP"]] * 300)
        ended = np.flatnonzero(trans.terminated)
        if ended.size:
            deaths += 1
            assert trans.reward[ended[0]] == -1.0 and int(trans.event[ended[0]]) == 2
            assert (trans.reward[: ended[0]] == 0).all()
    assert deaths >= 2


def test_focused_cards__reward_text_names_the_unit_the_code_pays():
    """'+1/N per ...' in a card must match the weights the task pays (1/N each), and an
    all-at-once task says '+1 ' once (Classic- and full-engine tasks)."""
    for env in focused_envs("classic") + focused_envs("full"):
        task, p = env.task, env.default_params()
        weights = {float(w) for w in np.asarray(p.weight)[np.asarray(p.cap) > 0]}
        fractions = {float(np.float32(1 / int(n))) for n in re.findall(r"\+1/(\d+)", env.card.reward)}
        if task.all_at_once:
            assert weights == {0.0} and env.card.reward.startswith("+1 "), env.card.id
        else:
            assert fractions == weights, f"{env.card.id}: card says {fractions}, code pays {weights}"
        total = float(np.sum(np.asarray(p.weight) * np.asarray(p.cap)))
        assert task.all_at_once or abs(total - 1.0) < 1e-6, env.card.id
        assert ("-1 if you die" in env.card.reward) == (task.death_penalty == 1.0), env.card.id


def test_focused_tasks__share_one_compiled_program():
    groups = glyphjax.programs([e.card.id for e in focused_envs()])
    assert len(groups) == 1


def test_mixed_rollout__first_seed_continues_the_seed_sequence():
    """`certify --first-seed S` extends a run that stopped at seed S-1: episodes from first seed 4
    are seeds 4-7 of a run from seed 0 (a cheap MiniGrid task stands in for a Craftax program;
    its random returns differ from seed to seed, so a shifted or ignored first seed shows)."""
    from glyphjax.core.rollout import random_policy
    env = glyphjax.make("minigrid/empty-random-5x5")
    policy = random_policy(env.card.num_actions)
    ret0, ok0 = mixed_rollout([env], policy, 8, chunk=4)[env.card.id]
    ret4, ok4 = mixed_rollout([env], policy, 4, chunk=4, first_seed=4)[env.card.id]
    assert len(set(ret0.round(4).tolist())) > 2, "returns should vary between seeds"
    np.testing.assert_array_equal(ret4, ret0[4:])
    np.testing.assert_array_equal(ok4, ok0[4:])


PLANNER_SEEDS = 4
# below ~90% in `certify --planned 32` (open-ended firstday has no success outcome)
WEAK = {"craftax/firstday", "craftax/survive-night", "craftax/survivehorde", "craftax/survive-wild",
        "craftax/diamond-bootstrap", "craftax/fight-skeletons", "craftax/fight-zombies",
        "craftax/diamond-dig"}  # diamond-dig: 2/4 seeds in the 4-seed test (mean return 0.83)


def test_planner__reaches_the_goal_of_every_focused_task():
    """The planned policy solves each task on most seeds (the WEAK set: at least one seed or a
    positive mean return; rates for many seeds come from `python -m glyphjax.suites.craftax.certify`)."""
    results = mixed_rollout(focused_envs(), focused_envs()[0].scripted_policy, PLANNER_SEEDS)
    failed = []
    for task_id, (ret, ok) in results.items():
        assert ((ret >= -1 - 1e-6) & (ret <= 1 + 1e-6)).all()
        solved = (ok.any() or ret.mean() > 0) if task_id in WEAK else ok.mean() > 0.5
        if not solved:
            failed.append(f"{task_id}: {ok.sum()}/{PLANNER_SEEDS} solved, returns {ret.round(3).tolist()}")
    assert not failed, "; ".join(failed)


def test_hud__snapshot_of_craftpickaxe_start():
    env = glyphjax.make("craftax/craftpickaxe")
    frames, _ = glyphjax.replay(env, 0, [])
    text = glyphjax.render_text(env.card, jax.tree.map(lambda x: x[0], frames)).render()
    assert text == SNAPSHOT


SNAPSHOT = """[Legend]
. — grass
t — crafting table
↑ — you, facing up

[HUD]
Health 9/9  Food 9/9  Drink 9/9  Energy 9/9  Daylight 80%    Step 0 / 300
Inventory: wood 1, stone 0, coal 0, iron 0, diamond 0, sapling 0, wood pickaxe 0, stone pickaxe 0, iron pickaxe 0, wood sword 0, stone sword 0, iron sword 0
Achievements (0/22): 

[Grid]
.........
.........
.........
....↑t...
.........
.........
........."""


def test_guided_memory_hooks__classic_has_one_floor_with_classic_guidance(reset_focused):
    from glyphjax.harness import guided
    from glyphjax.suites.craftax.guidance import CLASSIC_GUIDANCE
    env = glyphjax.make("craftax/craftpickaxe")
    state = reset_focused("craftax/craftpickaxe", 0)
    sig = guided.Signals.of(np.asarray(env.memory_signals(state)))
    assert sig == guided.Signals(0, float(state.game.player_health), int(state.game.achievements.sum()))
    assert guided.floor_key(env, sig) == "floor 0 (the overworld)" and guided.guidance(env, sig) == CLASSIC_GUIDANCE
