"""What a MiniGrid level looks like at reset, summarised alike for Farama's envs and ours.

`summarise` turns K reset levels (packed cells in our encoding, agent cells, missions) into a
JSON-able row: mission templates (colour and object words replaced), the missions themselves
when there are few, the agent's start box and directions, its start room (RoomGrid families) and
the colours drawn per object type. `python -m tests.suites.minigrid.farama_table` regenerates
data/farama_registrations.json from an installed Farama `minigrid` (not a test dependency); the
guard test (test_farama_table.py) summarises our levels the same way and compares.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from glyphjax.suites.minigrid.engine import BALL, BOX, COLORS, DOOR, GOAL, KEY, LAVA, WALL, pack

TABLE = Path(__file__).parent / "data" / "farama_registrations.json"
SEEDS = 200  # reset levels per task, seeds 0..SEEDS-1 (each side its own RNG)
FEW_MISSIONS = 6  # missions listed one by one when a task has at most this many
OBJECTS = {KEY: "key", BALL: "ball", BOX: "box", DOOR: "door"}
_WORDS = re.compile(r"\b(" + "|".join(COLORS) + r")\b|\b(key|ball|box)\b")
_CROSS3 = {"size": 11, "num_crossings": 3}
_WALLS = {"obstacle_type": "wall"}

# our task -> (Farama registered id, or "module:Class" built with kwargs; room size of a RoomGrid
# family, else None). Tasks without a Farama counterpart are in NO_COUNTERPART instead.
FARAMA: dict[str, tuple[str, dict, int | None]] = {
    **{f"empty-{s}x{s}": (f"MiniGrid-Empty-{s}x{s}-v0", {}, None) for s in (5, 6, 8, 16)},
    **{f"empty-random-{s}x{s}": (f"MiniGrid-Empty-Random-{s}x{s}-v0", {}, None) for s in (5, 6)},
    "fourrooms": ("MiniGrid-FourRooms-v0", {}, None),
    **{f"doorkey-{s}x{s}": (f"MiniGrid-DoorKey-{s}x{s}-v0", {}, None) for s in (5, 6, 8, 16)},
    "multiroom-n2-s4": ("MiniGrid-MultiRoom-N2-S4-v0", {}, None),
    "multiroom-n4-s5": ("MiniGrid-MultiRoom-N4-S5-v1", {}, None),
    "multiroom-n6": ("MiniGrid-MultiRoom-N6-v0", {}, None),
    **{f"keycorridor-s{s}r{r}": (f"MiniGrid-KeyCorridorS{s}R{r}-v0", {}, s)
       for s, r in ((3, 1), (3, 2), (3, 3), (4, 3), (5, 3), (6, 3))},
    "lockedroom": ("MiniGrid-LockedRoom-v0", {}, None),
    "unlock": ("MiniGrid-Unlock-v0", {}, 6),
    "unlockpickup": ("MiniGrid-UnlockPickup-v0", {}, 6),
    "blockedunlockpickup": ("MiniGrid-BlockedUnlockPickup-v0", {}, 6),
    **{f"obstructedmaze-{n}": (f"MiniGrid-ObstructedMaze-{f}", {}, 6) for n, f in (
        ("1dl", "1Dl-v0"), ("1dlh", "1Dlh-v0"), ("1dlhb", "1Dlhb-v0"), ("2dl", "2Dl-v0"), ("2dlh", "2Dlh-v0"),
        ("2dlhb", "2Dlhb-v1"), ("1q", "1Q-v1"), ("2q", "2Q-v1"), ("full", "Full-v1"))},
    **{f"lavagap-s{s}": (f"MiniGrid-LavaGapS{s}-v0", {}, None) for s in (5, 6, 7)},
    **{f"crossing-n{n}": (f"MiniGrid-LavaCrossingS9N{n}-v0", {}, None) for n in (1, 2)},
    **{f"crossing-n{n}-safe": (f"MiniGrid-SimpleCrossingS9N{n}-v0", {}, None) for n in (1, 2)},
    **{f"simplecrossing-n{n}": (f"MiniGrid-SimpleCrossingS9N{n}-v0", {}, None) for n in (1, 2)},
    "crossing-n3": ("minigrid.envs:CrossingEnv", _CROSS3, None),
    "crossing-n3-safe": ("minigrid.envs:CrossingEnv", {**_CROSS3, **_WALLS}, None),
    "simplecrossing-n3": ("minigrid.envs:CrossingEnv", {**_CROSS3, **_WALLS}, None),
    **{f"dynamic-obstacles-{s}x{s}": (f"MiniGrid-Dynamic-Obstacles-{s}x{s}-v0", {}, None) for s in (5, 6, 8, 16)},
    "distshift1": ("MiniGrid-DistShift1-v0", {}, None),
    "distshift2": ("MiniGrid-DistShift2-v0", {}, None),
    **{f"fetch-{s}x{s}-n{n}": (f"MiniGrid-Fetch-{s}x{s}-N{n}-v0", {}, None) for s, n in ((5, 2), (6, 2), (8, 3))},
    **{f"gotodoor-{s}x{s}": (f"MiniGrid-GoToDoor-{s}x{s}-v0", {}, None) for s in (5, 6, 8)},
    "gotoobject-6x6-n2": ("MiniGrid-GoToObject-6x6-N2-v0", {}, None),
    **{f"putnear-{s}x{s}-n{n}": (f"MiniGrid-PutNear-{s}x{s}-N{n}-v0", {}, None) for s, n in ((6, 2), (8, 3))},
    **{f"redbluedoors-{s}x{s}": (f"MiniGrid-RedBlueDoors-{s}x{s}-v0", {}, None) for s in (6, 8)},
    **{f"memory-s{s}": (f"MiniGrid-MemoryS{s}-v0", {}, None) for s in (7, 9, 11, 13)},
    "memory-s17": ("minigrid.envs:MemoryEnv", {"size": 17}, None),
    "playground": ("MiniGrid-Playground-v0", {}, None),
}
NO_COUNTERPART = {f"simplecrossing-easy-n{n}": "ours (every wall segment has an opening)" for n in (1, 2, 3)}


def mission_template(mission: str) -> str:
    """The mission with colour names as {color} and key/ball/box as {object}."""
    return _WORDS.sub(lambda m: "{color}" if m.group(1) else "{object}", mission)


def summarise(grids: np.ndarray, pos: np.ndarray, dirs: np.ndarray, missions: list[str],
              room_size: int | None) -> dict:
    """A row of the table from K reset levels: grids int[K, H, W] (packed cells, ours), pos
    int[K, 2] (row, col), dirs int[K], missions list[str]."""
    typ, col = grids & 15, (grids >> 4) & 7
    colours = {name: sorted({COLORS[c] for c in np.unique(col[typ == t])}) for t, name in OBJECTS.items()}
    rooms = None
    if room_size:
        rooms = sorted({(int(r) // (room_size - 1), int(c) // (room_size - 1)) for r, c in pos})
    return dict(
        missions=sorted(set(missions)) if len(set(missions)) <= FEW_MISSIONS else None,
        mission_templates=sorted({mission_template(m) for m in missions}),
        agent_box=[int(pos[:, 0].min()), int(pos[:, 1].min()), int(pos[:, 0].max()), int(pos[:, 1].max())],
        agent_dirs=sorted({int(d) for d in dirs}),
        agent_rooms=None if rooms is None else [list(rc) for rc in rooms],
        colours={k: v for k, v in colours.items() if v},
    )


# --- the Farama side (needs `pip install minigrid==3.2.0`) ---------------------------------------
def _farama_env(entry: str, kwargs: dict):
    import importlib

    import gymnasium as gym
    import minigrid  # noqa: F401  (registers the ids)

    if ":" not in entry:
        return gym.make(entry, **kwargs).unwrapped
    module, cls = entry.split(":")
    kw = dict(kwargs)
    if kw.get("obstacle_type") == "wall":
        from minigrid.core.world_object import Wall
        kw["obstacle_type"] = Wall
    return getattr(importlib.import_module(module), cls)(**kw)


def _farama_level(env) -> tuple[np.ndarray, tuple[int, int], int, str]:
    """Farama's grid in our packed encoding (type and colour only), agent (row, col), dir, mission."""
    types = {"wall": WALL, "door": DOOR, "key": KEY, "ball": BALL, "box": BOX, "goal": GOAL, "lava": LAVA}
    g = np.zeros((env.height, env.width), np.int32)
    for x in range(env.width):
        for y in range(env.height):
            o = env.grid.get(x, y)
            if o is not None and o.type in types:
                g[y, x] = pack(types[o.type], COLORS.index(o.color))
    x, y = env.agent_pos
    return g, (int(y), int(x)), int(env.agent_dir), env.mission


