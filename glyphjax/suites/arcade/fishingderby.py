"""Fishing Derby: hook fish and reel them up past the shark before the other angler; first to
W fish (pattern C).

MiniAtari: 10x14 lake, 4 fish, W = 3, 200 turns (the reference's). Atari: 16x20, 6 fish, W = 30
(the catalogue's), 10,000 turns. Row 0 is the surface. You steer your hook in the left half of
the lake, the opponent its hook in the right half. Each fish swims in its own row, one column
every `period` turns (2), turning at the banks; fish cross both halves. A free hook on a fish's
cell hooks it; a hooked fish goes wherever the hook goes, and the hook then moves only by REEL
(one row up). A fish reeled onto the surface is caught (a point) and a new fish starts in its row.
The shark swims along row 1, one column a turn, turning at the banks; a hooked fish on the
shark's cell is eaten (no point; a new fish starts). The opponent steers towards the nearest
free fish in its half and reels, each with probability `rate` (0.6 / 0.7) a turn (deterministic
given the step key). No fish values by depth (Atari's deeper fish score more).
"""

from __future__ import annotations

import jax.numpy as jnp

from glyphjax.core import entities
from glyphjax.suites.arcade.arena import DUEL_MOVES, move_action, toward, track, walk
from glyphjax.suites.arcade.engine import EMPTY, Game, Outcome, Setting, action_delta, new_state

HOOK, RIVAL_HOOK, FISH, SHARK, SURFACE = "J", "L", "f", "S", "≈"
ACTIONS = ("NOOP", "UP", "DOWN", "LEFT", "RIGHT", "REEL")
REEL = 5
FREE, YOURS, THEIRS = 0, 1, 2  # fish kinds: free, on your hook, on the opponent's
EV_CATCH, EV_CAUGHT, EV_EATEN = 1, 2, 3


