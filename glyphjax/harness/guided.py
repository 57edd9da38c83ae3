"""The Guided Memory harness (`harness=guided_memory`; the paper's §4 and App. C.2).

A compact memory the rollout keeps per text seat and shows in every turn message:

- **plans**: the model's current plan, at most MAX_PLANS steps;
- **landmarks keyed by floor**: places worth returning to, filed under the floor the player
  stood on when the model named them (at most MAX_LANDMARKS per floor, newest kept);
- **recent actions**: the last MAX_RECENT actions, written by the harness (not the model);
- **an exploration summary**: one short paragraph (at most SUMMARY_CHARS);
- **floor guidance**: a fixed paragraph for the current floor, from the task.

The model rewrites plans, landmarks and the summary in separate calls: after every
UPDATE_EVERY of its own moves, and at once after an event (floor change, damage, achievement).
The update reply is JSON inside <memory>...</memory>; a reply that cannot be read (no block,
bad JSON, wrong types) keeps the old memory and is counted in `GuidedMemory.failures`.

Task hooks (optional; any task works without them): `env.memory_signals(state, params) ->
float32[3]` (floor, health, achievements unlocked; jittable) gives the floor key and the events,
and `env.floor_name(floor)` / `env.floor_guidance(floor)` give the floor's name and guidance
(Craftax: glyphjax/suites/craftax/guidance.py). Without them the memory has one floor key
(`GENERIC_FLOOR`), generic guidance, and a nonzero reward is the event.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Sequence

UPDATE_EVERY = 5  # the model's moves between scheduled updates
MAX_PLANS, MAX_LANDMARKS, MAX_RECENT = 5, 8, 8
ITEM_CHARS, SUMMARY_CHARS = 120, 400  # each plan step / landmark; the exploration summary
GENERIC_FLOOR = "this level"
GENERIC_GUIDANCE = ("Note where useful things are and what each action did; plan a few steps "
                    "ahead and change the plan when the reward or the board tells you it is not working.")

UPDATE_INSTRUCTION = (
    "Update your guided memory for the rest of this episode. Reply with one JSON object inside "
    "<memory>...</memory> with any of these keys: \"plan\" (a list of at most {plans} short next "
    "steps; replaces the old plan), \"landmarks\" (a list of new places worth remembering on the "
    "current floor, e.g. \"table 3 left of the lake\"), \"exploration\" (one or two sentences: what "
    "you have explored and what is left). Keys you leave out keep their old value. Example: "
    "<memory>{{\"plan\": [\"collect 2 wood\", \"place a table\"], \"landmarks\": [\"trees to the north\"], "
    "\"exploration\": \"explored the area around the start\"}}</memory>")


@dataclasses.dataclass(frozen=True)
class Signals:
    """What the harness reads off a state (None: the task does not say)."""

    floor: int | None = None
    health: float | None = None
    achievements: int | None = None

    @classmethod
    def of(cls, row: Any) -> "Signals":
        """From a `memory_signals` row (floor, health, achievements)."""
        floor, health, achievements = (float(x) for x in row)
        return cls(int(round(floor)), health, int(round(achievements)))


def events(before: Signals, after: Signals, reward: float) -> list[str]:
    """The events between two states, as short phrases for the update call. Tasks with signals:
    floor change, damage, new achievements; tasks without: a nonzero reward."""
    if after.floor is None:
        return [f"you received reward {reward:+g}"] if reward != 0 else []
    out = []
    if before.floor is not None and after.floor != before.floor:
        out.append(f"you moved from floor {before.floor} to floor {after.floor}")
    if before.health is not None and after.health < before.health:
        out.append(f"you took damage (health {before.health:g} -> {after.health:g})")
    if before.achievements is not None and after.achievements > before.achievements:
        n = after.achievements - before.achievements
        out.append(f"you unlocked {n} achievement{'s' if n > 1 else ''}")
    return out


def floor_key(env: Any, signals: Signals) -> str:
    """The landmark key of the floor in `signals`: the task's floor name, else GENERIC_FLOOR."""
    if signals.floor is None or not hasattr(env, "floor_name"):
        return GENERIC_FLOOR
    return f"floor {signals.floor} ({env.floor_name(signals.floor)})"


def guidance(env: Any, signals: Signals) -> str:
    """The task's guidance for the current floor, else GENERIC_GUIDANCE."""
    if signals.floor is None or not hasattr(env, "floor_guidance"):
        return GENERIC_GUIDANCE
    return env.floor_guidance(signals.floor)


