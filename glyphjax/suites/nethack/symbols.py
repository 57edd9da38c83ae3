"""NetHack's default (ASCII) map symbols and what each may mean: the legend of `nethack/full`.

NetHack draws several things with one character (`#` is a corridor, a tree, a sink or iron bars),
so each legend line lists every meaning the character can have on the map; the player is the `@`
at the cursor. Letters are monster classes, as in NetHack's `def_monsyms`.
"""

from __future__ import annotations

MAP_SYMBOLS: dict[str, str] = {
    " ": "dark part of a room, solid rock or unexplored (also a ghost)",
    ".": "floor of a room, doorway without a door, ice, or a lowered drawbridge",
    "#": "corridor, tree, sink, iron bars, drawbridge, or a cloud",
    "|": "wall, open door, grave, or a long worm's tail segment seen end-on",
    "-": "wall or open door",
    "+": "closed door or spellbook",
    "<": "staircase or ladder up",
    ">": "staircase or ladder down",
    "_": "altar or iron chain",
    "{": "fountain",
    "}": "water, moat or lava",
    "\\": "throne",
    "^": "trap or magic portal",
    '"': "web or amulet",
    "~": "long worm's tail",
    "`": "boulder or statue",
    "0": "iron ball",
    ")": "weapon", "[": "armour", "=": "ring", "(": "tool (a box, a key, a lamp ...)",
    "%": "food or a corpse", "!": "potion", "?": "scroll", "/": "wand", "$": "gold",
    "*": "gem, rock or a boulder's shard",
    "@": "you (at the cursor), or a human or elf",
    "&": "demon", ";": "sea monster", ":": "lizard, newt or other reptile", "'": "golem",
    "a": "ant or other insect", "b": "blob", "c": "cockatrice", "d": "dog, jackal or other canine",
    "e": "floating eye or sphere", "f": "cat or other feline", "g": "gremlin or gargoyle",
    "h": "dwarf, hobbit or other small humanoid", "i": "imp or minor demon", "j": "jelly",
    "k": "kobold", "l": "leprechaun", "m": "mimic", "n": "nymph", "o": "orc", "p": "piercer",
    "q": "quadruped (rothe, ...)", "r": "rat or other rodent", "s": "spider or centipede",
    "t": "trapper or lurker above", "u": "horse or unicorn", "v": "vortex", "w": "worm",
    "x": "grid bug or xan", "y": "light", "z": "zruty",
    "A": "angelic being", "B": "bat or bird", "C": "centaur", "D": "dragon", "E": "elemental",
    "F": "fungus or lichen", "G": "gnome", "H": "giant", "I": "a remembered, unseen monster",
    "J": "jabberwock", "K": "Keystone Kop", "L": "lich", "M": "mummy", "N": "naga", "O": "ogre",
    "P": "pudding or ooze", "Q": "quantum mechanic", "R": "rust monster or disenchanter",
    "S": "snake", "T": "troll", "U": "umber hulk", "V": "vampire", "W": "wraith or wight",
    "X": "xorn", "Y": "ape, monkey or yeti", "Z": "zombie",
}
