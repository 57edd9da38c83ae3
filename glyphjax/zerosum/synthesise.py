"""Ask a language model to write a candidate family module, and save it for admission.

    python -m glyphjax.zerosum.synthesise --template grid --spec SPEC_FILE --out CANDIDATES_DIR
        [--base-url http://127.0.0.1:8000] [--model NAME] [--api-key-env OPENAI_API_KEY]
        [--temperature 0.6] [--max-tokens 10000] [--tries 3]

Sends the template's engineer prompt (system) and the game specification (user) to any
OpenAI-compatible chat-completions server (our vLLM server, or a hosted API) with plain urllib
(glyphjax imports nothing above itself). The reply's first ```python block is checked before it
is saved: it must parse, define TEMPLATE / FAMILY / VARIANTS for the asked template and import
only allowed modules; otherwise the model is asked again (at most `--tries` times, gamesmith.md
§4) with the problem stated. The saved module is then admitted (or not) by
`python -m glyphjax.zerosum.admit CANDIDATES_DIR`.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import urllib.error
import urllib.request
from pathlib import Path

from glyphjax.zerosum.admit import TEMPLATES, forbidden_imports

CLAUSES = {
    "grid": "size: board side 3..7. rules (GridRules): k (line length), dirs (4 bools: row, column, diagonal, "
            "anti-diagonal), torus, gravity, misere, shared (one mark for both), square (0 or s: holding the "
            "corners of an s x s square loses), blocked (cells r*n+c), first_forbidden (cells). encoding "
            "(Encoding): marks 0..4, coordinates 'a1'|'rc'|'index'|'keypad', orientation 0..7.",
    "betting": "rules (BetRules): ranks (rank index of each card, 2..8 cards), rounds 1..5, ante, bet, "
               "max_raises 0..3, lowball. encoding (BetEncoding): ranks 0..3 (name set), actions 0..2 (label set).",
    "negotiation": "rules (TradeRules): inv0 (two rows of R goods), val_options (rows of R values drawn privately), "
                   "menu (6 items of (gives, gets)), menu_on (6 bools), horizon 2..14, score_kind 0 linear | "
                   "1 capped | 2 squared, cap. Every offered menu item MUST be value-neutral under the mean "
                   "valuation (a parity menu), and trades must be able to raise a score-maximiser's own score. "
                   "encoding (TradeEncoding): goods 0..2, labels_style 0..2.",
}


def engineer_prompt(template: str) -> str:
    """The system prompt of the template's engineer (what a candidate module must contain)."""
    return (
        f"You write one candidate family module for the '{template}' template of a two-player zero-sum game "
        "corpus. Reply with one ```python block defining: TEMPLATE = '" + template + "'; FAMILY = a lower-case "
        "name; VARIANTS = a dict from variant names ('base', 'rule-<name>', 'size-<n>', 'enc-<name>') to "
        "{'size': ..., 'rules': {...}, 'encoding': {...}} ('size' for grid only). Optional: KERNEL, a subclass "
        "of the template's Env whose hooks are pure functions of canonical indices. Import only jax, numpy, "
        "math, dataclasses, functools, typing, flax and glyphjax.zerosum / glyphjax.core; no I/O, no randomness "
        "outside the given keys. Clauses: " + CLAUSES[template] + " The base game must be decisive (not always "
        "drawn), fair enough (first mover wins between 10% and 90% of decisive games) and playable by greedy "
        "score-maximising bots.")


def extract_module(reply: str, template: str) -> tuple[str | None, str]:
    """The candidate source in a reply, or (None, what is wrong with it)."""
    m = re.search(r"```(?:python)?\n(.*?)```", reply, re.S)
    if not m:
        return None, "the reply has no ```python code block"
    source = m.group(1)
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return None, f"the module does not parse: {e.msg} (line {e.lineno})"
    names = {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets
             if isinstance(t, ast.Name)}
    missing = [n for n in ("TEMPLATE", "FAMILY", "VARIANTS") if n not in names]
    if missing:
        return None, f"the module does not define {', '.join(missing)}"
    if f"TEMPLATE = '{template}'" not in source and f'TEMPLATE = "{template}"' not in source:
        return None, f"TEMPLATE must be {template!r}"
    bad = forbidden_imports(source)
    if bad:
        return None, f"the module imports or calls what candidates may not: {', '.join(bad)}"
    return source, ""


def chat(base_url: str, model: str, messages: list[dict], temperature: float, max_tokens: int,
         api_key: str | None, timeout: float = 600.0) -> str:
    """One chat completion (OpenAI wire format) -> the reply text; a clear error if unreachable."""
    body = json.dumps({"model": model, "messages": messages, "temperature": temperature,
                       "max_tokens": max_tokens}).encode()
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {api_key}"} if api_key else {})
    req = urllib.request.Request(base_url.rstrip("/") + "/v1/chat/completions", body, headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read())["choices"][0]["message"]["content"]
    except urllib.error.HTTPError as e:
        raise SystemExit(f"server at {base_url} answered HTTP {e.code}: {e.read()[:300]!r}; check --model "
                         "and --max-tokens against the server's limits") from None
    except (urllib.error.URLError, OSError) as e:
        raise SystemExit(f"cannot reach an OpenAI-compatible server at {base_url} ({e}); start one "
                         "(e.g. python -m rl.vllm_server) or pass --base-url") from None


def synthesise(template: str, spec: str, out: Path, base_url: str, model: str, temperature: float = 0.6,
               max_tokens: int = 10_000, tries: int = 3, api_key: str | None = None) -> Path | None:
    """Ask for a candidate up to `tries` times; save the first well-formed one as OUT/<family>.py."""
    if template not in TEMPLATES:
        raise SystemExit(f"unknown template {template!r}; use one of {TEMPLATES}")
    messages = [{"role": "system", "content": engineer_prompt(template)}, {"role": "user", "content": spec}]
    for attempt in range(tries):
        reply = chat(base_url, model, messages, temperature, max_tokens, api_key)
        source, problem = extract_module(reply, template)
        if source is not None:
            family = re.search(r"FAMILY\s*=\s*['\"]([a-z0-9_-]+)['\"]", source)
            name = family.group(1) if family else f"candidate{attempt}"
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"{name}.py"
            path.write_text(source)
            return path
        messages += [{"role": "assistant", "content": reply},
                     {"role": "user", "content": f"That module is not usable: {problem}. Reply with the corrected module."}]
    return None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--template", required=True, choices=TEMPLATES)
    ap.add_argument("--spec", required=True, help="a file with the game specification, or the text itself")
    ap.add_argument("--out", type=Path, required=True, help="candidates directory")
    ap.add_argument("--base-url", default="http://127.0.0.1:8000")
    ap.add_argument("--model", default="default")
    ap.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding an API key")
    ap.add_argument("--temperature", type=float, default=0.6)
    ap.add_argument("--max-tokens", type=int, default=10_000)
    ap.add_argument("--tries", type=int, default=3)
    args = ap.parse_args(argv)
    spec = Path(args.spec).read_text() if Path(args.spec).is_file() else args.spec
    path = synthesise(args.template, spec, args.out, args.base_url, args.model, args.temperature,
                      args.max_tokens, args.tries, os.environ.get(args.api_key_env))
    if path is None:
        raise SystemExit(f"no usable module after {args.tries} tries")
    print(f"saved {path}; admit it with: python -m glyphjax.zerosum.admit {args.out}")


if __name__ == "__main__":
    main()
