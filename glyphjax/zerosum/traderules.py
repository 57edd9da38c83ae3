"""Declarations of negotiation variants: rules and encodings -> traced `TradeParams`, rules text.

A variant is `TradeRules` (inventories, valuation options, menu, horizon, score hook: φ_rule and
φ_size = the number of goods) under a `TradeEncoding` (goods names and glyphs, action labels).
Menus must be at parity (gamesmith.md §4: the engineer prompt demands a value-neutral menu):
ours: every offered item is value-neutral under the mean valuation over `val_options`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from glyphjax.core.grid import codepoints
from glyphjax.zerosum.negotiation import CAPPED, LINEAR, NONE_HELD, SQUARED, NegotiationGame, TradeParams

MAX_HORIZON = 14
GOODS_SETS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Wood", "Gold", "Stone", "Wool"), "♣♦♠♥"),
    (("Iron", "Silk", "Salt", "Spice"), "♜♞♝♛"),
    (("Apples", "Bread", "Cheese", "Dates"), "❶❷❸❹"),
)
LABEL_STYLES: tuple[tuple[str, str, str], ...] = (("PROPOSE_{}", "ACCEPT", "DENY"), ("OFFER_{}", "AGREE", "REFUSE"),
                                                  ("DEAL_{}", "YES", "NO"))
SCORE_WORDS = {LINEAR: "the sum over goods of units held times your value per unit",
               CAPPED: "the sum over goods of min(units held, {cap}) times your value per unit",
               SQUARED: "the sum over goods of (units held squared) times your value per unit"}


@dataclasses.dataclass(frozen=True)
class TradeRules:
    """Rule clauses of a negotiation game over R goods (canonical resource indices)."""

    inv0: tuple[tuple[int, ...], tuple[int, ...]] = ((10, 10), (10, 10))
    val_options: tuple[tuple[int, ...], ...] = ((5, 15), (15, 5), (10, 10), (8, 12), (12, 8))
    menu: tuple = (((1, 0), (0, 1)), ((0, 1), (1, 0)), ((2, 0), (0, 2)), ((0, 2), (2, 0)),
                   ((3, 0), (0, 3)), ((0, 3), (3, 0)))
    menu_on: tuple[bool, ...] = (True,) * 6
    horizon: int = 10
    score_kind: int = LINEAR
    cap: int = 0

    @property
    def goods(self) -> int:
        return len(self.inv0[0])

    def check(self) -> None:
        """Raise ValueError naming the clause that is out of range or off parity."""
        if not 2 <= self.horizon <= MAX_HORIZON:
            raise ValueError(f"horizon={self.horizon} must lie in 2..{MAX_HORIZON}")
        mean = np.mean(np.array(self.val_options, float), axis=0)
        for i, ((gives, gets), on) in enumerate(zip(self.menu, self.menu_on)):
            if on and abs(float(np.dot(mean, np.array(gets) - np.array(gives)))) > 1e-9:
                raise ValueError(f"menu item {i} {gives} -> {gets} is not value-neutral under the mean "
                                 f"valuation {mean.tolist()}; offer only parity swaps")


@dataclasses.dataclass(frozen=True)
class TradeEncoding:
    goods: int = 0
    labels_style: int = 0

    @property
    def name(self) -> str:
        return f"g{self.goods}-l{self.labels_style}"

    def labels(self, rules: TradeRules) -> dict:
        names, glyphs = GOODS_SETS[self.goods]
        offer, accept, deny = LABEL_STYLES[self.labels_style]
        r = rules.goods
        texts = tuple(_offer_text(item, names[:r]) for item in rules.menu)
        actions = tuple(offer.format(i + 1) for i in range(len(rules.menu))) + (accept, deny)
        return {"goods": names[:r], "glyphs": glyphs[:r], "actions": actions, "offers": texts}


def _offer_text(item, names) -> str:
    gives, gets = item
    side = lambda v: " and ".join(f"{n} {x}" for n, x in zip(names, v) if x) or "nothing"  # noqa: E731
    return f"you give {side(gives)}, you get {side(gets)}"


def trade_params(rules: TradeRules, enc: TradeEncoding) -> TradeParams:
    rules.check()
    labels = enc.labels(rules)
    return TradeParams(inv0=np.array(rules.inv0, np.int32), val_options=np.array(rules.val_options, np.int32),
                       menu=np.array(rules.menu, np.int32), menu_on=np.array(rules.menu_on, bool),
                       horizon=np.int32(rules.horizon), score_kind=np.int32(rules.score_kind), cap=np.int32(rules.cap),
                       glyphs=np.asarray(codepoints(labels["glyphs"] + NONE_HELD), np.uint32))


def trade_rules_text(rules: TradeRules, labels: dict) -> str:
    """The rules a player reads, written through the encoding's label dictionary."""
    names = labels["goods"]
    acts = labels["actions"]
    m = len(rules.menu)
    menu = "; ".join(f"{acts[i]}: {labels['offers'][i]}" for i in range(m) if rules.menu_on[i])
    vals = "; ".join("(" + ", ".join(f"{n} {v}" for n, v in zip(names, row)) + ")" for row in rules.val_options)
    start = lambda row: ", ".join(f"{n} {x}" for n, x in zip(names, row))  # noqa: E731
    return " ".join([
        f"A two-player trading game over {rules.horizon} turns (the first player moves first, then turns "
        f"alternate). You start with {start(rules.inv0[0])} if you move first, {start(rules.inv0[1])} if second; "
        "both players see both holdings.",
        f"Each player privately values the goods: at the start each draws one of {vals}, uniformly; you see only "
        "your own values.",
        f"On your turn: offer a trade from the menu ({menu}), {acts[m]} the opponent's pending offer (the goods "
        f"change hands), or {acts[m + 1]} (refuse the pending offer, or pass). A new offer replaces a pending one. "
        "You may only offer what both players can pay.",
        f"Your score is {SCORE_WORDS[rules.score_kind].format(cap=rules.cap)}. After the last turn the player whose "
        "score rose more wins; equal gains are a draw. An illegal move, or no move, loses the game.",
        "The grid shows which goods you hold (row 1) and the opponent holds (row 2).",
    ])


def build_negotiation(task_id: str, rules: TradeRules, enc: TradeEncoding) -> NegotiationGame:
    labels = enc.labels(rules)
    return NegotiationGame(task_id, trade_params(rules, enc), MAX_HORIZON, trade_rules_text(rules, labels),
                           labels["goods"], labels["actions"], labels["offers"], labels["glyphs"])
