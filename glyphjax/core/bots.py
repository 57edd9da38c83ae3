"""Named array players for multi-seat games, and one policy per seat composed into one.

`bot(env, name, depth)` is the one registry `glyphjax-eval`'s per-seat opponents and
`glyphjax-play`'s `opponent=` use:
- `random`: a uniformly random legal move (`env.legal`);
- `scripted`: the game's reference bot (`env.scripted_policy`; for the zero-sum templates a
  one-step maximiser of its own V: win/block in grid games, bet on a favourable card, accept
  or propose only trades that raise its own score);
- `minimax`: a depth-limited search, for games that offer one (`env.minimax_policy(depth)`:
  the grid-placement template).
Players of one compiled program are the same function object, so rollouts compile once.
"""

from __future__ import annotations

from typing import Sequence

import jax
import jax.numpy as jnp

from glyphjax.core.rollout import ArrayPolicy, random_legal_policy
from glyphjax.core.types import Env

BOTS = ("random", "scripted", "minimax")
DEFAULT_DEPTH = 2
_CACHE: dict = {}


def bot(env: Env, name: str, depth: int = DEFAULT_DEPTH) -> ArrayPolicy:
    """The array player `name` (BOTS) for `env`; ValueError naming what to use instead when the
    game has no such player."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; choose one of {', '.join(BOTS)}")
    if name == "scripted":
        if env.scripted_policy is None:
            raise ValueError(f"{env.card.id} has no scripted bot; use random")
        return env.scripted_policy
    search = getattr(env, "minimax_policy", None)
    if name == "minimax" and search is None:
        raise ValueError(f"{env.card.id} has no minimax bot (the grid-placement games have one); "
                         "use scripted or random")
    key = (env.program, name, depth if name == "minimax" else None)
    if key not in _CACHE:
        _CACHE[key] = random_legal_policy(env) if name == "random" else search(depth)
    return _CACHE[key]


def seated(env: Env, players: Sequence[ArrayPolicy]) -> ArrayPolicy:
    """One array policy in which seat i's moves come from `players[i]` (each player draws from
    its own fold of the key). The same function object for the same env program and players."""
    players = tuple(players)
    if len(players) != env.card.num_players:
        raise ValueError(f"{env.card.id} has {env.card.num_players} seats, got {len(players)} players")
    key = (env.program, "seated", players)
    if key not in _CACHE:
        def act(k: jax.Array, state, params) -> jax.Array:
            seat = env.to_play(state)
            moves = [jnp.asarray(p(jax.random.fold_in(k, i), state, params), jnp.int32) for i, p in enumerate(players)]
            return jnp.select([seat == i for i in range(len(players) - 1)], moves[:-1], moves[-1])
        _CACHE[key] = act
    return _CACHE[key]


def bot_names(env: Env) -> list[str]:
    """The bots `env` offers (for help texts and error messages)."""
    names = ["random"] + (["scripted"] if env.scripted_policy is not None else [])
    return names + (["minimax"] if getattr(env, "minimax_policy", None) is not None else [])

