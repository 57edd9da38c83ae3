"""The betting-with-showdown template (Kuhn Poker seed): one kernel for every card family.

Game: `rounds` rounds (at most the static `max_rounds`); each round both seats ante `ante` chips,
one card each is dealt from a freshly shuffled deck of D cards (card i has rank `rank[i]`), and
the round's opener (seat 0 in round 1, then alternating) acts first. Actions (canonical order):
CHECK, BET, CALL, FOLD, RAISE. The betting tree (the family's betting config, traced):
- nobody has bet: CHECK or BET (`bet` chips); two checks go to the showdown;
- facing a bet: CALL (match it: showdown) or FOLD (the other seat takes the pot), or, while
  fewer than `max_raises` raises were made, RAISE (match and add `bet` chips).
Showdown (the `compare` hook over rank indices): the higher rank wins the pot, or the lower with
`lowball`; equal ranks split it. Chips won or lost settle into each seat's stack at the end of a
round. After the last round the seat with more chips wins (+1 / -1), equal stacks draw (0, 0).
An illegal move (or no move) forfeits (-1 to the mover, +1 to the other).

Hidden information: each seat sees its own card, never the other seat's, until a showdown reveals
both (the showdown message names the other seat's card; the final showdown also draws it). V(s)
(gamesmith.md §3): f·(P_win − P_lose) + (1 − f)·lead / C_max from the seat's own card and the
public chip counts, f = rounds remaining (this one included) / rounds.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from glyphjax.core.sampling import Draws
from glyphjax.core.types import FORFEIT, Env, EnvState, TaskCard, init_state_fields
from glyphjax.zerosum.onehot import choose, flag, take
from glyphjax.zerosum.onehot import put as put_at

CHECK, BET, CALL, FOLD, RAISE = range(5)
RANK_SLOTS = 8  # ranks a deck may use (fixes the event table and the glyph table's length)
DECK_SLOTS = 8  # cards a deck may hold: every deck is padded to this (rank -1 = no card)
ACTIONS = ("CHECK", "BET", "CALL", "FOLD", "RAISE")
FACE_DOWN = "▒"


@struct.dataclass
class BetParams:
    """Traced rules and encoding of one betting variant (shapes fixed by the deck size D)."""

    rank: jax.Array  # int32[DECK_SLOTS]: rank index of each card (-1 = no such card in this deck)
    rounds: jax.Array  # int32: rounds played (<= max_rounds)
    ante: jax.Array  # int32: chips each seat puts in at the start of a round
    bet: jax.Array  # int32: size of a bet and of a raise
    max_raises: jax.Array  # int32: raises allowed per round (0 = Kuhn's tree)
    lowball: jax.Array  # bool: the lower rank wins the showdown
    glyphs: jax.Array  # uint32[RANK_SLOTS + 1]: rank glyphs (padded), then the face-down glyph


# The betting state machine's node, packed in one int32 (a bit field): the step writes one array
# where five small ones would each cost a loop over the batch (and XLA repeats the chosen action's
# computation in each of them). Fields: (name, shift, bits).
NODE_FIELDS = (("mover", 0, 1), ("facing", 1, 1), ("acted", 2, 3), ("raises", 5, 2), ("round", 7, 3))


def pack_node(mover=0, facing=False, acted=0, raises=0, round=0) -> jax.Array:
    """int32 node from its fields (see NODE_FIELDS); scalars or traced int32 / bool arrays."""
    vals = dict(mover=mover, facing=facing, acted=acted, raises=raises, round=round)
    node = jnp.int32(0)
    for name, shift, _ in NODE_FIELDS:
        node = node | (jnp.asarray(vals[name]).astype(jnp.int32) << shift)
    return node


def _shift(name: str) -> int:
    return next(sh for n, sh, _ in NODE_FIELDS if n == name)


def _unit(name: str) -> int:
    """The node's increment of one in field `name`."""
    return 1 << _shift(name)


def _node_field(name: str):
    shift, bits = next((sh, b) for n, sh, b in NODE_FIELDS if n == name)
    return property(lambda self: (self.node >> shift) & ((1 << bits) - 1))


@struct.dataclass
class BetState(EnvState):
    deal: jax.Array  # int32[max_rounds, 2]: the card of each seat in each round (hidden)
    node: jax.Array  # int32: the betting node, NODE_FIELDS packed (read them as properties below)
    put: jax.Array  # int32[2]: chips each seat has in this round's pot
    chips: jax.Array  # int32[2]: settled stack change of each seat
    shown: jax.Array  # int32[2]: ranks revealed at the last showdown (-1 = none; public)
    last: jax.Array  # int32[2]: each seat's last action (-1 = none this round)

    mover = _node_field("mover")  # the seat to move
    facing = _node_field("facing")  # 1 while the mover faces a bet (its stake is below the other's)
    acted = _node_field("acted")  # decisions taken this round
    raises = _node_field("raises")  # raises made this round
    round = _node_field("round")  # current round (0-based)


