"""The task families as host-side layouts (`levels.Layout`) and their declarations.

Sizes follow the GlyphBench catalogue (grid r x c including walls). Where a GlyphBench level
could not test its skill (or was unsolvable) the layout differs; each difference is said in the
task's rules text and in docs/suites/minihack.md.
"""

from __future__ import annotations

from typing import Callable

from glyphjax.suites.minihack import constants as C
from glyphjax.suites.minihack.levels import Layout

ROOM_MONSTERS = (C.RAT, C.KOBOLD, C.ORC, C.RAT, C.KOBOLD)


def room(size: int, random_start: bool, dark: bool, monsters: bool, traps: bool) -> Layout:
    lay = Layout(size + 2, size + 2).room(1, 1, size, size)
    interior = lay.floor()
    lay.start_mask = interior if random_start else lay.at(1, 1)
    lay.stairs_mask = interior
    if traps:
        lay.trap_mask, lay.n_traps = interior, ((2, 3) if size <= 5 else (5, 8))
    if monsters:
        lay.monster_mask, lay.n_monsters = interior, ((1, 2) if size <= 5 else (3, 5))
        lay.monster_kinds = list(ROOM_MONSTERS)
    lay.dark = dark
    return lay


def corridor(n_rooms: int) -> Layout:
    """Rooms of 5x5 floor in a row, joined by 3-cell corridors # through doorways on row 3."""
    w = n_rooms * 7 + (n_rooms - 1) * 3
    lay = Layout(7, w)
    for i in range(n_rooms):
        lay.room(1, 1 + i * 10, 5, 5)
    for i in range(n_rooms - 1):
        c0 = 6 + i * 10
        lay.terrain[3, c0] = lay.terrain[3, c0 + 4] = C.FLOOR  # doorways
        lay.terrain[3, c0 + 1:c0 + 4] = C.CORRIDOR
    lay.start_mask = lay.at(3, 3)
    lay.stairs_mask = lay.at(3, 3 + (n_rooms - 1) * 10)
    return lay


def memento(n_rooms: int, n_floors: int) -> Layout:
    """Rooms of 5x5 floor in a row, each pair sharing a wall with a doorway on the middle row;
    you start in the first room, the stairs lie in the last; every floor is drawn afresh."""
    lay = Layout(7, 6 * n_rooms + 1)
    for i in range(n_rooms):
        lay.room(1, 1 + 6 * i, 5, 5)
    for i in range(1, n_rooms):
        lay.terrain[3, 6 * i] = C.FLOOR
    lay.start_mask[1:6, 1:6] = True
    lay.stairs_mask[1:6, 6 * n_rooms - 5:6 * n_rooms] = True
    lay.n_floors = n_floors
    return lay


def corridor_battle(dark: bool) -> Layout:
    lay = Layout(5, 15)
    lay.terrain[:] = C.WALL
    lay.terrain[2, 1:14] = C.FLOOR
    lay.start_mask, lay.stairs_mask = lay.at(2, 1), lay.at(2, 13)
    lay.monster_mask[2, 3:12] = True
    lay.n_monsters, lay.monster_kinds = (4, 4), [C.RAT, C.KOBOLD, C.ORC, C.RAT]
    lay.dark = dark
    return lay


def key_room(size: int, dark: bool) -> Layout:
    """A partition wall splits the room; its door is locked and the key lies on your side."""
    lay = Layout(size + 2, size + 2).room(1, 1, size, size)
    mid, part = (size + 2) // 2, (size + 2) // 2
    lay.terrain[1:size + 1, part] = C.WALL
    lay.terrain[mid, part] = C.DOOR_LOCKED
    lay.start_mask, lay.stairs_mask = lay.at(mid, 1), lay.at(mid, size)
    lay.rand_item, lay.rand_item_mask = C.KEY, lay.floor() & ~lay.at(mid, 1)
    lay.rand_item_mask[:, part:] = False
    lay.dark = dark
    return lay


