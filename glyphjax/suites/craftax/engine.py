"""Adapters over the `craftax` package's own JAX engines (Classic and full Craftax).

We never re-implement Craftax's mechanics: a step here is the package's `craftax_step` followed by
its `is_game_over`, on the package's `EnvState`, with the package's dynamics unchanged. What the
adapters add: NO_ACTION (-1) is Craftax's NOOP, and state leaves are made strongly typed (the
package builds some fields from Python scalars; the values are untouched, only JAX's weak-type
flag goes, so a stepped state never retraces a jitted step).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from craftax.craftax_classic import constants as classic_constants
from craftax.craftax_classic import game_logic as classic_logic
from craftax.craftax_classic.envs.craftax_state import EnvParams as ClassicParams
from craftax.craftax_classic.envs.craftax_state import StaticEnvParams as ClassicStatic
from craftax.craftax_classic.world_gen import generate_world as classic_generate_world

CLASSIC_STATIC = ClassicStatic()
CLASSIC_BLOCKS = tuple(b.name for b in classic_constants.BlockType)
CLASSIC_ACTIONS = tuple(a.name for a in classic_constants.Action)
CLASSIC_ACHIEVEMENTS = tuple(a.name for a in sorted(classic_constants.Achievement, key=lambda a: a.value))
CLASSIC_INVENTORY = ("wood", "stone", "coal", "iron", "diamond", "sapling", "wood_pickaxe",
                     "stone_pickaxe", "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword")
CLASSIC_VIEW = classic_constants.OBS_DIM  # (rows, cols) = (7, 9)
Block = classic_constants.BlockType


def strong(tree: Any) -> Any:
    """The same pytree with every leaf strongly typed (same dtype, same values)."""
    return jax.tree.map(lambda x: jax.lax.convert_element_type(x, jnp.asarray(x).dtype), tree)


def array_params(p: Any) -> Any:
    """A package `EnvParams` with its scalar fields as bool/float32/int32 arrays (traced params)."""
    def typed(v):
        return jnp.asarray(v, jnp.bool_ if isinstance(v, bool) else jnp.float32 if isinstance(v, float) else jnp.int32)
    return p.replace(**{k: typed(v) for k, v in vars(p).items() if k != "fractal_noise_angles"})


def classic_params(**overrides: Any) -> ClassicParams:
    """The package's Classic `EnvParams` (spawn chances, day length...) as traced params."""
    return array_params(ClassicParams().replace(**overrides))


def one_at_a_time(fn):
    """`fn` whose batching rule maps it over the batch one element at a time (`lax.map`), so a
    vmapped call computes every element with the unbatched program. World generation needs it:
    XLA CPU (jaxlib 0.10.2) miscompiles the package's vmapped Perlin noise (`util/noise.py`,
    `n00 * (1 - t) + t * n10`): rows 8-15 of a 16-wide batch get wrong noise, hence other worlds
    than the same seed generated alone (tests/suites/craftax/test_craftax.py pins it)."""
    @jax.custom_batching.custom_vmap
    def wrapped(*args):
        return fn(*args)

    @wrapped.def_vmap
    def _rule(axis_size, in_batched, *args):
        flat, tree = jax.tree.flatten(args)
        batched = jax.tree.leaves(in_batched)
        flat = [x if b else jnp.broadcast_to(x, (axis_size, *jnp.shape(x))) for x, b in zip(flat, batched)]
        out = jax.lax.map(lambda xs: wrapped(*jax.tree.unflatten(tree, xs)), flat)
        return out, jax.tree.map(lambda _: True, out)
    return wrapped


def classic_world(key: jax.Array, cparams: ClassicParams):
    """A fresh Classic world from the package's own generator (element by element under vmap)."""
    return strong(_classic_world(key, cparams))


_classic_world = one_at_a_time(lambda key, cparams: classic_generate_world(key, cparams, CLASSIC_STATIC))


def classic_step(key: jax.Array, game, action: jax.Array, cparams: ClassicParams):
    """-> (game, package reward, game over): the package's Classic step on `game`."""
    action = jnp.where(action < 0, 0, action)
    game, reward = classic_logic.craftax_step(key, game, action, cparams, CLASSIC_STATIC)
    game = strong(game)
    return game, jnp.asarray(reward, jnp.float32), classic_logic.is_game_over(game, cparams)


# --- full Craftax --------------------------------------------------------------------------------
from craftax.craftax import constants as full_constants  # noqa: E402
from craftax.craftax.envs.craftax_symbolic_env import CraftaxSymbolicEnvNoAutoReset  # noqa: E402

_FULL = CraftaxSymbolicEnvNoAutoReset()
FULL_STATIC = _FULL.static_env_params
FULL_BLOCKS = tuple(b.name for b in full_constants.BlockType)
FULL_ITEMS = tuple(i.name for i in full_constants.ItemType)
FULL_ACTIONS = tuple(a.name for a in full_constants.Action)
# by value: the package's Achievement enum is not declared in value order (COLLECT_SAPPHIRE = 54
# comes 26th), and `achievements[i]` is the achievement whose value is i
FULL_ACHIEVEMENTS = tuple(a.name for a in sorted(full_constants.Achievement, key=lambda a: a.value))
FULL_ACHIEVEMENT_WEIGHTS = np.asarray(full_constants.ACHIEVEMENT_REWARD_MAP, np.float32)  # sum 226
FULL_VIEW = full_constants.OBS_DIM  # (rows, cols) = (9, 11)
FULL_CLEAR_KILLS = full_constants.MONSTERS_KILLED_TO_CLEAR_LEVEL


def full_params(**overrides: Any):
    """The package's full-game `EnvParams` as traced params."""
    return array_params(_FULL.default_params.replace(**overrides))


def full_world(key: jax.Array, params):
    """A fresh full-game world: the package's own reset (`reset_env`, which splits the key first),
    element by element under vmap (`one_at_a_time`)."""
    return strong(_full_world(key, params))


_full_world = one_at_a_time(lambda key, params: _FULL.reset_env(key, params)[1])


def full_step(key: jax.Array, game, action: jax.Array, params):
    """-> (game, package reward, game over): the package's full-game step (`step_env`)."""
    action = jnp.where(action < 0, 0, action)
    _, game, reward, done, _ = _FULL.step_env(key, game, action, params)
    return strong(game), jnp.asarray(reward, jnp.float32), done
