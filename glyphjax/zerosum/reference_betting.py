"""Independent plain-Python implementation of the betting template, from its written spec.

Imports nothing from the JAX kernel. The deal (the chance outcomes: each round's two cards) is an
input, so both implementations play the same hands. Spec: each round both seats ante; the opener
(seat 0 in round 1, then alternating) acts first; with no bet pending a seat may check or bet (two
checks: showdown); facing a bet it may call (showdown), fold (the other seat takes the pot) or,
below the raise cap, raise (match plus one bet). Showdown: higher rank wins (lower with lowball),
equal ranks split. After the last round the larger stack wins. Illegal or no move: forfeit.
Actions: 0 CHECK, 1 BET, 2 CALL, 3 FOLD, 4 RAISE. Rewards are (seat 0, seat 1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class BetRef:
    deal: tuple  # ((card seat 0, card seat 1), ...) per round
    round: int = 0
    mover: int = 0
    stake: tuple = (0, 0)  # chips each seat has put in this round
    raises: int = 0
    acted: int = 0
    stack: tuple = (0, 0)  # settled chips won or lost
    shown: tuple = (-1, -1)  # ranks revealed at the last showdown
    done: bool = False
    rewards: tuple = (0.0, 0.0)


class BettingReference:
    def __init__(self, rank, rounds: int, ante: int, bet: int, max_raises: int, lowball: bool):
        self.rank, self.rounds, self.ante, self.bet = list(rank), rounds, ante, bet
        self.max_raises, self.lowball = max_raises, lowball

    def initial(self, chance) -> BetRef:
        return BetRef(deal=tuple(tuple(p) for p in chance), stake=(self.ante, self.ante))

    def legal(self, s: BetRef) -> list[bool]:
        if s.done:
            return [False] * 5
        facing = s.stake[s.mover] < max(s.stake)
        if facing:
            return [False, False, True, True, s.raises < self.max_raises]
        return [True, True, False, False, False]

    def _beats(self, a: int, b: int) -> int:
        if a == b:
            return 0
        higher = 1 if a > b else -1
        return -higher if self.lowball else higher

    def step(self, s: BetRef, action: int) -> BetRef:
        if s.done:
            return s
        me, you = s.mover, 1 - s.mover
        if not (0 <= action < 5) or not self.legal(s)[action]:
            rewards = [0.0, 0.0]
            rewards[me], rewards[you] = -1.0, 1.0
            return replace(s, done=True, rewards=tuple(rewards))
        stake = list(s.stake)
        owed = max(stake) - stake[me]
        stake[me] += {0: 0, 1: self.bet, 2: owed, 3: 0, 4: owed + self.bet}[action]
        if action == 3:  # fold: the other seat takes what the folder put in
            return self._end_round(s, winner=you, amount=stake[me], shown=(-1, -1))
        if action == 2 or (action == 0 and s.acted >= 1):
            r0, r1 = (self.rank[c] for c in s.deal[s.round])
            result = self._beats(r0, r1)
            if result == 0:
                return self._end_round(s, winner=0, amount=0, shown=(r0, r1))
            winner = 0 if result > 0 else 1
            return self._end_round(s, winner=winner, amount=stake[1 - winner], shown=(r0, r1))
        return replace(s, mover=you, stake=tuple(stake), raises=s.raises + (action == 4), acted=s.acted + 1)

    def _end_round(self, s: BetRef, winner: int, amount: int, shown) -> BetRef:
        stack = list(s.stack)
        stack[winner] += amount
        stack[1 - winner] -= amount
        nxt = s.round + 1
        if nxt >= self.rounds:
            lead = stack[0] - stack[1]
            sign = (lead > 0) - (lead < 0)
            return replace(s, stack=tuple(stack), shown=shown, done=True, rewards=(float(sign), float(-sign)),
                           stake=(self.ante, self.ante))
        return BetRef(deal=s.deal, round=nxt, mover=nxt % 2, stake=(self.ante, self.ante), stack=tuple(stack),
                      shown=shown)

    def view(self, s: BetRef, seat: int) -> list[int]:
        """[own rank, shown own, shown other, round, own stack, other stack, own stake, other stake]."""
        stake = s.stake
        return [self.rank[s.deal[s.round][seat]], s.shown[seat], s.shown[1 - seat], s.round,
                s.stack[seat], s.stack[1 - seat], stake[seat], stake[1 - seat]]