def maze_walk(rows: int, cols: int, mapped: bool) -> Layout:
    lay = Layout(rows, cols)
    lay.maze_cells = ((rows - 1) // 2, (cols - 1) // 2)
    lay.terrain[:] = C.WALL
    lay.start_mask, lay.stairs_mask = lay.at(1, 1), lay.at(rows - 2, cols - 2)
    lay.dark, lay.mapped = True, mapped
    return lay


def river(lava: bool, stones: int, monsters: bool) -> Layout:
    lay = Layout(7, 11).room(1, 1, 5, 9)
    lay.terrain[3, 1:10] = C.LAVA if lava else C.WATER
    lay.stone_mask[3, 1:10] = True
    lay.n_stones = stones
    lay.start_mask[1, 1:10] = True
    lay.stairs_mask[5, 1:10] = True
    if monsters:
        lay.monster_mask[4:6, 1:10] = True
        lay.n_monsters, lay.monster_kinds = (2, 2), [C.KOBOLD, C.ORC]
    return lay


def lava_cross(potion_floor: bool, ring_floor: bool, potion_inv: bool, ring_inv: bool) -> Layout:
    lay = Layout(7, 11).room(1, 1, 5, 9)
    lay.terrain[1:6, 4:7] = C.LAVA
    lay.start_mask, lay.stairs_mask = lay.at(3, 1), lay.at(3, 9)
    if potion_floor:
        lay.items[3, 2] = C.POTION_LEVITATION
    if ring_floor:
        lay.items[1, 2] = C.RING_LEVITATION
    if potion_inv:
        lay.inv[C.POTION_LEVITATION] = 1
    if ring_inv:
        lay.inv[C.RING_LEVITATION] = 1
    return lay


def hide_and_seek(size: int, lava: bool, mapped: bool) -> Layout:
    """Walls every third column (one gap each, on the middle row) split a dark room; a kobold
    waits in the middle. Lava never falls in the first or last column you must use."""
    lay = Layout(size, size).room(1, 1, size - 2, size - 2)
    for c in range(2, size - 2, 3):
        lay.terrain[1:size - 1, c] = C.WALL
        lay.terrain[size // 2, c] = C.FLOOR
    if lava:
        for r in (2, size - 3):
            lay.lava_mask[r, 2:size - 2] = True
        lay.lava_prob = 0.3
    lay.start_mask, lay.stairs_mask = lay.at(1, 1), lay.at(size - 2, size - 2)
    lay.fixed = [(size // 2, size // 2, C.KOBOLD)]
    lay.dark, lay.mapped = True, mapped
    return lay


def skill_room() -> Layout:
    lay = Layout(7, 7).room(1, 1, 5, 5)
    lay.start_mask, lay.stairs_mask = lay.at(1, 1), lay.at(5, 5)
    return lay


def skill(name: str, distract: bool) -> Layout:
    lay = skill_room()
    if name == "eat":
        lay.items[2, 2] = C.FOOD_RATION
        lay.hunger_on, lay.hunger = True, 4
        extra = ((4, 2, C.SCROLL_LIGHT), (2, 4, C.POTION_SPEED))
    elif name == "pray":
        lay.terrain[1:6, 3] = C.WALL
        lay.terrain[3, 3] = C.TRAP
        lay.hp = 1
        extra = ((2, 2, C.SCROLL_LIGHT), (4, 2, C.POTION_SPEED))
    elif name == "quaff":
        lay.items[1, 2] = C.POTION_HEALING
        lay.fixed = [(4, 4, C.KOBOLD)]
        lay.hp = 3
        extra = ((4, 1, C.SCROLL_LIGHT),)
    elif name == "read":
        lay.terrain[1:6, 3] = C.WALL
        lay.items[2, 2] = C.SCROLL_TELEPORT
        lay.teleport_mask[1:6, 4:6] = True
        lay.teleport_mask[5, 5] = False
        extra = ((3, 1, C.APPLE), (4, 2, C.POTION_SPEED))
    elif name == "sink":
        lay.terrain[3, 3] = C.SINK
        extra = ((2, 2, C.SCROLL_LIGHT), (4, 4, C.POTION_SPEED))
    elif name == "wield":
        lay.items[1, 2] = C.LONG_SWORD
        lay.fixed = [(3, 4, C.KOBOLD), (4, 4, C.KOBOLD)]
        extra = ((4, 1, C.SCROLL_LIGHT), (1, 3, C.POTION_SPEED))
    else:
        raise ValueError(f"unknown skill {name!r}")
    if distract:
        for r, c, item in extra:
            lay.items[r, c] = item
    return lay


def wand_of_death(n_monsters: int, distractors: bool, dark: bool) -> Layout:
    lay = Layout(9, 9).room(1, 1, 7, 7)
    lay.start_mask, lay.stairs_mask = lay.at(4, 1), lay.at(4, 7)
    lay.rand_item = C.WAND_DEATH
    lay.rand_item_mask[1:8, 2:5] = True
    if distractors:
        lay.items[2, 3], lay.items[6, 3] = C.WAND_FIRE, C.WAND_COLD
    lay.monster_mask[1:8, 5:7] = True
    lay.n_monsters = (n_monsters, n_monsters)
    lay.monster_kinds = [C.KOBOLD, C.ORC, C.ZOMBIE, C.OGRE][:n_monsters]
    lay.dark = dark
    return lay


def boxoban(size: int, boulders: int, steps: int) -> Layout:
    """A lit room; boulders scattered from the fountains by a reverse walk (levels.boxoban_walk)."""
    lay = Layout(size + 2, size + 2).room(1, 1, size, size)
    lay.start_mask = lay.floor()
    lay.boulder_mask = lay.floor()
    lay.boulder_mask[1, :] = lay.boulder_mask[-2, :] = False  # no fountain against a wall:
    lay.boulder_mask[:, 1] = lay.boulder_mask[:, -2] = False  # the walk could not pull it out
    lay.n_boulders, lay.pull_steps = boulders, steps
    return lay


# --- rules text ----------------------------------------------------------------------------------
GOAL = "Reach the staircase down >. "
SKILL_RULES = {
    "eat": ("You are starving: nutrition starts at 4 and drops by 1 each turn; at 0 you starve. "
            "PICKUP the food ration % and EAT it (+50 nutrition), then reach the stairs > (the "
            "walk alone is too long). "),
    "pray": ("You have 1 HP and the only gap in the wall holds a trap ^ (1-3 damage). PRAY first "
             "(it heals you fully), then cross and reach the stairs >. "),
    "quaff": ("You have 3 HP and a kobold guards the stairs >. PICKUP the potion of healing ! "
              "next to you and QUAFF it, then fight through. "),
    "read": ("A wall cuts the room in two; the stairs > are beyond it. PICKUP the scroll of "
             "teleportation ? and READ it: it takes you to a random spot beyond the wall. "),
    "sink": "A room with a sink ⊔ (QUAFF there without a potion to drink from it). " + GOAL,
    "wield": ("Two kobolds guard the stairs >. PICKUP the long sword ) and WIELD it (6-10 damage "
              "instead of 1-4), then fight through. "),
}
DISTRACT = "Other items lie around as distractions. "


def declarations(task: Callable) -> list:
    """Every declared task as task(name, canvas, build, rules[, max_steps])."""
    out = []
    for size, canvas in ((5, "small"), (15, "large")):
        s = f"{size}x{size}"
        out += [task(f"room-{s}", canvas, lambda n=size: room(n, False, False, False, False),
                     GOAL + f"A lit {s} room; you start in its top-left corner, the stairs are random. "),
                task(f"room-random-{s}", canvas, lambda n=size: room(n, True, False, False, False),
                     GOAL + f"A lit {s} room; start and stairs are random. "),
                task(f"room-dark-{s}", canvas, lambda n=size: room(n, True, True, False, False),
                     GOAL + f"A dark {s} room; start and stairs are random. "),
                task(f"room-monster-{s}", canvas, lambda n=size: room(n, True, False, True, False),
                     GOAL + f"A lit {s} room with {'1-2' if size == 5 else '3-5'} hostile monsters. "),
                task(f"room-trap-{s}", canvas, lambda n=size: room(n, True, False, False, True),
                     GOAL + f"A lit {s} room with {'2-3' if size == 5 else '5-8'} traps ^. "),
                task(f"room-ultimate-{s}", canvas, lambda n=size: room(n, True, True, True, True),
                     GOAL + f"A dark {s} room with monsters and traps. ")]
    for n in (2, 3, 5):
        out.append(task(f"corridor-r{n}", "corridor", lambda n=n: corridor(n),
                        GOAL + f"{n} rooms joined by corridors #; the stairs are in the last room. "))
    for name, n_rooms, n_floors in (("memento-short", 2, 1), ("memento-hard", 4, 1), ("memento-f2", 3, 2),
                                    ("memento-f4", 3, 4)):
        floors = (f"There are {n_floors} dungeon levels: the stairs of each lead down to a fresh one (no "
                  f"reward) until those of level {n_floors} end the episode (+1). " if n_floors > 1 else "")
        out.append(task(name, "memento", lambda a=n_rooms, b=n_floors: memento(a, b),
                        GOAL + f"{n_rooms} lit rooms in a row joined by doorways; you start somewhere in the "
                        "first room, the stairs are somewhere in the last. " + floors, 500))
    for dark in (False, True):
        out.append(task("corridorbattle" + "-dark" * dark, "medium", lambda d=dark: corridor_battle(d),
                        GOAL + "A one-cell corridor holds a rat, a kobold, an orc and a rat between "
                        "you and the stairs: fight through." + (" It is dark." if dark else "")))
    for size, canvas in ((5, "small"), (15, "large")):
        for dark in (False, True):
            out.append(task(f"keyroom{'-dark' * dark}-s{size}", canvas, lambda n=size, d=dark: key_room(n, d),
                            GOAL + "The stairs are behind a locked door +. PICKUP the skeleton key ( "
                            "on your side, then walk into the door to unlock it." + (" It is dark." if dark else "")))
    for rows, cols, canvas in ((9, 9, "medium"), (15, 15, "large"), (19, 45, "maze45")):
        for mapped in (False, True):
            name = f"mazewalk{'-mapped' * mapped}-{cols}x{rows}"
            out.append(task(name, canvas, lambda r=rows, c=cols, m=mapped: maze_walk(r, c, m),
                            GOAL + "A dark maze; you start top-left, the stairs are bottom-right. "
                            + ("The whole map is known from the start. " if mapped else "")))
    river_kinds = (("river", False, 3, False), ("river-narrow", False, 1, False), ("river-lava", True, 3, False),
                   ("river-monster", False, 3, True), ("river-monsterlava", True, 3, True))
    for name, lava, stones, mon in river_kinds:
        out.append(task(name, "medium", lambda lv=lava, s=stones, m=mon: river(lv, s, m),
                        GOAL + f"A river of {'lava ♨' if lava else 'water ≈'} crosses the room; "
                        f"{stones} stepping stone{'s' * (stones > 1)} (floor) cross it. "
                        + ("A kobold and an orc wait on the far side. " if mon else "")))
    lava_kinds = (("lavacross-full", True, True, False, False), ("lavacross-levitate", True, False, False, False),
                  ("lavacross-levitate-potion-inv", False, False, True, False),
                  ("lavacross-levitate-ring-inv", False, False, False, True))
    for name, pf, rf, pi, ri in lava_kinds:
        out.append(task(name, "medium", lambda a=pf, b=rf, c=pi, d=ri: lava_cross(a, b, c, d),
                        GOAL + "A lava pit ♨ three cells wide blocks the way. Levitate over it: QUAFF a "
                        "potion of levitation (20 turns) or APPLY a ring of levitation (while worn)"
                        + (" - you carry one" if pi or ri else " - it lies on the floor") + ". "))
    for name, size, lava, mapped, canvas in (("hidenseek", 9, False, False, "medium"),
                                             ("hidenseek-mapped", 9, False, True, "medium"),
                                             ("hidenseek-lava", 9, True, False, "medium"),
                                             ("hidenseek-big", 15, False, False, "large")):
        out.append(task(name, canvas, lambda s=size, lv=lava, m=mapped: hide_and_seek(s, lv, m),
                        GOAL + "A dark room split by walls with one gap each; a kobold lurks inside. "
                        + ("Some cells are lava ♨. " if lava else "")
                        + ("The whole map is known from the start. " if mapped else "")))
    for sk in ("eat", "pray", "quaff", "read", "sink", "wield"):
        for distract in (False, True):
            out.append(task(sk + "-distract" * distract, "small", lambda k=sk, d=distract: skill(k, d),
                            SKILL_RULES[sk] + (DISTRACT if distract else "")))
    for name, n, distr, dark in (("wod-easy", 1, False, False), ("wod-medium", 2, False, False),
                                 ("wod-hard", 3, True, False), ("wod-pro", 4, True, True)):
        out.append(task(name, "medium", lambda a=n, b=distr, c=dark: wand_of_death(a, b, c),
                        GOAL + f"{n} monster{'s' * (n > 1)} stand between you and the stairs. A wand of "
                        "death / lies on a random cell near you: PICKUP it and ZAP (4 charges)."
                        + (" A wand of fire and a wand of cold lie there too (ZAP uses the one picked "
                           "up last)." if distr else "") + (" It is dark." if dark else "")))
    for name, size, n, steps, canvas in (("boxoban-medium", 5, 2, 48, "small"), ("boxoban-hard", 7, 3, 64, "medium"),
                                         ("boxoban-unfiltered", 7, 3, 24, "medium")):
        out.append(task(name, canvas, lambda a=size, b=n, c=steps: boxoban(a, b, c),
                        f"Boxoban: push the {n} boulders 0 onto the {n} fountains {{ (a boulder on a "
                        "fountain shows as *). Walk into a boulder to push it one cell, only straight "
                        "(N/S/E/W, not diagonally), onto floor or a fountain; a boulder stuck against "
                        "a wall cannot be pulled back. +1 when every fountain holds a boulder. Levels "
                        f"are made by undoing {steps} random steps from the solved position, so every "
                        "level is solvable" + (" (a short walk: some boulders may start on a fountain)"
                                               if name.endswith("unfiltered") else "") + ". "))
    return out
