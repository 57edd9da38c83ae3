"""MiniHack mechanics, one rule at a time, on hand-drawn boards (expected boards written from the
rules in the task card, not from running the code)."""

from __future__ import annotations

import jax
import numpy as np

from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.monsters import in_line_of_fire
from tests.suites.minihack.boards import PARAMS, board, grid, step, text

ROOM = ["-------",
        "|·····|",
        "|·····|",
        "|·····|",
        "|·····|",
        "|·····|",
        "-------"]


def with_(rows, r, c, ch):
    rows = list(rows)
    rows[r] = rows[r][:c] + ch + rows[r][c + 1:]
    return rows


def put(rows, *cells):
    for r, c, ch in cells:
        rows = with_(rows, r, c, ch)
    return rows


# --- combat ----------------------------------------------------------------------------------------
def test_combat__wielded_sword_kills_a_kobold_in_one_hit():
    s = board(put(ROOM, (3, 2, "@"), (3, 3, "k")), inv={C.LONG_SWORD: 1}, wielding=True)
    s, tr = step(s, C.MOVE_E)
    assert grid(s) == put(ROOM, (3, 2, "@"))  # sword 6-10 >= kobold's 4 HP; you stay put
    assert text(s).message == "You kill the kobold!"
    assert float(tr.reward) == 0.0 and not bool(tr.terminated)


def test_combat__bare_hands_deal_one_to_four():
    hps = []
    for seed in range(40):
        s = board(put(ROOM, (3, 2, "@"), (3, 3, "o")))
        s, _ = step(s, C.MOVE_E, seed=seed)
        hps.append(int(s.mon_hp[0]))
    assert set(hps) == {4, 5, 6, 7}  # orc 8 HP minus a 1-4 roll, every value seen


def test_combat__a_rat_bites_for_exactly_one():
    s = board(put(ROOM, (3, 2, "@"), (3, 3, "r")))
    s, tr = step(s, C.WAIT)
    assert int(s.hp) == 11
    assert text(s).message == "The rat hits you!"


def test_combat__dying_pays_minus_one_and_ends_the_episode():
    s = board(put(ROOM, (3, 2, "@"), (3, 3, "r")), hp=1)
    s, tr = step(s, C.WAIT)
    assert float(tr.reward) == -1.0 and bool(tr.terminated)
    assert text(s).message == "The rat hits you! You die..."
    assert "HP: 0/12" in text(s).hud


def test_monsters__chase_diagonally_and_a_slow_one_moves_every_other_turn():
    s = board(put(ROOM, (1, 1, "@"), (5, 5, "r"), (5, 1, "k")))
    s, _ = step(s, C.WAIT)  # turn 0: the rat (speed 12) moves, the kobold (speed 6) does not
    assert grid(s) == put(ROOM, (1, 1, "@"), (4, 4, "r"), (5, 1, "k"))
    s, _ = step(s, C.WAIT)  # turn 1: both move
    assert grid(s) == put(ROOM, (1, 1, "@"), (3, 3, "r"), (4, 1, "k"))


def test_monsters__a_badly_hurt_monster_flees():
    s = board(put(ROOM, (3, 2, "@"), (3, 3, "o")))
    s = s.replace(mon_hp=s.mon_hp.at[0].set(2))  # 2 * 3 < 8: fleeing
    s, _ = step(s, C.WAIT)  # turn 0: the orc (speed 9) has no move yet
    s, _ = step(s, C.WAIT)  # turn 1: it steps away instead of hitting you
    assert int(s.hp) == 12
    assert grid(s) == put(ROOM, (3, 2, "@"), (3, 4, "o"))


def test_monsters__moves_are_a_function_of_the_key():
    s0 = board(put(ROOM, (1, 1, "@"), (5, 5, "o"), (5, 1, "k")))
    runs = []
    for _ in range(2):
        s, trace = s0, []
        for t in range(12):
            s, _ = step(s, C.MOVE_S if t % 2 else C.WAIT, seed=5)
            trace.append((np.asarray(s.mon_pos).tolist(), int(s.hp)))
        runs.append(trace)
    assert runs[0] == runs[1]


