"""What a language model sees: the system prompt and the per-turn user message.

The system prompt is static per episode (rules, actions with descriptions, observation
conventions, reward, response format) so servers can cache its prefix. The per-turn message holds
the current observation (legend, HUD, grid, message) and optionally the last N observations and
actions, and a memory block (the `memory` harness).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from glyphjax.core.types import TaskCard

RESPONSE_FORMAT = (
    "Think step by step about the board, then give exactly one action as "
    "<action>ACTION_NAME</action> using a name from the action list. "
    "If you write several action tags, only the last one counts. "
    "An unreadable or unknown action wastes the turn."
)

NATIVE_TEXT_CONVENTIONS = (
    "Each turn you see the game's own text description of the state: a map with one line per "
    "visible cell ('column, row: what is there', offsets from you, negative = left or up), then "
    "your inventory and status.")

PIXEL_CONVENTIONS = (
    "Each turn you see an image of the game seen from above, centred on you, with the status lines "
    "(HUD) and what just happened as text.")

OBSERVATION_CONVENTIONS = (
    "Each turn you see the observation in sections: [Legend] lists every symbol on the grid with "
    "its meaning, [HUD] shows status values, [Grid] is the board with one character per cell "
    "(row 0 at the top, column 0 at the left), and [Message] reports what just happened."
)

LABELS_CONVENTION = (
    "Column numbers (mod 10) are printed above the grid and row numbers to its left; they are not "
    "part of the board. Cell actions are numbered row by row: index = row * width + column."
)


GLYPH = "glyph"
OBS_FORMATS = (GLYPH, "native_text", "pixels")  # pixels: an env's image observation (not a text prompt)


@dataclasses.dataclass(frozen=True)
class HarnessConfig:
    """Named, configurable harness. `basic`: instructions + conversation history; `memory`: a
    persistent scratchpad block refreshed by separate model calls; `compact`: a short system
    prompt (rules, action names, one-line response format; no per-action descriptions, reward or
    observation conventions) for tiny models and CPU toy runs, where prompt length dominates cost;
    `minimal` (*ours*): `compact` without the rules (game id, action names, response format), for
    models trained from scratch, which cannot read the rules anyway (a third of compact's tokens on
    MiniGrid);
    `witness`: the WITNESS harness (rule memory, reflections, plans; glyphjax/witness/harness.py);
    `guided_memory`: plans, landmarks by floor, recent actions, an exploration summary and floor
    guidance, refreshed by separate model calls every five moves and after events
    (glyphjax/harness/guided.py; `memory_chars` cuts its block)."""

    name: str = "basic"
    history: int = 0  # how many previous (observation, action) pairs to show in the turn message
    memory: bool = False
    memory_chars: int = 2000  # the scratchpad is cut to this many characters
    obs_format: str = GLYPH  # glyph: our text render; native_text: the task's own text (Craftax); pixels

    def __post_init__(self):
        if self.name not in HARNESSES:
            raise ValueError(f"unknown harness {self.name!r}; choose one of {sorted(HARNESSES)}")
        if self.obs_format not in OBS_FORMATS:
            raise ValueError(f"unknown harness.obs_format {self.obs_format!r}; choose one of {', '.join(OBS_FORMATS)}")
        if self.history < 0:
            raise ValueError("harness.history must be >= 0")


    @property
    def guided(self) -> bool:
        return self.name == GUIDED_MEMORY


GUIDED_MEMORY = "guided_memory"
HARNESSES = {"basic", "memory", "compact", "minimal", "witness", GUIDED_MEMORY}  # witness: WITNESS games only (rl/witness_rollout.py)

COMPACT_RESPONSE_FORMAT = "Reply <action>ACTION_NAME</action>."


def seat_line(card: TaskCard, seat: int) -> str:
    """Which seat of a multi-seat game the prompt's reader plays (seats count from 0)."""
    return f"You play seat {seat} of {card.num_players} (seats are numbered from 0)."


