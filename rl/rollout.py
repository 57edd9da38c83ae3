"""The batched multi-turn rollout engine for text policies, single-agent and multi-seat.

`run_rollouts(policy, episodes, harness, sampling)` plays N episodes (any mix of tasks) as one
batch, turn by turn, in phases (`_Rollout`):

1. observe: env states stay batched on device, one batch per compiled program (`Env.program`;
   a batch mixing its variants or encodings steps over stacked params) with a jit(vmap) step and
   render; each running episode's seat to move comes from `env.to_play` (always 0 for
   single-agent tasks). A seat held by an array player
   gets its action on device; a seat held by a text policy gets its own view rendered
   (`env.render(state, params, seat)`, only what that seat may see) and turned into text;
2. prompt: each text seat's prompt comes from its own system prompt, view, history window and
   memory block (the harness); nothing of another seat's text enters it;
3. sample: each text policy is called ONCE per turn for all the seats it holds to move, over all
   episodes of all tasks;
4. parse: `parse_action` (a failed parse is NO_ACTION, counted, never retried);
5. step: every task batch steps (finished episodes are frozen by the env shell); each seat's
   reward goes to that seat's latest turn. With the `memory` harness, one more batched call asks
   each text seat that just moved (episode still running) for its new notes; with
   `guided_memory` (glyphjax/harness/guided.py) the call is made for the seats whose update is
   due (every fifth move, or an event: floor change, damage, achievement; a nonzero reward on
   tasks without `memory_signals`);
6. record: a finished episode yields one EpisodeRecord per text seat (rl/trajectory.py).

Seats (multi-seat tasks): `policy` plays every seat that `opponents` does not name. `opponents`
maps a seat to another text `Policy` or to an `ArrayPlayer` (e.g. random legal, scripted,
minimax); pass one mapping for every episode or a sequence with one mapping per episode.
Single-agent tasks take no opponents.

Keys: reset from `reset_key(seed)`, turn t from `step_key(seed, t)`, array players from
`policy_key(seed, t)`, so an episode is a function of (task, seed, actions) and
`glyphjax.replay(env, seed, record.replay_actions)` reproduces its rewards.

Context guard: a prompt must leave room for `max_new_tokens` within the model's max length
(`policy.max_model_len`, or the `max_model_len` argument). A cheap byte bound clears most prompts
(byte-level BPE never makes more tokens than UTF-8 bytes); the rest are counted exactly with
`policy.count_tokens` when the policy has it. Oldest history is dropped first (counted in
`history_dropped` / `context_drops`); a prompt that cannot fit even without history is not sent:
the turn is a no-op with finish_reason "context" and parse status "truncated" (`context_overflows`).

Pixels (`harness.obs_format=pixels`, tasks that offer it, e.g. Craftax): the user message is
OpenAI chat content parts, the text (HUD and message; `prompt.pixel_text`) and the image as a
base64 PNG data URL (`image_url`); the policy must accept images (`accepts_images`: the vLLM
client does, the local JAX policy does not). The turn record keeps the text part; past turns
in the history window are shown as text.

Host envs (glyphjax.core.host: a real game that is not JAX, e.g. nethack/full through `nle`)
take the same phases through `_HostBatch`: their games run on the host (one per episode, each in
its own process), text observations come from the game, array players cannot hold their seats.
A game that fails ends only its own episode (truncated, the reason in `EpisodeRecord.error`).

Finished episodes are appended to the JSONL file as soon as they finish (rl/trajectory.py).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable, Mapping, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np

from glyphjax.core.packed import frame_layout, pack_frame, unpack_frames
from glyphjax.core.host import is_host, make_host
from glyphjax.core.registry import make
from glyphjax.core.rollout import ArrayPolicy, policy_key, reset_key, stack_params, step_key
from glyphjax.core.types import NO_ACTION, Env, Frame
from glyphjax.harness.parse import OK, TRUNCATED, parse_action
from glyphjax.harness import guided
from glyphjax.harness.prompt import (GLYPH, MEMORY_UPDATE_INSTRUCTION, HarnessConfig, parse_memory, pixel_text,
                                     png_base64, system_prompt, turn_message, with_image)
from glyphjax.render.text import hud_strings, message_strings, observation_strings
from rl.policies.base import Completion, Policy, SamplingParams
from rl.trajectory import CallRecord, EpisodeRecord, TrajectoryWriter, TurnRecord

FINISH_CONTEXT = "context"  # no call made: the prompt could not fit the model's context
# Template tokens a chat template may add around messages (role markers, generation prompt,
# an empty think block). Only used by the cheap bound; exact counts come from the policy.
TEMPLATE_SLACK_PER_MESSAGE = 16
TEMPLATE_SLACK = 32


@dataclasses.dataclass(frozen=True, eq=False)
class ArrayPlayer:
    """An array policy in a seat: `fn(key, state, params) -> int32 action`, run jitted and vmapped
    on device with `policy_key(seed, t)`; it sees the state, sends no text and yields no record."""

    fn: ArrayPolicy
    name: str = "array"


@dataclasses.dataclass(frozen=True, eq=False)
class NarratedPlayer(ArrayPlayer):
    """An array player whose moves are also recorded as text turns, as a teacher for distillation
    (rl/sft.py): each turn stores the seat's observation and `narrate(action name)` as the
    completion (no token ids: the student tokenizes the text). Its seat yields a record."""

    narrate: Callable[[str | None], str] = lambda name: f"<action>{name}</action>"


Player = Union[Policy, ArrayPlayer]
Opponents = Union[Mapping[int, Player], Sequence[Mapping[int, Player]], None]


def _name(policy: Any) -> str:
    return getattr(policy, "name", type(policy).__name__)


@dataclasses.dataclass
class _Seat:
    """One text policy's seat in one episode: its system prompt, conversation, memory, turns."""

    seat: int
    policy: Policy
    system: str
    turns: list = dataclasses.field(default_factory=list)
    history: list = dataclasses.field(default_factory=list)  # (observation, action shown) pairs
    memory: str = ""
    guided: guided.GuidedMemory | None = None  # the guided_memory harness's memory
    pre_reward: float = 0.0  # reward paid to this seat before its first turn
    prompt_tokens: int = 0
    completion_tokens: int = 0
    truncations: int = 0
    context_drops: int = 0
    context_overflows: int = 0


