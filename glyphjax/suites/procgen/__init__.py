"""Procgen suite: OpenAI Procgen's games as JAX programs over level seeds (catalogue §3.8).

engine.py holds the level sets, state, physics and view; env.py the task shell; one module per
game family declares its games; importing this package registers `procgen/<game>[-hard]`.
"""

from glyphjax.core.registry import register
from glyphjax.suites.procgen.bigfish import BIGFISH
from glyphjax.suites.procgen.chaser import CHASER
from glyphjax.suites.procgen.dodgeball import DODGEBALL
from glyphjax.suites.procgen.fruitbot import FRUITBOT
from glyphjax.suites.procgen.env import ProcgenEnv
from glyphjax.suites.procgen.leaper import LEAPER
from glyphjax.suites.procgen.mazes import HEIST, MAZE
from glyphjax.suites.procgen.miner import MINER
from glyphjax.suites.procgen.runners import COINRUN, NINJA
from glyphjax.suites.procgen.towers import CLIMBER, JUMPER
from glyphjax.suites.procgen.starpilot import STARPILOT
from glyphjax.suites.procgen.bossfight import BOSSFIGHT
from glyphjax.suites.procgen.caveflyer import CAVEFLYER
from glyphjax.suites.procgen.plunder import PLUNDER

GAMES = {g.name: g for g in (BIGFISH, CHASER, CLIMBER, COINRUN, HEIST, JUMPER, LEAPER, MAZE, MINER, NINJA)}
GAMES.update({g.name: g for g in (BOSSFIGHT, CAVEFLYER, PLUNDER, STARPILOT)})  # the shooters
GAMES.update({g.name: g for g in (DODGEBALL, FRUITBOT)})

for _game in GAMES.values():
    for _mode in ("easy", "hard"):
        _id = f"procgen/{_game.name}" + ("-hard" if _mode == "hard" else "")
        register(_id, lambda g=_game, m=_mode: ProcgenEnv(g, m))
