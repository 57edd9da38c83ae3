"""The focused full-Craftax tasks as data (start-state patch + reward rule); see docs/suites/craftax.md.

Every task runs on the package's full engine for at most FULL_FOCUSED_MAX_STEPS turns and ends
as soon as its goal is reached or the player dies. Floors are the package's levels: 0 overworld,
1 dungeon, 2 gnomish mines, 3 sewers, 4 vaults, 5 troll mines, 6 fire realm, 7 ice realm,
8 graveyard. Offsets are (rows, cols) from the player.
"""

from __future__ import annotations

from glyphjax.suites.craftax.full_rules import FullTask as T
from glyphjax.suites.craftax.guidance import FLOOR_NAMES

IRON_ARMOUR, DIAMOND_ARMOUR = (1, 1, 1, 1), (2, 2, 2, 2)
_STONE_KIT = {"pickaxe": 2, "sword": 2, "stone": 20}
_IRON_KIT = {"pickaxe": 3, "sword": 3, "stone": 20}
_DIAMOND_SWORD = {"pickaxe": 3, "sword": 4, "stone": 20}
_DIAMOND_KIT = {"pickaxe": 4, "sword": 4, "bow": 1, "arrows": 20, "stone": 20}
_BOTH_SPELLS = (True, True)
_FLOOR_NAMES = FLOOR_NAMES
_DESCEND_PAY = "+1 when you descend to floor {n} ({name}); -1 if you die; either ends the episode."


def _floor(level: int, kit: str, **gear) -> T:
    """floor<L>: start at floor L's up-ladder with its ladder down open; find it and descend."""
    return T(f"floor{level}", f"You arrive on floor {level} ({_FLOOR_NAMES[level]}) with {kit} and 20 stone; its ladder down "
             f"is open (8 monsters counted as killed). Find the ladder down and descend.",
             _DESCEND_PAY.format(n=level + 1, name=_FLOOR_NAMES[level + 1]), {"floors_gained": 1}, level=level,
             open_floors=(level,), all_at_once=True, death_penalty=1.0, **gear)