@dataclasses.dataclass
class _Episode:
    index: int
    task: str
    seed: int
    env: Env
    seats: dict[int, _Seat]  # seats held by text policies
    arrays: dict[int, ArrayPlayer]  # seats held by array players
    returns: np.ndarray  # float64[num_players]
    joint_actions: list = dataclasses.field(default_factory=list)
    done: bool = False
    terminated: bool = False
    truncated: bool = False
    error: str | None = None  # a host env's game failed (the episode ended there)
    signals: guided.Signals = guided.Signals()  # guided_memory: floor, health, achievements now


@dataclasses.dataclass
class _Move:
    """A text seat to move this turn, filled in phase by phase."""

    episode: _Episode
    seat: _Seat
    observation: str
    image: str | None = None  # obs_format=pixels: the view as a base64 PNG (sent beside the text)
    memory: str | None = None  # the memory block shown this turn (memory / guided_memory harness)
    wanted: int = 0  # history pairs the harness asks for
    shown: int = 0  # history pairs that fit
    conversation: list | None = None  # None: no call (the prompt did not fit)
    completion: Completion | None = None
    turn: TurnRecord | None = None
    value: float | None = None  # V(s) of the decision state for this seat (record_values)
    legal: list | None = None  # legal action names, for a policy with constrained_actions


class _TaskBatch:
    """The device-side batch of one program: states [B], seeds [B], jitted vmapped step/render.
    Episodes of one env share its params; a batch mixing envs of the program (variants,
    encodings) stacks their params on a leading axis (`stack_params`) and steps them in one call."""

    def __init__(self, episodes: list[_Episode], obs_format: str = GLYPH):
        self.env = episodes[0].env
        self.episodes = episodes
        self.obs_format = obs_format
        self.seeds = jnp.asarray(np.array([e.seed for e in episodes], np.uint32))
        self.mixed = any(e.env is not self.env for e in episodes)
        self.params = stack_params([e.env for e in episodes]) if self.mixed else self.env.default_params()
        self.fns = _compiled(self.env, self.mixed)
        self.states = self.fns["reset"](self.seeds, self.params)

    def to_play(self) -> np.ndarray:
        """int[B]: the seat to move in each episode (all 0 for single-agent tasks)."""
        if self.env.card.num_players == 1:
            return np.zeros(len(self.episodes), np.int64)
        return np.asarray(jax.device_get(self.fns["to_play"](self.states)))

    def frames(self, seats: np.ndarray) -> Frame:
        """Every episode's frame as seats[j] sees it (one program renders every seat), copied off
        the device as one packed array."""
        if self.env.card.num_players == 1:
            packed = self.fns["render"](self.states, self.params)
        else:
            packed = self.fns["render"](self.states, jnp.asarray(seats, jnp.int32), self.params)
        return unpack_frames(np.asarray(packed), frame_layout(self.env))

    def values(self, seats: np.ndarray) -> np.ndarray | None:
        """float[B]: V(s) of each episode's state for seats[j], or None when the game has no value."""
        if not hasattr(self.env, "value"):
            return None
        fns = self.fns
        if "value" not in fns:
            env = self.env
            fns["value"] = jax.jit(jax.vmap(lambda s, seat, p: env.value(s, p, seat), in_axes=(0, 0, fns["p_axis"])))
        return np.asarray(jax.device_get(fns["value"](self.states, jnp.asarray(seats, jnp.int32), self.params)))

    def signals(self) -> np.ndarray | None:
        """float[B, 3] (floor, health, achievements) of every episode, or None when the task has
        no `memory_signals` (guided_memory harness)."""
        if not hasattr(self.env, "memory_signals"):
            return None
        fns = self.fns
        if "signals" not in fns:
            env = self.env
            fns["signals"] = jax.jit(jax.vmap(lambda s, p: env.memory_signals(s, p), in_axes=(0, fns["p_axis"])))
        return np.asarray(jax.device_get(fns["signals"](self.states, self.params)))

    def observations(self, seats: np.ndarray, *row_sets: list[int]) -> list[list]:
        """The text of the episodes in each row set, each as seats[j] sees it (one render, each
        episode through its own card); obs_format=pixels: (text, base64 PNG) pairs."""
        if self.obs_format == "pixels":
            return self._pixels(seats, row_sets)
        if self.obs_format != GLYPH:  # the task's own text of each state (e.g. Craftax's native text)
            out = []
            for rows in row_sets:  # copy only the rows asked for to the host
                host = jax.device_get(jax.tree.map(lambda x: x[np.asarray(rows, np.int32)], self.states)) if rows else None
                out.append([self.episodes[j].env.observation(jax.tree.map(lambda x, k=k: x[k], host), self.obs_format,
                                                             self.episodes[j].env.default_params())
                            for k, j in enumerate(rows)])
            return out
        frames = self.frames(seats)
        return [_observations(self, frames, rows) if rows else [] for rows in row_sets]

    def _pixels(self, seats: np.ndarray, row_sets) -> list[list[tuple[str, str]]]:
        """(HUD and message text, PNG) of the rows: the text from the glyph frame's HUD and
        event, the image from `env.observation(state, "pixels")`."""
        frames = self.frames(seats)
        out = []
        for rows in row_sets:
            pairs = []
            if rows:
                host = jax.device_get(jax.tree.map(lambda x: x[np.asarray(rows, np.int32)], self.states))
                for k, j in enumerate(rows):
                    env = self.episodes[j].env
                    image = np.asarray(env.observation(jax.tree.map(lambda x, k=k: x[k], host), "pixels",
                                                       env.default_params()))
                    hud = hud_strings(env.card, np.asarray(frames.hud)[j:j + 1])[0] if env.card.hud else ""
                    msg = message_strings(env.card, np.asarray(frames.event)[j:j + 1])[0]
                    pairs.append((pixel_text(hud, msg, image.shape), png_base64(image)))
            out.append(pairs)
        return out

    def legal(self) -> np.ndarray:
        """bool[B, num_actions]: each episode's legal moves for the seat to move (`env.legal`)."""
        fns = self.fns
        if "legal" not in fns:
            env = self.env
            fns["legal"] = jax.jit(jax.vmap(lambda s, p: env.legal(s, p), in_axes=(0, fns["p_axis"])))
        return np.asarray(jax.device_get(fns["legal"](self.states, self.params)))

    def array_actions(self, t: int, player: ArrayPlayer) -> np.ndarray:
        act = _array_player(self.env, player, self.mixed)
        return np.asarray(jax.device_get(act(self.seeds, jnp.int32(t), self.states, self.params)))

    def step(self, t: int, actions: np.ndarray):
        self.states, trans = self.fns["step"](self.seeds, jnp.int32(t), self.states,
                                              jnp.asarray(actions, jnp.int32), self.params)
        return jax.device_get(trans)


