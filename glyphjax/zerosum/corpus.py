"""The zero-sum corpus: families as declarations (descriptor -> params), registered as
`zerosum/<family>/<variant>`.

Each family is a base game (the all-default descriptor, variant `base`) plus rule variants
(`rule-<name>`: one changed clause), size variants (`size-<n>`: the same rules on another board)
and encoding variants (`enc-<encoding>`: the base game re-encoded, text only). A variant's id
names its template, static size and params, so ids of one size share one compiled program.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable

import numpy as np

from glyphjax.zerosum.betrules import BetEncoding, BetRules, build_betting
from glyphjax.zerosum.betting import FACE_DOWN
from glyphjax.zerosum.encoding import Encoding, d4
from glyphjax.zerosum.gridgame import GridGame, glyph_table
from glyphjax.zerosum.gridrules import GridRules, grid_params, rules_text
from glyphjax.zerosum.negotiation import CAPPED, LINEAR, NONE_HELD, SQUARED
from glyphjax.zerosum.reference_betting import BettingReference
from glyphjax.zerosum.reference_negotiation import NegotiationReference
from glyphjax.zerosum.traderules import TradeEncoding, TradeRules, build_negotiation
from glyphjax.zerosum.reference_grid import GridReference

NO_DIAGONALS = (True, True, False, False)
ONLY_DIAGONALS = (False, False, True, True)


def centre(n: int) -> tuple[int, ...]:
    """The centre cell(s) of an n x n board (four cells when n is even)."""
    mids = (n // 2,) if n % 2 else (n // 2 - 1, n // 2)
    return tuple(r * n + c for r in mids for c in mids)


def corners(n: int) -> tuple[int, ...]:
    return (0, n - 1, n * (n - 1), n * n - 1)


@dataclasses.dataclass(frozen=True)
class SizedFamily:
    """A family whose base rules are a function of its size (board side, or number of goods):
    its default size, size variants, rule variants (clause overrides per size) and encodings."""

    name: str
    summary: str
    base: Callable[[int], Any]
    size: int
    sizes: tuple[int, ...]
    rules: dict[str, Callable[[int], dict]]  # rule variant -> clause overrides (per size)
    encodings: tuple[Any, ...]
    identity: Any = Encoding()  # the identity encoding of the template

    def variants(self) -> dict[str, tuple[int, Any, Any]]:
        """Every variant of the family: name -> (size, rules, encoding)."""
        base = self.base(self.size)
        out = {"base": (self.size, base, self.identity)}
        for name, change in self.rules.items():
            out[f"rule-{name}"] = (self.size, dataclasses.replace(base, **change(self.size)), self.identity)
        for n in self.sizes:
            out[f"size-{n}"] = (n, self.base(n), self.identity)
        for enc in self.encodings:
            out[f"enc-{enc.name}"] = (self.size, base, enc)
        return out


# A spread of encodings: every mark set, scheme and orientation appears, none is the identity.
ENCODINGS = (Encoding(1, "rc", 1), Encoding(2, "index", 2), Encoding(3, "keypad", 4),
             Encoding(4, "a1", 6), Encoding(0, "rc", 3), Encoding(1, "keypad", 7))
MISERE = lambda n: {"misere": True}  # noqa: E731
TORUS = lambda n: {"torus": True}  # noqa: E731
NODIAG = lambda n: {"dirs": NO_DIAGONALS}  # noqa: E731
NOCENTRE = lambda n: {"first_forbidden": centre(n)}  # noqa: E731
GRAVITY = lambda n: {"gravity": True}  # noqa: E731
SQUARE2 = lambda n: {"square": 2}  # noqa: E731
CORNERS = lambda n: {"blocked": corners(n)}  # noqa: E731


def _grid(name, summary, base, size, sizes, rules) -> SizedFamily:
    return SizedFamily(name, summary, base, size, sizes, rules, ENCODINGS)


GRID_FAMILIES: tuple[SizedFamily, ...] = (
    _grid("tictactoe", "three in a row on 3x3 (the seed game)", lambda n: GridRules(k=3), 3, (4, 5),
          {"misere": MISERE, "torus": TORUS, "gravity": GRAVITY, "square2": SQUARE2}),
    _grid("connect4", "four in a row on a 5x5 board", lambda n: GridRules(k=4), 5, (6, 7),
          {"nodiag": NODIAG, "torus": TORUS, "nocentre": NOCENTRE, "misere": MISERE}),
    _grid("dropfour", "gravity drops, four in a row", lambda n: GridRules(k=4, gravity=True), 5, (4, 6, 7),
          {"three": lambda n: {"k": 3}, "misere": MISERE, "nodiag": NODIAG, "torus": TORUS, "corners": CORNERS}),
    _grid("avoidthree", "misère: completing three in a row loses", lambda n: GridRules(k=3, misere=True), 4, (5, 6, 7),
          {"nodiag": NODIAG, "torus": TORUS, "gravity": GRAVITY, "corners": CORNERS, "nocentre": NOCENTRE}),
    _grid("notakto", "one shared mark; whoever completes a line loses",
          lambda n: GridRules(k=3, shared=True, misere=True), 3, (4, 5, 6),
          {"torus": TORUS, "nodiag": NODIAG, "gravity": GRAVITY, "nocentre": NOCENTRE}),
    _grid("nosqre", "four in a row wins; holding the corners of a 2x2 square loses",
          lambda n: GridRules(k=4, square=2), 5, (4, 6, 7),
          {"square3": lambda n: {"square": 3}, "torus": TORUS, "nodiag": NODIAG, "gravity": GRAVITY, "misere": MISERE,
           "corners": CORNERS}),
    _grid("diagtoe", "only diagonal lines count", lambda n: GridRules(k=3, dirs=ONLY_DIAGONALS), 4, (5, 6),
          {"torus": TORUS, "nocentre": NOCENTRE, "misere": MISERE, "gravity": GRAVITY, "square2": SQUARE2,
           "corners": CORNERS}),
    _grid("gomoku", "five in a row on a 7x7 board", lambda n: GridRules(k=5), 7, (6,),
          {"nodiag": NODIAG, "torus": TORUS, "misere": MISERE, "nocentre": NOCENTRE, "gravity": GRAVITY,
           "square2": SQUARE2, "corners": CORNERS}),
    _grid("orthofour", "four in a row along rows and columns only", lambda n: GridRules(k=4, dirs=NO_DIAGONALS), 6, (4, 7),
          {"torus": TORUS, "misere": MISERE, "gravity": GRAVITY, "corners": CORNERS, "nocentre": NOCENTRE,
           "square2": SQUARE2}),
    _grid("torusfour", "four in a row on a 6x6 torus", lambda n: GridRules(k=4, torus=True), 6, (7,),
          {"misere": MISERE, "square2": SQUARE2, "nocentre": NOCENTRE}),
    _grid("dropavoid", "gravity drops on 5x5; completing three in a row loses",
          lambda n: GridRules(k=3, gravity=True, misere=True), 5, (6, 7),
          {"nodiag": NODIAG, "torus": TORUS, "corners": CORNERS, "square2": SQUARE2}),
    _grid("crosses", "one shared mark; whoever completes a line wins", lambda n: GridRules(k=3, shared=True), 4, (3, 5, 6),
          {"torus": TORUS, "nodiag": NODIAG, "gravity": GRAVITY, "four": lambda n: {"k": 4}, "corners": CORNERS,
           "nocentre": NOCENTRE}),
    _grid("holes", "four in a row on a 6x6 board with its corners blocked",
          lambda n: GridRules(k=4, blocked=corners(n)), 6, (5, 7),
          {"square2": SQUARE2, "misere": MISERE, "torus": TORUS, "gravity": GRAVITY, "nocentre": NOCENTRE}),
    _grid("diagfour", "four in a row along diagonals only", lambda n: GridRules(k=4, dirs=ONLY_DIAGONALS), 6, (5, 7),
          {"torus": TORUS, "misere": MISERE, "gravity": GRAVITY, "nocentre": NOCENTRE, "square2": SQUARE2}),
    _grid("wrapdrop", "gravity drops on a 6x6 board whose lines wrap round", lambda n: GridRules(k=4, gravity=True, torus=True),
          6, (7,), {"three": lambda n: {"k": 3}, "nodiag": NODIAG, "misere": MISERE, "square2": SQUARE2, "corners": CORNERS}),
    _grid("quadloss", "three in a row wins; holding a 2x2 block loses", lambda n: GridRules(k=3, square=2), 4, (5, 6),
          {"torus": TORUS, "nodiag": NODIAG, "square3": lambda n: {"square": 3}, "gravity": GRAVITY, "misere": MISERE,
           "corners": CORNERS}),
)


@dataclasses.dataclass(frozen=True)
class BetFamily:
    """A betting family: base rules, rule variants, deck-size variants and encodings."""

    name: str
    summary: str
    base: BetRules
    rules: dict[str, dict]  # rule variant -> clause overrides
    decks: dict[str, tuple[int, ...]]  # size variant -> the deck's rank indices
    encodings: tuple[BetEncoding, ...]

    def variants(self) -> dict[str, tuple[BetRules, BetEncoding]]:
        out = {"base": (self.base, BetEncoding())}
        out.update({f"rule-{k}": (dataclasses.replace(self.base, **v), BetEncoding()) for k, v in self.rules.items()})
        out.update({f"size-{k}": (dataclasses.replace(self.base, ranks=v), BetEncoding()) for k, v in self.decks.items()})
        out.update({f"enc-{e.name}": (self.base, e) for e in self.encodings})
        return out


BET_ENCODINGS = (BetEncoding(1, 1), BetEncoding(2, 2), BetEncoding(3, 0), BetEncoding(0, 1), BetEncoding(1, 2),
                 BetEncoding(2, 0))
BET_FAMILIES: tuple[BetFamily, ...] = (
    BetFamily("kuhn", "Kuhn Poker over 5 rounds (the seed game)", BetRules(),
              {"single": {"rounds": 1}, "raise": {"max_raises": 1}, "lowball": {"lowball": True},
               "bet2": {"bet": 2}, "three": {"rounds": 3}},
              {"deck4": (0, 1, 2, 3), "deck5": (0, 1, 2, 3, 4)}, BET_ENCODINGS),
    BetFamily("pairdeck", "two cards of each rank: equal ranks split the pot", BetRules(ranks=(0, 0, 1, 1, 2, 2), rounds=3),
              {"raise": {"max_raises": 1}, "lowball": {"lowball": True}, "single": {"rounds": 1}, "bet2": {"bet": 2}},
              {"deck4x2": (0, 0, 1, 1, 2, 2, 3, 3), "deck2x2": (0, 0, 1, 1)}, BET_ENCODINGS),
    BetFamily("raisepoker", "raises up to twice per round, bets of 2", BetRules(ranks=(0, 1, 2, 3), rounds=3, bet=2, max_raises=2),
              {"one-raise": {"max_raises": 1}, "ante2": {"ante": 2}, "rounds5": {"rounds": 5}, "three-raises": {"max_raises": 3}},
              {"deck5": (0, 1, 2, 3, 4), "deck6": (0, 1, 2, 3, 4, 5)}, BET_ENCODINGS),
    BetFamily("lowkuhn", "lowball: the lower card wins, 3 rounds", BetRules(ranks=(0, 1, 2, 3), rounds=3, lowball=True),
              {"raise": {"max_raises": 1}, "bet2": {"bet": 2}, "single": {"rounds": 1}, "rounds5": {"rounds": 5}},
              {"deck5": (0, 1, 2, 3, 4), "deck3": (0, 1, 2)}, BET_ENCODINGS),
    BetFamily("bigante", "ante 2 and bets of 1: folding is costly", BetRules(ranks=(0, 1, 2, 3, 4), rounds=3, ante=2),
              {"raise": {"max_raises": 1}, "single": {"rounds": 1}, "ante3": {"ante": 3}, "rounds5": {"rounds": 5}},
              {"deck3": (0, 1, 2), "deck6": (0, 1, 2, 3, 4, 5)}, BET_ENCODINGS),
    BetFamily("deuces", "eight cards, four ranks of two; bets of 2", BetRules(ranks=(0, 0, 1, 1, 2, 2, 3, 3), rounds=3, bet=2),
              {"raise": {"max_raises": 1}, "lowball": {"lowball": True}, "single": {"rounds": 1}, "rounds5": {"rounds": 5}},
              {"deck2x3": (0, 0, 0, 1, 1, 1), "deck2x4": (0, 0, 0, 0, 1, 1, 1, 1)}, BET_ENCODINGS),
    BetFamily("highstakes", "six cards, five rounds, bets of 3 and one raise per round",
              BetRules(ranks=(0, 1, 2, 3, 4, 5), rounds=5, bet=3, max_raises=1),
              {"no-raise": {"max_raises": 0}, "ante2": {"ante": 2}, "single": {"rounds": 1}, "lowball": {"lowball": True}},
              {"deck4": (0, 1, 2, 3), "deck8": tuple(range(8))}, BET_ENCODINGS),
    BetFamily("oneshot", "a single round, seven cards, up to two raises", BetRules(ranks=tuple(range(7)), rounds=1, max_raises=2),
              {"no-raise": {"max_raises": 0}, "bet2": {"bet": 2}, "lowball": {"lowball": True}, "ante2": {"ante": 2}},
              {"deck5": (0, 1, 2, 3, 4), "deck8": tuple(range(8))}, BET_ENCODINGS),
)


def _swap(r: int, i: int, j: int, units: int) -> tuple:
    gives, gets = [0] * r, [0] * r
    gives[i], gets[j] = units, units
    return (tuple(gives), tuple(gets))


def trade_rules(r: int, **changes) -> TradeRules:
    """The 6-item parity menu, 5 valuation options (mean equal across goods) and 10 units of each
    good for `r` goods; `changes` override clauses."""
    if r == 2:
        menu = tuple(_swap(2, i, 1 - i, u) for u in (1, 2, 3) for i in (0, 1))
        vals = ((3, 11), (10, 11), (11, 9), (12, 9), (14, 10))
    elif r == 3:
        menu = tuple(_swap(3, i, j, 1) for i in range(3) for j in range(3) if i != j)
        vals = ((6, 10, 14), (14, 6, 10), (10, 14, 6), (8, 10, 12), (12, 10, 8))
    else:
        menu = tuple(_swap(r, i + d, i + 1 - d, 1) for i in (0, 1, 2) for d in (0, 1))
        vals = tuple(tuple(np.roll((4, 8, 12, 16), k).tolist()) for k in range(4)) + ((10, 10, 10, 10),)
    base = TradeRules(inv0=((10,) * r, (10,) * r), val_options=vals, menu=menu)
    return dataclasses.replace(base, **changes)


SINGLES = lambda r: {"menu_on": tuple(i < 2 or r > 2 for i in range(6))}  # noqa: E731
SHORT = lambda r: {"horizon": 6}  # noqa: E731
LONG = lambda r: {"horizon": 14}  # noqa: E731
TRADE_ENCODINGS = (TradeEncoding(1, 1), TradeEncoding(2, 2), TradeEncoding(0, 1), TradeEncoding(1, 0),
                   TradeEncoding(2, 1), TradeEncoding(0, 2))


def _trade(name, summary, base, goods, sizes, rules) -> SizedFamily:
    return SizedFamily(name, summary, base, goods, sizes, rules, TRADE_ENCODINGS, TradeEncoding())


TRADE_FAMILIES: tuple[SizedFamily, ...] = (
    _trade("barter", "two goods, private values, a parity swap menu (the seed game)", trade_rules, 2, (3, 4),
           {"short": SHORT, "long": LONG, "singles": SINGLES, "eight": lambda r: {"horizon": 8}}),
    _trade("capped", "values count only up to 11 units of a good", lambda r: trade_rules(r, score_kind=CAPPED, cap=11),
           2, (3, 4), {"long": LONG, "short": SHORT, "cap12": lambda r: {"cap": 12}}),
    _trade("hoarder", "squared holdings from 3 units each: concentrating a good pays",
           lambda r: trade_rules(r, score_kind=SQUARED, inv0=((3,) * r, (3,) * r)), 2, (3, 4),
           {"short": SHORT, "long": LONG, "stock5": lambda r: {"inv0": ((5,) * r, (5,) * r)}}),
    _trade("market3", "three goods traded one for one", lambda r: trade_rules(r, horizon=12), 3, (2,),
           {"short": lambda r: {"horizon": 8}, "long": LONG, "capped": lambda r: {"score_kind": CAPPED, "cap": 11}}),
    _trade("market4", "four goods, swaps between neighbours", lambda r: trade_rules(r, horizon=12), 4, (),
           {"short": lambda r: {"horizon": 8}, "long": LONG, "squared": lambda r: {"score_kind": SQUARED}}),
    _trade("scarcity", "two units of each good: a trade can empty a stock",
           lambda r: trade_rules(r, inv0=((2,) * r, (2,) * r), score_kind=SQUARED), 2, (3, 4),
           {"short": SHORT, "long": LONG, "linear": lambda r: {"score_kind": LINEAR}}),
)


def _grid_factory(task_id: str, n: int, rules: GridRules, encoding: Encoding) -> Callable[[], GridGame]:
    def build() -> GridGame:
        labels = encoding.labels(n, rules.shared)
        return GridGame(task_id, n, grid_params(rules, n, encoding), rules_text(rules, n, labels), encoding)
    return build


# Variants the families would generate but the battery rejected (`python -m glyphjax.zerosum.certify`,
# 32 seeds), with the verdict; they are not part of the corpus.
REJECTED: dict[str, str] = {
    "zerosum/notakto/rule-gravity": "degeneracy: mean length 3.89 plies < 4",
    "zerosum/gomoku/rule-nodiag": "playability: 0.12 of bot-vs-bot episodes decisive",
    "zerosum/gomoku/size-6": "playability: 0.22 of bot-vs-bot episodes decisive",
    "zerosum/holes/size-5": "playability: 0.22 of bot-vs-bot episodes decisive",
    "zerosum/diagfour/size-5": "playability: 0.00 of bot-vs-bot episodes decisive",
    "zerosum/quadloss/rule-square3": "duplicate: same outcomes as zerosum/tictactoe/size-4 on 60 seeds",
    "zerosum/quadloss/size-5": "duplicate: same outcomes as zerosum/tictactoe/size-5 on 60 seeds",
    "zerosum/bigante/rule-ante3": "duplicate: same outcomes as zerosum/bigante/base on 60 seeds",
    "zerosum/highstakes/rule-ante2": "duplicate: same outcomes as zerosum/raisepoker/rule-one-raise on 60 seeds",
    "zerosum/oneshot/rule-bet2": "duplicate: same outcomes as zerosum/oneshot/base on 60 seeds",
    "zerosum/oneshot/rule-ante2": "duplicate: same outcomes as zerosum/oneshot/base on 60 seeds",
    "zerosum/capped/rule-cap12": "duplicate: same outcomes as zerosum/capped/base on 60 seeds",
    "zerosum/hoarder/size-4": "duplicate: same outcomes as zerosum/barter/size-4 on 60 seeds",
    "zerosum/scarcity/size-3": "duplicate: same outcomes as zerosum/hoarder/size-3 on 60 seeds",
    "zerosum/scarcity/size-4": "duplicate: same outcomes as zerosum/barter/size-4 on 60 seeds",
    "zerosum/diagtoe/rule-corners": "playability: 0.00 of bot-vs-bot episodes decisive",
    "zerosum/gomoku/rule-corners": "playability: 0.19 of bot-vs-bot episodes decisive",
    "zerosum/orthofour/size-4": "playability: 0.00 of bot-vs-bot episodes decisive",
    "zerosum/market4/rule-squared": "duplicate: same outcomes as zerosum/market4/base on 60 seeds",
    "zerosum/scarcity/rule-linear": "duplicate: same outcomes as zerosum/scarcity/base on 60 seeds",
}


def declarations() -> dict[str, tuple[int, GridRules, Encoding]]:
    """Every declared grid variant: task id -> (board size, rules, encoding)."""
    return {f"zerosum/{fam.name}/{variant}": decl for fam in GRID_FAMILIES
            for variant, decl in fam.variants().items() if f"zerosum/{fam.name}/{variant}" not in REJECTED}


def bet_declarations() -> dict[str, tuple[BetRules, BetEncoding]]:
    """Every declared betting variant: task id -> (rules, encoding)."""
    return {f"zerosum/{fam.name}/{variant}": decl for fam in BET_FAMILIES
            for variant, decl in fam.variants().items() if f"zerosum/{fam.name}/{variant}" not in REJECTED}


def corpus() -> dict[str, Callable]:
    """Every declared variant: task id -> factory of its env."""
    out: dict[str, Callable] = {t: _grid_factory(t, *d) for t, d in declarations().items()}
    out.update({t: (lambda t=t, d=d: build_betting(t, *d)) for t, d in bet_declarations().items()})
    out.update({t: (lambda t=t, d=d: build_negotiation(t, *d)) for t, d in trade_declarations().items()})
    return out


def trade_declarations() -> dict[str, tuple[TradeRules, TradeEncoding]]:
    """Every declared negotiation variant: task id -> (rules, encoding)."""
    return {f"zerosum/{fam.name}/{variant}": (rules, enc) for fam in TRADE_FAMILIES
            for variant, (_, rules, enc) in fam.variants().items() if f"zerosum/{fam.name}/{variant}" not in REJECTED}


def grid_reference(n: int, rules: GridRules) -> GridReference:
    """The independent plain-Python implementation of a grid variant (the agreement oracle)."""
    return GridReference(n, **dataclasses.asdict(rules))


def relabel_through_text(encoding: Encoding, n: int) -> Callable[[int], str]:
    """Canonical cell -> the name the rules text's cell layout gives its drawn position (the
    encoding test's driver names moves this way, independently of the card's action list)."""
    layout = [row.split() for row in encoding.layout(n).splitlines()]

    def name(cell: int) -> str:
        r, c = d4(encoding.orientation, *divmod(int(cell), n), n)
        return layout[r][c]
    return name


def decode_grids(encoding: Encoding, n: int, shared: bool) -> Callable:
    """Drawn grids uint32[..., n, n] -> canonical views int32[..., n*n] (0 empty, 1 own, 2 other,
    3 blocked), undoing the encoding's glyphs and orientation."""
    table = glyph_table(encoding, shared)
    display = encoding.display(n)

    def decode(grids: np.ndarray) -> np.ndarray:
        flat = np.asarray(grids).reshape(*grids.shape[:-2], n * n)
        codes = np.argmax(flat[..., None] == table, axis=-1).astype(np.int32)
        if shared:  # own and other share one glyph: the view cannot tell them apart
            codes = np.where(codes == 2, 1, codes)
        out = np.empty_like(codes)
        out[..., display] = codes
        return out
    return decode


