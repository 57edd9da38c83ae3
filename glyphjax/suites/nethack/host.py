"""`nethack/full`: the real NetHack through the NetHack Learning Environment (`nle`), a host env.

Not JAX: the game is NetHack's C code, one instance per episode, stepped on the host. It sits
behind the same text protocol as the JAX tasks: the grid is NLE's `chars` (21 x 79 map), the
legend names every symbol on screen (`symbols.MAP_SYMBOLS`), the HUD comes from `blstats` and the
inventory (`inv_letters` / `inv_strs`), the message is NetHack's. Actions are NetHack's full
command set (NLE's NetHackChallenge: 121 keys) by name; in a prompt ("What do you want to eat?
[fg]") an action sends its key, e.g. FIGHT is `F`. NO_ACTION sends ESC (cancels, takes no time).

Seeds: NLE's core, display and level-generator seeds are derived from our seed (`nle_seeds`) and
set before every reset, so a seed and an action list replay an episode exactly.

`NetHackBatch` plays several episodes, each in its own worker process (`processes=True`) so a
crashed game takes only its own episode down: that episode ends (truncated) with `errors[i]` set,
the others go on. `processes=False` steps the games in this process (benchmarks, tests).
"""

from __future__ import annotations

import multiprocessing as mp
import traceback
from typing import Any

import numpy as np

from glyphjax.core.types import EXTENDED, NO_SUCCESS, TaskCard
from glyphjax.render.text import TextObservation
from glyphjax.suites.nethack.symbols import MAP_SYMBOLS

TASK_ID = "nethack/full"
MAX_STEPS = 10_000
ENV_NAME = "NetHackScore-v0"  # seedable (NetHackChallenge refuses seeds); given Challenge's action set
OBS_KEYS = ("chars", "blstats", "message", "inv_letters", "inv_strs")
MISSING = ("nethack/full needs the NetHack Learning Environment, which is not installed: "
           "pip install 'glyphjax[nethack]' (nle 1.3.0; it pins gymnasium 1.2.0)")
HUNGER = ("Satiated", "Not hungry", "Hungry", "Weak", "Fainting", "Fainted", "Starved")  # blstats order
GROUP_PREFIX = {"CompassDirection": "MOVE_", "CompassDirectionLonger": "RUN_"}


def _nle():
    """The `nle` package, or one clear error naming the extra to install."""
    try:
        import nle  # noqa: F401
        import nle.nethack as nethack
    except ImportError as e:
        raise ImportError(MISSING) from e
    return nethack


def _blstats_fields() -> tuple[int, ...]:
    """Indices into `blstats` of what the HUD shows, in `text_of`'s order (looked up once)."""
    global _BL
    if _BL is None:
        n = _nle()
        _BL = (n.NLE_BL_HUNGER, n.NLE_BL_DEPTH, n.NLE_BL_HP, n.NLE_BL_HPMAX, n.NLE_BL_ENE, n.NLE_BL_ENEMAX,
               n.NLE_BL_AC, n.NLE_BL_XP, n.NLE_BL_GOLD, n.NLE_BL_TIME, n.NLE_BL_Y, n.NLE_BL_X)
    return _BL


_BL = None


def nle_seeds(seed: int) -> tuple[int, int, int]:
    """NLE's (core, display, level-generator) seeds for our seed: three 63-bit words of a
    SeedSequence, so nearby seeds give unrelated games."""
    words = np.random.SeedSequence([int(seed), 0x4E4C45]).generate_state(3, np.uint64) >> np.uint64(1)
    return tuple(int(w) for w in words)


def action_table() -> tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...]]:
    """(names, descriptions, key codes) of NetHackChallenge's actions, in NLE's order."""
    nethack = _nle()
    names, descs, keys = [], [], []
    for a in nethack.ACTIONS:
        group = type(a).__name__
        names.append(GROUP_PREFIX.get(group, "") + a.name)
        key = int(a.value)
        shown = chr(key) if 32 <= key < 127 else f"ctrl-{chr(key + 96)}" if key < 32 else f"M-{chr(key - 128)}"
        descs.append(f"NetHack key {shown!r} ({group} {a.name.lower()})")
        keys.append(key)
    return tuple(names), tuple(descs), tuple(keys)