class _HostBatch:
    """The episodes of one host task (glyphjax.core.host: a real game stepped on the host, one
    game per episode); a game that fails ends its own episode with the error recorded."""

    def __init__(self, env: Any, episodes: list[_Episode]):
        self.env, self.episodes = env, episodes
        self.game = env.batch([e.seed for e in episodes])

    def to_play(self) -> np.ndarray:
        return np.zeros(len(self.episodes), np.int64)

    def observations(self, seats: np.ndarray, *row_sets: list[int]) -> list[list[str]]:
        return [[o.render() for o in self.game.observations(rows)] if rows else [] for rows in row_sets]

    def legal(self) -> None:  # a host game's legal moves are not known here: every action is offered
        return None

    def values(self, seats: np.ndarray) -> None:
        return None

    def array_actions(self, t: int, player: ArrayPlayer) -> np.ndarray:
        raise TypeError(f"{self.env.card.id} is a host env (not JAX): array players cannot play it; "
                        "use a text policy")

    def step(self, t: int, actions: np.ndarray):
        out = self.game.step(actions)
        for j, e in enumerate(self.episodes):
            e.error = self.game.errors.get(j, e.error)
        return _HostTransition(out["reward"], out["terminated"], out["truncated"])

    def close(self) -> None:
        self.game.close()


@dataclasses.dataclass
class _HostTransition:
    reward: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


_COMPILED: dict[tuple, dict] = {}  # (Env.program, params stacked) -> jitted fns


def _compiled(env: Env, stacked: bool = False) -> dict:
    """jit(vmap) reset/step/to_play/render of one program (params are an argument, one row per
    episode when `stacked`), built once per `Env.program`: the variants of a program share the
    compile. Multi-seat: `render(states, seats, params)` draws row j as seats[j] sees it;
    single-agent: `render(states, params)`."""
    key = (env.program, stacked)
    if key not in _COMPILED:
        pa = 0 if stacked else None
        fns = {"reset": jax.jit(jax.vmap(lambda seed, p: env.reset(reset_key(seed), p), in_axes=(0, pa))),
               "step": jax.jit(jax.vmap(lambda seed, t, s, a, p: env.step(step_key(seed, t), s, a, p),
                                        in_axes=(0, None, 0, 0, pa))),
               "players": {}, "p_axis": pa}
        if env.card.num_players > 1:
            fns["to_play"] = jax.jit(jax.vmap(env.to_play))
            fns["render"] = jax.jit(jax.vmap(lambda s, seat, p: pack_frame(env.render(s, p, seat)), in_axes=(0, 0, pa)))
        else:
            fns["render"] = jax.jit(jax.vmap(lambda s, p: pack_frame(env.render(s, p)), in_axes=(0, pa)))
        _COMPILED[key] = fns
    return _COMPILED[key]


def _array_player(env: Env, player: ArrayPlayer, stacked: bool = False) -> Callable:
    """jit(vmap) of an array player over one program's batch: (seeds, t, states, params) -> int32[B]."""
    fns = _compiled(env, stacked)
    players = fns["players"]
    if id(player) not in players:
        def act(seed, t, state, params):
            return jnp.asarray(player.fn(policy_key(seed, t), state, params), jnp.int32)
        players[id(player)] = (player, jax.jit(jax.vmap(act, in_axes=(0, None, 0, fns["p_axis"]))))
    return players[id(player)][1]


