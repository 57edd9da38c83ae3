"""`glyphjax-play`: play any task in the terminal, or replay an action log exactly.

    glyphjax-play task=classics/snake-easy seed=3
    glyphjax-play task=minigrid/doorkey-5x5 seed=3 --save runs/me.jsonl   # then glyphjax-replay it
    glyphjax-play task=classics/snake-easy seed=3 actions='[RIGHT,UP,UP]'

Each turn shows the text observation and the running return; type an action name
(case-insensitive) or its index, `?` for the action list, `q` to stop. Movement games also take
arrow keys and w/a/s/d: they press the card's UP/DOWN/LEFT/RIGHT actions, or MOVE_FORWARD (up),
TURN_LEFT, TURN_RIGHT (and MOVE_BACKWARD, down) where the game steers by heading. On a terminal
the screen is redrawn in place and keys act at once (Enter first to type a name); from a pipe,
input is one command per line and frames are appended. At the end (or on `q` / end of input) the
action log is printed as a command line that replays the episode exactly: an episode is a
function of (task, seed, actions) (glyphjax.core.rollout keys). With `actions=` nothing is read
from stdin. Two-player games: by default two humans share the terminal (each turn shows the board
as the seat to move sees it); `opponent=bot` (the game's scripted policy) or `opponent=random`
(uniformly random legal moves) plays the other seat and you play `seat=` (default 0). `--save FILE` (or `save=FILE`) appends the episode as one trajectory line
(rl/trajectory.py format) that `glyphjax-replay FILE` opens.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np
from typing import Sequence, TextIO

from eval.keys import ARROWS, CLEAR_HOME, EOF, WASD, cbreak, direction_of, is_terminal, read_key, read_line_keys

EXIT_USAGE = 2
USAGE = ("usage: glyphjax-play task=SUITE/NAME [seed=INT] [actions='[NAME_OR_INDEX,...]'] [--save FILE] "
         "[opponent=bot|scripted|random|minimax seat=0|1 depth=N]")
OPPONENTS = ("bot", "scripted", "random", "minimax")  # `bot` = scripted; the others: glyphjax.core.bots.BOTS


class PlayError(ValueError):
    pass


def parse_args(argv: Sequence[str]) -> dict:
    """key=value arguments (OmegaConf dotlist syntax: lists as [A,B]), plus `--save FILE`."""
    from omegaconf import OmegaConf
    argv = _save_flag_as_key(list(argv))
    for a in argv:
        if a in ("-h", "--help"):
            raise PlayError(USAGE + "\n\n" + __doc__)
        if "=" not in a:
            raise PlayError(f"argument {a!r} is not key=value. {USAGE}")
    try:
        cfg = OmegaConf.to_container(OmegaConf.from_dotlist(list(argv)))
    except Exception as e:  # omegaconf grammar errors
        raise PlayError(f"cannot parse arguments ({e}). {USAGE}") from None
    unknown = set(cfg) - {"task", "seed", "actions", "save", "opponent", "seat", "depth"}
    if unknown:
        raise PlayError(f"unknown argument(s) {sorted(unknown)}. {USAGE}")
    if "task" not in cfg:
        raise PlayError(f"task= is required. {USAGE}")
    try:
        cfg["seed"] = int(cfg.get("seed", 0))
    except (TypeError, ValueError):
        raise PlayError(f"seed must be an integer, got {cfg.get('seed')!r}") from None
    if not 0 <= cfg["seed"] < 2 ** 32:
        raise PlayError("seed must be in [0, 2**32)")
    acts = cfg.get("actions")
    if acts is not None and not isinstance(acts, list):
        acts = [acts]
    cfg["actions"] = acts
    cfg["save"] = str(cfg["save"]) if cfg.get("save") not in (None, "") else None
    if cfg.get("opponent") not in (None, *OPPONENTS):
        raise PlayError(f"opponent must be one of {OPPONENTS}, got {cfg['opponent']!r}")
    if cfg.get("seat", 0) not in (0, 1):
        raise PlayError(f"seat must be 0 or 1, got {cfg.get('seat')!r}")
    depth = cfg.get("depth", 2)
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise PlayError(f"depth must be an integer >= 1 (minimax search plies), got {depth!r}")
    if "depth" in cfg and cfg.get("opponent") != "minimax":
        raise PlayError("depth= sets the minimax opponent's search depth; add opponent=minimax")
    cfg.setdefault("opponent", None)
    cfg["seat"], cfg["depth"] = int(cfg.get("seat", 0)), depth
    return cfg


def _save_flag_as_key(argv: list[str]) -> list[str]:
    """`--save FILE` / `--save=FILE` -> `save=FILE` (the other arguments are key=value)."""
    out = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--save":
            if i + 1 >= len(argv) or argv[i + 1].startswith("-") or "=" in argv[i + 1]:
                raise PlayError(f"--save needs a file name. {USAGE}")
            out.append(f"save={argv[i + 1]}")
            i += 2
            continue
        out.append("save=" + a[len("--save="):] if a.startswith("--save=") else a)
        i += 1
    return out


def action_from_token(card, token) -> int:
    """An action name (case-insensitive) or index -> index. NOOP / -1 means no action."""
    s = str(token).strip()
    if s.upper() in ("NOOP", "NO_ACTION") or s == "-1":
        return -1
    if s.lstrip("-").isdigit():
        i = int(s)
        if not 0 <= i < card.num_actions:
            raise PlayError(f"action index {i} out of range 0..{card.num_actions - 1}")
        return i
    try:
        return card.action_index(s)
    except ValueError as e:
        raise PlayError(str(e)) from None


def action_name(card, a: int) -> str:
    return "NOOP" if a < 0 else card.actions[a]


# Direction keys -> action names, first present on the card wins (grid moves, then heading moves).
MOVE_ACTIONS: dict[str, tuple[str, ...]] = {
    "UP": ("UP", "NORTH", "MOVE_FORWARD"),
    "DOWN": ("DOWN", "SOUTH", "MOVE_BACKWARD"),
    "LEFT": ("LEFT", "WEST", "TURN_LEFT"),
    "RIGHT": ("RIGHT", "EAST", "TURN_RIGHT"),
}


def movement_keys(card) -> dict[str, int]:
    """Direction key ("UP", ...) -> action index, for the directions this card can take."""
    keys = {}
    for direction, names in MOVE_ACTIONS.items():
        for name in names:
            if name in card.actions:
                keys[direction] = card.actions.index(name)
                break
    return keys


class Game:
    """One episode stepped turn by turn with the same keys as glyphjax.replay/rollout; keeps
    what a trajectory line needs (observation shown, action, reward, flags per turn)."""

    def __init__(self, task: str, seed: int, opponent: str | None = None, seat: int = 0, depth: int = 2):
        import glyphjax
        from glyphjax.core.packed import EpisodeStepper
        env = glyphjax.make(task)
        if opponent is not None:
            env = _against(env, opponent, seat, depth)
        self.env = env
        self.card = self.env.card
        self.seed = seed
        self.opponent_args = f" opponent={opponent} seat={seat}" if opponent else ""
        if opponent == "minimax":
            self.opponent_args += f" depth={depth}"
        self.task = task
        self.hot_seat = self.card.num_players > 1  # humans take turns at one terminal
        self.seat_returns = np.zeros(self.card.num_players if self.hot_seat else 1)
        # one jitted call and one copy per turn; at a hot seat each frame is the mover's view
        self._episode = EpisodeStepper(self.env, seed, follow_mover=self.hot_seat)
        self.ret = 0.0
        self.actions: list[int] = []
        self.turns: list[dict] = []
        self.terminated = self.truncated = False

    @property
    def state(self):
        return self._episode.state

    @property
    def done(self) -> bool:
        return self._episode.done

    def observation(self) -> str:
        import glyphjax
        return glyphjax.observation_text(self.card, self._episode.frame)

    def step(self, a: int) -> float:
        shown = self.observation()
        mover = self._episode.to_play
        out = self._episode.step(a)
        reward = np.atleast_1d(out.reward)
        r = float(reward[mover] if self.hot_seat else reward[0])  # the mover's reward
        self.seat_returns = self.seat_returns + reward
        term, trunc = out.terminated, out.truncated
        self.turns.append({"t": len(self.actions), "observation": shown, "action": a, "reward": r,
                           "terminated": term, "truncated": trunc})
        self.actions.append(a)
        self.ret += r
        self.terminated |= term
        self.truncated |= trunc
        return r

    def log_command(self) -> str:
        names = ",".join(action_name(self.card, a) for a in self.actions)
        return f"glyphjax-play task={self.task} seed={self.seed}{self.opponent_args} actions=[{names}]"

    def summary(self) -> str:
        status = "terminated" if self.terminated else "truncated" if self.truncated else "not finished"
        if self.hot_seat:
            per_seat = ", ".join(f"seat {i} {r:+.0f}" for i, r in enumerate(self.seat_returns))
            return f"returns {per_seat} after {len(self.actions)} turns ({status})"
        return f"return {self.ret:.4f} after {len(self.actions)} turns ({status})"

    def record(self):
        """The episode as an rl.trajectory.EpisodeRecord (policy "human": no tokens, no text)."""
        from glyphjax.harness.prompt import HarnessConfig, system_prompt
        from rl.trajectory import EpisodeRecord, TurnRecord
        turns = [TurnRecord(t=tr["t"], observation=tr["observation"], history_shown=0, history_dropped=0,
                            prompt_ids=[], completion_ids=[], logprobs=[], completion="", finish_reason="stop",
                            parse_status="ok", action=tr["action"],
                            action_name=self.card.actions[tr["action"]] if tr["action"] >= 0 else None,
                            reward=tr["reward"], terminated=tr["terminated"], truncated=tr["truncated"])
                 for tr in self.turns]
        return EpisodeRecord(
            task=self.card.id, seed=self.seed, harness="basic", policy="human (glyphjax-play)",
            system_prompt=system_prompt(self.card, HarnessConfig()), turns=turns, episode_return=self.ret,
            length=len(turns), terminated=self.terminated, truncated=self.truncated, prompt_tokens=0,
            completion_tokens=0, parse_failures=0, parse_status_counts={"ok": len(turns)} if turns else {},
            truncations=0, context_drops=0, context_overflows=0)


def _against(game, opponent: str, seat: int, depth: int = 2):
    """A two-player game seen from `seat`, the other seat played by a bot (glyphjax.core.bots)."""
    import glyphjax
    from glyphjax.core.bots import bot
    if game.card.num_players < 2:
        raise PlayError(f"opponent= needs a two-player task; {game.card.id} has one player")
    try:
        policy = bot(game, "scripted" if opponent == "bot" else opponent, depth)
    except ValueError as e:
        raise PlayError(f"opponent={opponent}: {e}") from None
    return glyphjax.versus(game, policy, seat)


def play(task: str, seed: int, actions: list | None, stdin: TextIO, out: TextIO,
         save: str | None = None, tty: bool | None = None, opponent: str | None = None, seat: int = 0,
         depth: int = 2) -> Game:
    """Play (or replay `actions` of) one episode; `save` appends it to a trajectory file (opened
    first, so a bad path fails before play). `tty` (default: both streams are terminals) redraws
    in place and reads single keys. Ctrl-C ends the episode like `q`."""
    writer = _open_save(save)
    try:
        game = Game(task, seed, opponent, seat, depth)
        if actions is not None:
            _replay_actions(game, actions)
            print(game.observation(), file=out)
        else:
            tty = is_terminal(stdin) and is_terminal(out) if tty is None else tty
            try:
                with cbreak(stdin) if tty else contextlib.nullcontext():
                    _interactive(game, stdin, out, tty=tty)
            except KeyboardInterrupt:
                print("\ninterrupted", file=out)
        print(f"\n{game.summary()}", file=out)
        print(f"action log: {game.log_command()}", file=out)
        if writer is not None:
            writer.write(game.record())
            print(f"saved the episode to {save} (open it with: glyphjax-replay {save})", file=out)
    finally:
        if writer is not None:
            writer.close()
    return game


def _open_save(save: str | None):
    """The trajectory writer for `--save`, or None; PlayError if the file cannot be written."""
    if not save:
        return None
    from rl.trajectory import TrajectoryWriter
    try:
        return TrajectoryWriter(save)
    except OSError as e:
        raise PlayError(f"cannot write --save file {save!r}: {e.strerror or e}") from None


def _replay_actions(game: Game, actions: list) -> None:
    idx = [action_from_token(game.card, a) for a in actions]
    if len(idx) > game.card.max_steps:
        raise PlayError(f"{len(idx)} actions but {game.card.id} lasts at most {game.card.max_steps} turns")
    for a in idx:
        if game.done:
            raise PlayError(f"the episode ended after {len(game.actions)} actions; "
                            f"{len(idx) - len(game.actions)} action(s) left over")
        game.step(a)


def _interactive(game: Game, stdin: TextIO, out: TextIO, tty: bool) -> None:
    """The play loop: draw, read one command, act on it, until the episode ends or `q`/EOF."""
    card, moves = game.card, movement_keys(game.card)
    status = _intro(card, moves)
    while not game.done:
        _draw(game, status, out, tty)
        kind, value = _read_command(stdin, out, tty, moves)
        if kind == "eof" or (kind == "line" and value.lower() in ("q", "quit", "exit")):
            print("", file=out)
            break
        if kind == "line" and value in ("?", "help", ""):
            status = _help(card, moves)
            continue
        try:
            a = moves[value] if kind == "move" else action_from_token(card, value)
        except KeyError:
            status = f"  no action for the {value} key in {card.id}; type a name or index (? lists them)"
            continue
        except PlayError as e:
            status = f"  {e}"
            continue
        r = game.step(a)
        status = f"  {action_name(card, a)} -> reward {r:+.4f}    return so far {game.ret:+.4f}"
    if game.done:
        _draw(game, status, out, tty, prompt=False)


def _intro(card, moves: dict[str, int]) -> str:
    keys = ", ".join(f"{d.lower()}={card.actions[a]}" for d, a in moves.items())
    return (f"{card.id}. Actions: " + ", ".join(f"{i}={n}" for i, n in enumerate(card.actions))
            + (f". Arrow keys / wasd: {keys}" if moves else "") + ". Type a name or index, ? for help, q to quit.")


def _help(card, moves: dict[str, int]) -> str:
    lines = [f"  {i:>2} {n}: {d}" for i, (n, d) in enumerate(zip(card.actions, card.action_descriptions))]
    if moves:
        lines.append("  arrow keys / w a s d: " + ", ".join(f"{d.lower()} = {card.actions[a]}" for d, a in moves.items()))
    return "\n".join(lines)


def _draw(game: Game, status: str, out: TextIO, tty: bool, prompt: bool = True) -> None:
    """One screen: observation, last action's outcome and running return, the turn prompt. On a
    terminal the screen is cleared first (redrawn in place); otherwise frames are appended."""
    text = (CLEAR_HOME if tty else "\n") + game.observation() + "\n"
    if status:
        text += "\n" + status + "\n"
    if prompt:
        text += f"turn {len(game.actions)} · return {game.ret:+.4f} > "
    out.write(text)
    out.flush()


def _read_command(stdin: TextIO, out: TextIO, tty: bool, moves: dict[str, int]) -> tuple[str, str]:
    """("move", direction) | ("line", typed text) | ("eof", ""). On a terminal, arrow keys and
    w/a/s/d act at once (when the game has moves) and other keys start a typed line."""
    if not tty:
        line = stdin.readline()
        if not line:
            return "eof", ""
        token = line.strip()
        direction = direction_of(token)
        return ("move", direction) if direction else ("line", token)
    key = read_key(stdin)
    if key == EOF:
        return "eof", ""
    direction = key if key in ARROWS.values() else (WASD.get(key.lower()) if moves else None)
    if direction:
        return "move", direction
    if key in ("q", "?"):
        out.write(key + "\n")
        return "line", key
    line = read_line_keys(stdin, out, first=key if len(key) == 1 and key.isprintable() else "")
    return ("eof", "") if line is None else ("line", line.strip())


def play_main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (`glyphjax-play`)."""
    import glyphjax
    argv = sys.argv[1:] if argv is None else list(argv)
    from glyphjax.core.compiled import use_persistent_cache
    try:
        cfg = parse_args(argv)
        use_persistent_cache()
        play(cfg["task"], cfg["seed"], cfg["actions"], sys.stdin, sys.stdout, save=cfg["save"],
             opponent=cfg["opponent"], seat=cfg["seat"], depth=cfg["depth"])
    except (PlayError, glyphjax.UnknownTaskError, ValueError) as e:
        print(f"glyphjax-play: error: {e}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)
    except KeyboardInterrupt:
        raise SystemExit(130)


if __name__ == "__main__":
    play_main()