FULL_TASKS: tuple[T, ...] = (
    T("reach-dungeon", "On the overworld with a stone pickaxe, a stone sword and 20 stone. Find the ladder down (its way "
      "is open) and descend into the dungeon.",
      "+1 when you enter the dungeon (floor 1); -1 if you die; either ends the episode.",
      {"ach_enter_dungeon": 1}, inventory=_STONE_KIT, all_at_once=True, death_penalty=1.0),
    _floor(1, "a stone pickaxe and a stone sword", inventory=_STONE_KIT),
    _floor(2, "an iron pickaxe, an iron sword and iron armour", inventory=_IRON_KIT, armour=IRON_ARMOUR),
    _floor(3, "iron tools, iron armour and both spells learned", inventory=_IRON_KIT, armour=IRON_ARMOUR,
           spells=_BOTH_SPELLS),
    _floor(4, "a diamond sword, iron armour and both spells", inventory={**_IRON_KIT, "sword": 4},
           armour=IRON_ARMOUR, spells=_BOTH_SPELLS),
    _floor(5, "diamond tools, diamond armour, a bow and 20 arrows", inventory=_DIAMOND_KIT, armour=DIAMOND_ARMOUR),
    _floor(6, "diamond tools and armour, a bow and both spells", inventory=_DIAMOND_KIT, armour=DIAMOND_ARMOUR,
           spells=_BOTH_SPELLS),
    _floor(7, "diamond tools and armour, a bow and both spells", inventory=_DIAMOND_KIT, armour=DIAMOND_ARMOUR,
           spells=_BOTH_SPELLS),
    T("dungeon-explore", "At the dungeon's up-ladder (floor 1) with iron tools and armour and 20 stone; its ladder down is open. "
      "Open a chest, then find the ladder down and descend.",
      "+1/2 the first time you open a chest and +1/2 when you descend to floor 2 (sums to +1; the episode ends "
      "with both).", {"ach_open_chest": 1, "floors_gained": 1}, level=1, open_floors=(1,),
      inventory=_IRON_KIT, armour=IRON_ARMOUR),
    T("dungeon-clear", "At the dungeon's up-ladder (floor 1) with a diamond sword, diamond armour and 20 stone; its ladder "
      "down is closed. "
      "Kill 8 monsters (the package's count that opens the ladder).",
      "+1/8 per monster killed on any floor, up to 8 (sums to +1); -1 if you die (ends the episode).",
      {"monsters_killed": 8}, level=1, inventory=_DIAMOND_SWORD, armour=DIAMOND_ARMOUR, death_penalty=1.0),
    T("fight-archers", "In the vaults (floor 4) with a diamond sword, diamond armour and 20 stone; 2 archers stand 3-6 cells "
      "away. Kill two ranged monsters.",
      "+1/2 per ranged monster killed, up to 2 (sums to +1); -1 if you die (ends the episode).",
      {"killed_ranged": 2}, level=4, mobs={"ranged": (2, 3, 6)}, inventory=_DIAMOND_SWORD, armour=DIAMOND_ARMOUR,
      death_penalty=1.0),
    T("fight-bats", "In the gnomish mines (floor 2) with a stone sword, iron armour and 20 stone; 3 bats flutter 2-5 cells away. Kill three "
      "passive creatures (bats).",
      "+1/3 per passive creature killed, up to 3 (sums to +1); -1 if you die (ends the episode).",
      {"killed_passive": 3}, level=2, mobs={"passive": (3, 2, 5)}, inventory=_STONE_KIT, armour=IRON_ARMOUR,
      death_penalty=1.0),
    T("fight-kobolds", "In the sewers (floor 3) with a diamond sword, diamond armour and 20 stone; 2 kobolds throw daggers from "
      "3-6 cells away. Kill two ranged monsters.",
      "+1/2 per ranged monster killed, up to 2 (sums to +1); -1 if you die (ends the episode).",
      {"killed_ranged": 2}, level=3, mobs={"ranged": (2, 3, 6)}, inventory=_DIAMOND_SWORD, armour=DIAMOND_ARMOUR,
      death_penalty=1.0),
    T("speedrun", "At the dungeon's up-ladder (floor 1) with diamond gear and 20 stone; the ladders of floors 1-4 are open. "
      "Descend as deep as you can, down to floor 5.",
      "+1/4 per floor gained below floor 1, up to floor 5 (sums to +1); -1 if you die (ends the episode).",
      {"floors_gained": 4}, level=1, open_floors=(1, 2, 3, 4), inventory=_DIAMOND_KIT, armour=DIAMOND_ARMOUR,
      death_penalty=1.0),
    T("enchant-sword", "On the overworld with an iron sword, 1 ruby and full mana (9); a fire enchantment table "
      "stands to your right. Enchant your sword.",
      "+1 when you enchant your sword; the episode ends.", {"ach_enchant_sword": 1},
      fixed=((0, 1, "ENCHANTMENT_TABLE_FIRE"),), inventory={"sword": 3, "ruby": 1}, all_at_once=True),
    T("enchant-armour", "On the overworld in iron armour with 1 sapphire and full mana (9); an ice enchantment "
      "table stands to your left. Enchant a piece of armour.",
      "+1 when you enchant a piece of armour; the episode ends.", {"ach_enchant_armour": 1},
      fixed=((0, -1, "ENCHANTMENT_TABLE_ICE"),), inventory={"sapphire": 1}, armour=IRON_ARMOUR, all_at_once=True),
    T("drink-potions", "On the overworld holding one potion of each of the 6 colours (their effects are shuffled "
      "every episode). Drink three potions.",
      "+1/3 per potion drunk, up to 3 (sums to +1).", {"potions_drunk": 3}, potions=(1,) * 6),
    T("read-and-cast", "On the overworld with 1 book and full mana. Read the book to learn a spell, then cast it.",
      "+1/2 for learning a spell and +1/2 for casting one (sums to +1).",
      {"spells_learned": 1, "spells_cast": 1}, inventory={"books": 1}),
    T("light-the-mines", "In the dark troll mines (floor 5) with diamond gear, 20 stone and 4 torches. Light the way: "
      "place 3 torches.",
      "+1/3 per torch placed, up to 3 (sums to +1); -1 if you die (ends the episode).",
      {"torches_placed": 3}, level=5, inventory={**_DIAMOND_KIT, "torches": 4}, armour=DIAMOND_ARMOUR,
      death_penalty=1.0),
)