def _content_bytes(content: str | list[dict]) -> int:
    """UTF-8 bytes of a message's text, or of its content parts (an image part counts its data
    URL's bytes: far more than the tokens a vision model spends on the small views sent here)."""
    if isinstance(content, str):
        return len(content.encode("utf-8"))
    return sum(len(p.get("text", "").encode("utf-8")) + len(p.get("image_url", {}).get("url", "")) for p in content)


def _byte_bound(conv: list[dict]) -> int:
    """An upper bound on a conversation's prompt tokens for byte-level BPE tokenizers."""
    return (sum(_content_bytes(m["content"]) for m in conv)
            + TEMPLATE_SLACK_PER_MESSAGE * len(conv) + TEMPLATE_SLACK)


class _ContextGuard:
    """Fits prompts into `max_model_len - max_new_tokens` tokens (see the module docstring)."""

    def __init__(self, policy: Policy, max_model_len: int | None, max_new_tokens: int):
        self.limit = None if max_model_len is None else max_model_len - max_new_tokens
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"max_new_tokens={max_new_tokens} leaves no room for a prompt in the model's "
                             f"max length {max_model_len}; lower sampling.max_new_tokens")
        self.count = getattr(policy, "count_tokens", None)

    def fit(self, builders: list[Callable[[int], list[dict]]], wanted: list[int]) -> list[tuple[list[dict] | None, int]]:
        """For each prompt builder (history count -> conversation) and wanted history count,
        the conversation that fits with the most history (oldest dropped first), or None."""
        ks = list(wanted)
        convs = [b(k) for b, k in zip(builders, ks)]
        if self.limit is None:
            return list(zip(convs, ks))
        pending = [i for i, c in enumerate(convs) if _byte_bound(c) > self.limit]
        while pending:
            if self.count is not None:
                sizes = self.count([convs[i] for i in pending])
            else:  # no exact counter: the byte bound decides (conservative)
                sizes = [_byte_bound(convs[i]) for i in pending]
            still = []
            for i, n in zip(pending, sizes):
                if n <= self.limit:
                    continue
                if ks[i] == 0:
                    convs[i] = None
                    continue
                ks[i] -= 1
                convs[i] = builders[i](ks[i])
                still.append(i)
            pending = still
        return list(zip(convs, ks))


def run_rollouts(policy: Policy, episodes: Sequence[tuple[str, int]], harness: HarnessConfig | None = None,
                 sampling: SamplingParams | None = None, out_path: str | None = None, *,
                 opponents: Opponents = None,
                 memory_sampling: SamplingParams | None = None, max_turns: int | None = None,
                 max_model_len: int | None = None,
                 on_episode: Callable[[EpisodeRecord], None] | None = None,
                 timings: dict[str, float] | None = None, record_values: bool = False,
                 envs: Mapping[str, Env] | None = None,
                 episode_envs: Sequence[Env | None] | None = None) -> list[EpisodeRecord]:
    """Play `episodes` ((task id, seed) pairs) with text policies; return their records in order
    (one per episode for single-agent tasks; one per text seat, by seat, for multi-seat ones).

    `opponents`: for multi-seat tasks, seat -> Policy or ArrayPlayer (one mapping, or one per
    episode); `policy` plays every other seat. `out_path`: append each finished episode's records
    to this JSONL file. `max_turns`: stop episodes after this many env steps (recorded as
    truncated). `memory_sampling`: sampling for the memory-update calls (default: `sampling`).
    `timings`: a dict that receives wall seconds per phase (render, prompt, guard, policy, parse,
    step, memory, write) and `turns`. `record_values`: store on each text turn of a game that
    defines `value(state, params, seat)` (the zero-sum templates' V(s)) the value of the state the
    seat decides in (`TurnRecord.value`), for the trainer's per-decision state-value term.
    `envs`: task id -> the Env to play it with instead of `make(task)` (the same task over another
    level set, e.g. `env.with_levels(...)`). `episode_envs`: one Env (or None) per episode, taking
    precedence over `envs` (e.g. a zero-sum variant in the encoding drawn for that episode,
    rl/variants.py); envs of one program are stepped in one vmapped call over stacked params.
    """
    harness = harness or HarnessConfig()
    sampling = sampling or SamplingParams()
    if max_turns is not None and max_turns < 1:
        raise ValueError("max_turns must be >= 1")
    if episode_envs is not None and len(episode_envs) != len(episodes):
        raise ValueError(f"episode_envs has {len(episode_envs)} entries for {len(episodes)} episodes; give one "
                         "Env (or None) per episode")
    eps = _episodes(policy, episodes, _opponents_per_episode(opponents, len(episodes)), harness, envs or {},
                    episode_envs or [None] * len(episodes))
    run = _Rollout(eps, harness, sampling, memory_sampling or sampling, max_turns, max_model_len,
                   TrajectoryWriter(out_path) if out_path is not None else None, on_episode, _Clock(timings),
                   record_values)
    return run.play()


def _opponents_per_episode(opponents: Opponents, n: int) -> list[Mapping[int, Player]]:
    if opponents is None:
        return [{}] * n
    if isinstance(opponents, Mapping):
        return [opponents] * n
    opponents = list(opponents)
    if len(opponents) != n:
        raise ValueError(f"opponents has {len(opponents)} seatings for {n} episodes; pass one mapping "
                         "(seat -> player) for every episode or one per episode")
    return opponents


