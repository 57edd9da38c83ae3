"""The resource-negotiation template (Simple Negotiation seed): one kernel for every trade family.

Game: two seats hold inventories of R resources (`inv0`, public) and each draws a private
valuation of the resources at reset (one row of `val_options` each, uniformly and independently).
Seats alternate for `horizon` turns, seat 0 first. Actions (canonical order): PROPOSE_m for each of
the M menu items (the proposer gives `menu[m, 0]` and receives `menu[m, 1]`), ACCEPT, DENY.
- PROPOSE_m: legal when the proposer holds what it gives and the other seat what it would give;
  it replaces any pending offer.
- ACCEPT: legal when an offer from the other seat is pending (and both still hold the goods);
  the trade happens.
- DENY: always legal; it clears a pending offer (with none pending it passes).
After the last turn each seat's gain is `score(inv) - score(inv0)` under its own valuation (the
family's `score` hook: linear, capped at `cap` units per resource, or squared); the larger gain
wins (+1 / -1), equal gains draw. An illegal move (or no move) forfeits.

Hidden information: each seat sees both inventories, the pending offer and its own valuation,
never the other seat's. V(s) (gamesmith.md §3): clip(gain / Δ_trade, -1, 1) under its own
valuation, Δ_trade = the largest score change one menu trade can make for it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.sampling import uniform_true
from glyphjax.core.types import FORFEIT, Env, EnvState, TaskCard, init_state_fields
from glyphjax.zerosum.onehot import choose

LINEAR, CAPPED, SQUARED = 0, 1, 2  # score hooks
NONE_HELD = "∅"


@struct.dataclass
class TradeParams:
    """Traced rules and encoding of one negotiation variant (shapes fixed by R, M and K)."""

    inv0: jax.Array  # int32[2, R]: starting inventories
    val_options: jax.Array  # int32[K, R]: valuations a seat may draw
    menu: jax.Array  # int32[M, 2, R]: (gives, receives) of the proposer
    menu_on: jax.Array  # bool[M]: items this variant offers
    horizon: jax.Array  # int32: turns played
    score_kind: jax.Array  # int32: LINEAR, CAPPED or SQUARED
    cap: jax.Array  # int32: units per resource that count (CAPPED)
    glyphs: jax.Array  # uint32[R + 1]: resource glyphs, then the none-held glyph


@struct.dataclass
class TradeState(EnvState):
    inv: jax.Array  # int32[2, R]
    val: jax.Array  # int32[2, R]: private valuations
    mover: jax.Array  # int32
    pending: jax.Array  # int32: menu item offered by `proposer` (-1 = none)
    proposer: jax.Array  # int32
    last: jax.Array  # int32[2]: each seat's last action (-1 = none)


def score(inv: jax.Array, val: jax.Array, params: TradeParams) -> jax.Array:
    """The family's score hook over canonical resource indices (int32[R] x int32[R] -> int32)."""
    counted = choose([params.score_kind == CAPPED, params.score_kind == SQUARED],
                         [jnp.minimum(inv, params.cap), inv * inv], inv)
    return jnp.sum(val * counted).astype(jnp.int32)


def _affordable(inv: jax.Array, menu: jax.Array, proposer: jax.Array) -> jax.Array:
    """bool[M]: the proposer holds each item's gives and the other seat its receives."""
    gives = jnp.all(menu[:, 0] <= inv[proposer], axis=-1)
    takes = jnp.all(menu[:, 1] <= inv[1 - proposer], axis=-1)
    return gives & takes


def offerable(inv: jax.Array, params: TradeParams, proposer: jax.Array) -> jax.Array:
    """bool[M]: menu items the proposer may offer now."""
    return params.menu_on & _affordable(inv, params.menu, proposer)


def trade(inv: jax.Array, item: jax.Array, proposer: jax.Array) -> jax.Array:
    """Inventories after the proposer's menu item is executed (gives -> other, receives <- other)."""
    flow = item[1] - item[0]  # what the proposer gains per resource
    sign = jnp.where(jnp.arange(2) == proposer, 1, -1)[:, None]
    return inv + sign * flow[None, :]


