"""Declarations of betting variants: rules and encodings -> traced `BetParams`, rules text, card.

A variant is `BetRules` (deck, rounds, ante, bet, raise cap, lowball: φ_rule and φ_size) under a
`BetEncoding` (rank names and action labels: φ_enc). The rules text is written through the label
dictionary of the encoding, so rank names and action names in the text always match the card.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from glyphjax.core.grid import codepoints
from glyphjax.zerosum.betting import DECK_SLOTS, FACE_DOWN, RANK_SLOTS, BetParams, BettingGame

MAX_ROUNDS = 5
# Rank names, lowest first; a rank's glyph is its name (one character), meaning "a card of rank X".
# Set 0 (playing-card ranks) takes the top n names (J Q K for three ranks); the others the first n.
RANK_SETS: tuple[str, ...] = ("23456789TJQKA", "12345678", "αβγδεζηθ", "ⅠⅡⅢⅣⅤⅥⅦⅧ")
ACTION_SETS: tuple[tuple[str, ...], ...] = (("CHECK", "BET", "CALL", "FOLD", "RAISE"),
                                            ("PASS", "WAGER", "MATCH", "SURRENDER", "RERAISE"),
                                            ("KNOCK", "PUSH", "SEE", "DROP", "TOPUP"))


@dataclasses.dataclass(frozen=True)
class BetRules:
    """Rule clauses of a betting game: `ranks[i]` is the rank index of card i of the deck."""

    ranks: tuple[int, ...] = (0, 1, 2)
    rounds: int = 5
    ante: int = 1
    bet: int = 1
    max_raises: int = 0
    lowball: bool = False

    def check(self) -> None:
        """Raise ValueError naming the clause that is out of range."""
        if not 1 <= self.rounds <= MAX_ROUNDS:
            raise ValueError(f"rounds={self.rounds} must lie in 1..{MAX_ROUNDS}")
        if not 0 <= self.max_raises <= 3:
            raise ValueError(f"max_raises={self.max_raises} must lie in 0..3 (a round has at most 6 decisions)")
        if not 2 <= len(self.ranks) <= DECK_SLOTS or min(self.ranks) < 0 or max(self.ranks) >= RANK_SLOTS:
            raise ValueError(f"the deck {self.ranks} needs 2..{DECK_SLOTS} cards with rank indices in "
                             f"0..{RANK_SLOTS - 1}")
        if self.ante < 1 or self.bet < 1:
            raise ValueError(f"ante={self.ante} and bet={self.bet} must be >= 1 chip")

    @property
    def n_ranks(self) -> int:
        return max(self.ranks) + 1


@dataclasses.dataclass(frozen=True)
class BetEncoding:
    """Text encoding of a betting game: which rank names and which action labels."""

    ranks: int = 0
    actions: int = 0

    @property
    def name(self) -> str:
        return f"r{self.ranks}-a{self.actions}"

    def rank_names(self, n_ranks: int) -> tuple[str, ...]:
        names = tuple(RANK_SETS[self.ranks])
        return names[len(names) - n_ranks:] if self.ranks == 0 else names[:n_ranks]

    def labels(self, n_ranks: int) -> dict:
        return {"ranks": self.rank_names(n_ranks), "actions": ACTION_SETS[self.actions]}


def bet_params(rules: BetRules, enc: BetEncoding) -> BetParams:
    rules.check()
    names = enc.rank_names(rules.n_ranks)
    return BetParams(rank=np.array(rules.ranks + (-1,) * (DECK_SLOTS - len(rules.ranks)), np.int32), rounds=np.int32(rules.rounds),
                     ante=np.int32(rules.ante), bet=np.int32(rules.bet), max_raises=np.int32(rules.max_raises),
                     lowball=np.bool_(rules.lowball),
                     glyphs=np.asarray(codepoints("".join(names).ljust(RANK_SLOTS, FACE_DOWN) + FACE_DOWN), np.uint32))


def bet_rules_text(rules: BetRules, labels: dict) -> str:
    """The rules a player reads, written through the encoding's label dictionary."""
    names, (check, bet, call, fold, raise_) = labels["ranks"], labels["actions"]
    counts = [rules.ranks.count(r) for r in range(rules.n_ranks)]
    deck = ", ".join(f"{c} x {n}" if c > 1 else n for n, c in zip(names, counts))
    order = (" > ".join(reversed(names)) + " (the LOWER card wins)" if rules.lowball else
             " < ".join(names) + " (the higher card wins)")
    parts = [
        f"A two-player betting card game over {rules.rounds} round{'s' if rules.rounds > 1 else ''}. Deck: {deck}.",
        f"Each round both players put {rules.ante} chip{'s' if rules.ante > 1 else ''} in the pot, the deck is "
        "shuffled and each player gets one card, seen only by its holder. The first player opens round 1; "
        "the opener alternates from round to round.",
        f"With no bet to answer you may {check} (pass) or {bet} (add {rules.bet} chip{'s' if rules.bet > 1 else ''}); "
        f"if both players {check}, the cards are compared. Facing a bet you may {call} (match it: the cards are "
        f"compared) or {fold} (the other player takes the pot)"
        + (f", or {raise_} (match it and add {rules.bet} more; at most {rules.max_raises} per round)."
           if rules.max_raises else f"; {raise_} is never allowed."),
        f"Card order: {order}. Equal ranks split the pot.",
        "After the last round the player who has won more chips wins the game; equal chips are a draw. "
        "An illegal move, or no move, loses the game.",
        "The grid shows your card on the left and the opponent's card on the right (▒ while face down).",
    ]
    return " ".join(parts)


def build_betting(task_id: str, rules: BetRules, enc: BetEncoding) -> BettingGame:
    labels = enc.labels(rules.n_ranks)
    return BettingGame(task_id, DECK_SLOTS, MAX_ROUNDS, bet_params(rules, enc), bet_rules_text(rules, labels),
                       labels["ranks"], labels["actions"], "".join(labels["ranks"]))