def _episodes(policy: Policy, episodes: Sequence[tuple[str, int]], seatings: list[Mapping[int, Player]],
              harness: HarnessConfig, envs: Mapping[str, Env], episode_envs: Sequence[Env | None]) -> list[_Episode]:
    """The episodes to play, each with its seats given to text policies and array players."""
    eps = []
    for i, ((task, seed), seating, own) in enumerate(zip(episodes, seatings, episode_envs)):
        env = (own if own is not None else envs[task] if task in envs
               else make_host(task) if is_host(task) else make(task))
        n = env.card.num_players
        if not 0 <= int(seed) < 2 ** 32:
            raise ValueError(f"{task}: seed {seed} is not in [0, 2**32)")
        if seating and n == 1:
            raise ValueError(f"{task} is a single-agent task: it takes no opponents (got seats {sorted(seating)})")
        bad = [s for s in seating if not (isinstance(s, int) and 0 <= s < n)]
        if bad:
            raise ValueError(f"{task}: opponent seats {bad} do not exist; the game has seats 0..{n - 1}")
        odd = [s for s, p in seating.items() if not isinstance(p, ArrayPlayer) and not hasattr(p, "complete")]
        if odd:
            raise TypeError(f"{task}: the opponent in seats {odd} is neither a text Policy (with .complete) nor an "
                            "ArrayPlayer; wrap an array policy as ArrayPlayer(fn, name)")
        formats = getattr(env, "obs_formats", getattr(env, "text_formats", (GLYPH,)))
        if harness.obs_format not in formats:
            raise ValueError(f"{task}: harness.obs_format={harness.obs_format!r} is not an observation of this "
                             f"task; it offers {', '.join(formats)}")
        players = [seating.get(s, policy) for s in range(n)]
        if harness.obs_format == "pixels":
            blind = [_name(p) for p in players if not isinstance(p, ArrayPlayer) and not getattr(p, "accepts_images", False)]
            if blind:
                raise ValueError(f"harness.obs_format=pixels sends images, but policy {blind[0]!r} is text-only; use "
                                 "policy=vllm with a vision model, or harness.obs_format=glyph|native_text")
        seats = {s: _Seat(s, p, system_prompt(env.card, harness, seat=s if n > 1 else None),
                          guided=guided.GuidedMemory(harness.memory_chars) if harness.guided else None)
                 for s, p in enumerate(players) if not isinstance(p, ArrayPlayer) or isinstance(p, NarratedPlayer)}
        arrays = {s: p for s, p in enumerate(players) if isinstance(p, ArrayPlayer)}
        eps.append(_Episode(i, task, int(seed), env, seats, arrays, np.zeros(n)))
    return eps