class NegotiationGame(Env):
    """One variant of the negotiation template: static (R, M, K, max horizon), traced params and a
    card written on the host (`resource_names`, `offer_names` per menu item)."""

    def __init__(self, task_id: str, params: TradeParams, max_horizon: int, rules: str,
                 resource_names: tuple[str, ...], action_names: tuple[str, ...], offer_texts: tuple[str, ...],
                 resource_glyphs: str):
        self._params = jax.tree.map(jnp.asarray, params)
        self.scripted_policy = self.bot_policy  # eval's `scripted`: both seats play the reference bot
        self.r, self.m = params.inv0.shape[1], params.menu.shape[0]
        self.k, self.max_horizon = params.val_options.shape[0], max_horizon
        fields, parts = [], []
        for who, tag in (("Your", "own"), ("Opponent's", "other")):
            parts.append(f"{who} goods: " + ", ".join(f"{n} {{{tag}_{i}}}" for i, n in enumerate(resource_names)))
            fields += [f"{tag}_{i}" for i in range(self.r)]
        parts.append("Your values per unit: " + ", ".join(f"{n} {{val_{i}}}" for i, n in enumerate(resource_names)))
        fields += [f"val_{i}" for i in range(self.r)]
        glyphs = {g: f"you hold {n} (row 1) or the opponent does (row 2)" for g, n in zip(resource_glyphs, resource_names)}
        glyphs[NONE_HELD] = "none of that good held"
        events = ("", "The trading begins: you move first.", "The opponent made an offer.",
                  "You made an offer.", "The opponent accepted your offer: the goods changed hands.",
                  "You accepted the offer: the goods changed hands.", "The opponent passed.", "You passed.",
                  "Time is up: your gain is larger. You win.", "Time is up: the opponent's gain is larger. You lose.",
                  "Time is up: equal gains. A draw.", "An illegal move forfeits the game. You lose.",
                  "The opponent made an illegal move and forfeits. You win.")
        self.card = TaskCard(
            id=task_id, rules=rules, actions=action_names,
            action_descriptions=tuple(f"offer: {t}" for t in offer_texts)
            + ("accept the opponent's pending offer", "refuse the pending offer, or pass"),
            glyphs=glyphs,
            hud="Step: {step} / {max_steps}    " + "    ".join(parts) + "    Pending offer: {pending}",
            hud_fields=(*fields, "pending"),
            hud_enums={"pending": ("none", *(f"the opponent offers: {t}" for t in offer_texts),
                                   *(f"you offered: {t}" for t in offer_texts))},
            max_steps=max_horizon, reward="+1 if your gain in goods value is larger, -1 if smaller, 0 if "
                                          "equal; an illegal move: -1 to its player, +1 to the other.",
            events=events, num_players=2, illegal=FORFEIT, zero_sum=True, success=(8, 12))

    def default_params(self) -> TradeParams:
        return self._params

    def static_config(self):
        return ("zerosum-trade", self.r, self.m, self.k, self.max_horizon)

    def _reset(self, key, params):
        pick = jax.random.randint(key, (2,), 0, self.k)
        return TradeState(**{**init_state_fields(), "event": jnp.int32(1)}, inv=params.inv0.astype(jnp.int32),
                          val=params.val_options[pick].astype(jnp.int32), mover=jnp.int32(0),
                          pending=jnp.int32(-1), proposer=jnp.int32(0), last=jnp.full((2,), -1, jnp.int32))

    def _to_play(self, state):
        return state.mover

    def _legal(self, state, params):
        offers = offerable(state.inv, params, state.mover)
        item = params.menu[jnp.maximum(state.pending, 0)]
        can_accept = (state.pending >= 0) & (state.proposer != state.mover) & \
            _affordable(state.inv, item[None], state.proposer)[0]
        return jnp.concatenate([offers, jnp.stack([can_accept, jnp.ones((), jnp.bool_)])])

    def _step(self, key, state: TradeState, action, params):
        m, mover = self.m, state.mover
        ok = (action >= 0) & self._legal(state, params)[jnp.clip(action, 0, m + 1)]
        accept, deny = action == m, action == m + 1
        item = params.menu[jnp.maximum(state.pending, 0)]
        inv = jnp.where(accept, trade(state.inv, item, state.proposer), state.inv)
        propose = (action >= 0) & (action < m)
        pending = jnp.where(propose, action, -1).astype(jnp.int32)
        over = state.t + 1 >= params.horizon
        gain = jax.vmap(lambda o: score(inv[o], state.val[o], params) - score(params.inv0[o], state.val[o], params))(
            jnp.arange(2))
        lead = jnp.sign(gain[0] - gain[1]).astype(jnp.float32)
        reward = jnp.where(over, lead * jnp.array([1.0, -1.0]), 0.0)
        nxt = state.replace(inv=inv, mover=1 - mover, pending=pending,
                            proposer=jnp.where(propose, mover, state.proposer),
                            last=state.last.at[mover].set(action))
        mine = mover == 0  # events stored as seat 0 reads them
        ev_act = choose([propose, accept], [jnp.where(mine, 3, 2), jnp.where(mine, 5, 4)], jnp.where(mine, 7, 6))
        ev_over = jnp.where(lead > 0, 8, jnp.where(lead < 0, 9, 10))
        event = choose([~ok, over], [jnp.where(mine, 11, 12), ev_over], ev_act)
        del deny
        return nxt, reward, over, event

    def _seat_event(self, state, seat):
        swap = jnp.array([0, 1, 3, 2, 5, 4, 7, 6, 9, 8, 10, 12, 11], jnp.int32)
        return jnp.where(seat == 0, state.event, swap[state.event])

    def _render(self, state: TradeState, params, seat):
        rows = jnp.stack([state.inv[seat], state.inv[1 - seat]])
        codes = jnp.where(rows > 0, jnp.arange(self.r)[None, :], self.r)
        pending = jnp.where(state.pending < 0, 0,
                            1 + state.pending + jnp.where(state.proposer == seat, self.m, 0))
        hud = (*state.inv[seat], *state.inv[1 - seat], *state.val[seat], pending)
        return params.glyphs[codes], hud

    def perturb_private(self, key, state: TradeState, seat):
        """Redraw `seat`'s valuation (its only private state): any values 1..20 per good."""
        return state.replace(val=state.val.at[seat].set(jax.random.randint(key, (self.r,), 1, 21, jnp.int32)))

    def canonical_view(self, state: TradeState, seat, params) -> jax.Array:
        """int32[3R + 2]: own and other inventories, own valuation, the pending item (-1 none),
        whether this seat proposed it — compared with the reference."""
        return jnp.concatenate([state.inv[seat], state.inv[1 - seat], state.val[seat],
                                jnp.stack([state.pending, (state.proposer == seat).astype(jnp.int32)])])

    def chance(self, state: TradeState) -> jax.Array:
        """int32[2, R]: the drawn valuations (what an independent implementation is given)."""
        return state.val

    def fill(self, state, params) -> jax.Array:
        return jnp.float32(0.0)

    def trade_scale(self, val: jax.Array, inv: jax.Array, params: TradeParams) -> jax.Array:
        """Δ_trade: the largest |score change| one menu trade makes for a holder of `val`."""
        base = score(inv, val, params)
        def change(item):
            give = score(inv - item[0] + item[1], val, params) - base
            take = score(inv + item[0] - item[1], val, params) - base
            return jnp.maximum(jnp.abs(give), jnp.abs(take))
        return jnp.maximum(jnp.max(jnp.where(params.menu_on, jax.vmap(change)(params.menu), 0)), 1)

    def value(self, state: TradeState, params, seat) -> jax.Array:
        """V(s) for `seat`: clip(gain / Δ_trade, -1, 1) under its own valuation."""
        val = state.val[seat]
        gain = score(state.inv[seat], val, params) - score(params.inv0[seat], val, params)
        return jnp.clip(gain / self.trade_scale(val, params.inv0[seat], params), -1.0, 1.0).astype(jnp.float32)

    def bot_policy(self, key, state: TradeState, params) -> jax.Array:
        """Reference bot (ours): accept a pending offer that strictly raises its own score, else
        propose a random affordable item that would, else DENY."""
        mover, m = state.mover, self.m
        val, inv = state.val[mover], state.inv
        now = score(inv[mover], val, params)
        after = jax.vmap(lambda it: score(trade(inv, it, mover)[mover], val, params))(params.menu)
        good = offerable(inv, params, mover) & (after > now)
        legal = self._legal(state, params)
        item = params.menu[jnp.maximum(state.pending, 0)]
        accept_gain = score(trade(inv, item, state.proposer)[mover], val, params) > now
        pick = jnp.where(jnp.any(good), uniform_true(good, jax.random.uniform(key)), m + 1)
        return jnp.where(legal[m] & accept_gain, m, pick).astype(jnp.int32)
