"""Gymnasium single-env adapter: any registered single-seat glyphjax task as a `gymnasium.Env`.

    import glyphjax.adapters.gymnasium_env  # registers every task id
    env = gymnasium.make("glyphjax/classics.snake-easy")   # task id with "/" written as "."
    env = gymnasium.make("glyphjax/Task", task="classics/snake-easy")  # any id by keyword
    obs, info = env.reset(seed=3)   # obs: the text observation; info: grid, hud, event, legal

An episode reset with `seed=s` is the glyphjax episode with seed s (same keys as `replay` and
`rollout`), so the text, rewards and flags equal our own rollout on the same seed and actions.
`reset()` without a seed draws the next episode seed from Gymnasium's seeded `np_random`.
Truncation at `max_steps` comes from the task itself (no TimeLimit wrapper). Works with
Gymnasium 1.2.x (nle pins it) and 1.4.x.
"""

from __future__ import annotations

import string
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from glyphjax.core.packed import EpisodeStepper, frame_layout
from glyphjax.core.registry import all_ids, make
from glyphjax.core.types import Frame, TaskCard
from glyphjax.render.text import observation_text

NAMESPACE = "glyphjax"
GENERIC_ID = f"{NAMESPACE}/Task"


def gym_id(task_id: str) -> str:
    """The Gymnasium id of a glyphjax task: Gymnasium ids allow one "/", so the task's own "/"
    becomes "." (classics/snake-easy -> glyphjax/classics.snake-easy)."""
    return f"{NAMESPACE}/{task_id.replace('/', '.')}"


def observation_charset(card: TaskCard) -> str:
    """Every character a text observation of this task can hold: printable ASCII (labels,
    numbers, section headers) plus the card's glyphs and the text of its legend, HUD and messages."""
    texts = [card.hud, *card.events, *card.glyphs, *card.glyphs.values(), " — "]
    texts += [name for names in card.hud_enums.values() for name in names]
    return "".join(sorted(set(string.printable).union(*map(set, texts))))


def observation_max_length(card: TaskCard, height: int, width: int) -> int:
    """An upper bound on the observation's length: the whole legend, the labelled grid, the HUD
    with wide numbers and the longest message, plus section headers."""
    legend = sum(len(g) + len(m) + 4 for g, m in card.glyphs.items())
    grid = (height + 1) * (width + 8)
    longest_enum = max((len(n) for names in card.hud_enums.values() for n in names), default=0)
    hud = len(card.hud) + (len(card.hud_fields) + 2) * max(24, longest_enum)
    return legend + grid + hud + max(map(len, card.events)) + 64


class GlyphJaxEnv(gymnasium.Env):
    """One glyphjax task behind the Gymnasium API: text observations, `Discrete` actions (indices
    into `card.actions`), the raw frame arrays and the legal mask in `info`."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, task: str, render_mode: str | None = None):
        env = make(task)
        if env.card.num_players != 1:
            raise ValueError(f"{task} has {env.card.num_players} seats; the Gymnasium adapter takes "
                             f"single-seat tasks only (compose a game with an opponent via glyphjax.versus first)")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r} is not offered; use 'ansi' (the text observation) or None")
        self.task = env
        self.render_mode = render_mode
        layout = frame_layout(env)
        self.action_space = spaces.Discrete(env.card.num_actions)
        self.observation_space = spaces.Text(
            max_length=observation_max_length(env.card, layout.height, layout.width),
            charset=observation_charset(env.card))
        self._stepper: EpisodeStepper | None = None
        self._text = ""

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        episode_seed = seed if seed is not None else int(self.np_random.integers(0, 2**32))
        if not 0 <= episode_seed < 2**32:
            raise ValueError(f"seed {episode_seed} is outside the episode seed range [0, 2**32)")
        self._stepper = EpisodeStepper(self.task, episode_seed)
        return self._observe(self._stepper.frame), self._info(self._stepper.frame)

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict]:
        if self._stepper is None:
            raise RuntimeError(f"{self.task.card.id}: call reset() before step()")
        if not self.action_space.contains(action):
            raise ValueError(f"{self.task.card.id}: action {action!r} is not in {self.action_space} "
                             f"(indices into {self.task.card.actions})")
        out = self._stepper.step(int(action))
        return (self._observe(out.frame), float(out.reward), out.terminated, out.truncated,
                self._info(out.frame))

    def render(self) -> str | None:
        return self._text if self.render_mode == "ansi" else None

    def _observe(self, frame: Frame) -> str:
        self._text = observation_text(self.task.card, frame)
        return self._text

    def _info(self, frame: Frame) -> dict:
        stepper = self._stepper
        return {"grid": np.array(frame.grid), "hud": np.array(frame.hud), "event": int(frame.event),
                "legal": np.asarray(self.task.legal(stepper.state, stepper.params)),
                "seed": int(stepper.seed), "step": int(stepper.state.t), "task": self.task.card.id}


def register_envs(task_ids: list[str] | None = None) -> list[str]:
    """Register the generic `glyphjax/Task` id and one Gymnasium id per single-seat task
    (default: every registered task); returns the Gymnasium ids registered."""
    registry = gymnasium.envs.registration.registry
    entry = f"{__name__}:GlyphJaxEnv"
    if GENERIC_ID not in registry:
        gymnasium.register(GENERIC_ID, entry_point=entry, disable_env_checker=True)
    out = []
    for task_id in all_ids() if task_ids is None else task_ids:
        name = gym_id(task_id)
        if name not in registry and make(task_id).card.num_players == 1:
            gymnasium.register(name, entry_point=entry, kwargs={"task": task_id}, disable_env_checker=True)
        if name in registry:
            out.append(name)
    return out


register_envs()