# --- doors and keys ----------------------------------------------------------------------------------
DOOR_ROOM = put(ROOM, *((r, 3, "|") for r in range(1, 6)), (3, 3, "L"))


def test_door__locked_door_stays_shut_without_a_key():
    s = board(with_(DOOR_ROOM, 3, 2, "@"))
    s, _ = step(s, C.MOVE_E)
    assert grid(s) == put(DOOR_ROOM, (3, 2, "@"), (3, 3, "+"))
    assert text(s).message == "This door is locked."


def test_door__key_unlocks_and_opens_then_you_walk_through():
    s = board(with_(DOOR_ROOM, 3, 2, "@"), inv={C.KEY: 1})
    s, _ = step(s, C.MOVE_E)
    assert grid(s) == put(DOOR_ROOM, (3, 2, "@"), (3, 3, "¦"))
    assert text(s).message == "You unlock the door with your key. The door opens."
    s, _ = step(s, C.MOVE_E)
    assert grid(s) == put(DOOR_ROOM, (3, 3, "@"))


# --- terrain ------------------------------------------------------------------------------------------
def test_trap__fires_once_and_vanishes():
    s = board(put(ROOM, (3, 2, "@"), (3, 3, "^")))
    s, _ = step(s, C.MOVE_E)
    assert 9 <= int(s.hp) <= 11
    assert text(s).message == "A dart shoots out at you! You are hit."
    s, _ = step(s, C.MOVE_W)
    assert grid(s) == put(ROOM, (3, 2, "@"))


def test_lava__kills_without_levitation():
    s = board(put(ROOM, (3, 2, "@"), (3, 3, "♨")))
    s, tr = step(s, C.MOVE_E)
    assert float(tr.reward) == -1.0 and bool(tr.terminated)
    assert text(s).message == "You fall into the lava! You die..."


def test_levitation__a_potion_carries_you_over_lava_for_twenty_turns():
    s = board(put(ROOM, (3, 2, "@"), (3, 3, "♨")), inv={C.POTION_LEVITATION: 1})
    s, _ = step(s, C.QUAFF)
    assert text(s).message == "You start to float in the air!" and int(s.lev_turns) == 20
    s, tr = step(s, C.MOVE_E)
    assert int(s.hp) == 12 and not bool(tr.terminated)
    for _ in range(18):
        s, tr = step(s, C.WAIT)
    assert not bool(tr.terminated) and int(s.lev_turns) == 1
    s, tr = step(s, C.WAIT)  # the 20th turn after quaffing: you land in the lava
    assert float(tr.reward) == -1.0 and text(s).message == "You fall into the lava! You die..."


def test_levitation__a_worn_ring_lasts_until_removed_and_blocks_pickup():
    s = board(put(ROOM, (3, 2, "@"), (3, 3, "♨")), items={(3, 2): C.APPLE}, inv={C.RING_LEVITATION: 1})
    s, _ = step(s, C.APPLY)
    assert text(s).message == "You put on the ring of levitation. You start to float in the air!"
    s, _ = step(s, C.PICKUP)
    assert text(s).message == "You cannot reach the floor." and int(s.inv[C.APPLE]) == 0
    s, _ = step(s, C.MOVE_E)
    for _ in range(30):
        s, tr = step(s, C.WAIT)
    assert int(s.hp) == 12 and not bool(s.done)
    s, tr = step(s, C.APPLY)
    assert float(tr.reward) == -1.0 and text(s).message == "You fall into the lava! You die..."


def test_water__costs_three_hp():
    s = board(put(ROOM, (3, 2, "@"), (3, 3, "≈")))
    s, _ = step(s, C.MOVE_E)
    assert int(s.hp) == 9 and text(s).message == "You fall into the water! You crawl out, dripping."


