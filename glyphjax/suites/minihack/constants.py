"""MiniHack vocabulary: terrain, items, monsters, actions and the message table, one module.

Terrain, item and monster codes are small ints; every table below is indexed by them. Messages
are composed on the host from three parts (what you did, what a monster did, how the turn ended)
so the event id stays one int32: `event = (primary * N_SECONDARY + secondary) * N_OUTCOME + outcome`.
"""

from __future__ import annotations

import itertools

import numpy as np

# --- terrain -----------------------------------------------------------------------------------
(ROCK, FLOOR, WALL_H, WALL_V, CORRIDOR, DOOR_OPEN, DOOR_CLOSED, DOOR_LOCKED, STAIRS, TRAP, LAVA,
 WATER, SINK, ALTAR, FOUNTAIN) = range(15)
N_TERRAIN = 15
TERRAIN_GLYPHS = " ·-|#¦++>^♨≈⊔_{"
WALL = WALL_H  # generators write WALL; `wall_glyphs` picks - or | from the neighbours
# cells the player may enter (lava and water are enterable: they hurt or kill)
WALKABLE = np.zeros(N_TERRAIN, bool)
WALKABLE[[FLOOR, CORRIDOR, DOOR_OPEN, STAIRS, TRAP, LAVA, WATER, SINK, ALTAR, FOUNTAIN]] = True
# cells a monster may enter (monsters keep out of lava and water and do not open doors)
MONSTER_WALKABLE = WALKABLE.copy()
MONSTER_WALKABLE[[LAVA, WATER]] = False

# --- items ---------------------------------------------------------------------------------------
ITEM_NAMES = ("nothing", "food ration", "apple", "scroll of teleportation", "scroll of light",
              "potion of healing", "potion of speed", "potion of levitation", "ring of levitation",
              "wand of death", "wand of fire", "wand of cold", "long sword", "skeleton key", "boulder")
(NO_ITEM, FOOD_RATION, APPLE, SCROLL_TELEPORT, SCROLL_LIGHT, POTION_HEALING, POTION_SPEED,
 POTION_LEVITATION, RING_LEVITATION, WAND_DEATH, WAND_FIRE, WAND_COLD, LONG_SWORD, KEY, BOULDER) = range(15)
N_ITEMS = len(ITEM_NAMES)
# item classes, as NetHack draws them
ITEM_CLASS_GLYPHS = "%?!=/)(0"
FOOD, SCROLL, POTION, RING, WAND, WEAPON, TOOL, ROCK_CLASS = range(8)
ITEM_CLASS = np.array([0, FOOD, FOOD, SCROLL, SCROLL, POTION, POTION, POTION, RING, WAND, WAND,
                       WAND, WEAPON, TOOL, ROCK_CLASS], np.int32)
WAND_CHARGES = 4  # charges a wand holds when picked up (its inventory count)
LEVITATION_TURNS = 20  # turns a potion of levitation lasts
HUNGER_MAX = 100
FOOD_VALUE = 50  # hunger points one food item restores (capped at HUNGER_MAX)

# --- monsters --------------------------------------------------------------------------------------
MONSTER_NAMES = ("nothing", "newt", "rat", "kobold", "gnome", "orc", "zombie", "ogre")
NO_MONSTER, NEWT, RAT, KOBOLD, GNOME, ORC, ZOMBIE, OGRE = range(8)
N_KINDS = len(MONSTER_NAMES)
MONSTER_GLYPHS = " :rkGoZO"
MONSTER_HP = np.array([0, 1, 2, 4, 6, 8, 10, 14], np.int32)
MONSTER_DAMAGE = np.array([0, 1, 1, 2, 3, 4, 3, 6], np.int32)  # mean damage of one hit
MONSTER_SPEED = np.array([0, 6, 12, 6, 6, 9, 6, 10], np.int32)  # NetHack speeds; yours is 12
PLAYER_SPEED = 12

