"""Solaris: warp round a ring of sectors, destroy the enemy squadrons, refuel at friendly
planets (pattern D; Atari only).

Atari: 20x20 field, N = 16 enemy ships (the catalogue's and the reference's W: 4 squadrons of
4), 10,000 turns. Row 0 is the sector map: SECTORS sectors in a ring (columns 0 to SECTORS - 1),
drawn at reset: 4 hold a squadron of SQUAD ships, 2 a friendly planet; it shows how many ships
each squadron has left, the planets, the cleared sectors and where you are. Rows 1 to H - 1 are
the sector you are in. UP/DOWN/LEFT/RIGHT move your ship one cell and face it that way
(`flight.FACINGS`); FIRE shoots the way you face, two cells a turn (three shots at most). WARP
takes you to the next sector of the ring (WARP_FUEL fuel): you arrive at the bottom middle and
the sector's squadron, what is left of it, appears at random cells of the upper half; a planet
sector shows its planet at a random cell of the middle rows. Enemy ships close in on you one
cell every `period` turns along the axis of the larger gap (`arena.toward`); with probability
`rate` a turn a random one fires a shot at you along that axis, one cell a turn. A shot meeting
an enemy destroys it (+1/N). Every turn burns one unit of fuel (FUEL at most); flying onto a
planet fills the tank. An enemy or an enemy shot meeting you (same cell or swapped), or an
empty tank, is death (-1). Differs from Atari: a ring of 6 sectors instead of the 2-D galactic
map of several quadrants, a top-down battle view instead of the 3-D one, no cadets to rescue,
no Zylon planets, corridors, pirates or Solaris itself; differs from the reference: fuel and
planets in place of its allied bases, and enemies ram.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade import flight, scroll
from glyphjax.suites.arcade.arena import YOU, toward
from glyphjax.suites.arcade.asteroids import ACTIONS as FLY_ACTIONS, BULLET, FIRE, MOVES
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state
from glyphjax.suites.arcade.physics import best_action, meets, random_alive, shoot_down

ENEMY, SHELL, PLANET, CLEARED = "◆", "◌", "⊕", "+"
ACTIONS = FLY_ACTIONS + ("WARP",)
WARP = 6
SECTORS, SQUAD, PLANETS = 6, 4, 2
C_PLANET, HERE = 5, 8  # map codes: 0 cleared, 1..SQUAD ships left, C_PLANET; + HERE where you are
FUEL, WARP_FUEL = 300, 20
EV_KILL, EV_FUEL, EV_WARP = 1, 2, 3


def _rules(s: Setting) -> str:
    h, w = s.size
    digits = "/".join(str(k) for k in range(1, SQUAD + 1))
    return (f"Solaris. Row 0 is the sector map: {SECTORS} sectors in a ring (columns 0-{SECTORS - 1}); {YOU} marks "
            f"the sector you are in, {digits} a squadron with that many enemy ships left, {PLANET} a friendly "
            f"planet, {CLEARED} a cleared sector. Rows 1-{h - 1} show your sector. UP/DOWN/LEFT/RIGHT move your "
            f"ship (an arrow showing where it faces) one cell and face it that way; FIRE shoots {BULLET} the "
            f"way you face, two cells a turn (three shots at most). WARP takes you to the next sector of the ring "
            f"for {WARP_FUEL} fuel. Enemy ships {ENEMY} close in on you one cell every {s.period} turns and fire "
            f"shots {SHELL} at you, one cell a turn. A shot destroys the enemy it meets. Each turn burns one unit "
            f"of fuel (at most {FUEL}); flying onto a planet {PLANET} fills the tank. An enemy or an enemy shot "
            "meeting you, or running out of fuel, destroys your ship.")


def _sector(state) -> jax.Array:
    return jnp.argmax(state.field[0, :SECTORS] >= HERE).astype(jnp.int32)


def _arrive(draws, state, sector, s: Setting):
    """You in `sector`: at the bottom middle, facing up, its squadron or planet in view."""
    h, w = s.size
    here = state.field[0, sector] % HERE
    ships = jnp.stack([draws.randint(2, h // 2, (SQUAD,)), draws.randint(1, w - 1, (SQUAD,))], 1)
    foes = entities.spawn_many(entities.empty(s.caps[0]), ships, jnp.zeros((SQUAD, 2), jnp.int32),
                               jnp.zeros(SQUAD, jnp.int32), (jnp.arange(SQUAD) < here) & (here <= SQUAD))
    planet = jnp.stack([draws.randint(h // 3, 2 * h // 3), draws.randint(2, w - 2)])
    view = jnp.zeros((h - 1, w), jnp.int8).at[planet[0] - 1, planet[1]].set(jnp.where(here == C_PLANET, C_PLANET, 0))
    old = state.field[0, :SECTORS] % HERE
    top = state.field[0].at[:SECTORS].set((old + HERE * (jnp.arange(SECTORS) == sector)).astype(jnp.int8))
    return state.replace(field=jnp.concatenate([top[None], view]), foes=foes, shots=entities.empty(s.caps[1]),
                         bombs=entities.empty(s.caps[2]), player=jnp.array([h - 4, w // 2], jnp.int32),
                         heading=jnp.array([-1, 0], jnp.int32))


def _reset(draws, s: Setting, params):
    order = jnp.argsort(draws.uniform((SECTORS,)))
    contents = jnp.where(order < PLANETS, C_PLANET, jnp.where(order < PLANETS + 4, SQUAD, 0))
    field = jnp.zeros(s.size, jnp.int8).at[0, :SECTORS].set(contents.astype(jnp.int8))
    return _arrive(draws, new_state(s, field=field, phase=jnp.int32(FUEL)), jnp.int32(0), s)


def _fly(state, action, size):
    """-> (your cell in rows 1..H-1, facing) after this turn's move."""
    push = action_delta(action, MOVES)
    you = scroll.fly(state.player, push, jnp.array([1, 0]), jnp.array([size[0] - 1, size[1] - 1]), wrap=False)
    return you, flight.face(state.heading, push)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    sector = _sector(state)
    warped = _arrive(draws, state, (sector + 1) % SECTORS, s)
    you, heading = _fly(state, action, s.size)
    shots0 = entities.spawn(state.shots, you, 2 * heading, 0, where=action == FIRE)
    shots1 = entities.advance(shots0, h, w)
    shots1 = entities.kill(shots1, shots1.pos[:, 0] < 1)  # row 0 is the map
    moves = (state.t % params.period) == 0
    steps = jax.vmap(toward, in_axes=(0, None))(state.foes.pos, you)
    foes1 = state.foes.replace(pos=jnp.where(moves & state.foes.alive[:, None], state.foes.pos + steps,
                                             state.foes.pos).astype(jnp.int32))
    shots, foes, kills = shoot_down(shots0, shots1, state.foes, foes1)
    bombs = entities.advance(state.bombs, h, w)
    bombs = entities.kill(bombs, bombs.pos[:, 0] < 1)
    died = meets(state.foes, foes, state.player, you).any() | meets(state.bombs, bombs, state.player, you).any()
    i, any_alive = random_alive(foes, draws.uniform())
    aim = toward(foes.pos[i], you)
    bombs = entities.spawn(bombs, foes.pos[i] + aim, aim, 0, where=(draws.uniform() < params.rate) & any_alive)
    fuel, empty = scroll.burn(state.phase)
    planet = state.field[you[0], you[1]] == C_PLANET
    fuel = jnp.where(planet, FUEL, fuel)
    top = state.field[0]
    squad = (top[sector] % HERE >= 1) & (top[sector] % HERE <= SQUAD)
    top = top.at[sector].set(jnp.where(squad, HERE + entities.count(foes), top[sector]).astype(jnp.int8))
    fought = state.replace(player=you, heading=heading, shots=shots, foes=foes, bombs=bombs,
                           field=state.field.at[0].set(top))
    warp = action == WARP
    nxt = jax.tree.map(lambda a, b: jnp.where(warp, a, b), warped, fought)
    fuel = jnp.where(warp, scroll.burn(state.phase, WARP_FUEL)[0], fuel)
    died = jnp.where(warp, fuel == 0, died | (empty & ~planet))
    event = jnp.select([warp, kills > 0, planet], [EV_WARP, EV_KILL, EV_FUEL], 0)
    return nxt.replace(phase=fuel), Outcome(gained=jnp.where(warp, 0, kills), died=died, event=event)


