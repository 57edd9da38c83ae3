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

The page is one file: no server, no external assets, the data embedded as JSON in a
`<script type="application/json">` block with `<`, `>`, `&`, U+2028/9 escaped, and every piece of
model text inserted with `textContent` (never `innerHTML`), so a trajectory containing `<script>`
shows it as text and never runs it.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

FAILURE_STATUSES = ("no_tag", "unknown_action", "truncated", "empty")


# --- reading ------------------------------------------------------------------------------------

def load_episodes(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Episode dicts of a JSONL trajectory file. A malformed line raises naming file and line."""
    eps = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                ep = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{i}: not a JSON line ({e}); is this a trajectory file?") from None
            missing = [k for k in ("task", "seed", "turns") if k not in ep]
            if missing:
                raise ValueError(f"{path}:{i}: episode record lacks {missing}")
            eps.append(ep)
    return eps


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
    except (glyphjax.UnknownTaskError, ValueError, IndexError) as e:
        return None, [], f"cannot rebuild frames: {e}"
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
    turns = []
    for i, turn in enumerate(ep["turns"]):
        recorded = turn.get("observation") or ""
        step = turn_step(turn, i)
        shown = rebuilt[step] if rebuilt and step < len(rebuilt) else split_observation(recorded)
        status = turn.get("parse_status", "ok")
        turns.append({
            "t": step, "legend": shown["legend"], "hud": shown["hud"],
            "grid": shown["grid"], "message": shown["message"],
            "recorded": recorded if i in bad else None, "mismatch": i in bad,
            "completion": turn.get("completion") or "", "action": int(turn.get("action", -1)),
            "action_name": turn.get("action_name") or ("NO ACTION" if int(turn.get("action", -1)) < 0 else ""),
            "parse_status": status, "parse_failure": status != "ok",
            "truncated": turn.get("finish_reason") == "length" or status == "truncated",
            "reward": float(turn.get("reward", 0.0)), "memory": turn.get("memory"),
        })
    final = None
    if rebuilt:
        n = len(rebuilt) - 1
        f = rebuilt[n]
        final = {"t": n, "legend": f["legend"], "hud": f["hud"], "grid": f["grid"],
                 "message": f["message"]}
    try:
        suite_actions = list(glyphjax.make(ep["task"]).card.actions)
    except glyphjax.UnknownTaskError:
        suite_actions = []
    return {
        "index": idx, "task": ep["task"], "seed": int(ep["seed"]),
        "return": float(ep.get("return", sum(t.get("reward", 0.0) for t in ep["turns"]))),
        "length": int(ep.get("length", len(ep["turns"]))), "outcome": outcome(ep),
        "policy": ep.get("policy", ""), "harness": ep.get("harness", ""),
        "seat": int(ep.get("seat", 0)), "players": len(ep["returns"]) if ep.get("returns") else 1,
        "parse_failures": sum(t["parse_failure"] for t in turns),
        "truncations": sum(t["truncated"] for t in turns),
        "mismatches": bad, "rebuild_error": error, "rebuilt": rebuilt is not None,
        "actions": suite_actions, "turns": turns, "final": final,
    }


# --- HTML -----------------------------------------------------------------------------------------

def json_for_script(obj: Any) -> str:
    """JSON safe inside a <script type="application/json"> element: no `<`, `>`, `&` and no
    line/paragraph separators survive unescaped, so the text can never close the element."""
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return (s.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def build_html(data: list[dict], title: str = "glyphjax replay") -> str:
    return (PAGE.replace("__TITLE__", html.escape(title))
            .replace("__DATA__", json_for_script(data)))


PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>__TITLE__</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;display:flex;height:100vh;color:#222}
#side{width:300px;border-right:1px solid #ccc;overflow:auto;padding:8px;flex:none}
#main{flex:1;overflow:auto;padding:10px 16px}
.ep{padding:4px;cursor:pointer;border-bottom:1px solid #eee;font-size:13px}
.ep.sel{background:#dbe9ff}.ep .bad{color:#b00}
pre{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;margin:0;line-height:1.15}
#grid{font-size:20px;background:#fafafa;border:1px solid #ddd;padding:6px;display:inline-block}
.row{display:flex;gap:18px;flex-wrap:wrap;align-items:flex-start}
.box{border:1px solid #ddd;padding:6px;margin:6px 0;max-width:900px}
.box h4{margin:0 0 4px 0;font-size:12px;color:#666;text-transform:uppercase}
#completion{white-space:pre-wrap;font-size:13px;max-height:320px;overflow:auto}
#timeline span{display:inline-block;width:9px;height:14px;margin:0 1px;background:#9c9;cursor:pointer}
#timeline span.fail{background:#d33}#timeline span.trunc{background:#e90}#timeline span.cur{outline:2px solid #000}
#timeline span.mism{border-bottom:3px solid #70f}
.warn{background:#fff3cd;border:1px solid #e0c060;padding:6px;margin:6px 0}
.status-bad{color:#b00;font-weight:bold}
label{font-size:13px;display:block;margin:4px 0}
</style></head>
<body>
<div id="side">
 <b>__TITLE__</b>
 <label>task <select id="f-task"><option value="">all</option></select></label>
 <label>seed <input id="f-seed" size="12" placeholder="any"></label>
 <label>outcome <select id="f-outcome">
  <option value="">all</option><option value="terminated">terminated</option>
  <option value="truncated">truncated</option><option value="unfinished">unfinished</option>
  <option value="parse">with parse failures</option><option value="trunc">with truncated completions</option>
  <option value="positive">return &gt; 0</option><option value="mismatch">frame mismatches</option>
 </select></label>
 <div id="count"></div>
 <div id="list"></div>
</div>
<div id="main">
 <div id="header"></div>
 <div id="warnings"></div>
 <div>
  <button id="first">&laquo; first</button><button id="prev">&#x25C0; prev</button>
  <span id="pos"></span>
  <button id="next">next &#x25B6;</button><button id="last">last &raquo;</button>
  <label style="display:inline">jump to turn <input id="jump" size="4"></label>
  <span style="font-size:12px;color:#666">(arrow keys step)</span>
 </div>
 <div id="timeline"></div>
 <div class="row">
  <div><div class="box"><h4>grid</h4><pre id="grid"></pre></div>
       <div class="box"><h4>HUD</h4><pre id="hud"></pre></div>
       <div class="box"><h4>message</h4><pre id="message"></pre></div></div>
  <div><div class="box"><h4>legend</h4><pre id="legend"></pre></div>
       <div class="box"><h4>action</h4><div id="action"></div></div>
       <div class="box" id="memory-box"><h4>memory</h4><pre id="memory"></pre></div></div>
 </div>
 <div class="box"><h4>model output (reasoning and action)</h4><div id="completion"></div></div>
 <div class="box" id="recorded-box"><h4>recorded observation (differs from the rebuilt frame)</h4><pre id="recorded"></pre></div>
</div>
<script type="application/json" id="episode-data">__DATA__</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("episode-data").textContent);
const $ = (id) => document.getElementById(id);
let visible = [], cur = null, turn = 0;
function frames(ep) { return ep.final ? ep.turns.concat([ep.final]) : ep.turns; }
function setText(id, s) { $(id).textContent = (s === null || s === undefined) ? "" : String(s); }
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
const tasks = [...new Set(DATA.map(e => e.task))].sort();
for (const t of tasks) { const o = el("option", t); o.value = t; $("f-task").appendChild(o); }
function matches(ep) {
  const t = $("f-task").value, s = $("f-seed").value.trim(), o = $("f-outcome").value;
  if (t && ep.task !== t) return false;
  if (s && String(ep.seed) !== s) return false;
  if (o === "parse") return ep.parse_failures > 0;
  if (o === "trunc") return ep.truncations > 0;
  if (o === "positive") return ep["return"] > 0;
  if (o === "mismatch") return ep.mismatches.length > 0 || ep.rebuild_error;
  if (o && ep.outcome !== o) return false;
  return true;
}
function renderList() {
  visible = DATA.filter(matches);
  const list = $("list"); list.replaceChildren();
  setText("count", visible.length + " of " + DATA.length + " episodes");
  for (const ep of visible) {
    const d = el("div", undefined, "ep" + (cur === ep ? " sel" : ""));
    d.dataset.index = ep.index;
    d.appendChild(el("span", ep.task + " seed " + ep.seed + " — return " + ep["return"].toFixed(3) + ", " + ep.length + " turns, " + ep.outcome));
    if (ep.parse_failures) d.appendChild(el("span", " ✗" + ep.parse_failures + " parse", "bad"));
    if (ep.truncations) d.appendChild(el("span", " ✂" + ep.truncations, "bad"));
    if (ep.mismatches.length || ep.rebuild_error) d.appendChild(el("span", " ⚠", "bad"));
    d.onclick = () => select(ep);
    list.appendChild(d);
  }
  if (visible.length && (!cur || !visible.includes(cur))) select(visible[0]);
  if (!visible.length) { cur = null; $("header").textContent = "no episode matches the filters"; }
}
function select(ep) { cur = ep; turn = 0; for (const d of $("list").children) d.classList.toggle("sel", Number(d.dataset.index) === ep.index); show(); }
function show() {
  if (!cur) return;
  const fs = frames(cur); turn = Math.max(0, Math.min(turn, fs.length - 1));
  const f = fs[turn], isFinal = cur.final && turn === fs.length - 1;
  setText("header", cur.task + " · seed " + cur.seed + " · return " + cur["return"].toFixed(4) + " · " + cur.length + " turns · " + cur.outcome + (cur.policy ? " · " + cur.policy : "") + (cur.players > 1 ? " · seat " + cur.seat + " of " + cur.players : "") + (cur.harness ? " · harness " + cur.harness : ""));
  const w = $("warnings"); w.replaceChildren();
  if (cur.rebuild_error) w.appendChild(el("div", "Frames not rebuilt: " + cur.rebuild_error + " (showing recorded observations)", "warn"));
  if (cur.mismatches.length) w.appendChild(el("div", "Warning: the recorded observation disagrees with the frame rebuilt from (task, seed, actions) at turn(s) " + cur.mismatches.join(", ") + ".", "warn"));
  setText("pos", "turn " + turn + " / " + (fs.length - 1) + (isFinal ? " (final state)" : ""));
  setText("grid", f.grid); setText("hud", f.hud); setText("message", f.message); setText("legend", f.legend);
  $("grid").dataset.turn = turn;
  const a = $("action"); a.replaceChildren();
  if (isFinal) { a.appendChild(el("div", "episode over")); }
  else {
    a.appendChild(el("div", "action: " + f.action_name + " (" + f.action + ")"));
    a.appendChild(el("div", "parse: " + f.parse_status + (f.truncated ? " (completion truncated)" : ""), f.parse_failure ? "status-bad" : ""));
    a.appendChild(el("div", "reward: " + f.reward));
  }
  setText("completion", isFinal ? "" : f.completion);
  const hasMem = !isFinal && f.memory !== null && f.memory !== undefined;
  $("memory-box").style.display = hasMem ? "" : "none"; setText("memory", hasMem ? f.memory : "");
  $("recorded-box").style.display = (!isFinal && f.recorded) ? "" : "none"; setText("recorded", isFinal ? "" : (f.recorded || ""));
  const tl = $("timeline"); tl.replaceChildren();
  fs.forEach((g, i) => {
    const s = el("span"); s.title = "turn " + i + (g.parse_status && g.parse_status !== "ok" ? " — " + g.parse_status : "");
    if (g.parse_failure) s.classList.add("fail"); else if (g.truncated) s.classList.add("trunc");
    if (g.mismatch) s.classList.add("mism"); if (i === turn) s.classList.add("cur");
    s.onclick = () => { turn = i; show(); }; tl.appendChild(s);
  });
}
function go(d) { turn += d; show(); }
$("prev").onclick = () => go(-1); $("next").onclick = () => go(1);
$("first").onclick = () => { turn = 0; show(); }; $("last").onclick = () => { turn = 1e9; show(); };
$("jump").onchange = () => { const v = parseInt($("jump").value, 10); if (!isNaN(v)) { turn = v; show(); } };
document.addEventListener("keydown", (e) => {
  if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT")) return;
  if (e.key === "ArrowRight") { go(1); e.preventDefault(); }
  else if (e.key === "ArrowLeft") { go(-1); e.preventDefault(); }
  else if (e.key === "Home") { turn = 0; show(); } else if (e.key === "End") { turn = 1e9; show(); }
});
for (const id of ["f-task", "f-outcome"]) $(id).onchange = renderList;
$("f-seed").oninput = renderList;
renderList();
</script>
</body></html>
"""


# --- terminal replay ------------------------------------------------------------------------------

def tui_replay(data: list[dict], interactive: bool, console=None) -> None:
    """Turn-by-turn replay with rich panels; Enter = next, p = previous, q = next episode."""
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.text import Text
    console = console or Console()
    for ep in data:
        fs = ep["turns"] + ([ep["final"]] if ep["final"] else [])
        console.rule(f"{ep['task']} seed {ep['seed']} · return {ep['return']:.4f} · {ep['length']} turns · {ep['outcome']}")
        if ep["rebuild_error"]:
            console.print(f"[yellow]{ep['rebuild_error']}[/yellow]")
        if ep["mismatches"]:
            console.print(f"[yellow]recorded observation differs from the rebuilt frame at turns {ep['mismatches']}[/yellow]")
        i = 0
        while 0 <= i < len(fs):
            f = fs[i]
            final = ep["final"] is not None and i == len(fs) - 1
            body = [Text(f["grid"]), Text(f["hud"], style="bold")]
            if f["message"]:
                body.append(Text(f["message"], style="italic"))
            if not final:
                status = f["parse_status"] + (" (truncated)" if f["truncated"] else "")
                body.append(Text(f"action {f['action_name']} ({f['action']}) · parse {status} · reward {f['reward']:+.4f}",
                                 style="red" if f["parse_failure"] else "green"))
                if f.get("memory"):
                    body.append(Panel(Text(f["memory"]), title="memory"))
                if f["completion"]:
                    body.append(Panel(Text(f["completion"]), title="model output"))
            console.print(Panel(Group(*body), title=f"turn {i}" + (" (final)" if final else "")
                                + (" ⚠ mismatch" if (not final and f["mismatch"]) else "")))
            if interactive:
                key = input("[Enter] next  [p] previous  [q] next episode > ").strip().lower()
                if key == "q":
                    break
                i += -1 if key == "p" else 1
            else:
                i += 1


# --- CLI ----------------------------------------------------------------------------------------------

def replay_main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (`glyphjax-replay FILE`)."""
    import fnmatch
    ap = argparse.ArgumentParser(prog="glyphjax-replay", description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="JSON Lines trajectory file")
    ap.add_argument("-o", "--out", help="HTML output (default: FILE with .html)")
    ap.add_argument("--tui", action="store_true", help="replay in the terminal instead of writing HTML")
    ap.add_argument("--task", default=None, help="only episodes whose task matches this glob")
    ap.add_argument("--seed", type=int, default=None, help="only episodes with this seed")
    ap.add_argument("--episode", type=int, default=None, help="only the episode at this index (file order)")
    ap.add_argument("--no-rebuild", action="store_true", help="show recorded observations, skip the check")
    args = ap.parse_args(argv)
    try:
        eps = load_episodes(args.file)
    except (OSError, ValueError) as e:
        print(f"glyphjax-replay: error: {e}", file=sys.stderr)
        raise SystemExit(2)
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
    out.write_text(build_html(data, title=f"glyphjax replay: {Path(args.file).name}"), encoding="utf-8")
    bad = sum(1 for d in data if d["mismatches"] or d["rebuild_error"])
    print(f"wrote {out} ({len(data)} episodes{f', {bad} with frame warnings' if bad else ''})")


if __name__ == "__main__":
    replay_main()