PLAYER_HP = 12
WATER_DAMAGE = 3
UNARMED_DAMAGE = (1, 4)  # inclusive roll ranges
SWORD_DAMAGE = (6, 10)
TRAP_DAMAGE = (1, 3)
SIGHT = 1  # Chebyshev radius you see in the dark
# ranged attackers: Chebyshev range of a kind's missile (0 = melee only); the gnome carries a crossbow
MONSTER_RANGE = np.array([0, 0, 0, 0, 5, 0, 0, 0], np.int32)
# QUAFF from a fountain (NetHack's drinkfountain, simplified): cumulative chances of
# refreshing (+FOUNTAIN_NUTRITION), tasteless (nothing), contaminated (FOUNTAIN_DAMAGE); else it dries up
FOUNTAIN_CHANCES = (0.3, 0.7, 0.85)
FOUNTAIN_NUTRITION = 10
FOUNTAIN_DAMAGE = (3, 6)
ALTAR_MAX_HP = 5  # max HP a golden glow adds (praying on an altar without trouble)
MAX_FLOORS = 4  # dungeon levels a multi-floor (memento) task may have
NEARBY = 5  # Chebyshev radius of the HUD's nearby-monster line

# --- actions (catalogue order) ------------------------------------------------------------------------
ACTIONS = ("MOVE_N", "MOVE_S", "MOVE_E", "MOVE_W", "MOVE_NE", "MOVE_NW", "MOVE_SE", "MOVE_SW",
           "WAIT", "SEARCH", "LOOK", "PICKUP", "DROP", "EAT", "READ", "QUAFF", "WIELD", "ZAP",
           "PRAY", "APPLY", "INVENTORY", "ESCAPE")
(MOVE_N, MOVE_S, MOVE_E, MOVE_W, MOVE_NE, MOVE_NW, MOVE_SE, MOVE_SW, WAIT, SEARCH, LOOK, PICKUP,
 DROP, EAT, READ, QUAFF, WIELD, ZAP, PRAY, APPLY, INVENTORY, ESCAPE) = range(22)
MOVE_DELTAS = np.array([(-1, 0), (1, 0), (0, 1), (0, -1), (-1, 1), (-1, -1), (1, 1), (1, -1)], np.int32)
ACTION_DESCRIPTIONS = (
    "move one cell north (up); moving into a monster attacks it, into a closed door opens it",
    "move one cell south (down)", "move one cell east (right)", "move one cell west (left)",
    "move one cell north-east (up-right)", "move one cell north-west (up-left)",
    "move one cell south-east (down-right)", "move one cell south-west (down-left)",
    "wait one turn", "search around you (nothing is hidden in these levels: same as WAIT)",
    "look here (same as WAIT; what lies here is in the message when you arrive)",
    "pick up the item at your feet", "drop the first item of your inventory (list order) here",
    "eat the first food item you carry", "read the first scroll you carry",
    "drink the first potion you carry (at a sink without a potion: drink from the sink)",
    "wield the weapon you carry", "zap the wand you picked up last at the nearest monster",
    "pray to your god (heals you once when your HP is low)",
    "put on or remove the ring you carry", "list your inventory (the HUD shows it: same as WAIT)",
    "cancel (same as WAIT)")

# --- messages ------------------------------------------------------------------------------------------
def _kinds(fmt: str) -> list[str]:
    return [fmt.format(m=name) for name in MONSTER_NAMES[1:]]


def _items(fmt: str) -> list[str]:
    return [fmt.format(i=name) for name in ITEM_NAMES[1:]]


