"""Floor guidance for the Guided Memory harness (`harness=guided_memory`, glyphjax/harness/guided.py):
one paragraph per floor of full Craftax (the package's levels 0-8) and one for Craftax-Classic's
single world, written by us from the package's rules (what the floor holds, what to prepare, how
to leave it)."""

from __future__ import annotations

FLOOR_NAMES = ("the overworld", "the dungeon", "the gnomish mines", "the sewers", "the vaults", "the troll mines",
               "the fire realm", "the ice realm", "the graveyard")

FLOOR_GUIDANCE = (
    # 0 overworld
    "Collect wood from trees, place a crafting table, make wood then stone tools; drink water, eat cows and "
    "sleep at night in an enclosed spot. Find coal and iron in the mountains (a furnace next to the table "
    "makes iron tools). The ladder down is in a cave; floors below need a sword, torches and food.",
    # 1 dungeon
    "Rooms joined by corridors; place torches where it is dark. Orc soldiers (melee) and orc mages "
    "(ranged): fight them one at a time in corridors and keep health up. Chests hold loot. Kill 8 "
    "monsters on this floor to open the ladder down.",
    # 2 gnomish mines
    "Dark mines with diamonds, sapphires and iron: mine with an iron pickaxe and light the way with "
    "torches. Gnome warriors and gnome archers attack; kill 8 to open the ladder down. Water and food "
    "are scarce: carry some.",
    # 3 sewers
    "Water channels with lizards (melee) and kobolds (they throw daggers). Drink from the water, keep "
    "armour on, and kill 8 monsters to open the ladder down.",
    # 4 vaults
    "Guarded rooms with knights (melee) and archers; a diamond sword and iron or better armour help. Open "
    "chests for potions and books; kill 8 monsters to open the ladder down.",
    # 5 troll mines
    "Dark caves with trolls (strong melee) and deep things (ranged); fight from range with a bow and arrows, "
    "retreat to heal. Rubies and diamonds are here; kill 8 monsters to open the ladder down.",
    # 6 fire realm
    "Lava everywhere: never step into it. Pigmen and fire elementals resist fire; use ice damage (ice "
    "enchantment, iceball). Kill 8 monsters to open the ladder down.",
    # 7 ice realm
    "Cold water and ice: frost trolls and ice elementals resist ice; use fire damage (fire enchantment, "
    "fireball). Kill 8 monsters to open the ladder down to the graveyard.",
    # 8 graveyard
    "The necromancer's floor: he can be hit only while vulnerable, between waves of summoned monsters. "
    "Clear each wave, hit him while vulnerable, and keep health, food and drink up.",
)

CLASSIC_GUIDANCE = (
    "Craftax-Classic has one world and no ladder. Collect wood, place a table, make wood then stone "
    "tools, then find coal and iron (a furnace next to the table makes iron tools) and diamonds. Drink "
    "water, eat cows, plant saplings and sleep at night somewhere enclosed; zombies come out in the dark.")


def floor_name(floor: int) -> str:
    if not 0 <= floor < len(FLOOR_NAMES):
        raise ValueError(f"Craftax has floors 0..{len(FLOOR_NAMES) - 1}, not {floor}")
    return FLOOR_NAMES[floor]


def floor_guidance(floor: int) -> str:
    floor_name(floor)  # checks the range
    return FLOOR_GUIDANCE[floor]