def legal_actions(state: BetState, params: BetParams) -> jax.Array:
    """bool[5]: the betting tree's moves at this node (the legality hook)."""
    facing = state.facing == 1
    act = jnp.arange(5)  # an element-wise formula, not a stack of five scalars: XLA fuses it into its users
    return jnp.where(act < CALL, ~facing, facing & ((act < RAISE) | (state.raises < params.max_raises)))


def compare(a: jax.Array, b: jax.Array, params: BetParams) -> jax.Array:
    """+1 if rank index a beats b at the showdown, -1 if it loses, 0 for equal ranks."""
    s = jnp.sign(a - b).astype(jnp.int32)
    return jnp.where(params.lowball, -s, s)


class BettingGame(Env):
    """One variant of the betting template: the static deck size and round cap, traced params,
    and a card written on the host (`rank_names` in rank order, `action_names` in ACTIONS order)."""

    def __init__(self, task_id: str, deck: int, max_rounds: int, params: BetParams, rules: str,
                 rank_names: tuple[str, ...], action_names: tuple[str, ...], glyph_chars: str):
        self.deck, self.max_rounds = deck, max_rounds
        self.scripted_policy = self.bot_policy  # eval's `scripted`: both seats play the reference bot
        self._params = jax.tree.map(jnp.asarray, params)
        self.rank_names = rank_names
        n_ranks = RANK_SLOTS
        if len(rank_names) > RANK_SLOTS:
            raise ValueError(f"{task_id}: {len(rank_names)} ranks; the template allows at most {RANK_SLOTS}")
        ranks_used = sorted(set(np.asarray(params.rank).tolist()) - {-1})
        glyphs = {glyph_chars[r]: f"a card of rank {rank_names[r]}" for r in ranks_used}
        glyphs[FACE_DOWN] = "the opponent's face-down card"
        events = ["", "A new round: your card is dealt."]
        for mine in ("win", "lose", "split"):
            for r in range(n_ranks):
                held = rank_names[r] if r < len(rank_names) else "an unused rank"
                events.append(f"Showdown: the opponent held {held}; you {mine} the pot.")
        events += ["The opponent folded; you win the pot.", "You folded; the opponent wins the pot.",
                   "The game is over: you have more chips. You win.",
                   "The game is over: the opponent has more chips. You lose.",
                   "The game is over: equal chips. A draw.",
                   "An illegal move forfeits the game. You lose.",
                   "The opponent made an illegal move and forfeits. You win.",
                   "The opponent acted; your move.", "You acted; the opponent moves next."]
        self.n_ranks = n_ranks
        self.card = TaskCard(
            id=task_id, rules=rules, actions=action_names,
            action_descriptions=tuple(f"{a.lower()} ({what})" for a, what in zip(action_names, (
                "pass without betting", "put in a bet", "match the bet and go to the showdown",
                "give up the pot", "match the bet and bet again"))),
            glyphs=glyphs,
            hud="Step: {step} / {max_steps}    Round {round} of {rounds}    Your chips: {mine}    "
                "Opponent's chips: {theirs}    Pot: {pot} (you put {put})    Opponent's last action: {other}",
            hud_fields=("round", "rounds", "mine", "theirs", "pot", "put", "other"),
            hud_enums={"other": ("none", *(a.lower() for a in action_names))},
            max_steps=max_rounds * 6, reward="+1 if you end with more chips, -1 if with fewer, 0 if "
                                             "equal; an illegal move: -1 to its player, +1 to the other.",
            events=tuple(events), num_players=2, illegal=FORFEIT, zero_sum=True,
            success=(len(events) - 7, len(events) - 3))
        self.ev_showdown, self.ev_fold = 2, 2 + 3 * n_ranks
        self.ev_over, self.ev_forfeit, self.ev_moved = self.ev_fold + 2, self.ev_fold + 5, self.ev_fold + 7

    def default_params(self) -> BetParams:
        return self._params

    def static_config(self):
        return ("zerosum-bet", self.deck, self.max_rounds)

    def _reset(self, key, params):
        # ours: each round deals the cards of the two lowest of D hashed uniforms (one draw for
        # every round, no sort: the deal is most of a vmapped reset's cost on CPU)
        u = Draws.hashed(key, self.max_rounds * self.deck).uniform((self.max_rounds, self.deck))
        u = jnp.where(params.rank >= 0, u, 2.0)
        first = jnp.argmin(u, axis=1)
        second = jnp.argmin(jnp.where(jnp.arange(self.deck) == first[:, None], 3.0, u), axis=1)
        deal = jnp.stack([first, second], axis=1).astype(jnp.int32)
        two = jnp.full((2,), -1, jnp.int32)
        return BetState(**{**init_state_fields(), "event": jnp.int32(1)}, deal=deal, node=pack_node(),
                        put=jnp.broadcast_to(params.ante, (2,)).astype(jnp.int32),
                        chips=jnp.zeros((2,), jnp.int32), shown=two, last=two)

    def _to_play(self, state):
        return state.mover

    def _legal(self, state, params):
        return legal_actions(state, params)

    def _step(self, key, state: BetState, action, params):
        mover, other = state.mover, 1 - state.mover
        a = jnp.clip(action, 0, 4)
        ok = (action >= 0) & flag(legal_actions(state, params), a)
        gap = jnp.max(state.put) - take(state.put, mover)
        add = choose([a == BET, a == CALL, a == RAISE], [params.bet, gap, gap + params.bet], 0)
        put = put_at(state.put, mover, take(state.put, mover) + add)
        checked_round = (a == CHECK) & (state.acted >= 1)  # check behind: showdown
        showdown = (a == CALL) | checked_round
        folded = a == FOLD
        cards = take(state.deal, state.round)
        ranks = jax.vmap(lambda c: take(params.rank, c))(cards)
        result0 = compare(ranks[0], ranks[1], params)  # +1: seat 0 wins the showdown
        winner = jnp.where(folded, other, jnp.where(result0 > 0, 0, 1))
        settle = jnp.where(showdown & (result0 == 0), 0, jnp.where(winner == 0, put[1], put[0]))
        delta = jnp.where(jnp.arange(2) == winner, settle, -settle)
        ends_round = showdown | folded
        chips = jnp.where(ends_round, state.chips + delta, state.chips)
        nxt_round = state.round + ends_round.astype(jnp.int32)
        over = ends_round & (nxt_round >= params.rounds)
        fresh = jnp.broadcast_to(params.ante, (2,)).astype(jnp.int32)
        lead = chips[0] - chips[1]
        reward = jnp.where(over, jnp.sign(lead).astype(jnp.float32) * jnp.array([1.0, -1.0]), 0.0)
        # the next node: in the round, the other seat moves, one more decision (and raise) is
        # counted, and it faces a bet after BET / RAISE; a round's end opens the next (its opener,
        # seat nxt_round mod 2, moves first; nothing bet); the last round keeps its round index
        i32 = jnp.int32
        in_round = (((state.node ^ _unit("mover")) & ~_unit("facing")) + _unit("acted")
                    + (a == RAISE).astype(i32) * _unit("raises")
                    + ((a == BET) | (a == RAISE)).astype(i32) * _unit("facing"))
        round_ = jnp.where(over, state.round, jnp.minimum(nxt_round, self.max_rounds - 1))
        node = jnp.where(ends_round, (nxt_round & 1) | (round_ << _shift("round")), in_round)
        nxt = state.replace(
            node=node, put=jnp.where(ends_round, fresh, put),
            chips=chips, shown=jnp.where(showdown, ranks, jnp.where(ends_round, -1, state.shown)),
            last=jnp.where(ends_round, jnp.full((2,), -1, jnp.int32), put_at(state.last, mover, a)))
        event = self._event(state, ok, action, showdown, folded, result0, ranks, over, lead)
        return nxt, reward, over, event

    def _event(self, state, ok, action, showdown, folded, result0, ranks, over, lead):
        """The stored event (seat 0's reading; seat 1's is `_seat_event`)."""
        mover = state.mover
        won = jnp.where(result0 > 0, 0, jnp.where(result0 < 0, 1, 2))  # seat 0's view: 0 win, 1 lose, 2 split
        ev_show = self.ev_showdown + won * self.n_ranks + ranks[1]
        ev_fold = self.ev_fold + (mover == 0)  # seat 1 folded -> seat 0 wins (ev_fold)
        ev_over = self.ev_over + jnp.where(lead > 0, 0, jnp.where(lead < 0, 1, 2))
        ev_bad = self.ev_forfeit + (mover == 1)
        ev_moved = self.ev_moved + (mover == 0)
        # encoded as seat 0 reads it; over-events replace the round result (chips say it)
        return choose([~ok, over, showdown, folded], [ev_bad, ev_over, ev_show, ev_fold], ev_moved)

    def _seat_event(self, state, seat):
        """Seat 1 reads each seat-0 message mirrored (its own card named in showdowns)."""
        e = state.event
        n = self.n_ranks
        show = (e >= self.ev_showdown) & (e < self.ev_fold)
        k = e - self.ev_showdown
        outcome0, _ = k // n, k % n
        mirrored_outcome = jnp.array([1, 0, 2])[jnp.clip(outcome0, 0, 2)]
        seat1_show = self.ev_showdown + mirrored_outcome * n + jnp.maximum(state.shown[0], 0)
        pairs = {self.ev_fold: self.ev_fold + 1, self.ev_fold + 1: self.ev_fold,
                 self.ev_over: self.ev_over + 1, self.ev_over + 1: self.ev_over,
                 self.ev_forfeit: self.ev_forfeit + 1, self.ev_forfeit + 1: self.ev_forfeit,
                 self.ev_moved: self.ev_moved + 1, self.ev_moved + 1: self.ev_moved}
        swapped = e
        for a, b in pairs.items():
            swapped = jnp.where(e == a, b, swapped)
        seat1 = jnp.where(show, seat1_show, swapped)
        return jnp.where(seat == 0, e, seat1)

    def _render(self, state: BetState, params, seat):
        n = self.n_ranks
        own = params.rank[state.deal[state.round, seat]]
        opp = jnp.where(state.done & (state.shown[1 - seat] >= 0), state.shown[1 - seat], n)  # n: face down
        grid = params.glyphs[jnp.stack([own, opp])][None, :]
        hud = (state.round + 1, params.rounds, state.chips[seat], state.chips[1 - seat], jnp.sum(state.put),
               state.put[seat], state.last[1 - seat] + 1)
        return grid, hud

    def perturb_private(self, key, state: BetState, seat):
        """Resample `seat`'s card in every unplayed round among the cards dealt in the game (all
        in this deck) other than the other seat's card of that round. Reads no params, so every
        variant of the program shares it."""
        other, pool = 1 - seat, state.deal.reshape(-1)

        def redeal(k, pair):
            u = jnp.where(pool == pair[other], -1.0, jax.random.uniform(k, pool.shape))
            return pair.at[seat].set(pool[jnp.argmax(u)])
        deal = jax.vmap(redeal)(jax.random.split(key, self.max_rounds), state.deal)
        keep = (jnp.arange(self.max_rounds) < state.round) | state.done  # played rounds are settled
        return state.replace(deal=jnp.where(keep[:, None], state.deal, deal))

    def canonical_view(self, state: BetState, seat, params) -> jax.Array:
        """int32[8]: what `seat` knows in canonical indices (own rank, the ranks shown at the last
        showdown, round, both stacks, both stakes) — compared with the reference."""
        return jnp.stack([params.rank[state.deal[state.round, seat]], state.shown[seat], state.shown[1 - seat],
                          state.round, state.chips[seat], state.chips[1 - seat], state.put[seat],
                          state.put[1 - seat]]).astype(jnp.int32)

    def chance(self, state: BetState) -> jax.Array:
        """int32[max_rounds, 2]: the deal (what an independent implementation is given)."""
        return state.deal

    def fill(self, state, params) -> jax.Array:
        return jnp.float32(0.0)

    def value(self, state: BetState, params, seat) -> jax.Array:
        """V(s) for `seat` (gamesmith.md §3, ours): f·(P_win − P_lose) + (1 − f)·lead / C_max."""
        mine = state.deal[state.round, seat]
        others = (jnp.arange(self.deck) != mine) & (params.rank >= 0)
        res = compare(params.rank[mine], params.rank, params)
        p_edge = jnp.sum(jnp.where(others, res, 0)) / jnp.maximum(jnp.sum(others), 1)
        f = (params.rounds - state.round) / params.rounds
        f = jnp.where(state.done, 0.0, f)
        c_max = params.rounds * (params.ante + params.bet * (1 + params.max_raises))
        lead = (state.chips[seat] - state.chips[1 - seat]) / (2 * c_max)
        return (f * p_edge + (1 - f) * lead).astype(jnp.float32)

    def bot_policy(self, key, state: BetState, params) -> jax.Array:
        """Reference bot (ours): bet / call / raise iff its card's P_win − P_lose > 0, else check,
        or fold when facing a bet."""
        mover = state.mover
        mine = state.deal[state.round, mover]
        others = (jnp.arange(self.deck) != mine) & (params.rank >= 0)
        edge = jnp.sum(jnp.where(others, compare(params.rank[mine], params.rank, params), 0))
        legal = legal_actions(state, params)
        strong = edge > 0
        facing = legal[CALL]
        pick = jnp.where(facing, jnp.where(strong, jnp.where(legal[RAISE], RAISE, CALL), FOLD),
                         jnp.where(strong, BET, CHECK))
        return pick.astype(jnp.int32)
