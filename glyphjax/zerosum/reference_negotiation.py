"""Independent plain-Python implementation of the negotiation template, from its written spec.

Imports nothing from the JAX kernel; the drawn valuations (the chance outcomes) are an input.
Spec: seats alternate for `horizon` turns, seat 0 first. Actions 0..M-1 propose menu item m (the
proposer gives `menu[m][0]`, receives `menu[m][1]`; legal when both sides hold the goods; replaces
a pending offer), M accepts the other seat's pending offer (the trade happens), M+1 denies or passes
(clears the pending offer). After the last turn the larger gain `score(inv) - score(inv0)` under
the seat's own valuation wins; equal gains draw. Illegal or no move: forfeit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class TradeRef:
    inv: tuple  # ((seat 0 goods...), (seat 1 goods...))
    val: tuple
    t: int = 0
    mover: int = 0
    pending: int = -1
    proposer: int = 0
    done: bool = False
    rewards: tuple = (0.0, 0.0)


class NegotiationReference:
    def __init__(self, inv0, menu, menu_on, horizon: int, score_kind: int, cap: int):
        self.inv0 = tuple(tuple(row) for row in inv0)
        self.on = list(menu_on)
        self.menu = [(list(g), list(r)) for g, r in menu]
        self.horizon, self.kind, self.cap = horizon, score_kind, cap

    def score(self, goods, val) -> int:
        if self.kind == 1:
            return sum(v * min(x, self.cap) for x, v in zip(goods, val))
        if self.kind == 2:
            return sum(v * x * x for x, v in zip(goods, val))
        return sum(v * x for x, v in zip(goods, val))

    def initial(self, chance) -> TradeRef:
        return TradeRef(inv=self.inv0, val=tuple(tuple(v) for v in chance))

    def _holds(self, inv, item: int, proposer: int) -> bool:
        gives, gets = self.menu[item]
        return all(a <= b for a, b in zip(gives, inv[proposer])) and all(a <= b for a, b in zip(gets, inv[1 - proposer]))

    def legal(self, s: TradeRef) -> list[bool]:
        m = len(self.menu)
        if s.done:
            return [False] * (m + 2)
        offers = [self.on[i] and self._holds(s.inv, i, s.mover) for i in range(m)]
        accept = s.pending >= 0 and s.proposer != s.mover and self._holds(s.inv, s.pending, s.proposer)
        return offers + [accept, True]

    def step(self, s: TradeRef, action: int) -> TradeRef:
        if s.done:
            return s
        m = len(self.menu)
        if not (0 <= action < m + 2) or not self.legal(s)[action]:
            rewards = [1.0, 1.0]
            rewards[s.mover] = -1.0
            return replace(s, done=True, rewards=tuple(rewards))
        inv = [list(row) for row in s.inv]
        pending, proposer = -1, s.proposer
        if action < m:
            pending, proposer = action, s.mover
        elif action == m:
            gives, gets = self.menu[s.pending]
            p, o = s.proposer, 1 - s.proposer
            for r in range(len(gives)):
                inv[p][r] += gets[r] - gives[r]
                inv[o][r] += gives[r] - gets[r]
        nxt = TradeRef(inv=tuple(tuple(row) for row in inv), val=s.val, t=s.t + 1, mover=1 - s.mover,
                       pending=pending, proposer=proposer)
        if nxt.t >= self.horizon:
            gains = [self.score(nxt.inv[o], s.val[o]) - self.score(self.inv0[o], s.val[o]) for o in (0, 1)]
            sign = (gains[0] > gains[1]) - (gains[0] < gains[1])
            nxt = replace(nxt, done=True, rewards=(float(sign), float(-sign)))
        return nxt

    def view(self, s: TradeRef, seat: int) -> list[int]:
        """Own goods, other goods, own valuation, pending item, whether this seat proposed it."""
        return [*s.inv[seat], *s.inv[1 - seat], *s.val[seat], s.pending, int(s.proposer == seat)]
