"""Wizard of Wor: shoot the monsters of a dungeon before they catch or shoot you (pattern D).

MiniAtari: 10x14 dungeon, 5 monsters (all of them, the reference's N), 300 turns. Atari: 16x20
dungeon, 6 monsters at a time, N = 48 monsters (the reference's W), 10,000 turns. Both
dungeons are drawn here, with a warp row whose open side edges lead to the opposite side
(`maze.walk`'s tunnel; monsters use it too). A turn is `gunfight.turn`: a move turns you that
way, or steps one cell (walls block) when you already face it; FIRE sends a shot up to REACH
cells the way you face that destroys the first monster (+1/N) or monster's shot on it; monsters move one cell every `period` turns (3 / 2) along the
corridors towards you (Pac-Man's corridor rule, `core.chase`, random turns with probability
`gunfight.WANDER`) and, with probability `rate`, one that has you in its row or column (no wall
between, within REACH) fires a shot that flies one cell a turn. A monster or a shot meeting you
kills you (-1, the end). At the Atari setting a destroyed monster is replaced by a new one
appearing away from you. Differs from Atari Wizard of Wor: one kind of monster (no Burwor /
Garwor / Thorwor / Worluk / Wizard, no invisibility, no radar), no second player; one 6-action
set, the MiniAtari one (the reference's Atari orders NOOP, FIRE, UP, RIGHT, LEFT, DOWN).
"""

from __future__ import annotations

from glyphjax.suites.arcade import gunfight, maze
from glyphjax.suites.arcade.engine import Game, Setting

WALL, MONSTER = "▓", "◈"
REACH = 5

MINI = maze.layout((
    "##############",
    "#G    ##    G#",
    "# ##      ## #",
    "#    #  #    #",
    "  ##   G  ##  ",
    "#    #  #    #",
    "# ##  ##  ## #",
    "#G          G#",
    "#     P      #",
    "##############",
))
_ROWS = maze.mirrored((
    "##########",
    "#G        ",
    "# ### ### ",
    "# #     # ",
    "#   # #   ",
    "### #   # ",
    "    #   G ",
    "# ###  ###",
    "#         ",
    "# # ## #  ",
    "#   #  # #",
    "# # #    #",
    "# #   ## #",
    "#   #     ",
    "#   #     ",
    "##########",
))
ATARI = maze.layout(_ROWS[:14] + (_ROWS[14][:9] + "P" + _ROWS[14][10:],) + _ROWS[15:])
LAYOUTS = {MINI.size: MINI, ATARI.size: ATARI}


def _rules(s: Setting) -> str:
    return (f"Wizard of Wor. You walk a dungeon (walls {WALL}) hunted by monsters {MONSTER} that move one "
            f"cell every {s.period} turns along the corridors towards you; a monster with you in its row or "
            f"column (no wall between, within {REACH} cells) may fire a shot {gunfight.SHOT} that flies one "
            "cell a turn. You are drawn as an arrow showing the way you face: a move turns you that way, or "
            "steps one cell when you already face it. FIRE shoots the way you face: the first monster or "
            f"shot within {REACH} cells (walls stop it) is destroyed. A monster or a shot meeting you (same cell, or passing each other) "
            "kills you. Leaving by an open side edge brings you in at the opposite edge."
            + (" Destroyed monsters are replaced by new ones appearing away from you." if s.target > s.caps[0] else ""))


WIZARDOFWOR = Game(
    name="wizardofwor", pattern="D", unit="monster destroyed", actions=gunfight.GUN_ACTIONS,
    descriptions=gunfight.gun_descriptions(REACH, "monster"),
    cells=gunfight.cells(WALL, MONSTER),
    glyphs={WALL: "wall", MONSTER: "monster", **gunfight.GUN_GLYPHS},
    rules=_rules, **gunfight.hooks(LAYOUTS, reach=REACH),
    mini=Setting(size=MINI.size, max_steps=300, target=len(MINI.homes), rate=0.1, period=3, caps=(5, 1, 3)),
    atari=Setting(size=ATARI.size, max_steps=10000, target=48, rate=0.1, period=3, caps=(len(ATARI.homes), 1, 4)),
    draws=(0, 2 * 6 + 4), events=gunfight.GUN_EVENTS,
    death="a monster or a shot meets you", death_message="You were killed. Game over.",
)