def _paint(state, s: Setting):
    h, w = s.size
    top = state.field[0].astype(jnp.int32)
    row0 = jnp.where(top >= HERE, 6 + SQUAD, jnp.where(top == C_PLANET, 2, jnp.where(top > 0, 5 + top, 3)))
    row0 = jnp.where(jnp.arange(w) < SECTORS, row0, 0)
    codes = jnp.where(state.field == C_PLANET, 2, 0).astype(jnp.int32).at[0].set(row0)
    codes = entities.paint(codes, state.foes, jnp.array([1], jnp.int32))
    codes = entities.paint(codes, state.bombs, jnp.array([4], jnp.int32))
    codes = entities.paint(codes, state.shots, jnp.array([5], jnp.int32))
    return codes.at[state.player[0], state.player[1]].set(7 + SQUAD + flight.facing_index(state.heading))


def _scripted(key, state, params):
    """Refuel first: on a planet's sector fly to it when the tank is below FUEL - 60, and warp
    towards a planet when the fuel left would not last the warps there plus 60 turns. With
    enemies in view: never end a turn where an enemy or an enemy shot arrives (unless FIRE
    destroys that enemy first), nor next to one before its move; FIRE at one ahead, else line
    up with the nearest. With none: WARP on."""
    h, w = state.field.shape
    top = state.field[0, :SECTORS] % HERE
    sector = _sector(state)
    hops = (jnp.arange(SECTORS) - sector) % SECTORS
    to_planet = jnp.where(top == C_PLANET, hops, SECTORS).min()
    f, b = state.foes, state.bombs
    planet_cell = jnp.argmax((state.field[1:] == C_PLANET).reshape(-1)) + w
    goal = jnp.stack([planet_cell // w, planet_cell % w])
    nearest, _ = entities.nearest(f, state.player)
    target = f.pos[jnp.maximum(nearest, 0)]
    refuel = (to_planet == 0) & (state.phase < FUEL - 60)
    fighting = f.alive.any() & ~refuel

    def value(a):
        you, heading = _fly(state, a, (h, w))
        moves = (state.t % params.period) == 0
        foes1 = f.pos + moves * jax.vmap(toward, in_axes=(0, None))(f.pos, you)
        killed = (a == FIRE) & flight.ahead(you, heading, foes1, 2)
        hit = (f.alive & ~killed & ((foes1 == you[None]).all(-1)
                                    | (foes1 == state.player[None]).all(-1) & (f.pos == you[None]).all(-1))).any()
        soon = (state.t + 1) % params.period == 0
        near = (f.alive & ~killed & (jnp.abs(foes1 - you[None]).max(-1) <= 1)).any() & soon
        shot = (b.alive[:, None] & ((b.pos[:, None] + b.vel[:, None] * jnp.array([1, 2])[None, :, None])
                                    == you[None, None]).all(-1)).any()
        swap = (b.alive & (b.pos == you[None]).all(-1)).any()
        lined = (f.alive & flight.ahead(you, heading, f.pos, max(h, w))).any()
        off = jnp.abs(target - you).min()
        chase = jnp.where(fighting, 4.0 * lined * (1.0 + 1.5 * (a == FIRE)) - off, -jnp.abs(goal - you).sum())
        return -100.0 * (hit | shot | swap) - 30.0 * near + chase - 0.1 * (a == 0)

    fly = best_action(value, WARP)
    low = state.phase < (to_planet * WARP_FUEL + 60)
    warp = (low & (to_planet > 0)) | (~f.alive.any() & ~refuel)
    return jnp.where(warp & (state.phase > WARP_FUEL), WARP, fly).astype(jnp.int32)


SOLARIS = Game(
    name="solaris", pattern="D", unit="enemy ship destroyed", actions=ACTIONS,
    descriptions=("hold your position", "fly up one cell and face up", "fly down one cell and face down",
                  "fly left one cell and face left", "fly right one cell and face right", "shoot the way you face",
                  "warp to the next sector of the ring"),
    cells=(EMPTY + ENEMY + PLANET + CLEARED + SHELL + BULLET + "".join(str(k) for k in range(1, SQUAD + 1))
           + YOU + flight.FACING_CELLS),
    glyphs={ENEMY: "enemy ship", PLANET: "a friendly planet (fly onto it to refuel)",
            CLEARED: "a cleared sector (sector map)", SHELL: "enemy shot (flies one cell a turn)",
            BULLET: "your shot", YOU: "you",
            **{str(k): f"a sector with a squadron of {k} enemy ship{'s' if k > 1 else ''} (sector map)"
               for k in range(1, SQUAD + 1)}, **flight.FACING_GLYPHS},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted, mini=None,
    atari=Setting(size=(20, 20), max_steps=10000, target=16, rate=0.08, period=3, caps=(SQUAD, 3, 4)),
    draws=(SECTORS + 2 * SQUAD + 2, 2 * SQUAD + 4), events=("You destroyed an enemy ship.", "You refuelled at a planet.",
                                                         "You warped to the next sector."),
    death="an enemy or an enemy shot hits you, or your fuel runs out",
    death_message="Your ship was destroyed. Game over.",
    gauge=("Fuel", lambda state: state.phase),
)
