"""Farm: plant, water and harvest crops, then sell them at the market.

Reference rules (catalogue §5 row 6): 8x8 farm (wall border, 6x6 inside) with a 4x4 field of
tilled soil and a market; PLANT a seed on the empty soil you stand on, WATER it 3 times to grow
it one stage (seed -> sprout -> ripe: 6 waterings), HARVEST a ripe crop (you carry it), and
walk onto the market to sell everything you carry for 1 gold per crop. Impossible actions are
no-ops. Reward (pattern A): +1/30 per gold earned up to 30 gold; reaching 30 gold wins and ends
the episode. Return in [0, 1] by construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from glyphjax.core.grid import DIR_DELTAS, codepoints
from glyphjax.core.registry import register
from glyphjax.core.types import Env, EnvState, TaskCard, init_state_fields
from glyphjax.suites.classics.common import FLOOR, GLYPHS_ARCADE, GLYPHS_COMMON, PLAYER, WALL

S = 8
GOLD_TARGET = 30
WATER_PER_STAGE = 3
MARKET_CELL = (1, 6)
START = (1, 1)
SOIL, SEED, SPROUT, RIPE, MARKET = "▫", "◦", "♧", "♣", "$"
GLYPHS = {FLOOR: GLYPHS_COMMON[FLOOR], WALL: GLYPHS_COMMON[WALL], PLAYER: GLYPHS_ARCADE[PLAYER],
          SOIL: "tilled soil (empty, plantable)", SEED: "planted seed", SPROUT: "sprout",
          RIPE: "ripe crop (ready to harvest)", MARKET: "market (sells carried crops)"}
ACTIONS = ("UP", "DOWN", "LEFT", "RIGHT", "PLANT", "WATER", "HARVEST", "WAIT")
EV_PLANT, EV_WATER, EV_GROW, EV_HARVEST, EV_SELL, EV_WIN = 1, 2, 3, 4, 5, 6
EVENTS = ("", "You planted a seed.", "You watered the plant.", "The plant grew a stage.",
          "You harvested a crop.", "You sold your crops at the market.",
          f"You earned {GOLD_TARGET} gold. You win!")
_TABLE = codepoints(FLOOR + WALL + SOIL + SEED + SPROUT + RIPE + MARKET + PLAYER)  # 0..7


def _field() -> jax.Array:
    r = jnp.arange(S)[:, None]
    c = jnp.arange(S)[None, :]
    return (r >= 3) & (r <= 6) & (c >= 1) & (c <= 4)


def _walls() -> jax.Array:
    r = jnp.arange(S)[:, None]
    c = jnp.arange(S)[None, :]
    return (r == 0) | (r == S - 1) | (c == 0) | (c == S - 1)


@struct.dataclass
class FarmState(EnvState):
    player: jax.Array  # int32[2]
    stage: jax.Array  # int32[S, S]: 0 empty soil, 1 seed, 2 sprout, 3 ripe (field cells only)
    water: jax.Array  # int32[S, S]: waterings towards the next stage
    carried: jax.Array  # int32 crops carried
    gold: jax.Array  # int32 gold earned


class Farm(Env):
    def __init__(self, task_id: str = "classics/farm", max_steps: int = 200):
        self.card = TaskCard(
            id=task_id,
            rules=(f"Farm on an {S}x{S} board (wall border). Stand on empty tilled soil and PLANT a "
                   f"seed; stand on a plant and WATER it: every {WATER_PER_STAGE} waterings it grows "
                   "one stage (seed, then sprout, then ripe). HARVEST a ripe crop to carry it. Walk "
                   "onto the market to sell all carried crops for 1 gold each. Earn "
                   f"{GOLD_TARGET} gold to win. Actions that do not apply where you stand do nothing."),
            actions=ACTIONS,
            action_descriptions=("move one cell up", "move one cell down", "move one cell left",
                                 "move one cell right", "plant a seed on the empty soil you stand on",
                                 "water the plant you stand on",
                                 "harvest the ripe crop you stand on", "do nothing"),
            glyphs=GLYPHS,
            hud=("Step: {step} / {max_steps}    Gold: {gold} / " + str(GOLD_TARGET) +
                 "    Crops carried: {carried}    Waterings on this plot: {water} / " + str(WATER_PER_STAGE)),
            hud_fields=("gold", "carried", "water"),
            max_steps=max_steps,
            reward=(f"+1/{GOLD_TARGET} per gold earned by selling (at most {GOLD_TARGET} gold = "
                    "1.0; reaching it wins and ends the game). Return range [0, 1]."),
            events=EVENTS,
            success=(EV_WIN,),
            return_range=(0.0, 1.0),
        )

    def _reset(self, key, params):
        z = jnp.zeros((S, S), jnp.int32)
        return FarmState(**init_state_fields(), player=jnp.array(START, jnp.int32), stage=z, water=z,
                         carried=jnp.int32(0), gold=jnp.int32(0))

    def _step(self, key, state: FarmState, action, params):
        move = (action >= 0) & (action < 4)
        target = state.player + jnp.where(move, DIR_DELTAS[jnp.clip(action, 0, 3)], 0)
        player = jnp.where(_walls()[target[0], target[1]], state.player, target)
        r, c = player[0], player[1]
        on_field = _field()[r, c]
        st, wa = state.stage[r, c], state.water[r, c]
        plant = (action == 4) & on_field & (st == 0)
        water = (action == 5) & on_field & (st >= 1) & (st <= 2)
        harvest = (action == 6) & on_field & (st == 3)
        wa2 = jnp.where(water, wa + 1, wa)
        grow = wa2 >= WATER_PER_STAGE
        st2 = jnp.where(plant, 1, jnp.where(harvest, 0, jnp.where(grow, st + 1, st)))
        wa2 = jnp.where(grow | plant | harvest, 0, wa2)
        carried = state.carried + harvest.astype(jnp.int32)
        at_market = (r == MARKET_CELL[0]) & (c == MARKET_CELL[1])
        sold = jnp.where(at_market, carried, 0)
        gold = state.gold + sold
        carried = carried - sold
        reward = (jnp.minimum(gold, GOLD_TARGET) - jnp.minimum(state.gold, GOLD_TARGET)).astype(jnp.float32) / GOLD_TARGET
        won = gold >= GOLD_TARGET
        event = jnp.select([won, sold > 0, harvest, grow, water, plant],
                           [EV_WIN, EV_SELL, EV_HARVEST, EV_GROW, EV_WATER, EV_PLANT], 0)
        nxt = state.replace(player=player, stage=state.stage.at[r, c].set(st2),
                            water=state.water.at[r, c].set(wa2), carried=carried, gold=gold)
        return nxt, reward, won, event

    def _render(self, state: FarmState, params):
        codes = jnp.where(_walls(), 1, jnp.where(_field(), 2 + state.stage, 0))
        codes = codes.at[MARKET_CELL].set(6)
        codes = codes.at[state.player[0], state.player[1]].set(7)
        return _TABLE[codes], (state.gold, state.carried, state.water[state.player[0], state.player[1]])

    @staticmethod
    def scripted_policy(key, state: FarmState, params):
        """Tend the plot under you (plant/water/harvest); when carrying 4+ crops or nothing is
        left to tend nearby, walk to the market; otherwise walk to the nearest plot needing work."""
        r, c = state.player[0], state.player[1]
        st = state.stage[r, c]
        on_field = _field()[r, c]
        act_here = jnp.where(st == 0, 4, jnp.where(st == 3, 6, 5))
        rr = jnp.arange(S)[:, None]
        cc = jnp.arange(S)[None, :]
        dist = jnp.abs(rr - r) + jnp.abs(cc - c)
        d = jnp.where(_field(), dist, 1000).reshape(-1)
        tgt = jnp.argmin(d)
        go_market = state.carried >= 4
        tr = jnp.where(go_market, MARKET_CELL[0], tgt // S)
        tc = jnp.where(go_market, MARKET_CELL[1], tgt % S)
        step = jnp.where(tr < r, 0, jnp.where(tr > r, 1, jnp.where(tc < c, 2, 3)))
        tend = on_field & ~go_market
        return jnp.where(tend, act_here, step).astype(jnp.int32)


register("classics/farm", lambda: Farm())