def test_stairs__pay_one_and_end_the_episode():
    s = board(put(ROOM, (3, 2, "@"), (3, 3, ">")))
    s, tr = step(s, C.MOVE_E)
    assert float(tr.reward) == 1.0 and bool(tr.terminated)
    assert text(s).message == "You descend the stairs."


# --- darkness and memory ---------------------------------------------------------------------------------
def test_darkness__you_see_your_neighbours_and_remember_what_you_saw():
    s = board(put(ROOM, (1, 1, "@"), (5, 5, ">"), (1, 4, "r")), dark=True)
    assert grid(s) == ["---    ",
                       "|@·    ",
                       "|··    ",
                       "       ",
                       "       ",
                       "       ",
                       "       "]
    s, _ = step(s, C.MOVE_SE)  # the rat (speed 12) steps to (2, 3), next to you: you see it
    assert grid(s) == ["---    ",
                       "|···   ",
                       "|·@r   ",
                       " ···   ",
                       "       ",
                       "       ",
                       "       "]


# --- items ----------------------------------------------------------------------------------------------------
def test_pickup__takes_the_item_and_the_hud_lists_it():
    s = board(put(ROOM, (3, 2, "@")), items={(3, 2): C.LONG_SWORD})
    s, _ = step(s, C.PICKUP)
    assert int(s.inv[C.LONG_SWORD]) == 1 and int(s.items[3, 2]) == 0
    assert text(s).message == "You pick up a long sword."


def test_eat__food_restores_fifty_and_hunger_kills_at_zero():
    p = PARAMS.replace(level=PARAMS.level.replace(hunger_on=True))
    s = board(put(ROOM, (3, 2, "@")), inv={C.FOOD_RATION: 1}, hunger=3)
    s, _ = step(s, C.EAT, params=p)
    assert int(s.hunger) == 52 and text(s).message == "You finish eating the food ration."
    s = board(put(ROOM, (3, 2, "@")), hunger=2)
    s, _ = step(s, C.WAIT, params=p)
    s, tr = step(s, C.WAIT, params=p)
    assert float(tr.reward) == -1.0 and text(s).message == "You starve to death. You die..."


def test_read__teleportation_lands_you_in_the_teleport_region():
    mask = np.zeros((7, 7), bool)
    mask[1:6, 4:6] = True
    p = PARAMS.replace(level=PARAMS.level.replace(teleport_mask=jax.numpy.asarray(mask)))
    for seed in range(8):
        s = board(put(ROOM, (1, 1, "@")), inv={C.SCROLL_TELEPORT: 1})
        s, _ = step(s, C.READ, params=p, seed=seed)
        assert mask[int(s.pos[0]), int(s.pos[1])] and int(s.inv[C.SCROLL_TELEPORT]) == 0


def test_quaff__healing_restores_full_hp_and_a_sink_gives_a_sip():
    s = board(put(ROOM, (3, 2, "@")), inv={C.POTION_HEALING: 1}, hp=3)
    s, _ = step(s, C.QUAFF)
    assert int(s.hp) == 12 and text(s).message == "You feel better."
    s = board(put(ROOM, (3, 2, "⊔"), (1, 1, "@")))
    s = s.replace(pos=jax.numpy.array([3, 2], jax.numpy.int32))
    s, _ = step(s, C.QUAFF)
    assert text(s).message == "You take a sip of very cold water."


def test_zap__wand_of_death_kills_the_nearest_monster_and_uses_a_charge():
    s = board(put(ROOM, (3, 1, "@"), (3, 4, "o"), (1, 5, "O")), inv={C.WAND_DEATH: 4}, wand=C.WAND_DEATH)
    s, _ = step(s, C.ZAP)
    hp = dict(zip(np.asarray(s.mon_kind).tolist(), np.asarray(s.mon_hp).tolist()))
    assert hp[C.ORC] <= 0 and hp[C.OGRE] == 14
    assert int(s.inv[C.WAND_DEATH]) == 3
    assert text(s).message == "You zap the wand. The death ray kills the orc!"