def grid_candidate(task_id: str, n: int, rules: GridRules, encoding: Encoding,
                   build: Callable[[], GridGame] | None = None):
    """The battery's candidate for a declared grid variant: a fresh build, its reference and, for
    a re-encoded variant, the twin that compares it with the identity encoding."""
    from glyphjax.zerosum.battery import Candidate, Twin
    build = build or _grid_factory(task_id, n, rules, encoding)
    twins = ()
    if encoding != Encoding():
        base = _grid_factory(task_id + ":identity", n, rules, Encoding())()
        twins = (Twin(base, build(), relabel_through_text(encoding, n), decode_grids(Encoding(), n, rules.shared),
                      decode_grids(encoding, n, rules.shared)),)
    encodes = task_id.rsplit("/", 1)[0] + "/base" if encoding != Encoding() else None
    return Candidate(task_id, build, grid_reference(n, rules), twins, grid=True, encodes=encodes)


def bet_candidate(task_id: str, rules: BetRules, enc: BetEncoding, build: Callable | None = None):
    """The battery's candidate for a declared betting variant (see `grid_candidate`)."""
    from glyphjax.zerosum.battery import Candidate, Twin
    build = build or (lambda: build_betting(task_id, rules, enc))
    twins, encodes = (), None
    if enc != BetEncoding():
        base = build_betting(task_id + ":identity", rules, BetEncoding())
        names = enc.labels(rules.n_ranks)["actions"]
        twins = (Twin(base, build(), lambda a: names[a], decode_cards(BetEncoding(), rules.n_ranks),
                      decode_cards(enc, rules.n_ranks)),)
        encodes = task_id.rsplit("/", 1)[0] + "/base"
    ref = BettingReference(rules.ranks, rules.rounds, rules.ante, rules.bet, rules.max_raises, rules.lowball)
    return Candidate(task_id, build, ref, twins, grid=False, encodes=encodes)


