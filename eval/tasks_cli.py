"""`glyphjax-tasks`: find tasks and read what a model will be told about them.

    glyphjax-tasks                         every registered id: suite, track, actions, max_steps
    glyphjax-tasks 'classics/snake-*'      ids matching glob(s) (or a suite name: minigrid)
    glyphjax-tasks show classics/snake-easy [--seed N] [--harness compact]
                                           the card (rules, actions, glyph legend, reward, success)
                                           and the initial observation exactly as the model sees it

An unknown id or a pattern that matches nothing prints one line with the closest ids (the
registry's suggestions) and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

EXIT_USAGE = 2
COLUMNS = ("id", "suite", "track", "actions", "max_steps")


def task_rows(patterns: Sequence[str] = ()) -> list[tuple[str, str, str, int, int]]:
    """(id, suite, track, number of actions, max_steps) per task matching `patterns` (all if empty)."""
    import glyphjax

    ids = glyphjax.task_ids(list(patterns)) if patterns else glyphjax.all_ids()
    rows = []
    for task in ids:
        card = glyphjax.make(task).card
        rows.append((task, card.suite, card.track, card.num_actions, card.max_steps))
    return rows


def format_table(rows: Sequence[tuple]) -> str:
    """A plain fixed-width table (readable in logs, no terminal codes); numbers right-aligned."""
    cells = [COLUMNS] + [tuple(str(c) for c in r) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(COLUMNS))]
    numeric = [i for i, name in enumerate(COLUMNS) if name in ("actions", "max_steps")]

    def line(r):
        return "  ".join(c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
    out = [line(cells[0]), line(tuple("-" * w for w in widths))] + [line(r) for r in cells[1:]]
    return "\n".join(s.rstrip() for s in out)


def success_text(card) -> str:
    """What counts as success for this card, in words (cards that declare no outcome say so)."""
    success = getattr(card, "success", None)
    hi = card.return_range[1]
    if success is None:
        return f"not declared on the card (evaluation counts a return of {hi:g} as success)"
    if success == "max_return":
        return f"the return reaches {hi:g} (a perfect score)"
    if success == "none":
        return "this game has no win/lose outcome (no success rate)"
    events = [card.events[i] for i in success]
    return "the episode ends with: " + "; ".join(repr(e) for e in events) if events else "not declared"


def card_text(card) -> str:
    """The card as sections: rules, actions with descriptions, glyph legend, reward, success."""
    actions = "\n".join(f"  {i:>3}  {name}: {desc}" for i, (name, desc) in
                        enumerate(zip(card.actions, card.action_descriptions)))
    glyphs = "\n".join(f"  {g}  {meaning}" for g, meaning in card.glyphs.items())
    lo, hi = card.return_range
    return "\n\n".join([
        f"# {card.id}  (suite {card.suite}, track {card.track}, max_steps {card.max_steps}, "
        f"players {card.num_players})",
        f"## Rules\n{card.rules.strip()}",
        f"## Actions ({card.num_actions})\n{actions}",
        f"## Glyphs\n{glyphs}",
        f"## Reward\n{card.reward.strip()}\nReturn range: [{lo:g}, {hi:g}]",
        f"## Success\n{success_text(card)}",
    ])


def initial_prompt(task_id: str, seed: int = 0, harness: str = "basic") -> tuple[str, str]:
    """(system prompt, first user message) of the episode with this seed, as the rollout engine
    builds them (glyphjax.harness + the text renderer)."""
    import jax

    import glyphjax
    from glyphjax.core.rollout import reset_key
    from glyphjax.harness.prompt import HarnessConfig, system_prompt, turn_message

    env = glyphjax.make(task_id)
    config = HarnessConfig(name=harness, memory=harness == "memory")
    state = jax.jit(env.reset)(reset_key(seed))
    observation = glyphjax.render_text(env.card, env.render(state)).render()
    memory = "" if config.memory else None
    return system_prompt(env.card, config), turn_message(observation, (), memory)


def show_text(task_id: str, seed: int = 0, harness: str = "basic") -> str:
    """The card followed by the model's view of the first turn."""
    import glyphjax

    card = glyphjax.make(task_id).card
    system, user = initial_prompt(task_id, seed, harness)
    return "\n\n".join([card_text(card), f"## What the model sees (seed {seed}, harness {harness})",
                        f"### System prompt\n{system}", f"### First user message\n{user}"])


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="glyphjax-tasks", description="List glyphjax tasks, or show one task's card "
                                 "and its first observation as a language model sees it.",
                                 epilog="examples: glyphjax-tasks 'minigrid/*'   glyphjax-tasks show classics/snake-easy")
    ap.add_argument("args", nargs="*", metavar="GLOB | show ID",
                    help="glob patterns or suite names to list (default: all), or `show ID`")
    ap.add_argument("--seed", type=int, default=0, help="show: episode seed of the initial observation (default 0)")
    ap.add_argument("--harness", default="basic", choices=("basic", "compact", "memory"),
                    help="show: which harness builds the prompt (default basic)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry point (`glyphjax-tasks`); returns the exit status."""
    import glyphjax

    ap = _parser()
    args = ap.parse_args(argv)
    try:
        if args.args[:1] == ["show"]:
            if len(args.args) != 2:
                ap.error("show takes exactly one task id, e.g. glyphjax-tasks show classics/snake-easy")
            if not 0 <= args.seed < 2 ** 32:
                ap.error(f"--seed must be in [0, 2**32), got {args.seed}")
            print(show_text(args.args[1], args.seed, args.harness))
        else:
            rows = task_rows(args.args)
            print(format_table(rows))
            print(f"\n{len(rows)} task(s)")
    except glyphjax.UnknownTaskError as e:
        print(f"glyphjax-tasks: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    return 0


def tasks_main() -> None:
    sys.exit(main())


if __name__ == "__main__":
    tasks_main()