def test_pray__heals_once_when_low_then_angers():
    s = board(put(ROOM, (3, 2, "@")), hp=2)
    s, _ = step(s, C.PRAY)
    assert int(s.hp) == 12 and text(s).message == "You begin praying to Tyr. You feel much better."
    s = s.replace(hp=jax.numpy.int32(2))
    s, _ = step(s, C.PRAY)
    assert int(s.hp) == 2 and text(s).message == "You begin praying to Tyr. You feel that Tyr is displeased."


def test_wield__without_a_weapon_does_nothing():
    s = board(put(ROOM, (3, 2, "@")))
    s2, _ = step(s, C.WIELD)
    assert not bool(s2.wielding) and text(s2).message == "You don't have a weapon to wield."


# --- boxoban ------------------------------------------------------------------------------------------
def test_boxoban__boulders_roll_straight_not_diagonally_and_stop_at_walls():
    s = board(put(ROOM, (3, 2, "@")), items={(3, 3): C.BOULDER, (2, 3): C.BOULDER})
    s, _ = step(s, C.MOVE_E)
    assert grid(s) == put(ROOM, (3, 3, "@"), (3, 4, "0"), (2, 3, "0"))
    assert text(s).message == "With great effort you move the boulder."
    s2, _ = step(s, C.MOVE_NE)  # diagonal into the boulder at (2, 4)? none there: a plain move
    assert grid(s2) == put(ROOM, (2, 4, "@"), (3, 4, "0"), (2, 3, "0"))
    s3, _ = step(s, C.MOVE_E)  # pushes (3, 4) to (3, 5), against the wall
    s3, _ = step(s3, C.MOVE_E)  # beyond is wall: in vain
    assert grid(s3) == put(ROOM, (3, 4, "@"), (3, 5, "0"), (2, 3, "0"))
    assert text(s3).message == "You try to move the boulder, but in vain."
    s4 = board(put(ROOM, (3, 2, "@")), items={(2, 3): C.BOULDER})
    s4, _ = step(s4, C.MOVE_NE)  # a diagonal push does not move it
    assert grid(s4) == put(ROOM, (3, 2, "@"), (2, 3, "0"))


def test_boxoban__a_boulder_on_the_last_fountain_solves_the_puzzle():
    s = board(put(ROOM, (3, 2, "@"), (3, 4, "{"), (1, 1, "{")), items={(3, 3): C.BOULDER, (1, 1): C.BOULDER})
    assert grid(s)[1][1] == "*"
    s, tr = step(s, C.MOVE_E)
    assert float(tr.reward) == 1.0 and bool(tr.terminated)
    assert text(s).message == ("With great effort you move the boulder. "
                               "Every fountain holds a boulder. The puzzle is solved!")


# --- ranged monsters ----------------------------------------------------------------------------------
def test_ranged__a_gnome_shoots_along_its_row_from_afar_and_stays_put():
    s = board(put(ROOM, (3, 1, "@"), (3, 5, "G")))
    s, _ = step(s, C.WAIT)  # turn 0: the gnome (speed 6) has no move yet
    assert int(s.hp) == 12
    s, _ = step(s, C.WAIT)  # turn 1: four cells away on your row, nothing between: it shoots
    assert 7 <= int(s.hp) <= 11  # gnome's mean damage 3: a roll in 1-5
    assert text(s).message == "The gnome shoots a crossbow bolt! The bolt hits you!"
    assert grid(s) == put(ROOM, (3, 1, "@"), (3, 5, "G"))


def test_ranged__a_boulder_in_the_line_of_fire_makes_the_gnome_close_in_instead():
    s = board(put(ROOM, (3, 1, "@"), (3, 5, "G")), items={(3, 3): C.BOULDER})
    s, _ = step(s, C.WAIT)
    s, _ = step(s, C.WAIT)
    assert int(s.hp) == 12 and text(s).message == ""
    assert grid(s) == put(ROOM, (3, 1, "@"), (3, 3, "0"), (3, 4, "G"))