class _Rollout:
    """One batched run of episodes, played turn by turn in phases (see the module docstring)."""

    def __init__(self, eps: list[_Episode], harness: HarnessConfig, sampling: SamplingParams,
                 memory_sampling: SamplingParams, max_turns: int | None, max_model_len: int | None,
                 writer: TrajectoryWriter | None, on_episode: Callable | None, clock: "_Clock",
                 record_values: bool = False):
        self.eps, self.harness, self.sampling, self.memory_sampling = eps, harness, sampling, memory_sampling
        self.record_values = record_values
        self.max_turns, self.writer, self.on_episode, self.clock = max_turns, writer, on_episode, clock
        by_program: dict[tuple, list[_Episode]] = {}
        for e in eps:
            key = ("host", e.task) if getattr(e.env, "host", False) else e.env.program
            by_program.setdefault(key, []).append(e)
        self.batches = [_HostBatch(group[0].env, group) if getattr(group[0].env, "host", False)
                        else _TaskBatch(group, harness.obs_format) for group in by_program.values()]
        self.guards: dict[int, tuple[_ContextGuard, _ContextGuard]] = {}
        for e in eps:
            for seat in e.seats.values():
                p = seat.policy
                if isinstance(p, ArrayPlayer):
                    continue  # a narrated array player sends no prompts
                if id(p) not in self.guards:
                    limit = max_model_len if max_model_len is not None else getattr(p, "max_model_len", None)
                    self.guards[id(p)] = (_ContextGuard(p, limit, sampling.max_new_tokens),
                                          _ContextGuard(p, limit, memory_sampling.max_new_tokens))
        self.records: list[list[EpisodeRecord]] = [[] for _ in eps]
        if harness.guided:
            self._read_signals()

    def _read_signals(self) -> None:
        """guided_memory: every running episode's floor, health and achievements now."""
        for batch in self.batches:
            rows = batch.signals() if isinstance(batch, _TaskBatch) else None
            if rows is not None:
                for e, row in zip(batch.episodes, rows):
                    e.signals = guided.Signals.of(row)

    def play(self) -> list[EpisodeRecord]:
        try:
            t = 0
            while any(not e.done for e in self.eps):
                self.turn(t)
                t += 1
        finally:
            if self.writer is not None:
                self.writer.close()
            for batch in self.batches:
                if isinstance(batch, _HostBatch):
                    batch.close()
        return [r for recs in self.records for r in recs]

    def turn(self, t: int) -> None:
        self.clock.lap()
        moves, actions = self.observe(t)
        self.clock.lap("render")
        self.prompt(moves)
        self.sample(moves, t)
        self.parse(moves, actions)
        self.clock.lap("parse")
        self.step(t, actions)
        self.clock.lap("step")
        if self.harness.memory:
            self.update_memories([m for m in moves if not m.episode.done], t)
            self.clock.lap("memory")
        if self.harness.guided:
            self.update_guided(moves, t)
            self.clock.lap("memory")
        self.record(actions)
        self.clock.lap("write")
        self.clock.count("turns")

    # 1. observe ----------------------------------------------------------------------------------
    def observe(self, t: int) -> tuple[list[_Move], dict[int, int]]:
        """The text seats to move (with their own views as text) and the array players' actions."""
        moves: list[_Move] = []
        actions: dict[int, int] = {}
        for batch in self.batches:
            rows = [j for j, e in enumerate(batch.episodes) if not e.done]
            if not rows:
                continue
            to_play = batch.to_play()
            text_rows: list[int] = []
            by_player: dict[int, tuple[ArrayPlayer, list[int]]] = {}
            for j in rows:
                e, s = batch.episodes[j], int(to_play[j])
                if s in e.arrays:
                    by_player.setdefault(id(e.arrays[s]), (e.arrays[s], []))[1].append(j)
                else:
                    text_rows.append(j)
            narrated: list[tuple[int, int]] = []
            for player, js in by_player.values():
                acts = batch.array_actions(t, player)
                actions.update({batch.episodes[j].index: int(acts[j]) for j in js})
                if isinstance(player, NarratedPlayer):
                    narrated.extend((j, int(acts[j])) for j in js)
            if not text_rows and not narrated:
                continue
            text_obs, narrated_obs = batch.observations(to_play, text_rows, [j for j, _ in narrated])
            if text_rows:
                values = batch.values(to_play) if self.record_values else None
                constrained = any(getattr(batch.episodes[j].seats[int(to_play[j])].policy, "constrained_actions",
                                          False) for j in text_rows)
                legal = batch.legal() if constrained else None
                for j, obs in zip(text_rows, text_obs):
                    e = batch.episodes[j]
                    v = None if values is None else float(values[j])
                    obs, image = obs if isinstance(obs, tuple) else (obs, None)
                    names = None
                    if constrained:
                        names = [a for k, a in enumerate(e.env.card.actions) if legal is None or legal[j, k]]
                    moves.append(_Move(e, e.seats[int(to_play[j])], obs, image=image, value=v, legal=names))
            if narrated:
                for (j, a), obs in zip(narrated, narrated_obs):
                    e = batch.episodes[j]
                    self._narrate(e, e.seats[int(to_play[j])], obs[0] if isinstance(obs, tuple) else obs, a)
        return moves, actions

    def _narrate(self, e: _Episode, seat: _Seat, observation: str, action: int) -> None:
        """A narrated array player's move as a text turn of its seat (see NarratedPlayer)."""
        actions = e.env.card.actions
        name = actions[action] if 0 <= action < len(actions) else None
        shown = min(self.harness.history, len(seat.history))
        turn = TurnRecord(t=len(e.joint_actions), observation=observation, history_shown=shown, history_dropped=0,
                          prompt_ids=[], completion_ids=[], logprobs=[], completion=seat.policy.narrate(name),
                          finish_reason="stop", parse_status=OK, action=action, action_name=name, reward=0.0,
                          terminated=False, truncated=False, seat=seat.seat)
        seat.turns.append(turn)
        seat.history.append((observation, name if name is not None else "(no action)"))

    # 2. prompt -----------------------------------------------------------------------------------
    def prompt(self, moves: list[_Move]) -> None:
        """Each move's conversation, with as much of its seat's history as fits its policy's context."""
        for m in moves:
            m.wanted = min(self.harness.history, len(m.seat.history))
            m.memory = _memory_block(m.episode, m.seat, self.harness)
        self.clock.lap("prompt")
        for policy_id, group in _by_policy(moves).items():
            builders = [_prompt_builder(m.seat, m.observation, m.memory, m.image) for m in group]
            for m, (conv, k) in zip(group, self.guards[policy_id][0].fit(builders, [m.wanted for m in group])):
                m.conversation, m.shown = conv, k
        self.clock.lap("guard")

    # 3. sample -----------------------------------------------------------------------------------
    def sample(self, moves: list[_Move], t: int) -> None:
        """One call per text policy for all its moves whose prompt fits."""
        sampling = dataclasses.replace(self.sampling, seed=_turn_seed(self.sampling.seed, t))
        for group in _by_policy(moves).values():
            send = [m for m in group if m.conversation is not None]
            if not send:
                continue
            policy = send[0].seat.policy
            if getattr(policy, "constrained_actions", False):  # decode one of each move's legal names
                outs = policy.complete([m.conversation for m in send], sampling,
                                       legal_actions=[m.legal for m in send])
            else:
                outs = policy.complete([m.conversation for m in send], sampling)
            if len(outs) != len(send):
                raise RuntimeError(f"policy {_name(policy)} returned {len(outs)} completions for {len(send)} prompts")
            for m, c in zip(send, outs):
                m.completion = c
        self.clock.lap("policy")

    # 4. parse ------------------------------------------------------------------------------------
    def parse(self, moves: list[_Move], actions: dict[int, int]) -> None:
        """Each completion -> action and a new turn of its seat (reward added by `step`)."""
        for m in moves:
            e, seat, c = m.episode, m.seat, m.completion
            card = e.env.card
            if c is None:
                status, action, name = TRUNCATED, NO_ACTION, None
                seat.context_overflows += 1
                c = Completion("", [], [], [], FINISH_CONTEXT)
            else:
                p = parse_action(c.text, card.actions, truncated=c.truncated)
                status, action = p.status, p.action
                name = card.actions[action] if p.ok else None
                seat.prompt_tokens += len(c.prompt_ids)
                seat.completion_tokens += len(c.completion_ids)
                seat.truncations += int(c.truncated)
            seat.context_drops += m.wanted - m.shown
            actions[e.index] = action
            m.turn = TurnRecord(
                t=len(e.joint_actions), observation=m.observation, history_shown=m.shown,
                history_dropped=m.wanted - m.shown, prompt_ids=list(c.prompt_ids),
                completion_ids=list(c.completion_ids), logprobs=[float(x) for x in c.logprobs],
                allowed=None if c.allowed is None else [list(a) for a in c.allowed], completion=c.text, finish_reason=c.finish_reason, parse_status=status, action=action,
                action_name=name, reward=0.0, terminated=False, truncated=False,
                prompt_tokens=len(c.prompt_ids), completion_tokens=len(c.completion_ids),
                memory=m.memory, seat=seat.seat, value=m.value)
            seat.turns.append(m.turn)
            seat.history.append((m.observation, name if name is not None else f"(no action: {status})"))

    # 5. step -------------------------------------------------------------------------------------
    def step(self, t: int, actions: dict[int, int]) -> None:
        """Step every task batch with a running episode; pay each seat's reward to its latest turn."""
        for batch in self.batches:
            if not any(e.index in actions for e in batch.episodes):
                continue  # every episode of this task has finished: nothing to step
            acts = np.array([actions.get(e.index, NO_ACTION) for e in batch.episodes], np.int32)
            trans = batch.step(t, acts)
            for j, e in enumerate(batch.episodes):
                if e.index in actions:
                    self._settle(e, actions[e.index], np.atleast_1d(trans.reward[j]),
                                 bool(trans.terminated[j]), bool(trans.truncated[j]))

    def _settle(self, e: _Episode, action: int, reward: np.ndarray, terminated: bool, truncated: bool) -> None:
        e.joint_actions.append(action)
        e.returns += reward
        for seat in e.seats.values():
            if seat.turns:
                seat.turns[-1].reward += float(reward[seat.seat])
            else:
                seat.pre_reward += float(reward[seat.seat])
        cut = self.max_turns is not None and len(e.joint_actions) >= self.max_turns
        if terminated or truncated or cut:
            e.done, e.terminated = True, terminated
            e.truncated = truncated or (cut and not terminated)
            for seat in e.seats.values():
                if seat.turns:
                    seat.turns[-1].terminated, seat.turns[-1].truncated = terminated, truncated

    # 6. memory -----------------------------------------------------------------------------------
    def update_memories(self, moves: list[_Move], t: int) -> None:
        def apply(seat: _Seat, text: str) -> None:
            seat.memory = parse_memory(text, seat.memory, self.harness.memory_chars)
        for policy_id, group in _by_policy(moves).items():
            _update_memories(group[0].seat.policy, [(m.seat, m.turn, MEMORY_UPDATE_INSTRUCTION) for m in group],
                             apply, self.memory_sampling, self.guards[policy_id][1], t)

    def update_guided(self, moves: list[_Move], t: int) -> None:
        """guided_memory: note each move's action, read the states' signals, and ask the seats
        whose update is due (every UPDATE_EVERY moves, or an event) for their new memory."""
        before = {id(m): m.episode.signals for m in moves}
        self._read_signals()
        due: list[tuple[_Move, str]] = []
        floors: dict[int, str] = {}
        for m in moves:
            e, seat = m.episode, m.seat
            seat.guided.moved(m.turn.action_name or "(no action)")
            happened = guided.events(before[id(m)], e.signals, m.turn.reward)
            if e.done or not seat.guided.due(happened):
                continue
            due.append((m, guided.update_instruction(happened)))
            floors[id(seat)] = guided.floor_key(e.env, e.signals)

        def apply(seat: _Seat, text: str) -> None:
            seat.guided.apply(text, floors[id(seat)])
        for policy_id, group in _by_policy([m for m, _ in due]).items():
            items = [(m.seat, m.turn, text) for m, text in due if id(m.seat.policy) == policy_id]
            _update_memories(group[0].seat.policy, items, apply, self.memory_sampling, self.guards[policy_id][1], t)

    # 7. record -----------------------------------------------------------------------------------
    def record(self, actions: dict[int, int]) -> None:
        """Records of the episodes that finished this turn, written and handed on at once."""
        for i in sorted(i for i in actions if self.eps[i].done):
            e = self.eps[i]
            self.records[i] = [_episode_record(e, seat, self.harness) for _, seat in sorted(e.seats.items())]
            for rec in self.records[i]:
                if self.writer is not None:
                    self.writer.write(rec)
                if self.on_episode is not None:
                    self.on_episode(rec)


