"""Berzerk: shoot the robots of an electrified room before they shoot you (pattern D).

MiniAtari: 10x16 room, 5 robots (all of them, the reference's N), 200 turns. Atari: 16x20 room,
4 robots at a time, N = 30 robots (the reference's 5 rooms x 6), 10,000 turns. The room is drawn
here (`gunfight` layouts): border and inner walls are electrified: a move into a wall kills you
(-1, the end). A turn is `gunfight.turn`: a move turns you that way, or steps one cell when
you already face it; FIRE sends a beam up to REACH cells the way you face that destroys the
first robot (+1/N) or bolt on it; robots walk at you one
cell every `period` turns (3 / 2), and with probability `rate` one that has you in its row or
column (no wall between, within REACH) fires a bolt that flies one cell a turn; a bolt or a robot
meeting you kills you. At the Atari setting a destroyed robot is replaced by a new one appearing
away from you (`gunfight.ENTER`). Differs from Atari Berzerk: no room exits and no Evil Otto,
robots never walk into walls (they are not destroyed by them), one 6-action set (the MiniAtari
one; Atari's has 8-way fire); the reference's MiniAtari robots do not shoot.
"""

from __future__ import annotations

from glyphjax.suites.arcade import gunfight, maze
from glyphjax.suites.arcade.engine import Game, Setting

WALL, ROBOT = "▤", "◐"
REACH = 5

MINI = maze.layout((
    "################",
    "#G     ##     G#",
    "#  ##      ##  #",
    "#  ##  G   ##  #",
    "#              #",
    "#      ##      #",
    "#  G   ##   G  #",
    "#   ##    ##   #",
    "#      P       #",
    "################",
))
ATARI = maze.layout(maze.mirrored((
    "##########",
    "#G        ",
    "#   ###   ",
    "#   #     ",
    "#   #   G ",
    "#         ",
    "###    ###",
    "#       ##",
    "#         ",
    "#     ##  ",
    "#     #   ",
    "#  ####   ",
    "#         ",
    "#   #     ",
    "#   #     ",
    "##########",
))[:14] + ("#   #    P     #   #", "####################"))
LAYOUTS = {MINI.size: MINI, ATARI.size: ATARI}


def _rules(s: Setting) -> str:
    return (f"Berzerk. The room's walls {WALL} are electrified: moving into one kills you. Robots "
            f"{ROBOT} walk towards you one cell every {s.period} turns; a robot with you in its row or "
            f"column (no wall between, within {REACH} cells) may fire a bolt {gunfight.SHOT} that flies one "
            "cell a turn. You are drawn as an arrow showing the way you face: a move turns you that way, or "
            "steps one cell when you already face it. "
            f"FIRE shoots the way you face: the first robot or bolt within {REACH} cells (walls stop the "
            "shot) is destroyed. A robot or a bolt meeting you kills you."
            + (" Destroyed robots are replaced by new ones appearing away from you." if s.target > s.caps[0] else ""))


BERZERK = Game(
    name="berzerk", pattern="D", unit="robot destroyed", actions=gunfight.GUN_ACTIONS,
    descriptions=gunfight.gun_descriptions(REACH, "robot"),
    cells=gunfight.cells(WALL, ROBOT),
    glyphs={WALL: "electrified wall (touching it kills you)", ROBOT: "robot", **gunfight.GUN_GLYPHS},
    rules=_rules, **gunfight.hooks(LAYOUTS, reach=REACH, electric=True),
    mini=Setting(size=MINI.size, max_steps=200, target=len(MINI.homes), rate=0.15, period=3, caps=(5, 1, 3)),
    atari=Setting(size=ATARI.size, max_steps=10000, target=30, rate=0.1, period=3, caps=(len(ATARI.homes), 1, 4)),
    draws=(0, 2 * 6 + 4), events=gunfight.GUN_EVENTS,
    death="a robot or a bolt meets you or you touch a wall", death_message="You were killed. Game over.",
)