def test_ranged__off_the_lines_the_gnome_closes_in_diagonally_without_shooting():
    s = board(put(ROOM, (5, 1, "@"), (1, 4, "G")))  # gap (4, -3): on no row, column or diagonal
    for cell in ((2, 3), (3, 2), (4, 1)):  # gaps (3, -2), (2, -1): still off the lines; then adjacent
        s, _ = step(s, C.WAIT)
        s, _ = step(s, C.WAIT)  # the gnome moves every other turn
        assert grid(s) == put(ROOM, (5, 1, "@"), (cell[0], cell[1], "G")) and int(s.hp) == 12


def test_ranged__range_is_five_cells_and_walls_block():
    s = board(put(ROOM, (3, 1, "@"), (3, 5, "G")))
    wide = np.full((3, 9), C.FLOOR, np.int32)
    for gnome_col, wall, expected in ((5, None, True), (6, None, False), (4, 2, False), (4, 0, True)):
        terrain = wide.copy()
        if wall is not None:
            terrain[1, wall] = C.WALL
        t = s.replace(terrain=jax.numpy.asarray(terrain), items=jax.numpy.zeros((3, 9), jax.numpy.int32),
                      pos=jax.numpy.array([1, 0], jax.numpy.int32),
                      mon_pos=s.mon_pos.at[0].set(jax.numpy.array([1, gnome_col], jax.numpy.int32)))
        assert bool(in_line_of_fire(t, 0, t.mon_pos)) is expected, (gnome_col, wall)


# --- fountains and altars -----------------------------------------------------------------------------
def test_fountain__quaffing_refreshes_is_tasteless_sickens_or_dries_it_up():
    seen = {}
    s = board(put(ROOM, (3, 2, "{"), (1, 1, "@")), hunger=50)
    s = s.replace(pos=jax.numpy.array([3, 2], jax.numpy.int32))
    for seed in range(40):  # the same board, another step key each time
        s2, tr = step(s, C.QUAFF, seed=seed)
        msg = text(s2).message
        seen[msg] = seen.get(msg, 0) + 1
        if msg == "The cool draught refreshes you.":
            assert int(s2.hunger) == 60 and int(s2.hp) == 12
        elif msg == "This tepid water is tasteless.":
            assert int(s2.hunger) == 50 and int(s2.hp) == 12 and int(s2.terrain[3, 2]) == C.FOUNTAIN
        elif msg == "The water is contaminated! You feel ill.":
            assert 6 <= int(s2.hp) <= 9 and int(s2.terrain[3, 2]) == C.FOUNTAIN
        else:
            assert msg == "You take a sip of water. The fountain dries up!", msg
            s3, _ = step(s2, C.MOVE_N)
            assert grid(s3) == put(ROOM, (2, 2, "@"))  # the fountain is floor now
    assert len(seen) == 4, seen


def test_fountain__a_carried_potion_comes_first_and_boxoban_fountains_are_not_drunk():
    s = board(put(ROOM, (3, 2, "{"), (1, 1, "@")), inv={C.POTION_HEALING: 1}, hp=4)
    s = s.replace(pos=jax.numpy.array([3, 2], jax.numpy.int32))
    s2, _ = step(s, C.QUAFF)
    assert text(s2).message == "You feel better." and int(s2.hp) == 12
    sok = PARAMS.replace(level=PARAMS.level.replace(n_boulders=jax.numpy.int32(2)))
    s = s.replace(inv=s.inv.at[C.POTION_HEALING].set(0))
    s3, _ = step(s, C.QUAFF, params=sok)
    assert text(s3).message == "You don't have anything to drink." and int(s3.terrain[3, 2]) == C.FOUNTAIN