PRIMARY_GROUPS: dict[str, list[str]] = {
    "none": [""],
    "hit": _kinds("You hit the {m}."),
    "kill": _kinds("You kill the {m}!"),
    "door_open": ["The door opens."],
    "door_locked": ["This door is locked."],
    "door_unlock": ["You unlock the door with your key. The door opens."],
    "trap": ["A dart shoots out at you! You are hit."],
    "water": ["You fall into the water! You crawl out, dripping."],
    "lava": ["You fall into the lava!"],
    "see": _items("You see here a {i}."),
    "pick": _items("You pick up a {i}."),
    "pick_none": ["There is nothing here to pick up."],
    "push": ["With great effort you move the boulder."],
    "push_fail": ["You try to move the boulder, but in vain."],
    "pick_float": ["You cannot reach the floor."],
    "drop": _items("You drop a {i}."),
    "drop_none": ["You cannot drop anything here."],
    "eat": _items("You finish eating the {i}."),
    "eat_none": ["You don't have anything to eat."],
    "read_teleport": ["As you read the scroll, it disappears. You feel a wrenching sensation!"],
    "read_light": ["As you read the scroll, it disappears. A lit field surrounds you!"],
    "read_none": ["You don't have anything to read."],
    "quaff_heal": ["You feel better."],
    "quaff_speed": ["You are suddenly moving faster."],
    "quaff_lev": ["You start to float in the air!"],
    "quaff_sink": ["You take a sip of very cold water."],
    "quaff_none": ["You don't have anything to drink."],
    "wield": ["You are now wielding the long sword."],
    "wield_none": ["You don't have a weapon to wield."],
    "zap_kill": _kinds("You zap the wand. The death ray kills the {m}!"),
    "zap_hit": _kinds("You zap the wand. The bolt hits the {m}!"),
    "zap_miss": ["You zap the wand. The bolt hits nothing."],
    "zap_empty": ["You zap the wand. Nothing happens."],
    "zap_none": ["You don't have a wand to zap."],
    "pray_heal": ["You begin praying to Tyr. You feel much better."],
    "pray_angry": ["You begin praying to Tyr. You feel that Tyr is displeased."],
    "pray_calm": ["You begin praying to Tyr. You feel a hopeful feeling."],
    "ring_on": ["You put on the ring of levitation. You start to float in the air!"],
    "ring_off": ["You remove the ring of levitation. You float gently to the ground."],
    "apply_none": ["You don't have anything to apply."],
    "land": ["You float gently to the ground."],
    # groups below were added after the first release: appended so earlier event ids stay put
    "descend_floor": [f"You descend the stairs to dungeon level {k}." for k in range(2, MAX_FLOORS + 1)],
    "pray_glow": ["You begin praying to Tyr. You are surrounded by a golden glow. You feel much better."],
    "fountain_refresh": ["The cool draught refreshes you."],
    "fountain_tasteless": ["This tepid water is tasteless."],
    "fountain_contaminated": ["The water is contaminated! You feel ill."],
    "fountain_dry": ["You take a sip of water. The fountain dries up!"],
}
PRIMARY: dict[str, int] = {}  # group name -> index of its first message
PRIMARY_TEXTS: list[str] = []
for _name, _texts in PRIMARY_GROUPS.items():
    PRIMARY[_name] = len(PRIMARY_TEXTS)
    PRIMARY_TEXTS.extend(_texts)
SECONDARY_TEXTS = [""] + [
    f"The {m} shoots a crossbow bolt! The bolt hits you!" if reach > 0 else f"The {m} hits you!"
    for m, reach in zip(MONSTER_NAMES[1:], MONSTER_RANGE[1:])]
OUTCOME_TEXTS = ["", "You die...", "You starve to death. You die...", "You descend the stairs.",
                 "Every fountain holds a boulder. The puzzle is solved!"]
ALIVE, DIED, STARVED, DESCENDED, SOLVED = range(5)
N_SECONDARY, N_OUTCOME = len(SECONDARY_TEXTS), len(OUTCOME_TEXTS)


def _join(parts) -> str:
    return " ".join(p for p in parts if p)


EVENTS: tuple[str, ...] = tuple(_join(parts) for parts in itertools.product(
    PRIMARY_TEXTS, SECONDARY_TEXTS, OUTCOME_TEXTS))
SUCCESS_EVENTS: tuple[int, ...] = tuple(i for i in range(len(EVENTS)) if i % N_OUTCOME in (DESCENDED, SOLVED))
assert EVENTS[0] == ""
