"""`glyphjax-play`: play any task in the terminal, or replay an action log exactly.

    glyphjax-play task=classics/snake-easy seed=3
    glyphjax-play task=classics/snake-easy seed=3 actions='[RIGHT,UP,UP]'

Each turn shows the text observation; type an action name (case-insensitive) or its index,
`?` for the action list, `q` to stop. At the end (or on `q` / end of input) the action log is
printed as a command line that replays the episode exactly: an episode is a function of
(task, seed, actions) (glyphjax.core.rollout keys). With `actions=` nothing is read from stdin:
the actions are replayed and the final observation printed.
"""

from __future__ import annotations

import sys
from typing import Sequence, TextIO

EXIT_USAGE = 2
USAGE = "usage: glyphjax-play task=SUITE/NAME [seed=INT] [actions='[NAME_OR_INDEX,...]']"


class PlayError(ValueError):
    pass


def parse_args(argv: Sequence[str]) -> dict:
    """key=value arguments (OmegaConf dotlist syntax: lists as [A,B])."""
    from omegaconf import OmegaConf
    for a in argv:
        if a in ("-h", "--help"):
            raise PlayError(USAGE + "\n\n" + __doc__)
        if "=" not in a:
            raise PlayError(f"argument {a!r} is not key=value. {USAGE}")
    try:
        cfg = OmegaConf.to_container(OmegaConf.from_dotlist(list(argv)))
    except Exception as e:  # omegaconf grammar errors
        raise PlayError(f"cannot parse arguments ({e}). {USAGE}") from None
    unknown = set(cfg) - {"task", "seed", "actions"}
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
    return cfg


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


class Game:
    """One episode stepped turn by turn with the same keys as glyphjax.replay/rollout."""

    def __init__(self, task: str, seed: int):
        import jax
        import glyphjax
        from glyphjax.core.rollout import reset_key, step_key
        self.env = glyphjax.make(task)
        self.card = self.env.card
        self.seed = seed
        env = self.env
        self._step = jax.jit(lambda s, t, st, a: env.step(step_key(s, t), st, a))
        self._render = jax.jit(lambda st: env.render(st))
        self.state = jax.jit(lambda s: env.reset(reset_key(s)))(jax.numpy.uint32(seed))
        self.ret = 0.0
        self.actions: list[int] = []
        self.terminated = self.truncated = False

    @property
    def done(self) -> bool:
        return bool(self.state.done)

    def observation(self) -> str:
        import glyphjax
        return glyphjax.render_text(self.card, self._render(self.state)).render()

    def step(self, a: int) -> float:
        import jax.numpy as jnp
        self.state, tr = self._step(jnp.uint32(self.seed), self.state.t, self.state, jnp.int32(a))
        self.actions.append(a)
        self.ret += float(tr.reward)
        self.terminated |= bool(tr.terminated)
        self.truncated |= bool(tr.truncated)
        return float(tr.reward)

    def log_command(self) -> str:
        names = ",".join(action_name(self.card, a) for a in self.actions)
        return f"glyphjax-play task={self.card.id} seed={self.seed} actions=[{names}]"

    def summary(self) -> str:
        status = "terminated" if self.terminated else "truncated" if self.truncated else "not finished"
        return f"return {self.ret:.4f} after {len(self.actions)} turns ({status})"


def play(task: str, seed: int, actions: list | None, stdin: TextIO, out: TextIO) -> Game:
    game = Game(task, seed)
    card = game.card
    if actions is not None:
        idx = [action_from_token(card, a) for a in actions]
        if len(idx) > card.max_steps:
            raise PlayError(f"{len(idx)} actions but {task} lasts at most {card.max_steps} turns")
        for a in idx:
            if game.done:
                raise PlayError(f"the episode ended after {len(game.actions)} actions; "
                                f"{len(idx) - len(game.actions)} action(s) left over")
            game.step(a)
        print(game.observation(), file=out)
    else:
        print(f"{task} (seed {seed}). Actions: " + ", ".join(f"{i}={n}" for i, n in enumerate(card.actions))
              + ". Type a name or index, ? for help, q to quit.", file=out)
        while not game.done:
            print("\n" + game.observation(), file=out)
            print(f"turn {len(game.actions)} > ", end="", file=out, flush=True)
            line = stdin.readline()
            if not line:  # end of input
                print("", file=out)
                break
            token = line.strip()
            if token.lower() in ("q", "quit", "exit"):
                break
            if token in ("?", "help", ""):
                for i, (n, d) in enumerate(zip(card.actions, card.action_descriptions)):
                    print(f"  {i:>2} {n}: {d}", file=out)
                continue
            try:
                a = action_from_token(card, token)
            except PlayError as e:
                print(f"  {e}", file=out)
                continue
            r = game.step(a)
            print(f"  {action_name(card, a)} -> reward {r:+.4f}", file=out)
        if game.done:
            print("\n" + game.observation(), file=out)
    print(f"\n{game.summary()}", file=out)
    print(f"action log: {game.log_command()}", file=out)
    return game


def play_main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (`glyphjax-play`)."""
    import glyphjax
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        cfg = parse_args(argv)
        play(cfg["task"], cfg["seed"], cfg["actions"], sys.stdin, sys.stdout)
    except (PlayError, glyphjax.UnknownTaskError) as e:
        print(f"glyphjax-play: error: {e}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)
    except KeyboardInterrupt:
        raise SystemExit(130)


if __name__ == "__main__":
    play_main()
