"""Replay recorded episodes: a self-contained HTML viewer and a terminal (rich) replay.

    glyphjax-replay runs/eval.jsonl                 -> runs/eval.html (open it in any browser)
    glyphjax-replay runs/eval.jsonl -o page.html --task 'classics/*'
    glyphjax-replay runs/eval.jsonl --tui [--episode 3]

Input: the JSON Lines trajectory format of rl/trajectory.py (one episode per line: task, seed,
return, length, terminated, truncated, turns: [{t, observation, completion, action, action_name,
parse_status, reward, memory?, finish_reason?}]). A multi-seat game has one line per seat played
by a text policy (`seat`, `joint_actions`): the episode is rebuilt from every seat's actions and
drawn as that seat sees it; a turn shows the frame of its step `t`.

Because an episode is a function of (task, seed, actions), frames are rebuilt from those with
`glyphjax.replay` (the legend/HUD/grid/message shown per turn come from the rebuild, plus the final
frame after the last action); each recorded observation is compared with its rebuilt frame and
the page warns on every turn where they disagree (a changed task, or a recording bug).

The page is one file (template eval/replay_page.html): no server, no external assets (its font is
embedded, see eval/glyph_font.py), the data embedded as JSON in a `<script type="application/json">`
block with `<`, `>`, `&`, U+2028/9 escaped, and every piece of model text inserted with
`textContent` (never `innerHTML`), so a trajectory containing `<script>` shows it as text and
never runs it. A cut-off last line is skipped with a warning; any other bad line stops the tool
with one line naming it.
"""

from __future__ import annotations

import argparse
import colorsys
import contextlib
import hashlib
import html
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Iterable, Sequence, TextIO

import numpy as np

from eval.keys import EOF, cbreak, is_terminal, read_key
from rl.trajectory import JsonLines, TruncatedLineWarning

FAILURE_STATUSES = ("no_tag", "unknown_action", "truncated", "empty")


# --- reading ------------------------------------------------------------------------------------

SEED_LIMIT = 2 ** 32  # seeds are uint32 (glyphjax.core.rollout keys)


def load_trajectory(path: str | os.PathLike) -> tuple[list[dict[str, Any]], int]:
    """(episode dicts, number of cut-off last lines skipped) of a JSONL trajectory file. A
    malformed line or record raises ValueError naming the file and line."""
    lines = JsonLines(path)
    eps = [_checked_episode(path, i, ep) for i, ep in lines]
    return eps, lines.skipped