def test_altar__praying_there_unhurt_brings_a_golden_glow_once():
    s = board(put(ROOM, (3, 2, "_"), (1, 1, "@")))
    s = s.replace(pos=jax.numpy.array([3, 2], jax.numpy.int32))
    s, _ = step(s, C.PRAY)
    assert text(s).message == "You begin praying to Tyr. You are surrounded by a golden glow. You feel much better."
    assert "HP: 17/17" in text(s).hud
    s, _ = step(s, C.PRAY)
    assert text(s).message == "You begin praying to Tyr. You feel that Tyr is displeased."
    assert int(s.max_hp) == 17


def test_altar__unhurt_prayer_off_the_altar_does_nothing_and_a_hurt_one_heals_as_anywhere():
    s = board(put(ROOM, (3, 2, "@")))
    s2, _ = step(s, C.PRAY)
    assert text(s2).message == "You begin praying to Tyr. You feel a hopeful feeling."
    assert int(s2.max_hp) == 12 and not bool(s2.prayed)
    s = board(put(ROOM, (3, 2, "_"), (1, 1, "@")), hp=3)
    s = s.replace(pos=jax.numpy.array([3, 2], jax.numpy.int32))
    s, _ = step(s, C.PRAY)
    assert text(s).message == "You begin praying to Tyr. You feel much better." and "HP: 12/12" in text(s).hud


# --- the remaining item effects (one board each, the shared compiled step) ------------------------
def test_read__light_lights_the_dark_room_around_you():
    s = board(put(ROOM, (1, 1, "@"), (5, 5, ">")), inv={C.SCROLL_LIGHT: 1}, dark=True)
    s, _ = step(s, C.READ)
    assert text(s).message == "As you read the scroll, it disappears. A lit field surrounds you!"
    assert int(s.inv[C.SCROLL_LIGHT]) == 0
    assert grid(s) == put(ROOM, (1, 1, "@"), (5, 5, ">"))  # every cell within 5 is lit: all in view


def test_zap__fire_and_cold_bolts_deal_two_to_twelve_and_use_a_charge():
    for wand, seeds in ((C.WAND_FIRE, range(30)), (C.WAND_COLD, range(30, 36))):
        damage = set()
        for seed in seeds:
            s = board(put(ROOM, (3, 1, "@"), (3, 5, "O")), inv={wand: 4}, wand=wand)
            s, _ = step(s, C.ZAP, seed=seed)
            damage.add(14 - int(s.mon_hp[0]))  # the ogre's 14 HP
            assert int(s.inv[wand]) == 3
            assert text(s).message.startswith("You zap the wand. The bolt hits the ogre!")
        assert damage <= set(range(2, 13)), (wand, damage)
    assert len(damage) >= 3  # cold: a roll, not a constant


def test_wield_and_drop__the_sword_is_wielded_then_dropped_and_unwielded():
    s = board(put(ROOM, (3, 2, "@")), inv={C.LONG_SWORD: 1})
    s, _ = step(s, C.WIELD)
    assert bool(s.wielding) and text(s).message == "You are now wielding the long sword."
    assert "Wielding: long sword" in text(s).hud
    s, _ = step(s, C.DROP)
    assert text(s).message == "You drop a long sword."
    assert int(s.items[3, 2]) == C.LONG_SWORD and int(s.inv[C.LONG_SWORD]) == 0 and not bool(s.wielding)


def test_quaff_and_eat__speed_is_used_up_and_an_apple_feeds_like_a_ration():
    p = PARAMS.replace(level=PARAMS.level.replace(hunger_on=True))
    s = board(put(ROOM, (3, 2, "@")), inv={C.POTION_SPEED: 1, C.APPLE: 1}, hp=7, hunger=10)
    s, _ = step(s, C.QUAFF, params=p)
    assert text(s).message == "You are suddenly moving faster."
    assert int(s.inv[C.POTION_SPEED]) == 0 and int(s.hp) == 7 and int(s.lev_turns) == 0
    s, _ = step(s, C.EAT, params=p)
    assert text(s).message == "You finish eating the apple." and int(s.inv[C.APPLE]) == 0
    assert int(s.hunger) == 10 - 2 + C.FOOD_VALUE  # two turns of hunger, then the meal
