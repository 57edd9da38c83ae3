"""Arcade suite: MiniAtari (`miniatari/<game>`, standard track) and Atari (`atari/<game>`,
extended track) games on one engine (catalogue §3.3, §3.5).

engine.py holds the state, the Env shell and the reward patterns; physics.py the shared
mechanics (balls and paddles, scrolling rows, formations and shots); one module per game
declares it (a `Game`); importing this package registers both settings of every game.
"""

from glyphjax.core.registry import register
from glyphjax.core.types import EXTENDED, STANDARD
from glyphjax.suites.arcade.alien import ALIEN
from glyphjax.suites.arcade.amidar import AMIDAR
from glyphjax.suites.arcade.assault import ASSAULT
from glyphjax.suites.arcade.asterix import ASTERIX
from glyphjax.suites.arcade.asteroids import ASTEROIDS
from glyphjax.suites.arcade.atlantis import ATLANTIS
from glyphjax.suites.arcade.bankheist import BANKHEIST
from glyphjax.suites.arcade.battlezone import BATTLEZONE
from glyphjax.suites.arcade.beamrider import BEAMRIDER
from glyphjax.suites.arcade.berzerk import BERZERK
from glyphjax.suites.arcade.bowling import BOWLING
from glyphjax.suites.arcade.boxing import BOXING
from glyphjax.suites.arcade.breakout import BREAKOUT
from glyphjax.suites.arcade.centipede import CENTIPEDE
from glyphjax.suites.arcade.choppercommand import CHOPPERCOMMAND
from glyphjax.suites.arcade.crazyclimber import CRAZYCLIMBER
from glyphjax.suites.arcade.defender import DEFENDER
from glyphjax.suites.arcade.demonattack import DEMONATTACK
from glyphjax.suites.arcade.doubledunk import DOUBLEDUNK
from glyphjax.suites.arcade.engine import ATARI, MINI, ArcadeEnv
from glyphjax.suites.arcade.enduro import ENDURO
from glyphjax.suites.arcade.fishingderby import FISHINGDERBY
from glyphjax.suites.arcade.freeway import FREEWAY
from glyphjax.suites.arcade.frostbite import FROSTBITE
from glyphjax.suites.arcade.gopher import GOPHER_GAME
from glyphjax.suites.arcade.gravitar import GRAVITAR
from glyphjax.suites.arcade.hero import HERO
from glyphjax.suites.arcade.icehockey import ICEHOCKEY
from glyphjax.suites.arcade.jamesbond import JAMESBOND
from glyphjax.suites.arcade.kangaroo import KANGAROO
from glyphjax.suites.arcade.krull import KRULL
from glyphjax.suites.arcade.kungfumaster import KUNGFUMASTER
from glyphjax.suites.arcade.montezumarevenge import MONTEZUMAREVENGE
from glyphjax.suites.arcade.mspacman import MSPACMAN
from glyphjax.suites.arcade.namethisgame import NAMETHISGAME
from glyphjax.suites.arcade.phoenix import PHOENIX
from glyphjax.suites.arcade.pitfall import PITFALL
from glyphjax.suites.arcade.pong import PONG
from glyphjax.suites.arcade.privateeye import PRIVATEEYE
from glyphjax.suites.arcade.qbert import QBERT
from glyphjax.suites.arcade.riverraid import RIVERRAID
from glyphjax.suites.arcade.roadrunner import ROADRUNNER
from glyphjax.suites.arcade.robotank import ROBOTANK
from glyphjax.suites.arcade.seaquest import SEAQUEST
from glyphjax.suites.arcade.skiing import SKIING
from glyphjax.suites.arcade.solaris import SOLARIS
from glyphjax.suites.arcade.spaceinvaders import SPACEINVADERS
from glyphjax.suites.arcade.stargunner import STARGUNNER
from glyphjax.suites.arcade.surround import SURROUND
from glyphjax.suites.arcade.tennis import TENNIS
from glyphjax.suites.arcade.timepilot import TIMEPILOT
from glyphjax.suites.arcade.tutankham import TUTANKHAM
from glyphjax.suites.arcade.upndown import UPNDOWN
from glyphjax.suites.arcade.venture import VENTURE
from glyphjax.suites.arcade.videopinball import VIDEOPINBALL
from glyphjax.suites.arcade.wizardofwor import WIZARDOFWOR
from glyphjax.suites.arcade.yarsrevenge import YARSREVENGE
from glyphjax.suites.arcade.zaxxon import ZAXXON

GAMES = {g.name: g for g in (
    ALIEN,
    AMIDAR,
    ASSAULT,
    ASTERIX,
    ASTEROIDS,
    ATLANTIS,
    BANKHEIST,
    BATTLEZONE,
    BEAMRIDER,
    BERZERK,
    BOWLING,
    BOXING,
    BREAKOUT,
    CENTIPEDE,
    CHOPPERCOMMAND,
    CRAZYCLIMBER,
    DEFENDER,
    DEMONATTACK,
    DOUBLEDUNK,
    ENDURO,
    FISHINGDERBY,
    FREEWAY,
    FROSTBITE,
    GOPHER_GAME,
    GRAVITAR,
    HERO,
    ICEHOCKEY,
    JAMESBOND,
    KANGAROO,
    KRULL,
    KUNGFUMASTER,
    MONTEZUMAREVENGE,
    MSPACMAN,
    NAMETHISGAME,
    PHOENIX,
    PITFALL,
    PONG,
    PRIVATEEYE,
    QBERT,
    RIVERRAID,
    ROADRUNNER,
    ROBOTANK,
    SEAQUEST,
    SKIING,
    SOLARIS,
    SPACEINVADERS,
    STARGUNNER,
    SURROUND,
    TENNIS,
    TIMEPILOT,
    TUTANKHAM,
    UPNDOWN,
    VENTURE,
    VIDEOPINBALL,
    WIZARDOFWOR,
    YARSREVENGE,
    ZAXXON,
)}

for _game in GAMES.values():
    for _track in _game.tracks:
        register(f"{_track}/{_game.name}", lambda g=_game, t=_track: ArcadeEnv(g, t),
                 STANDARD if _track == MINI else EXTENDED)