def make_card() -> TaskCard:
    names, descs, _ = action_table()
    return TaskCard(
        id=TASK_ID, track=EXTENDED, max_steps=MAX_STEPS, actions=names, action_descriptions=descs,
        glyphs=MAP_SYMBOLS, hud="", hud_fields=(), success=NO_SUCCESS, return_range=(-1e9, 1e9),
        rules=("The full game of NetHack 3.6 (the real game, through the NetHack Learning "
               "Environment). You are @ at the start: a random role. Descend through the dungeon, "
               "fight, collect, survive. Every action is a NetHack key; when the game asks a "
               "question or shows a menu, answer with the action whose key it names (MORE "
               "continues a --More-- message). "),
        reward="The change of the in-game score on each step (NLE's NetHackChallenge reward); "
               "the episode ends when you die or after the step budget.",
        notes="host env (not JAX, not vmappable): glyphjax.suites.nethack.host")


def _cstr(a: np.ndarray) -> str:
    """A NUL-terminated byte array as text."""
    return bytes(a).split(b"\0", 1)[0].decode("latin-1")


def inventory(obs: dict) -> list[str]:
    """["a - a +1 long sword (weapon in hand)", ...] from NLE's inventory letters and strings."""
    letters = obs["inv_letters"]
    k = int(np.count_nonzero(letters))
    if not k:
        return []
    strs, width = obs["inv_strs"][:k].tobytes().decode("latin-1"), obs["inv_strs"].shape[1]
    return [chr(c) + " - " + strs[i * width:(i + 1) * width].split("\0", 1)[0]
            for i, c in enumerate(letters[:k].tolist())]


def text_of(obs: dict, step: int) -> TextObservation:
    """Legend, HUD, grid and message of one NLE observation (`OBS_KEYS`): the text protocol."""
    hunger_i, depth, hp, hpmax, ene, enemax, ac, xl, gold, time, y, x = obs["blstats"][list(_blstats_fields())].tolist()
    chars = obs["chars"]
    raw, width = chars.tobytes().decode("latin-1"), chars.shape[1]
    rows = [raw[i:i + width].rstrip() for i in range(0, len(raw), width)]
    while rows and not rows[-1]:
        rows.pop()
    grid = "\n".join(rows)
    present = sorted(set(grid) - {"\n"} | {" "})
    legend = "\n".join(f"{g} — {MAP_SYMBOLS.get(g, 'unknown symbol')}" for g in present)
    hunger = HUNGER[min(hunger_i, len(HUNGER) - 1)]
    hud = (f"Step: {step} / {MAX_STEPS}    Dlvl: {depth}    HP: {hp}/{hpmax}    Pw: {ene}/{enemax}    "
           f"AC: {ac}    XL: {xl}    Gold: {gold}    T: {time}    {hunger}    You: row {y}, col {x}\n"
           f"Inv: {'; '.join(inventory(obs)) or '(empty)'}")
    return TextObservation(legend=legend, hud=hud, grid=grid, message=_cstr(obs["message"]).strip())


class NetHackGame:
    """One NetHack game in this process: reset(seed), step(action index)."""

    def __init__(self):
        nethack = _nle()
        import gymnasium as gym
        import nle.env  # noqa: F401  (registers the NetHack envs)
        self._env = gym.make(ENV_NAME, observation_keys=OBS_KEYS, actions=nethack.ACTIONS,
                             penalty_step=0.0, allow_all_yn_questions=True, allow_all_modes=True,
                             max_episode_steps=MAX_STEPS)
        self._keys = action_table()[2]
        self._esc = nethack.ACTIONS.index(nethack.Command.ESC)
        self.t = 0

    def reset(self, seed: int) -> dict:
        """A new game from our seed -> its observation (NLE's arrays: they change on the next step)."""
        core, disp, lgen = nle_seeds(seed)
        self._env.unwrapped.seed(core, disp, reseed=False, lgen=lgen)
        obs, _ = self._env.reset()
        self.t = 0
        return obs

    def step(self, action: int) -> tuple[dict, float, bool, bool]:
        """One action (NO_ACTION or an index outside the table: ESC) -> (obs, reward, terminated,
        truncated); truncated at MAX_STEPS."""
        a = action if 0 <= action < len(self._keys) else self._esc
        obs, reward, terminated, truncated, _ = self._env.step(a)
        self.t += 1
        return obs, float(reward), terminated, truncated or self.t >= MAX_STEPS

    def close(self) -> None:
        self._env.close()


