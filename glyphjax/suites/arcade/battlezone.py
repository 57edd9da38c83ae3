"""Battlezone: a tank battle on a field with obstacles; destroy N enemy tanks (pattern D).

MiniAtari: 12x14 field, 3 enemy tanks (all of them, the reference's N), 200 turns. Atari: 20x20
field, 3 tanks at a time, N = 10 (the reference's W), 10,000 turns. Seen from above (the Atari
game is first-person): the field's edge and the obstacles are walls that block tanks and shells.
A turn is `gunfight.turn`: a move turns your tank that way, or drives one
cell when it already faces it; FIRE sends a shell up to REACH cells the way you face that
destroys the first tank (+1/N) or enemy shell on it; enemy tanks drive one cell every
`period` turns (3 / 2) towards you (`core.chase`: no reversing but at dead ends, a random way with
probability `gunfight.WANDER`) and, with probability `rate`, one that has you in its row or
column (no obstacle between, within REACH) fires a shell that flies one cell a turn. An enemy
tank or a shell meeting you destroys you (-1, the end). At the Atari setting a destroyed tank is
replaced by a new one appearing away from you. Differs: no radar, saucers or supertanks; the
reference's MiniAtari tanks fire on a 6-turn clock along your last direction; one 6-action set
(NOOP, LEFT, RIGHT, UP, DOWN, FIRE, the catalogue's for both settings).
"""

from __future__ import annotations

from glyphjax.suites.arcade import gunfight, maze
from glyphjax.suites.arcade.engine import Game, Setting

WALL, TANK = "▓", "◘"
REACH = 5

MINI = maze.layout((
    "##############",
    "#G          G#",
    "#            #",
    "#  ##    ##  #",
    "#            #",
    "#     ##     #",
    "#     G      #",
    "#  #      #  #",
    "#  #      #  #",
    "#            #",
    "#      P     #",
    "##############",
))
ATARI = maze.layout((
    "####################",
    "#G                G#",
    "#                  #",
    "#   ##       ##    #",
    "#   ##       ##    #",
    "#                  #",
    "#        ##        #",
    "#        ##     G  #",
    "#  #               #",
    "#  #     ###    #  #",
    "#               #  #",
    "#     #            #",
    "#     #     ##     #",
    "#           ##     #",
    "#                  #",
    "#   ##        ##   #",
    "#                  #",
    "#                  #",
    "#        P         #",
    "####################",
))
LAYOUTS = {MINI.size: MINI, ATARI.size: ATARI}


def _rules(s: Setting) -> str:
    return (f"Battlezone, seen from above. Walls {WALL} (the field's edge and obstacles) block tanks and "
            f"shells. Enemy tanks {TANK} drive one cell every {s.period} turns towards you; a tank with you in "
            f"its row or column (no wall between, within {REACH} cells) may fire a shell {gunfight.SHOT} that "
            "flies one cell a turn. Your tank is drawn as an arrow showing the way it faces: a move turns it "
            "that way, or drives one cell when it already faces it. FIRE shoots the way you face: the first "
            f"tank or shell within {REACH} cells (walls stop it) is destroyed. An enemy tank or a shell meeting you destroys you."
            + (" Destroyed tanks are replaced by new ones appearing away from you." if s.target > s.caps[0] else ""))


BATTLEZONE = Game(
    name="battlezone", pattern="D", unit="tank destroyed", actions=gunfight.GUN_ACTIONS,
    descriptions=gunfight.gun_descriptions(REACH, "enemy tank"),
    cells=gunfight.cells(WALL, TANK),
    glyphs={WALL: "wall", TANK: "enemy tank", **gunfight.GUN_GLYPHS},
    rules=_rules, **gunfight.hooks(LAYOUTS, reach=REACH),
    mini=Setting(size=MINI.size, max_steps=200, target=len(MINI.homes), rate=0.15, period=3, caps=(3, 1, 3)),
    atari=Setting(size=ATARI.size, max_steps=10000, target=10, rate=0.15, period=2, caps=(len(ATARI.homes), 1, 3)),
    draws=(0, 2 * 3 + 4), events=gunfight.GUN_EVENTS,
    death="an enemy tank or a shell meets you", death_message="Your tank was destroyed. Game over.",
)