def fish_rows(s: Setting) -> jnp.ndarray:
    """The row each fish swims in (spread over rows 2 .. H-1)."""
    h = s.size[0]
    n = s.caps[0]
    return (2 + (jnp.arange(n) * (h - 2)) // n).astype(jnp.int32)


def _rules(s: Setting) -> str:
    return (f"Fishing Derby. Row 0 is the surface {SURFACE}. You steer your hook {HOOK} in the left half "
            f"of the lake; the opponent's hook {RIVAL_HOOK} fishes the right half. Fish {FISH} swim "
            f"sideways in their rows, one column every {s.period} turns, turning at the banks. Put your "
            "free hook on a fish to hook it; then only REEL moves your hook (one row up), and a fish "
            f"reeled onto the surface is caught. The shark {SHARK} swims along row 1; a hooked fish on "
            "its cell is eaten. A caught or eaten fish is replaced in its row.")


def _fish(draws, s: Setting, pool: entities.Pool, where: jnp.ndarray) -> entities.Pool:
    """Fish starting at a random column of their rows, heading either way (only where `where`)."""
    n, w = s.caps[0], s.size[1]
    pos = jnp.stack([fish_rows(s), draws.randint(0, w, (n,))], axis=1)
    vel = jnp.stack([jnp.zeros(n, jnp.int32), jnp.where(draws.bernoulli(0.5, (n,)), 1, -1)], axis=1)
    return entities.put(pool, where, pos, vel, jnp.zeros(n, jnp.int32), pool.timer)


def _reset(draws, s: Setting, params):
    h, w = s.size
    fish = _fish(draws, s, entities.empty(s.caps[0]), jnp.ones(s.caps[0], bool))
    return new_state(s, foes=fish, player=jnp.array([1, w // 4], jnp.int32),
                     opponent=jnp.array([1, w - 1 - w // 4], jnp.int32),
                     ball=jnp.array([1, w // 2], jnp.int32), ball_vel=jnp.array([0, 1], jnp.int32))


def _hooks(draws, state, action, s: Setting, params):
    """Both hooks move: a hook with a fish only up (you by REEL, the opponent at its rate)."""
    h, w = s.size
    fish = state.foes
    mine, theirs = (fish.kind == YOURS).any(), (fish.kind == THEIRS).any()
    you = jnp.where(mine, state.player - jnp.array([1, 0]) * (action == REEL),
                    walk(state.player, action_delta(action, DUEL_MOVES + ((0, 0),)), jnp.array([1, 0]),
                         jnp.array([h - 1, w // 2 - 1]), jnp.array([-9, -9])))
    free = fish.alive & (fish.kind == FREE) & (fish.pos[:, 1] >= w // 2)
    gap = jnp.where(free, jnp.abs(fish.pos - state.opponent[None]).sum(-1), 1 << 20)
    aim = jnp.where(free.any(), fish.pos[jnp.argmin(gap)], jnp.array([h // 2, 3 * w // 4]))
    u = draws.uniform()
    opp = jnp.where(theirs, state.opponent - jnp.array([1, 0]) * (u < params.rate),
                    track(state.opponent, aim, u, params.rate, jnp.array([1, w // 2]), jnp.array([h - 1, w - 1]),
                          jnp.array([-9, -9])))
    return you.astype(jnp.int32), opp.astype(jnp.int32)


def _step(draws, state, action, s: Setting, params):
    h, w = s.size
    you, opp = _hooks(draws, state, action, s, params)
    shark = state.ball + state.ball_vel
    turn = (shark[1] < 0) | (shark[1] > w - 1)
    shark_vel = jnp.where(turn, -state.ball_vel, state.ball_vel)
    shark = jnp.where(turn, state.ball, shark)
    swims = (state.foes.kind == FREE) & (state.t % params.period == 0)
    swim = entities.advance(state.foes, h, w, edge="bounce", moving=swims)
    pos = jnp.where((swim.kind == YOURS)[:, None], you, jnp.where((swim.kind == THEIRS)[:, None], opp, swim.pos))
    fish = swim.replace(pos=pos.astype(jnp.int32))
    on = lambda hook: fish.alive & (fish.kind == FREE) & (fish.pos == hook[None]).all(-1)  # noqa: E731
    first = lambda m: m & (jnp.cumsum(m) == 1)  # noqa: E731
    hook_you = first(on(you)) & ~(fish.kind == YOURS).any()
    hook_opp = first(on(opp) & ~hook_you) & ~(fish.kind == THEIRS).any()
    kind = jnp.where(hook_you, YOURS, jnp.where(hook_opp, THEIRS, fish.kind))
    hooked = kind != FREE
    eaten = hooked & (fish.pos == shark[None]).all(-1)
    landed = hooked & ~eaten & (fish.pos[:, 0] == 0)
    gone = eaten | landed
    fish = _fish(draws, s, fish.replace(kind=jnp.where(gone, FREE, kind).astype(jnp.int32)), gone)
    you = jnp.where((gone & (kind == YOURS)).any(), jnp.stack([1, you[1]]), you)
    opp = jnp.where((gone & (kind == THEIRS)).any(), jnp.stack([1, opp[1]]), opp)
    caught, lost = (landed & (kind == YOURS)).any(), (landed & (kind == THEIRS)).any()
    nxt = state.replace(player=you.astype(jnp.int32), opponent=opp.astype(jnp.int32), foes=fish,
                        ball=shark.astype(jnp.int32), ball_vel=shark_vel.astype(jnp.int32))
    event = jnp.where(caught, EV_CATCH, jnp.where(lost, EV_CAUGHT, jnp.where(eaten.any(), EV_EATEN, 0)))
    return nxt, Outcome(gained=caught.astype(jnp.int32), conceded=lost.astype(jnp.int32), event=event)


def _paint(state, s: Setting):
    h, w = s.size
    codes = jnp.zeros((h, w), jnp.int32).at[0].set(5)
    codes = entities.paint(codes, state.foes, jnp.array([3, 3, 3], jnp.int32))
    codes = codes.at[state.ball[0], state.ball[1]].set(4)
    codes = codes.at[state.opponent[0], state.opponent[1]].set(2)
    return codes.at[state.player[0], state.player[1]].set(1)


def _scripted(key, state, params):
    """With a fish on: REEL, but wait a turn when the shark would meet it on row 1. Otherwise
    steer to the nearest free fish in your half, or wait in the middle of it."""
    h, w = state.field.shape
    f, you = state.foes, state.player
    shark_next = state.ball + state.ball_vel
    danger = (you[0] == 2) & (jnp.abs(shark_next[1] - you[1]) <= 1)
    free = f.alive & (f.kind == FREE) & (f.pos[:, 1] < w // 2)
    gap = jnp.where(free, jnp.abs(f.pos - you[None]).sum(-1), 1 << 20)
    aim = jnp.where(free.any(), f.pos[jnp.argmin(gap)], jnp.array([h // 2, w // 4]))
    move = move_action(toward(you, aim))
    return jnp.where((f.kind == YOURS).any(), jnp.where(danger, 0, REEL), move).astype(jnp.int32)


FISHINGDERBY = Game(
    name="fishingderby", pattern="C", unit="fish", actions=ACTIONS,
    descriptions=("wait", "move your hook up one row", "move your hook down one row",
                  "move your hook left one column", "move your hook right one column",
                  "reel in one row (with a fish on the hook)"),
    cells=EMPTY + HOOK + RIVAL_HOOK + FISH + SHARK + SURFACE,
    glyphs={HOOK: "your hook", RIVAL_HOOK: "the opponent's hook", FISH: "a fish", SHARK: "the shark",
            SURFACE: "the surface (reel a fish up to it to catch it)"},
    rules=_rules, reset=_reset, step=_step, paint=_paint, scripted=_scripted,
    mini=Setting(size=(10, 14), max_steps=200, target=3, rate=0.6, period=2, caps=(4, 1, 1)),
    atari=Setting(size=(16, 20), max_steps=10000, target=30, rate=0.7, period=2, caps=(6, 1, 1)),
    draws=(12, 13), events=("You caught a fish.", "The opponent caught a fish.", "The shark ate a hooked fish."),
)
