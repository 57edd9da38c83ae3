"""Robot Tank: destroy a squadron of enemy tanks on an open field; your tank takes HITS shell hits
before it is lost (pattern D).

MiniAtari: 12x12 field, 4 enemy tanks (all of them, the reference's N), 200 turns. Atari: 20x20
field, 3 tanks at a time, N = 12 (the reference's W), 10,000 turns. Seen from above (the Atari
game is first-person): an open field inside a wall. A turn is `gunfight.turn`: a move turns your tank
that way, or drives one cell when it already faces it; FIRE shoots up to REACH cells the way
you face, destroying the first tank (+1/N) or enemy shell on it; enemy tanks drive one cell every `period` turns (2) towards you and, with probability
`rate`, one that has you in its row or column within REACH fires a shell that flies one cell a
turn. A shell meeting you knocks out one of your HITS systems (HUD `Systems`); losing the last,
or an enemy tank meeting you, is the end (-1). At the Atari setting a destroyed tank is replaced
by a new one appearing away from you. Differs from Atari Robot Tank: a hit knocks out a system
but a damaged system changes nothing (no blind video, jammed cannon, slow treads or dead radar),
no day/night or weather; the reference's MiniAtari pays pattern A (a collision ends the episode
without penalty) and its tanks do not fire.
"""

from __future__ import annotations

from glyphjax.suites.arcade import gunfight, maze
from glyphjax.suites.arcade.engine import Game, Setting

WALL, TANK = "▓", "◘"
REACH, HITS = 5, 4

MINI = maze.layout((
    "############",
    "#G        G#",
    "#          #",
    "#          #",
    "#          #",
    "#          #",
    "#          #",
    "#          #",
    "#          #",
    "#G   P    G#",
    "#          #",
    "############",
))
ATARI = maze.layout(("#" * 20, "#G" + " " * 16 + "G#", "#" + " " * 18 + "#", "#" + " " * 8 + "G" + " " * 9 + "#")
                    + ("#" + " " * 18 + "#",) * 13 + ("#" + " " * 8 + "P" + " " * 9 + "#", "#" + " " * 18 + "#", "#" * 20))
LAYOUTS = {MINI.size: MINI, ATARI.size: ATARI}


def _rules(s: Setting) -> str:
    return (f"Robot Tank, seen from above: an open field inside a wall {WALL}. Enemy tanks {TANK} drive one "
            f"cell every {s.period} turns towards you; a tank with you in its row or column (within {REACH} "
            f"cells) may fire a shell {gunfight.SHOT} that flies one cell a turn. Your tank is drawn as an arrow "
            f"showing the way it faces: a move turns it that way, or drives one cell when it "
            f"already faces it. FIRE shoots the way you face: the first tank or shell within {REACH} cells is "
            "destroyed. Each shell that meets you knocks out one of your {HITS} systems "
            "(HUD Systems); losing the last one, or an enemy tank meeting you, destroys your tank."
            + (" Destroyed tanks are replaced by new ones appearing away from you." if s.target > s.caps[0] else ""))


ROBOTANK = Game(
    name="robotank", pattern="D", unit="tank destroyed", actions=gunfight.GUN_ACTIONS,
    descriptions=gunfight.gun_descriptions(REACH, "enemy tank"),
    cells=gunfight.cells(WALL, TANK),
    glyphs={WALL: "wall", TANK: "enemy tank", **gunfight.GUN_GLYPHS},
    rules=_rules, **gunfight.hooks(LAYOUTS, reach=REACH, hits=HITS),
    mini=Setting(size=MINI.size, max_steps=200, target=len(MINI.homes), rate=0.2, period=2, caps=(4, 1, 4)),
    atari=Setting(size=ATARI.size, max_steps=10000, target=12, rate=0.2, period=2, caps=(len(ATARI.homes), 1, 4)),
    draws=(0, 2 * 4 + 4), events=gunfight.GUN_EVENTS,
    death="an enemy tank meets you or shells knock out your last system",
    death_message="Your tank was destroyed. Game over.", gauge=("Systems", lambda st: HITS - st.phase),
)
