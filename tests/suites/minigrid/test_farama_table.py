"""Every MiniGrid task against Farama MiniGrid's registrations (data/farama_registrations.json,
written from minigrid 3.2.0 by `python -m tests.suites.minigrid.farama_table`): mission text,
agent start (room, box, directions) and object colours of 200 reset levels, summarised alike.

Departures we keep on purpose are listed in DEPARTURES with the reason (docs/suites/minigrid.md
says the same); a listed departure that no longer differs fails too, so the list stays true."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import glyphjax
from glyphjax.suites.minigrid import TASKS, make_task
from glyphjax.suites.minigrid.tasks import PARTIAL
from tests.suites.minigrid.farama_table import FARAMA, NO_COUNTERPART, SEEDS, TABLE, summarise

TABLE_DATA = json.loads(TABLE.read_text())
ROWS = TABLE_DATA["tasks"]
FIELDS = ("missions", "mission_templates", "agent_rooms", "agent_dirs", "agent_box", "colours")
MISSION = FIELDS[:2]
_goal = "the catalogue's goal mission"
DEPARTURES: dict[tuple[str, str], str] = {
    **{(t, f): "Farama: 'find the opening and get to the green goal square'; ours: " + _goal
       for t in ("simplecrossing-n1", "simplecrossing-n2", "simplecrossing-n3", "crossing-n1-safe",
                 "crossing-n2-safe", "crossing-n3-safe") for f in MISSION},
    **{(t, f): "Farama: 'get to the green goal square'; ours names the lava" for t in ("distshift1", "distshift2")
       for f in MISSION},
    **{(f"dynamic-obstacles-{s}x{s}", f): "ours names the moving obstacles in the mission"
       for s in (5, 6, 8, 16) for f in MISSION},
    **{(f"dynamic-obstacles-{s}x{s}", "colours"): "obstacles have their own glyph, not blue balls"
       for s in (5, 6, 8, 16)},
    **{(f"fetch-{s}x{s}-n{n}", "mission_templates"): "one phrasing ('fetch a') instead of Farama's five"
       for s, n in ((5, 2), (6, 2), (8, 3))},
    ("fourrooms", "missions"): "Farama: 'reach the goal'; ours: " + _goal,
    ("fourrooms", "mission_templates"): "Farama: 'reach the goal'; ours: " + _goal,
    ("playground", "missions"): "Farama has no mission; ours names an object to pick up",
    ("playground", "mission_templates"): "Farama has no mission; ours names an object to pick up",
}


def _compiled_reset(env, keys):
    """The vmapped reset of env compiled without backend optimisation (a check of levels, not a
    benchmark: the compile is most of this test's time), or plainly where that option is refused."""
    fn = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    lowered = fn.lower(keys, env.default_params())
    try:
        return lowered.compile(compiler_options={"xla_backend_optimization_level": 0})
    except Exception:  # an XLA build without the option: same levels, slower compile
        return lowered.compile()


def our_row(name: str) -> dict:
    env = make_task(name)
    keys = jax.vmap(glyphjax.reset_key)(jnp.arange(SEEDS, dtype=jnp.uint32))
    s = jax.device_get(_compiled_reset(env, keys)(keys, env.default_params()))
    missions = [env.card.hud_enums["mission"][int(i)] for i in s.mission]
    return summarise(np.asarray(s.grid), np.asarray(s.pos), np.asarray(s.dir), missions, ROWS[name]["room_size"])


def _inside(box, outer) -> bool:
    return outer[0] <= box[0] and outer[1] <= box[1] and box[2] <= outer[2] and box[3] <= outer[3]


def test_farama_table__names_its_source_and_covers_every_task():
    assert "minigrid 3.2.0" in TABLE_DATA["source"] and "farama_table" in TABLE_DATA["source"]
    assert sorted(ROWS) == sorted(FARAMA) and sorted(TABLE_DATA["no_counterpart"]) == sorted(NO_COUNTERPART)
    assert sorted(set(ROWS) | set(NO_COUNTERPART)) == sorted(TASKS)
    assert {t for t, _ in DEPARTURES} <= set(ROWS) and {f for _, f in DEPARTURES} <= set(FIELDS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_task__mission_start_and_colours_match_farama(name):
    want, got = ROWS[name], our_row(name)
    where = f"minigrid/{name} vs {want['farama']} (seeds 0..{SEEDS - 1} each)"
    checks = {
        "missions": got["missions"] == want["missions"],
        "mission_templates": got["mission_templates"] == want["mission_templates"],
        "agent_rooms": got["agent_rooms"] == want["agent_rooms"],
        "agent_dirs": got["agent_dirs"] == want["agent_dirs"],
        # a uniform start cell over K seeds may miss a rare extreme cell: ours must lie inside Farama's
        "agent_box": _inside(got["agent_box"], want["agent_box"]),
        "colours": got["colours"] == want["colours"],
    }
    for field, same in checks.items():
        reason = DEPARTURES.get((name, field))
        if reason is None:
            assert same, f"{where}: {field} ours {got[field]} != Farama {want[field]}"
        else:
            assert not same, f"{where}: {field} now matches Farama; drop the listed departure ({reason})"


@pytest.mark.parametrize("name", PARTIAL)
def test_partial_task__shares_levels_and_missions_with_its_full_view_task(name):
    full, part = make_task(name), glyphjax.make(f"minigrid/{name}-partial")
    assert part.cfg.generator is full.cfg.generator and part.cfg.level == full.cfg.level
    assert part.card.hud_enums["mission"] == full.card.hud_enums["mission"]