def decode_cards(enc: BetEncoding, n_ranks: int) -> Callable:
    """Drawn card grids uint32[..., 1, 2] -> rank indices (n_ranks = face down)."""
    table = np.array([ord(c) for c in enc.rank_names(n_ranks)] + [ord(FACE_DOWN)], np.uint32)  # face down = n_ranks

    def decode(grids: np.ndarray) -> np.ndarray:
        flat = np.asarray(grids).reshape(*grids.shape[:-2], -1)
        return np.argmax(flat[..., None] == table, axis=-1).astype(np.int32)
    return decode


def candidates() -> list:
    """The battery candidate of every declared variant, in corpus order (bases first)."""
    out = [grid_candidate(t, *d) for t, d in declarations().items()]
    out += [bet_candidate(t, *d) for t, d in bet_declarations().items()]
    return out + [trade_candidate(t, *d) for t, d in trade_declarations().items()]


def trade_candidate(task_id: str, rules: TradeRules, enc: TradeEncoding, build: Callable | None = None):
    """The battery's candidate for a declared negotiation variant (see `grid_candidate`)."""
    from glyphjax.zerosum.battery import Candidate, Twin
    build = build or (lambda: build_negotiation(task_id, rules, enc))
    twins, encodes = (), None
    if enc != TradeEncoding():
        base = build_negotiation(task_id + ":identity", rules, TradeEncoding())
        names = enc.labels(rules)["actions"]
        twins = (Twin(base, build(), lambda a: names[a], decode_goods(TradeEncoding(), rules),
                      decode_goods(enc, rules)),)
        encodes = task_id.rsplit("/", 1)[0] + "/base"
    ref = NegotiationReference(rules.inv0, rules.menu, rules.menu_on, rules.horizon, rules.score_kind, rules.cap)
    return Candidate(task_id, build, ref, twins, grid=False, encodes=encodes)