def _observations(batch: _TaskBatch, frames: Frame, rows: list[int]) -> list[str]:
    """The text of rows `rows` of a batch's frames, each through its own episode's card (the
    legend and HUD of a variant or encoding), one vectorised render per card."""
    out: list[str] = [""] * len(rows)
    by_env: dict[int, list[int]] = {}
    for k, j in enumerate(rows):
        by_env.setdefault(id(batch.episodes[j].env), []).append(k)
    for ks in by_env.values():
        picked = jax.tree.map(lambda x: x[np.asarray([rows[k] for k in ks])], frames)
        for k, text in zip(ks, observation_strings(batch.episodes[rows[ks[0]]].env.card, picked)):
            out[k] = text
    return out


def _by_policy(moves: list[_Move]) -> dict[int, list[_Move]]:
    groups: dict[int, list[_Move]] = {}
    for m in moves:
        groups.setdefault(id(m.seat.policy), []).append(m)
    return groups


class _Clock:
    """Accumulates wall seconds per phase into a caller's dict (no-op without one)."""

    def __init__(self, into: dict[str, float] | None):
        self.into = into
        self.last = time.perf_counter()

    def lap(self, phase: str | None = None) -> None:
        if self.into is None:
            return
        now = time.perf_counter()
        if phase is not None:
            self.into[phase] = self.into.get(phase, 0.0) + now - self.last
        self.last = now

    def count(self, name: str) -> None:
        if self.into is not None:
            self.into[name] = self.into.get(name, 0) + 1