def _worker(conn) -> None:
    """A worker process: one NetHackGame driven by (command, arg) messages."""
    game = None
    while True:
        try:
            cmd, arg = conn.recv()
        except EOFError:  # the parent went away
            break
        try:
            if cmd == "close":
                break
            if game is None:
                game = NetHackGame()
            out = game.reset(arg) if cmd == "reset" else game.step(arg)
            conn.send(("ok", out))
        except Exception:  # noqa: BLE001  (reported to the parent with its traceback)
            conn.send(("error", traceback.format_exc()))
    if game is not None:
        game.close()


class NetHackBatch:
    """Episodes of nethack/full played side by side; a failed game ends only its episode."""

    def __init__(self, seeds: list[int], processes: bool = True):
        _nle()
        self.seeds = [int(s) for s in seeds]
        self.errors: dict[int, str] = {}
        self.done = np.zeros(len(seeds), bool)
        self.t = 0
        self._procs: list[Any] = []
        if processes:
            ctx = mp.get_context("spawn")
            self._conns = []
            for _ in seeds:
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=_worker, args=(child,), daemon=True)
                proc.start()
                self._conns.append(parent)
                self._procs.append(proc)
            for i, seed in enumerate(self.seeds):
                self._conns[i].send(("reset", seed))
            self.obs = [self._reply(i) for i in range(len(seeds))]
        else:
            self._games = [NetHackGame() for _ in seeds]
            self.obs = [g.reset(s) for g, s in zip(self._games, self.seeds)]

    def _fail(self, i: int, why: str) -> None:
        self.errors[i] = f"nethack/full seed {self.seeds[i]}: the NetHack game failed at step {self.t}: {why}"
        self.done[i] = True

    def _died(self, i: int) -> None:
        self._procs[i].join(timeout=1)
        self._fail(i, f"its process died (exit code {self._procs[i].exitcode})")

    def _reply(self, i: int):
        """The worker's answer for episode i, or None (episode i failed: `errors[i]`)."""
        try:
            status, out = self._conns[i].recv()
        except (EOFError, OSError):
            self._died(i)
            return None
        if status == "error":
            self._fail(i, out.strip().splitlines()[-1])
            return None
        return out

    def observations(self, rows: list[int]) -> list[TextObservation]:
        return [text_of(self.obs[j], self.t) for j in rows]

    def step(self, actions) -> dict[str, np.ndarray]:
        """Step every running episode -> {reward, terminated, truncated} float/bool arrays [B]; a
        failed episode is reported truncated (its reason in `errors`)."""
        n = len(self.seeds)
        reward, term, trunc = [0.0] * n, [False] * n, [False] * n
        done = self.done.tolist()
        live = [i for i in range(n) if not done[i]]
        results = self._step_workers(live, actions) if self._procs else self._step_here(live, actions)
        self.t += 1
        for i in live:
            out = results[i]
            if out is None:  # failed: `errors[i]` says why, `done[i]` is set
                trunc[i] = True
                continue
            self.obs[i], reward[i], term[i], trunc[i] = out
            if term[i] or trunc[i]:
                self.done[i] = True
        return {"reward": np.array(reward), "terminated": np.array(term), "truncated": np.array(trunc)}

    def _step_here(self, live: list[int], actions) -> dict:
        results = {}
        for i in live:
            try:
                results[i] = self._games[i].step(int(actions[i]))
            except Exception as e:  # noqa: BLE001  (NLE raised: this episode alone ends)
                self._fail(i, repr(e))
                results[i] = None
        return results

    def _step_workers(self, live: list[int], actions) -> dict:
        results = {i: None for i in live}
        sent = []
        for i in live:
            try:
                self._conns[i].send(("step", int(actions[i])))
                sent.append(i)
            except OSError:  # a broken pipe: the process is gone
                self._died(i)
        for i in sent:
            results[i] = self._reply(i)
        return results

    def close(self) -> None:
        for i, proc in enumerate(self._procs):
            try:
                self._conns[i].send(("close", None))
            except (BrokenPipeError, OSError):
                pass
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
        for g in getattr(self, "_games", []):
            g.close()