def load_episodes(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Episode dicts of a JSONL trajectory file (see load_trajectory)."""
    return load_trajectory(path)[0]


def _checked_episode(path, line: int, ep: Any) -> dict[str, Any]:
    """The record if it can be replayed; else ValueError saying which field is wrong and how."""
    where = f"{path}:{line}"
    if not isinstance(ep, dict):
        raise ValueError(f"{where}: expected an episode object, got {type(ep).__name__}")
    missing = [k for k in ("task", "seed", "turns") if k not in ep]
    if missing:
        raise ValueError(f"{where}: episode record lacks {missing}")
    seed = ep["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"{where}: seed {seed!r} is not an integer in [0, 2**32); episodes are "
                         "replayed from their uint32 seed, so fix or drop this line")
    if not isinstance(ep["task"], str) or not isinstance(ep["turns"], list):
        raise ValueError(f"{where}: 'task' must be a string and 'turns' a list")
    return ep


def episode_actions(ep: dict) -> list[int]:
    """The actions that replay the episode: every seat's (`joint_actions`) in a multi-seat game."""
    if ep.get("joint_actions") is not None:
        return [int(a) for a in ep["joint_actions"]]
    return [int(t.get("action", -1)) for t in ep["turns"]]


def turn_step(turn: dict, i: int) -> int:
    """The env step a turn was taken at (its index in a single-agent episode)."""
    return int(turn.get("t", i))


def outcome(ep: dict) -> str:
    if ep.get("terminated"):
        return "terminated"
    if ep.get("truncated"):
        return "truncated"
    return "unfinished"


# --- rebuilding frames ---------------------------------------------------------------------------

def rebuild_observations(task: str, seed: int, actions: Sequence[int], seat: int = 0) -> list[dict[str, str]]:
    """Text observations of every frame of the episode (len(actions) + 1: reset frame first) as
    `seat` sees them, rebuilt with glyphjax.replay; each as {legend, hud, grid, message, text}."""
    import glyphjax
    env = glyphjax.make(task)
    frames, _ = glyphjax.replay(env, int(seed), np.asarray(actions, np.int32), seat=int(seat))
    obs = glyphjax.render_batch(env.card, frames)
    return [{"legend": o.legend, "hud": o.hud, "grid": o.grid, "message": o.message, "text": o.render()}
            for o in obs]


def check_episode(ep: dict) -> tuple[list[dict[str, str]] | None, list[int], str | None]:
    """(rebuilt observations or None, turns whose recorded observation differs, error or None)."""
    import glyphjax
    try:
        rebuilt = rebuild_observations(ep["task"], ep["seed"], episode_actions(ep), ep.get("seat", 0))
    except (glyphjax.UnknownTaskError, ValueError) as e:
        return None, [], f"cannot rebuild frames: {e}"
    if ep.get("obs_format", "glyph") != "glyph":  # the model read another format of the same states
        return rebuilt, [], None
    bad = [i for i, turn in enumerate(ep["turns"]) if turn.get("observation") is not None
           and (turn_step(turn, i) >= len(rebuilt) or turn["observation"] != rebuilt[turn_step(turn, i)]["text"])]
    return rebuilt, bad, None


def split_observation(text: str) -> dict[str, str]:
    """Sections of an observation text ([Legend], [HUD], [Grid], [Message])."""
    out = {"legend": "", "hud": "", "grid": "", "message": ""}
    for block in ("\n\n" + (text or "")).split("\n\n["):
        if not block.strip():
            continue
        head, _, body = block.partition("]\n")
        key = head.strip("[").strip().lower()
        if key in out:
            out[key] = body
    return out


def page_data(episodes: Iterable[dict], rebuild: bool = True, progress: bool = False) -> list[dict]:
    """What the page shows: per episode its header and per frame the observation parts, the
    model's text, the action, reward, parse status, memory and mismatch flag."""
    import glyphjax
    from eval.progress import task_progress
    episodes = list(episodes)
    data = []
    with task_progress(len(episodes), "rebuilding frames", enabled=progress) as advance:
        for idx, ep in enumerate(episodes):
            advance(f"{ep['task']} seed {ep['seed']}")
            data.append(_episode_view(idx, ep, rebuild, glyphjax))
    return data


def _episode_view(idx: int, ep: dict, rebuild: bool, glyphjax) -> dict:
    """One episode as the page shows it (frames rebuilt and checked when `rebuild`)."""
    rebuilt, bad, error = check_episode(ep) if rebuild else (None, [], None)
    turns = _turn_views(ep, rebuilt, bad)
    final = None
    if rebuilt:
        f = rebuilt[-1]
        final = {"t": len(rebuilt) - 1, "legend": f["legend"], "hud": f["hud"], "grid": f["grid"],
                 "message": f["message"], "return_so_far": turns[-1]["return_so_far"] if turns else 0.0}
    try:
        card = glyphjax.make(ep["task"]).card
    except glyphjax.UnknownTaskError:
        card = None
    all_logprobs = [x for t in ep["turns"] for x in (t.get("logprobs") or [])]
    return {
        "index": idx, "task": ep["task"], "seed": int(ep["seed"]),
        "return": float(ep.get("return", sum(t.get("reward", 0.0) for t in ep["turns"]))),
        "length": int(ep.get("length", len(ep["turns"]))), "outcome": outcome(ep),
        "policy": ep.get("policy", ""), "harness": ep.get("harness", ""),
        "seat": int(ep.get("seat", 0)), "players": len(ep["returns"]) if ep.get("returns") else 1,
        "system_prompt": ep.get("system_prompt") or "",
        "prompt_tokens": int(ep.get("prompt_tokens", sum(t["prompt_tokens"] for t in turns))),
        "completion_tokens": int(ep.get("completion_tokens", sum(t["completion_tokens"] for t in turns))),
        "logprob_mean": float(np.mean(all_logprobs)) if all_logprobs else None,
        "parse_failures": sum(t["parse_failure"] for t in turns),
        "truncations": sum(t["truncated"] for t in turns),
        "mismatches": bad, "rebuild_error": error, "rebuilt": rebuilt is not None,
        "actions": list(card.actions) if card else [], "grid_labels": bool(card and card.grid_labels),
        "glyphs": glyph_styles(card.glyphs) if card else {}, "turns": turns, "final": final,
    }


def _turn_views(ep: dict, rebuilt: list[dict] | None, bad: list[int]) -> list[dict]:
    """Per turn: the frame, the full prompt's user message, tokens, log-probs and running return."""
    views, shown_so_far, ret = [], [], 0.0
    for i, turn in enumerate(ep["turns"]):
        recorded = turn.get("observation") or ""
        step = turn_step(turn, i)
        shown = rebuilt[step] if rebuilt and step < len(rebuilt) else split_observation(recorded)
        status = turn.get("parse_status", "ok")
        action = int(turn.get("action", -1))
        name = turn.get("action_name")
        ret += float(turn.get("reward", 0.0))
        views.append({
            "t": step, "legend": shown["legend"], "hud": shown["hud"],
            "grid": shown["grid"], "message": shown["message"],
            "recorded": recorded if i in bad else None, "mismatch": i in bad,
            "completion": turn.get("completion") or "", "action": action,
            "action_name": name or ("NO ACTION" if action < 0 else ""),
            "parse_status": status, "parse_failure": status != "ok",
            "truncated": turn.get("finish_reason") == "length" or status == "truncated",
            "reward": float(turn.get("reward", 0.0)), "return_so_far": ret, "memory": turn.get("memory"),
            "user_message": user_message(turn, shown_so_far, recorded or shown.get("text", "")),
            **token_summary(turn),
        })
        shown_so_far.append((recorded or shown.get("text", ""), name if name is not None else f"(no action: {status})"))
    return views


def user_message(turn: dict, earlier: list[tuple[str, str]], observation: str) -> str:
    """The turn's user message as the rollout engine built it (rl/rollout.py): the observation,
    the last `history_shown` earlier (observation, action) pairs and the memory block."""
    from glyphjax.harness.prompt import turn_message
    k = int(turn.get("history_shown", 0) or 0)
    return turn_message(observation, earlier[len(earlier) - k:] if k else [], turn.get("memory"))


def token_summary(turn: dict) -> dict:
    """Prompt/completion token counts of the turn's action call (and of its memory update, if
    any) and the completion's log-prob mean/min."""
    lp = [float(x) for x in (turn.get("logprobs") or [])]
    mu = turn.get("memory_update") or {}
    return {  # the action call's own ids when recorded, else the turn totals
        "prompt_tokens": len(turn.get("prompt_ids") or []) or int(turn.get("prompt_tokens") or 0),
        "completion_tokens": len(turn.get("completion_ids") or []) or int(turn.get("completion_tokens") or 0),
        "memory_update_tokens": ([len(mu.get("prompt_ids") or []), len(mu.get("completion_ids") or [])]
                                 if mu else None),
        "logprob_mean": sum(lp) / len(lp) if lp else None,
        "logprob_min": min(lp) if lp else None,
    }


# Meaning words with a conventional colour (first match wins): named colours, then kinds of cell.
NAMED_COLOURS: tuple[tuple[str, str], ...] = (
    ("red", "#c62828"), ("green", "#2e7d32"), ("blue", "#1565c0"), ("purple", "#7b1fa2"),
    ("yellow", "#b8860b"), ("orange", "#e65100"), ("pink", "#c2185b"), ("cyan", "#00838f"),
    ("brown", "#6d4c41"), ("grey", "#616161"), ("gray", "#616161"), ("white", "#9e9e9e"),
    ("black", "#212121"), ("wall", "#546e7a"), ("floor", "#b0b0b0"), ("empty", "#b0b0b0"),
    ("lava", "#e65100"), ("water", "#1565c0"), ("you", "#d50000"),
)


def glyph_colour(meaning: str) -> str:
    """A colour (#rrggbb) for a glyph meaning, the same in every task and run: the colour its
    words name ("green key", "wall", "lava"), else a hue from a hash of the meaning."""
    words = [w.strip(",.;:()") for w in meaning.lower().split()]
    for word, colour in NAMED_COLOURS:
        if word in words:
            return colour
    digest = hashlib.sha1(" ".join(words).encode("utf-8")).digest()
    hue, sat, light = int.from_bytes(digest[:2], "big") / 65536, 0.6 + digest[3] % 30 / 100, (0.28, 0.36, 0.44)[digest[2] % 3]
    return "#" + "".join(f"{round(255 * v):02x}" for v in colorsys.hls_to_rgb(hue, light, sat))


def glyph_mark(meaning: str) -> str:
    """How the page marks a glyph's cell beyond its colour: `violation` (a rule-violation
    highlight, e.g. WITNESS's `!`), `path` (a drawn path, its head or its mirror shadow), else ''."""
    words = [w.strip(",.;:()") for w in meaning.lower().split()]
    if "violation" in words:
        return "violation"
    return "path" if "path" in words else ""


def glyph_styles(glyphs: dict[str, str]) -> dict[str, dict[str, str]]:
    """glyph -> {meaning, colour, mark} for a card's glyph table (the page colours cells and
    legend, and shades path and violation cells)."""
    return {g: {"meaning": m, "color": glyph_colour(m), "mark": glyph_mark(m)} for g, m in glyphs.items()}


# --- HTML -----------------------------------------------------------------------------------------

def json_for_script(obj: Any) -> str:
    """JSON safe inside a <script type="application/json"> element: no `<`, `>`, `&` and no
    line/paragraph separators survive unescaped, so the text can never close the element."""
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return (s.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def build_html(data: list[dict], title: str = "glyphjax replay") -> str:
    """The self-contained page: template eval/replay_page.html with the embedded fonts, the title
    and the episode data (substituted last, so no data text is ever read as a placeholder)."""
    from eval.glyph_font import font_face_css
    page = PAGE_TEMPLATE.read_text(encoding="utf-8")
    return (page.replace("__FONTS__", font_face_css()).replace("__TITLE__", html.escape(title))
            .replace("__DATA__", json_for_script(data)))


PAGE_TEMPLATE = Path(__file__).with_name("replay_page.html")


# --- terminal replay ------------------------------------------------------------------------------

def tui_replay(data: list[dict], interactive: bool, console=None, keys: TextIO | None = None) -> None:
    """Turn-by-turn replay with rich panels: grid (coloured by glyph meaning) beside its legend,
    HUD, message, action, per-turn stats and model output. Interactive (reading `keys`, default
    stdin): Enter/space/→ next turn, ←/p previous, n next episode, q quits."""
    from rich.console import Console
    console = console or Console()
    keys = keys or sys.stdin
    on_terminal = interactive and is_terminal(keys)
    with cbreak(keys) if on_terminal else contextlib.nullcontext():
        for ep in data:
            fs = ep["turns"] + ([ep["final"]] if ep["final"] else [])
            i = 0
            while 0 <= i < len(fs):
                if on_terminal:
                    console.clear()
                if i == 0 or on_terminal:
                    _tui_episode_header(console, ep)
                console.print(_tui_turn_panel(ep, fs, i))
                if not interactive:
                    i += 1
                    continue
                command = _tui_command(keys, console, on_terminal)
                if command == "quit":
                    return
                if command == "episode":
                    break
                i = max(0, i - 1) if command == "prev" else i + 1


def _tui_episode_header(console, ep: dict) -> None:
    console.rule(f"{ep['task']} seed {ep['seed']} · return {ep['return']:.4f} · {ep['length']} turns · {ep['outcome']}")
    if ep["rebuild_error"]:
        console.print(f"[yellow]{ep['rebuild_error']}[/yellow]")
    if ep["mismatches"]:
        console.print(f"[yellow]recorded observation differs from the rebuilt frame at turns {ep['mismatches']}[/yellow]")


def _tui_grid(text: str, ep: dict):
    """The grid as rich Text, each glyph in its meaning's colour (labels and unknowns plain)."""
    from rich.text import Text
    out = Text()
    label_rows = 1 if ep.get("grid_labels") else 0
    rows = text.split("\n")
    label_cols = len(str(len(rows) - 2)) + 1 if label_rows else 0
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            style = ep["glyphs"].get(ch) if r >= label_rows and c >= label_cols else None
            out.append(ch, style=style["color"] if style else "dim" if label_rows else None)
        if r < len(rows) - 1:
            out.append("\n")
    return out


def _tui_legend(text: str, ep: dict):
    from rich.text import Text
    out = Text()
    for k, line in enumerate(text.split("\n") if text else []):
        style = ep["glyphs"].get(line[:1])
        out.append(("\n" if k else "") + line[:1], style=style["color"] if style else None)
        out.append(line[1:])
    return out


def _tui_turn_panel(ep: dict, fs: list[dict], i: int):
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text
    f = fs[i]
    final = ep["final"] is not None and i == len(fs) - 1
    top = Table.grid(padding=(0, 3))
    top.add_row(_tui_grid(f["grid"], ep), Panel(_tui_legend(f["legend"], ep), title="legend", expand=False))
    body = [top, Text(f["hud"], style="bold")]
    if f["message"]:
        body.append(Text(f["message"], style="italic"))
    body.append(Text(f"return so far {f.get('return_so_far', 0.0):+.4f}"))
    if not final:
        status = f["parse_status"] + (" (truncated)" if f["truncated"] else "")
        body.append(Text(f"action {f['action_name']} ({f['action']}) · parse {status} · reward {f['reward']:+.4f}",
                         style="red" if f["parse_failure"] else "green"))
        lp = ("" if f.get("logprob_mean") is None
              else f" · log-prob mean {f['logprob_mean']:.3f} min {f['logprob_min']:.3f}")
        body.append(Text(f"tokens {f.get('prompt_tokens', 0)} prompt / {f.get('completion_tokens', 0)} completion{lp}",
                         style="dim"))
        if f.get("memory"):
            body.append(Panel(Text(f["memory"]), title="memory"))
        if f["completion"]:
            body.append(Panel(Text(f["completion"]), title="model output"))
    return Panel(Group(*body), title=f"turn {i}" + (" (final)" if final else "")
                 + (" ⚠ mismatch" if (not final and f["mismatch"]) else ""))


TUI_HELP = "[Enter/→] next  [←/p] previous  [n] next episode  [q] quit"


def _tui_command(keys: TextIO, console, on_terminal: bool) -> str:
    """"next" | "prev" | "episode" | "quit" from one key (terminal) or one line (pipe); EOF quits."""
    console.print(TUI_HELP + " > ", end="", markup=False, highlight=False)
    if on_terminal:
        key = read_key(keys)
    else:
        line = keys.readline()
        key = EOF if not line else line.strip().lower()
    console.print("")
    if key in (EOF, "q", "quit"):
        return "quit"
    if key in ("LEFT", "p"):
        return "prev"
    return "episode" if key == "n" else "next"


# --- CLI ----------------------------------------------------------------------------------------------

def replay_main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (`glyphjax-replay FILE`)."""
    ap = argparse.ArgumentParser(prog="glyphjax-replay", description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="JSON Lines trajectory file")
    ap.add_argument("-o", "--out", help="HTML output (default: FILE with .html)")
    ap.add_argument("--tui", action="store_true", help="replay in the terminal instead of writing HTML")
    ap.add_argument("--task", default=None, help="only episodes whose task matches this glob")
    ap.add_argument("--seed", type=int, default=None, help="only episodes with this seed")
    ap.add_argument("--episode", type=int, default=None, help="only the episode at this index (file order)")
    ap.add_argument("--no-rebuild", action="store_true", help="show recorded observations, skip the check")
    args = ap.parse_args(argv)
    from glyphjax.core.compiled import use_persistent_cache
    try:
        use_persistent_cache()
    except ValueError as e:
        print(f"glyphjax-replay: error: {e}", file=sys.stderr)
        raise SystemExit(2)
    try:
        _replay_cli(args)
    except KeyboardInterrupt:
        print("\nglyphjax-replay: interrupted", file=sys.stderr)
        raise SystemExit(130)


def _replay_cli(args: argparse.Namespace) -> None:
    """Read, filter, rebuild and show (terminal) or write (HTML) the episodes `args` name."""
    import fnmatch
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TruncatedLineWarning)  # reported below, once
            eps, skipped = load_trajectory(args.file)
    except (OSError, ValueError) as e:
        print(f"glyphjax-replay: error: {e}", file=sys.stderr)
        raise SystemExit(2)
    if skipped:
        print(f"glyphjax-replay: warning: skipped {skipped} cut-off last line of {args.file} "
              f"(a write interrupted by a crash); {len(eps)} episodes read", file=sys.stderr)
    if args.episode is not None:
        if not 0 <= args.episode < len(eps):
            print(f"glyphjax-replay: error: --episode {args.episode} out of range (file has {len(eps)})", file=sys.stderr)
            raise SystemExit(2)
        eps = [eps[args.episode]]
    if args.task:
        eps = [e for e in eps if fnmatch.fnmatch(e["task"], args.task)]
    if args.seed is not None:
        eps = [e for e in eps if int(e["seed"]) == args.seed]
    if not eps:
        print("glyphjax-replay: error: no episode matches", file=sys.stderr)
        raise SystemExit(2)
    data = page_data(eps, rebuild=not args.no_rebuild, progress=len(eps) > 10 or not args.no_rebuild)
    if args.tui:
        tui_replay(data, interactive=sys.stdin.isatty())
        return
    out = Path(args.out) if args.out else Path(args.file).with_suffix(".html")
    try:
        out.write_text(build_html(data, title=f"glyphjax replay: {Path(args.file).name}"), encoding="utf-8")
    except OSError as e:
        print(f"glyphjax-replay: error: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        raise SystemExit(2)
    bad = sum(1 for d in data if d["mismatches"] or d["rebuild_error"])
    print(f"wrote {out} ({len(data)} episodes{f', {bad} with frame warnings' if bad else ''})")


if __name__ == "__main__":
    replay_main()