def system_prompt(card: TaskCard, harness: HarnessConfig | None = None, seat: int | None = None) -> str:
    """The static system prompt; `seat` (multi-seat games) adds which seat the reader plays."""
    harness = harness or HarnessConfig()
    if harness.name in ("compact", "minimal"):
        rules = "" if harness.name == "minimal" else f" {card.rules.strip()}"
        parts = [f"Game {card.id}.{rules}", f"Actions: {', '.join(card.actions)}."]
        if seat is not None:
            parts.append(seat_line(card, seat))
        if harness.memory:
            parts.append("A [Memory] block holds your notes from earlier turns.")
        parts.append(COMPACT_RESPONSE_FORMAT)
        return "\n".join(parts)
    actions = "\n".join(f"- {name}: {desc}" for name, desc in zip(card.actions, card.action_descriptions))
    conv = (NATIVE_TEXT_CONVENTIONS if harness.obs_format == "native_text" else PIXEL_CONVENTIONS
            if harness.obs_format == "pixels"
            else OBSERVATION_CONVENTIONS + (" " + LABELS_CONVENTION if card.grid_labels else ""))
    parts = [
        f"You are playing the game {card.id}.",
        f"# Rules\n{card.rules.strip()}",
        f"# Reward\n{card.reward.strip()}",
        f"# Episode\nThe episode lasts at most {card.max_steps} turns.",
        f"# Actions\n{actions}",
        f"# Observations\n{conv}",
    ]
    if seat is not None:
        parts.append(f"# Seat\n{seat_line(card, seat)}")
    if harness.memory:
        parts.append("# Memory\nA [Memory] block with your own notes from earlier turns is shown "
                     "each turn; it is updated separately after each turn.")
    if harness.guided:
        parts.append("# Guided memory\nA [Memory] block shows guidance for the floor you are on, your plan, "
                     "landmarks you noted (by floor), your recent actions and an exploration summary. You are "
                     "asked separately to update it every few turns and after events.")
    parts.append(f"# Response format\n{RESPONSE_FORMAT}")
    return "\n\n".join(parts)


def turn_message(observation: str, history: Sequence[tuple[str, str]] = (), memory: str | None = None) -> str:
    """The user message of one turn. `history`: earlier (observation, action name) pairs, oldest
    first (already cut to the harness window by the caller)."""
    parts = []
    if memory is not None:
        parts.append(f"[Memory]\n{memory.strip() or '(empty)'}")
    for i, (obs, act) in enumerate(history):
        back = len(history) - i
        parts.append(f"--- {back} turn{'s' if back > 1 else ''} ago ---\n{obs}\nYour action: {act}")
    if history:
        parts.append("--- now ---")
    parts.append(observation)
    return "\n\n".join(parts)


MEMORY_UPDATE_INSTRUCTION = (
    "Update your memory notes for the rest of this episode: keep what still matters (goals, "
    "discovered rules, plans), drop what is stale. Reply with the new notes only, inside "
    "<memory>...</memory>."
)


def png_base64(pixels) -> str:
    """An image observation (float [H, W, 3] in [0, 1]) as a base64 PNG."""
    import base64
    import io

    import numpy as np
    from PIL import Image

    img = np.clip(np.round(np.asarray(pixels, np.float64) * 255.0), 0, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def pixel_text(hud: str, message: str, shape: tuple[int, ...]) -> str:
    """The text that goes with an image observation (obs_format=pixels): HUD and message."""
    return ((f"[HUD]\n{hud}\n\n" if hud else "") + f"[Image]\nattached: the view, {shape[1]} x {shape[0]} px"
            + (f"\n\n[Message]\n{message}" if message else ""))


def with_image(text: str, png: str | None) -> str | list[dict]:
    """A user message's content: the text alone, or (an image observation) OpenAI chat content
    parts: the text, then the PNG as a base64 data URL in an `image_url` part."""
    if png is None:
        return text
    return [{"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}}]


def parse_memory(text: str | None, previous: str, limit: int) -> str:
    """New scratchpad from a memory-update completion: the last <memory> block, else unchanged."""
    import re
    blocks = re.findall(r"<memory>(.*?)</memory>", text or "", re.IGNORECASE | re.DOTALL)
    return blocks[-1].strip()[:limit] if blocks else previous