def decode_goods(enc: TradeEncoding, rules: TradeRules) -> Callable:
    """Drawn holdings grids uint32[..., 2, R] -> good indices (R = none held)."""
    table = np.array([ord(c) for c in enc.labels(rules)["glyphs"] + NONE_HELD], np.uint32)

    def decode(grids: np.ndarray) -> np.ndarray:
        flat = np.asarray(grids).reshape(*grids.shape[:-2], -1)
        return np.argmax(flat[..., None] == table, axis=-1).astype(np.int32)
    return decode


def core_ids() -> set[str]:
    """The registered core: per family the base, the first rule variant, the first encoding."""
    out = set()
    declared = set(corpus())
    for fam in (*GRID_FAMILIES, *BET_FAMILIES, *TRADE_FAMILIES):
        names = [v for v in fam.variants() if f"zerosum/{fam.name}/{v}" in declared]
        for prefix in ("base", "rule-", "enc-"):
            out.add(f"zerosum/{fam.name}/" + next(v for v in names if v.startswith(prefix)))
    return out


@functools.lru_cache(maxsize=None)
def _declared() -> dict[str, tuple[str, tuple]]:
    """Every declared variant: task id -> (template, its declaration)."""
    out = {t: ("grid", d) for t, d in declarations().items()}
    out.update({t: ("bet", d) for t, d in bet_declarations().items()})
    out.update({t: ("trade", d) for t, d in trade_declarations().items()})
    return out


@functools.lru_cache(maxsize=None)
def with_encoding(task_id: str, encoding_id: str | None) -> Any:
    """The env of variant `task_id` (its rules and size) drawn in the encoding of the encoding
    variant `encoding_id` of the same family (None: the identity encoding). Its card keeps the id
    `task_id`; it shares `task_id`'s compiled program, so a batch can mix encodings."""
    declared = _declared()
    if task_id not in declared:
        raise ValueError(f"{task_id!r} is not a declared zero-sum variant (zerosum/<family>/<variant>)")
    template, decl = declared[task_id]
    enc = None
    if encoding_id is not None:
        if encoding_id not in declared or encoding_id.rsplit("/", 1)[0] != task_id.rsplit("/", 1)[0] \
                or "/enc-" not in encoding_id:
            raise ValueError(f"{encoding_id!r} is not an encoding variant (zerosum/<family>/enc-<name>) of "
                             f"{task_id}'s family")
        enc = declared[encoding_id][1][-1]
    if template == "grid":
        n, rules, own = decl
        return _grid_factory(task_id, n, rules, enc if enc is not None else Encoding())()
    rules, own = decl
    build = build_betting if template == "bet" else build_negotiation
    return build(task_id, rules, enc if enc is not None else type(own)())
