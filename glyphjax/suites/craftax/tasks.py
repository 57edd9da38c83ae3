"""The focused Craftax-Classic tasks as data (start state + reward rule); see docs/suites/craftax.md.

Every task runs on the package's Classic engine for at most FOCUSED_MAX_STEPS turns and ends as
soon as its goal is reached or the player dies. Offsets are (rows, cols) from the player, who
starts at the arena's centre facing up (offset (-1, 0) is the faced cell).
"""

from __future__ import annotations

from glyphjax.suites.craftax.engine import CLASSIC_ACHIEVEMENTS
from glyphjax.suites.craftax.rules import ClassicTask as T

_RESOURCES = (("TREE", 10, 2, 8), ("STONE", 12, 3, 9), ("COAL", 4, 4, 10), ("IRON", 3, 5, 11),
              ("WATER", 6, 4, 10), ("DIAMOND", 1, 8, 12))
_NIGHT = 150  # Craftax time at which dusk falls (light < 0.5 until t = 270 on a 300-turn day)

CLASSIC_TASKS: tuple[T, ...] = (
    T("choptrees", "A meadow with trees. Collect 5 wood.",
      "+1/5 per wood collected, up to 5 (sums to +1; the episode ends at 5).",
      {"got_wood": 5}, scatter=(("TREE", 12, 2, 6),)),
    T("craftpickaxe", "You hold 1 wood and stand next to a crafting table. Craft a wood pickaxe.",
      "+1 when you craft a wood pickaxe; the episode ends.", {"got_wood_pickaxe": 1}, all_at_once=True,
      fixed=((0, 1, "CRAFTING_TABLE"),), inventory={"wood": 1}),
    T("craftsword", "You hold 2 wood and 1 stone next to a crafting table and a furnace. Craft a stone sword.",
      "+1 when you craft a stone sword; the episode ends.", {"got_stone_sword": 1}, all_at_once=True,
      fixed=((0, 1, "CRAFTING_TABLE"), (0, -1, "FURNACE")), inventory={"wood": 2, "stone": 1}),
    T("craft-ironset", "You hold a wood and a stone pickaxe beside a table and a furnace, with trees, stone, "
      "coal and iron nearby. Craft an iron pickaxe and an iron sword.",
      "+1/2 for the first iron pickaxe and +1/2 for the first iron sword crafted; the episode ends with both.",
      {"got_iron_pickaxe": 1, "got_iron_sword": 1}, fixed=((0, 2, "CRAFTING_TABLE"), (2, 2, "FURNACE")),
      scatter=(("TREE", 6, 2, 5), ("STONE", 8, 2, 5), ("COAL", 4, 2, 6), ("IRON", 4, 2, 6)),
      inventory={"wood_pickaxe": 1, "stone_pickaxe": 1}),
    T("craftchain", "Empty-handed near trees, stone and a crafting table. Craft a wood pickaxe, mine stone, "
      "then craft a stone sword.",
      "+1/3 for each first-time milestone: make a wood pickaxe, collect stone, make a stone sword.",
      {"ach_make_wood_pickaxe": 1, "ach_collect_stone": 1, "ach_make_stone_sword": 1},
      fixed=((0, 2, "CRAFTING_TABLE"),), scatter=(("TREE", 8, 2, 5), ("STONE", 8, 2, 6))),
    T("minestone", "You hold a wood pickaxe; stone lies all around. Mine 5 stone.",
      "+1/5 per stone mined, up to 5 (sums to +1).", {"got_stone": 5},
      scatter=(("STONE", 14, 1, 5),), inventory={"wood_pickaxe": 1}),
    T("mine-iron", "You hold a stone pickaxe with iron ore on all four sides. Mine 3 iron.",
      "+1/3 per iron mined, up to 3 (sums to +1).", {"got_iron": 3}, inventory={"stone_pickaxe": 1},
      fixed=((-1, 0, "IRON"), (1, 0, "IRON"), (0, -1, "IRON"), (0, 1, "IRON"))),
    T("find-diamond", "You hold an iron pickaxe; one diamond lies 6-12 cells away among stone. Find and mine it.",
      "+1 when you mine a diamond; the episode ends.", {"got_diamond": 1}, all_at_once=True,
      scatter=(("DIAMOND", 1, 6, 12), ("STONE", 20, 2, 12)), inventory={"iron_pickaxe": 1}),
    T("find-water", "A desert, thirsty (drink 3/9); a pond lies 7-12 cells away. Find it and drink.",
      "+1 the first time you drink; the episode ends.", {"drink_gained": 1}, all_at_once=True, base="SAND",
      scatter=(("WATER", 6, 7, 12),), vitals=(9, 9, 3, 9)),
    T("fight-cow", "You hold a wood sword; a cow grazes nearby. Kill it.",
      "+1 when you kill the cow; the episode ends.", {"killed_cow": 1}, all_at_once=True,
      mobs={"cow": (1, 2, 4)}, inventory={"wood_sword": 1}),
    T("fightzombie", "You hold a stone sword; a zombie is 3-5 cells away. Kill it without dying.",
      "+1 when you kill the zombie; -1 if you die; either ends the episode.", {"killed_zombie": 1},
      all_at_once=True, death_penalty=1.0, mobs={"zombie": (1, 3, 5)}, inventory={"stone_sword": 1}),
    T("fight-zombies", "You hold a stone sword; 3 zombies are 3-7 cells away. Kill them all.",
      "+1/3 per zombie killed (sums to +1 when all are dead).", {"killed_zombie": 3},
      mobs={"zombie": (3, 3, 7)}, inventory={"stone_sword": 1}),
    T("fight-skeletons", "In a dim cave you hold an iron sword; 2 skeletons shoot arrows. Kill both.",
      "+1/2 per skeleton killed (sums to +1 when both are dead).", {"killed_skeleton": 2}, base="PATH",
      scatter=(("STONE", 20, 2, 12),), mobs={"skeleton": (2, 3, 6)}, inventory={"iron_sword": 1}),
    T("survivehorde", "You hold an iron sword; 3 zombies and 2 skeletons close in. Kill all five.",
      "+1/5 per mob killed; -1 if you die (ends the episode).", {"killed_zombie": 3, "killed_skeleton": 2},
      death_penalty=1.0, mobs={"zombie": (3, 3, 6), "skeleton": (2, 4, 7)}, inventory={"iron_sword": 1}),
    T("survive-hunger", "Hungry (food 2/9) with cows 7-12 cells away. Stay alive 100 turns and eat.",
      "+1 once you have survived 100 turns and eaten at least once; the episode then ends.",
      {"turns_survived": 100, "food_gained": 1}, all_at_once=True, vitals=(9, 2, 9, 9),
      mobs={"cow": (3, 7, 12)}, scatter=(("TREE", 6, 3, 10),)),
    T("survive-thirst", "Thirsty (drink 2/9) with water 7-12 cells away. Stay alive 100 turns and drink.",
      "+1 once you have survived 100 turns and drunk at least once (waiting alone cannot win); the episode "
      "then ends.", {"turns_survived": 100, "drink_gained": 1}, all_at_once=True, vitals=(9, 9, 2, 9),
      scatter=(("WATER", 4, 7, 12), ("TREE", 6, 3, 10))),
    T("survive-night", "Dusk falls (Craftax time 150); zombies spawn in the dark. You hold a stone sword. "
      "Survive the 120 turns until dawn.",
      "+1 once you have survived 120 turns (dawn); the episode then ends.", {"turns_survived": 120},
      all_at_once=True, start_time=_NIGHT, spawns=True, inventory={"stone_sword": 1},
      scatter=(("TREE", 8, 3, 10), ("STONE", 8, 3, 10))),
    T("survive-wild", "Start with nothing on day 1 in a varied meadow (mobs spawn as usual). Stay alive.",
      "+1/200 per turn survived, up to 200 turns (sums to +1; the episode then ends).",
      {"turns_survived": 200}, spawns=True, scatter=_RESOURCES, mobs={"cow": (2, 4, 10)}),
    T("gatherresources", "Empty-handed near trees, stone and a crafting table. Collect 3 wood and 3 stone "
      "(stone needs a wood pickaxe).", "+1/6 per wood or stone collected, up to 3 of each (sums to +1).",
      {"got_wood": 3, "got_stone": 3}, fixed=((0, 2, "CRAFTING_TABLE"),),
      scatter=(("TREE", 8, 2, 5), ("STONE", 8, 2, 6))),
    T("iron-bootstrap", "Empty-handed in a meadow with one cluster of trees, stone, coal and iron. Walk the "
      "bootstrap chain up to iron.", "+1/7 per first-time milestone: collect wood, place a table, make a wood "
      "pickaxe, collect stone, place a furnace, make a stone pickaxe, collect iron (sums to +1).",
      {f"ach_{a}": 1 for a in ("collect_wood", "place_table", "make_wood_pickaxe", "collect_stone",
                               "place_furnace", "make_stone_pickaxe", "collect_iron")},
      scatter=(("TREE", 6, 2, 4), ("STONE", 10, 3, 6), ("COAL", 3, 3, 7), ("IRON", 3, 4, 8))),
    T("diamond-bootstrap", "As iron-bootstrap, plus diamonds 6-10 cells away: climb the tool tree to a diamond.",
      "+1/9 per first-time milestone: collect wood, place a table, make a wood pickaxe, collect stone, place "
      "a furnace, make a stone pickaxe, collect iron, make an iron pickaxe, collect a diamond (sums to +1).",
      {f"ach_{a}": 1 for a in ("collect_wood", "place_table", "make_wood_pickaxe", "collect_stone",
                               "place_furnace", "make_stone_pickaxe", "collect_iron", "make_iron_pickaxe",
                               "collect_diamond")},
      scatter=(("TREE", 8, 2, 4), ("STONE", 12, 3, 6), ("COAL", 4, 3, 7), ("IRON", 4, 4, 8),
               ("DIAMOND", 2, 6, 10))),
    T("plant-farm", "A garden with 5 ripe plants; you hold 4 saplings. Plant a sapling and eat 3 ripe plants.",
      "+1/4 for planting your first sapling and +1/4 per ripe plant eaten, up to 3 (sums to +1).",
      {"ach_place_plant": 1, "plants_eaten": 3}, scatter=(("RIPE_PLANT", 5, 2, 6),), inventory={"sapling": 4}),
    T("build-shelter", "You hold 10 stone at a pond: water lies left, right and below you. Wall yourself in "
      "with stone on all four sides (stone can be placed on water).",
      "+1 once all four cells next to you are stone; the episode ends.", {"stone_around": 4},
      all_at_once=True, fixed=((0, -1, "WATER"), (0, 1, "WATER"), (1, 0, "WATER")), inventory={"stone": 10}),
    T("firstday", "Start with nothing in a varied meadow on day 1 (mobs spawn as usual). Unlock as many "
      "achievements as you can.", "+1/22 the first time each of the 22 achievements is unlocked.",
      {f"ach_{a.lower()}": 1 for a in CLASSIC_ACHIEVEMENTS},
      spawns=True, open_ended=True, scatter=_RESOURCES, mobs={"cow": (2, 4, 10)}),
    T("night-defense", "Dusk falls; zombies spawn in the dark. You hold an iron sword and 6 stone for walls. "
      "Kill 4 zombies.", "+1/4 per zombie killed, up to 4 (sums to +1); -1 if you die (ends the episode).",
      {"killed_zombie": 4}, death_penalty=1.0, start_time=_NIGHT, spawns=True,
      inventory={"iron_sword": 1, "stone": 6}, scatter=(("TREE", 6, 3, 10),)),
    # --- designed here from the same mechanics (not in the GlyphBench catalogue) ---
    T("collect-sapling", "A bare meadow. Search the grass for a sapling (DO on grass finds one 1 time in 10).",
      "+1 when you collect a sapling; the episode ends.", {"got_sapling": 1}, all_at_once=True),
    T("place-table", "Empty-handed among trees. Collect wood and place a crafting table (2 wood).",
      "+1/2 for collecting wood the first time and +1/2 for placing a table (sums to +1).",
      {"ach_collect_wood": 1, "ach_place_table": 1}, scatter=(("TREE", 8, 2, 5),)),
    T("wood-sword", "Empty-handed among trees, next to a crafting table. Craft a wood sword.",
      "+1 when you craft a wood sword; the episode ends.", {"got_wood_sword": 1}, all_at_once=True,
      fixed=((0, 1, "CRAFTING_TABLE"),), scatter=(("TREE", 8, 2, 5),)),
    T("stone-pickaxe", "You hold a wood pickaxe next to a crafting table, among trees and stone. Craft a stone "
      "pickaxe.", "+1 when you craft a stone pickaxe; the episode ends.", {"got_stone_pickaxe": 1},
      all_at_once=True, fixed=((0, 1, "CRAFTING_TABLE"),), inventory={"wood_pickaxe": 1},
      scatter=(("TREE", 6, 2, 5), ("STONE", 8, 2, 5))),
    T("craft-ironsword", "You hold 3 wood, 2 stone, 1 coal and 1 iron between a crafting table and a furnace. "
      "Craft an iron sword.", "+1 when you craft an iron sword; the episode ends.", {"got_iron_sword": 1},
      all_at_once=True, fixed=((0, 1, "CRAFTING_TABLE"), (0, -1, "FURNACE")),
      inventory={"wood": 3, "stone": 2, "coal": 1, "iron": 1}),
    T("mine-coal", "You hold a wood pickaxe; coal ore lies among stone nearby. Mine 3 coal.",
      "+1/3 per coal mined, up to 3 (sums to +1).", {"got_coal": 3}, inventory={"wood_pickaxe": 1},
      scatter=(("COAL", 5, 2, 7), ("STONE", 10, 2, 7))),
    T("coal-and-iron", "You hold a stone pickaxe; coal and iron lie nearby. Mine 2 coal and 2 iron.",
      "+1/4 per coal or iron mined, up to 2 of each (sums to +1).", {"got_coal": 2, "got_iron": 2},
      inventory={"stone_pickaxe": 1, "wood_pickaxe": 1}, scatter=(("COAL", 4, 2, 7), ("IRON", 4, 3, 8))),
    T("diamond-dig", "You hold an iron pickaxe; 3 diamonds lie 3-8 cells away among stone. Mine all three.",
      "+1/3 per diamond mined, up to 3 (sums to +1).", {"got_diamond": 3}, inventory={"iron_pickaxe": 1},
      scatter=(("DIAMOND", 3, 3, 8), ("STONE", 12, 2, 8))),
    T("lava-field", "You hold an iron pickaxe; a diamond lies 5-9 cells away across a field of lava. Mine it "
      "without stepping into lava.", "+1 when you mine the diamond; -1 if you die (lava kills at once); "
      "either ends the episode.", {"got_diamond": 1}, all_at_once=True, death_penalty=1.0,
      inventory={"iron_pickaxe": 1}, scatter=(("DIAMOND", 1, 5, 9), ("LAVA", 24, 2, 9))),
    T("cow-hunt", "You hold a wood sword; 2 cows graze 2-6 cells away. Kill both.",
      "+1/2 per cow killed (sums to +1 when both are dead).", {"killed_cow": 2}, mobs={"cow": (2, 2, 6)},
      inventory={"wood_sword": 1}),
    T("drink-fill", "Thirsty (drink 4/9) beside a pond. Drink until your water is full.",
      "+1/5 per point of drink gained, up to 5 (sums to +1 at full water).", {"drink_gained": 5},
      vitals=(9, 9, 4, 9), scatter=(("WATER", 5, 1, 3),)),
    T("eat-fill", "Hungry (food 3/9) with 2 cows nearby; a cow fills 6 food. Eat until your food is full.",
      "+1/6 per point of food gained, up to 6 (sums to +1 at full food).", {"food_gained": 6},
      vitals=(9, 3, 9, 9), mobs={"cow": (2, 2, 6)}),
    T("wake-up", "Night, exhausted (energy 1/9), no monsters about. Sleep until you wake rested.",
      "+1 when you wake up after sleeping; the episode ends.", {"ach_wake_up": 1}, all_at_once=True,
      vitals=(9, 9, 9, 1), start_time=180),
    T("skeleton-duel", "In a cave you hold an iron sword; one skeleton shoots from 3-6 cells away. Kill it.",
      "+1 when you kill the skeleton; -1 if you die; either ends the episode.", {"killed_skeleton": 1},
      all_at_once=True, death_penalty=1.0, base="PATH", scatter=(("STONE", 16, 2, 12),),
      mobs={"skeleton": (1, 3, 6)}, inventory={"iron_sword": 1}),
    T("tool-rack", "Empty-handed near trees, stone and a crafting table. Craft a wood pickaxe, a wood sword, a "
      "stone pickaxe and a stone sword.", "+1/4 per first-time tool crafted (sums to +1 with all four).",
      {"ach_make_wood_pickaxe": 1, "ach_make_wood_sword": 1, "ach_make_stone_pickaxe": 1,
       "ach_make_stone_sword": 1}, fixed=((0, 2, "CRAFTING_TABLE"),),
      scatter=(("TREE", 8, 2, 5), ("STONE", 10, 2, 6))),
    T("garden", "A bare meadow; you hold 2 saplings. Plant one, then find another sapling in the grass.",
      "+1/2 for planting a sapling and +1/2 for collecting a new one (sums to +1).",
      {"ach_place_plant": 1, "ach_collect_sapling": 1}, inventory={"sapling": 2}),
)