def _cut(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 3] + "..."


def _items(value: Any) -> list[str] | None:
    """A reply field that should be a list of short strings (a lone string is one item); None if
    it is not one."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or any(isinstance(v, (dict, list, bool)) or v is None for v in value):
        return None
    return [_cut(v, ITEM_CHARS) for v in value if str(v).strip()]


def parse_update(text: str | None) -> dict | None:
    """The fields of an update reply (`plan`, `landmarks`: lists of strings; `exploration`: str),
    or None when it cannot be read: no <memory> block, not a JSON object, no known key, or a key
    of the wrong type."""
    blocks = re.findall(r"<memory>(.*?)</memory>", text or "", re.IGNORECASE | re.DOTALL)
    if not blocks:
        return None
    body = blocks[-1].strip()
    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", body)  # a fenced block inside the tags
    try:
        obj = json.loads(body)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    out: dict[str, Any] = {}
    for key in ("plan", "landmarks"):
        if key in obj:
            items = _items(obj[key])
            if items is None:
                return None
            out[key] = items
    if "exploration" in obj:
        if not isinstance(obj["exploration"], str):
            return None
        out["exploration"] = _cut(obj["exploration"], SUMMARY_CHARS)
    return out or None


@dataclasses.dataclass
class GuidedMemory:
    """One seat's guided memory (see the module docstring); `limit` cuts the rendered block."""

    limit: int = 2000
    plans: list[str] = dataclasses.field(default_factory=list)
    landmarks: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # floor key -> landmarks
    recent: list[str] = dataclasses.field(default_factory=list)
    exploration: str = ""
    since_update: int = 0  # the seat's moves since the last update call
    updates: int = 0  # update replies applied
    failures: int = 0  # update replies that could not be read (memory kept)

    def moved(self, action_name: str) -> None:
        """After each of the seat's moves: remember the action, count toward the next update."""
        self.recent = (self.recent + [action_name])[-MAX_RECENT:]
        self.since_update += 1

    def due(self, happened: Sequence[str]) -> bool:
        """Whether an update call is due now: UPDATE_EVERY moves since the last, or an event."""
        return bool(happened) or self.since_update >= UPDATE_EVERY

    def apply(self, text: str | None, floor: str) -> bool:
        """Apply an update reply (landmarks filed under `floor`); False (memory unchanged,
        counted) when it cannot be read. Either way the update schedule restarts."""
        self.since_update = 0
        fields = parse_update(text)
        if fields is None:
            self.failures += 1
            return False
        if "plan" in fields:
            self.plans = fields["plan"][:MAX_PLANS]
        if fields.get("landmarks"):
            kept = [x for x in self.landmarks.get(floor, []) if x not in fields["landmarks"]]
            self.landmarks[floor] = (kept + fields["landmarks"])[-MAX_LANDMARKS:]
        if "exploration" in fields:
            self.exploration = fields["exploration"]
        self.updates += 1
        return True

    def render(self, floor: str, guide: str) -> str:
        """The memory block of a turn message: guidance for `floor`, plan, landmarks (the current
        floor's first), recent actions and the summary, cut to `limit` characters."""
        lines = [f"Floor: {floor}", f"Guidance: {guide}", "Plan:"]
        lines += [f"  {i + 1}. {p}" for i, p in enumerate(self.plans)] or ["  (none yet)"]
        floors = sorted(self.landmarks, key=lambda k: k != floor)
        lines.append("Landmarks:")
        lines += [f"  {k}: {'; '.join(self.landmarks[k])}" for k in floors] or ["  (none yet)"]
        lines.append(f"Recent actions: {', '.join(self.recent) or '(none yet)'}")
        lines.append(f"Exploration: {self.exploration or '(nothing noted yet)'}")
        text = "\n".join(lines)
        return text if len(text) <= self.limit else text[:self.limit - 3] + "..."


def update_instruction(happened: Sequence[str]) -> str:
    """The user message of an update call (naming the events that triggered it, if any)."""
    head = f"Events since your last turn: {'; '.join(happened)}.\n" if happened else ""
    return head + UPDATE_INSTRUCTION.format(plans=MAX_PLANS)


__all__ = ["GENERIC_FLOOR", "GENERIC_GUIDANCE", "GuidedMemory", "Signals", "UPDATE_EVERY", "events", "floor_key",
           "guidance", "parse_update", "update_instruction"]