def _turn_seed(seed: int, t: int) -> int:
    return (seed * 1_000_003 + t * 7_919) % (2 ** 31)


def _memory_block(e: _Episode, seat: _Seat, harness: HarnessConfig) -> str | None:
    """The memory block of this turn's message: the scratchpad (memory harness), the guided
    memory with the current floor's guidance (guided_memory), else None."""
    if seat.guided is not None:
        return seat.guided.render(guided.floor_key(e.env, e.signals), guided.guidance(e.env, e.signals))
    return seat.memory if harness.memory else None


def _prompt_builder(seat: _Seat, obs: str, memory: str | None, image: str | None = None) -> Callable[[int], list[dict]]:
    """history count -> the seat's conversation: its system prompt and this turn's message
    (with the image as a content part when there is one)."""
    def build(k: int) -> list[dict]:
        history = seat.history[len(seat.history) - k:] if k else []
        return [{"role": "system", "content": seat.system},
                {"role": "user", "content": with_image(turn_message(obs, history, memory), image)}]
    return build


def _update_memories(policy: Policy, items: list[tuple[_Seat, TurnRecord, str]], apply: Callable[[_Seat, str], None],
                     sampling: SamplingParams, guard: _ContextGuard, t: int) -> None:
    """Ask each seat's model for its new memory: [system, the turn's user message (text), its
    reply, the item's update instruction]; `apply(seat, reply text)` reads the reply."""
    if not items:
        return

    def builder(seat: _Seat, turn: TurnRecord, instruction: str):
        def build(k: int) -> list[dict]:
            history = seat.history[len(seat.history) - 1 - k:-1] if k else []
            return [{"role": "system", "content": seat.system},
                    {"role": "user", "content": turn_message(turn.observation, history, turn.memory)},
                    {"role": "assistant", "content": turn.completion},
                    {"role": "user", "content": instruction}]
        return build

    fitted = guard.fit([builder(*item) for item in items], [turn.history_shown for _, turn, _ in items])
    send = [i for i, (conv, _) in enumerate(fitted) if conv is not None]
    outs = [] if not send else policy.complete([fitted[i][0] for i in send],
                           dataclasses.replace(sampling, seed=_turn_seed(sampling.seed + 1, t)))
    if len(outs) != len(send):
        raise RuntimeError(f"policy {_name(policy)} returned {len(outs)} completions for {len(send)} prompts")
    for i, (seat, turn, _) in enumerate(items):
        if fitted[i][0] is None:
            seat.context_overflows += 1
    for i, c in zip(send, outs):
        seat, turn, _ = items[i]
        turn.memory_update = CallRecord(list(c.prompt_ids), list(c.completion_ids),
                                        [float(x) for x in c.logprobs], c.text, c.finish_reason)
        apply(seat, c.text)
        seat.prompt_tokens += len(c.prompt_ids)
        seat.completion_tokens += len(c.completion_ids)
        turn.prompt_tokens += len(c.prompt_ids)
        turn.completion_tokens += len(c.completion_ids)
        seat.truncations += int(c.truncated)


def _episode_record(e: _Episode, seat: _Seat, harness: HarnessConfig) -> EpisodeRecord:
    """The trajectory of one text seat (the whole episode for single-agent tasks)."""
    counts: dict[str, int] = {}
    for turn in seat.turns:
        counts[turn.parse_status] = counts.get(turn.parse_status, 0) + 1
    multi = e.env.card.num_players > 1
    players = {**{s: _name(p.policy) for s, p in e.seats.items()}, **{s: p.name for s, p in e.arrays.items()}}
    return EpisodeRecord(
        task=e.task, seed=e.seed, harness=harness.name, policy=_name(seat.policy), system_prompt=seat.system,
        turns=seat.turns, episode_return=seat.pre_reward + sum(turn.reward for turn in seat.turns),
        length=len(seat.turns), terminated=e.terminated, truncated=e.truncated,
        prompt_tokens=seat.prompt_tokens, completion_tokens=seat.completion_tokens,
        parse_failures=sum(n for s, n in counts.items() if s != OK), parse_status_counts=counts,
        truncations=seat.truncations, context_drops=seat.context_drops, context_overflows=seat.context_overflows,
        seat=seat.seat, error=e.error, joint_actions=list(e.joint_actions) if multi else None,
        returns=[float(r) for r in e.returns] if multi else None,
        seat_policies=[players[s] for s in range(len(players))] if multi else None, obs_format=harness.obs_format,
        memory_updates=seat.guided.updates if seat.guided else 0,
        memory_failures=seat.guided.failures if seat.guided else 0)


def episodes_for(task_ids: Sequence[str], seeds: Sequence[int]) -> list[tuple[str, int]]:
    """Every (task, seed) pair: the same seeds for every task (matched-seed evaluation)."""
    return [(task, int(seed)) for task in task_ids for seed in seeds]


__all__ = ["FINISH_CONTEXT", "ArrayPlayer", "Player", "run_rollouts", "episodes_for"]

