"""The 20-level bank extension: dihedral images of a hand-made level (golden boards), the shipped
bank's images equal to the transforms of its forged levels, and 20-level curricula played by the
one compiled program (level 20 reached by the scripted policy without a recompile)."""

from __future__ import annotations

import re

from glyphjax.witness.bank import curriculum_levels, load_bank, origins
from glyphjax.witness.extend import TRANSFORMS, pools, transform_level
from glyphjax.witness.layout import Level

UP, DOWN, LEFT, RIGHT = range(4)
LEVEL = Level(board=("S.H", "#.E"), rules=("hexagon", "walls"), hidden=((0, 2),), edges=((0, 1, DOWN), (1, 1, UP)),
              solution=(RIGHT, RIGHT, DOWN))


def test_transform_level__rot90_and_transpose_match_hand_drawn_boards():
    rot = transform_level(LEVEL, TRANSFORMS.index("rot90"))  # clockwise: row r becomes column rows-1-r
    assert rot.board == ("#S", "..", "EH")
    assert rot.hidden == ((2, 1),)
    assert set(rot.edges) == {(1, 1, LEFT), (1, 0, RIGHT)}  # the blocked edge between (0,1) and (1,1), turned
    assert rot.solution == (DOWN, DOWN, LEFT)
    tr = transform_level(Level(board=("S..", "..E"), rules=("symmetry",), axis=0), TRANSFORMS.index("transpose"))
    assert tr.board == ("S.", "..", ".E") and tr.axis == 1  # a vertical mirror becomes a horizontal one
    flip = transform_level(Level(board=("S..", "..E"), rules=("symmetry",), axis=2), TRANSFORMS.index("flip-cols"))
    assert flip.board == ("..S", "E..") and flip.axis == 2


def test_pools__shipped_levels_first_then_each_transform_of_each():
    other = Level(board=("S..", "..E"), rules=("hexagon", "walls"))
    pool = pools((LEVEL, other))[frozenset({"hexagon", "walls"})]
    assert [o for _, o in pool[:4]] == ["shipped", "shipped", "rot90 of level 1", "rot90 of level 2"]
    assert len(pool) == 2 * len(TRANSFORMS)


def test_bank__images_are_the_transforms_of_the_games_forged_levels_in_curriculum_slots():
    assert curriculum_levels() == 20
    bank, where = load_bank(), origins()
    images = 0
    for name, levels in bank.items():
        assert len(levels) <= 20 and len(where[name]) == len(levels)
        shipped = [lv for lv, o in zip(levels, where[name]) if o == "shipped"]
        for lv, o in zip(levels, where[name]):
            if o == "shipped":
                continue
            t, k = re.fullmatch(r"(\S+) of level (\d+)", o).groups()
            assert lv == transform_level(shipped[int(k) - 1], TRANSFORMS.index(t)), f"{name}: {o}"
            images += 1
    assert images >= 700 and len(bank) == 47 and all(len(v) == 20 for v in bank.values())


def test_extend__rebuilding_from_the_banks_forged_levels_gives_the_shipped_bank():
    from glyphjax.witness import forge
    from glyphjax.witness.bank import BANK
    from glyphjax.witness.extend import extend, forged_levels
    from glyphjax.witness.games import GAMES
    picks = extend(list(GAMES), forged_levels(BANK), 20, forge.ForgeLog())
    bank, where = load_bank(), origins()
    assert {n: [p.level for p in v] for n, v in picks.items() if v} == {n: list(v) for n, v in bank.items()}
    assert {n: [p.origin for p in v] for n, v in picks.items() if v} == where


def test_probe_sigma__an_images_random_play_wins_exactly_as_often_as_the_originals():
    from glyphjax.witness import forge
    from glyphjax.witness.extend import probe_sigma
    level = Level(board=("S..", ".#.", "H.E"), rules=("hexagon", "walls"), edges=((0, 1, RIGHT), (0, 2, LEFT)))
    names = ("rot90", "flip-rows", "anti-transpose")
    images = [transform_level(level, TRANSFORMS.index(t)) for t in names]
    sigmas = [(0, 1, 2, 3)] + [probe_sigma(f"{t} of level 1") for t in names]
    wins = forge.random_win_counts([level, *images], forge.PRESCREEN_EPISODES, sigmas)
    assert wins[0] > 0 and wins == [wins[0]] * 4, wins
    plain = forge.random_win_counts(images, forge.PRESCREEN_EPISODES)  # the identity mapping samples anew
    assert plain != [wins[0]] * 3


def test_top_up__the_banks_top_up_levels_are_the_seeded_candidates_it_records():
    """Levels forged by `extend --top-up` rebuild from their recorded seeds (game index, slot, j, tail):
    each is that candidate, shipped as a forged level of its game."""
    import json

    import numpy as np

    from glyphjax.witness.bank import BANK
    from glyphjax.witness.extend import TRAP_TAG, drawer
    from glyphjax.witness.games import GAMES, curriculum
    top = json.loads(BANK.read_text())["top_up"]
    assert top["forged"], "the bank records no top-up levels"
    assert any(len(e) == 4 and e[3] == TRAP_TAG for e in top["forged"]), "no trap-generator level recorded"
    bank, where = load_bank(), origins()
    names = [g.name for g in GAMES]
    for name, k, j, *tail in top["forged"]:  # [game, slot, j] (seed tail 20) or [game, slot, j, tail]
        gi, tail = names.index(name), (tail or [top["seed_tail"]])[0]
        lv = drawer(tail)(curriculum(GAMES[gi], 20)[k], np.random.default_rng([gi, k, j, tail]))
        shipped = {x.canonical_hash() for x, o in zip(bank[name], where[name]) if o == "shipped"}
        assert lv is not None and lv.canonical_hash() in shipped, f"{name} slot {k} candidate {j} tail {tail}"