def farama_row(name: str) -> dict:
    """The table row of one of our tasks, from SEEDS resets of its Farama counterpart."""
    entry, kwargs, room_size = FARAMA[name]
    env = _farama_env(entry, kwargs)
    levels = []
    for seed in range(SEEDS):
        env.reset(seed=seed)
        levels.append(_farama_level(env))
    row = summarise(np.stack([lv[0] for lv in levels]), np.array([lv[1] for lv in levels]),
                    np.array([lv[2] for lv in levels]), [lv[3] for lv in levels], room_size)
    return dict(farama=entry, kwargs=kwargs, room_size=room_size, **row)


def main() -> None:
    """Regenerate the table from the installed Farama minigrid."""
    import minigrid

    rows = {name: farama_row(name) for name in sorted(FARAMA)}
    source = (f"Farama minigrid {minigrid.__version__} (PyPI): registrations in minigrid/__init__.py, env "
              f"classes in minigrid/envs/*.py. Written by `python -m tests.suites.minigrid.farama_table` "
              f"from {SEEDS} resets (seeds 0..{SEEDS - 1}) per task, not by hand")
    TABLE.parent.mkdir(exist_ok=True)
    TABLE.write_text(json.dumps({"source": source, "no_counterpart": NO_COUNTERPART, "tasks": rows},
                                indent=1, sort_keys=True) + "\n")
    print(f"wrote {TABLE} ({len(rows)} tasks)")


if __name__ == "__main__":
    main()
