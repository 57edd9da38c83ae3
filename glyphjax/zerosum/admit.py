"""Admission pipeline: run the battery on candidate family modules and write the admitted corpus.

    python -m glyphjax.zerosum.admit CANDIDATES_DIR [--out DIR] [--seeds 32] [--fresh-seeds 32]
                                     [--timeout 600]

A candidate module (`*.py` in CANDIDATES_DIR) declares one family on one template:

    TEMPLATE = "grid"                 # "grid" | "betting" | "negotiation"
    FAMILY = "mygame"                 # lower-case name: ids are zerosum/<FAMILY>/<variant>
    VARIANTS = {"base": {"size": 3, "rules": {"k": 3}},
                "rule-misere": {"size": 3, "rules": {"k": 3, "misere": True}},
                "enc-m1-rc-rot90": {"size": 3, "rules": {"k": 3},
                                    "encoding": {"marks": 1, "coordinates": "rc", "orientation": 1}}}
    KERNEL = ...                      # optional: a subclass of the template's Env overriding hooks

`rules` are the fields of GridRules / BetRules / TradeRules, `encoding` those of Encoding /
BetEncoding / TradeEncoding (`size` is the board side, grid only). Each candidate runs in its own
subprocess under a time limit: a module that crashes, hangs, or imports something outside the
allowed set is rejected, never the pipeline. Variants face the battery in admission order
(`battery.ORDER`), on the fixed seed set and again on a fresh one; a variant is admitted when both
runs pass. The duplicate test compares with the games admitted before it (earlier candidates,
in file-name order, and the corpus when `--with-corpus`).

Writes `manifest.json` (admitted ids -> template, descriptor) and `report.json` + a printed table:
per test, how many variants it eliminated (crash / timeout / forbidden import count as tests).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

# Modules a candidate may import (the hooks are pure functions over arrays).
ALLOWED_IMPORTS = ("jax", "numpy", "math", "dataclasses", "functools", "typing", "flax", "__future__",
                   "glyphjax.zerosum", "glyphjax.core")
TEMPLATES = ("grid", "betting", "negotiation")


def forbidden_imports(source: str) -> list[str]:
    """Names of imported modules outside ALLOWED_IMPORTS (also `__import__`/`open`/`eval` calls)."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("__import__", "open", "eval", "exec", "compile"):
            bad.append(node.func.id + "()")
        for name in names:
            if not any(name == a or name.startswith(a + ".") for a in ALLOWED_IMPORTS):
                bad.append(name)
    return bad


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"zerosum_candidate_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for attr in ("TEMPLATE", "FAMILY", "VARIANTS"):
        if not hasattr(mod, attr):
            raise ValueError(f"{path.name}: a candidate module must define {attr}")
    if mod.TEMPLATE not in TEMPLATES:
        raise ValueError(f"{path.name}: TEMPLATE={mod.TEMPLATE!r}; use one of {TEMPLATES}")
    return mod


def candidates_of(mod) -> list:
    """Battery candidates for every variant a module declares (the identity encoding first)."""
    from glyphjax.zerosum import corpus
    from glyphjax.zerosum.betrules import BetEncoding, BetRules, build_betting
    from glyphjax.zerosum.encoding import Encoding
    from glyphjax.zerosum.gridrules import GridRules, grid_params, rules_text
    from glyphjax.zerosum.traderules import TradeEncoding, TradeRules, build_negotiation
    kernel = getattr(mod, "KERNEL", None)
    out = []
    for variant, d in mod.VARIANTS.items():
        task_id = f"zerosum/{mod.FAMILY}/{variant}"
        enc_fields, rule_fields = d.get("encoding", {}), d.get("rules", {})
        if mod.TEMPLATE == "grid":
            n, rules, enc = int(d["size"]), GridRules(**_tuples(rule_fields)), Encoding(**enc_fields)
            build = None
            if kernel is not None:
                build = (lambda t=task_id, n=n, r=rules, e=enc: kernel(
                    t, n, grid_params(r, n, e), rules_text(r, n, e.labels(n, r.shared)), e))
            out.append(corpus.grid_candidate(task_id, n, rules, enc, build=build))
        elif mod.TEMPLATE == "betting":
            rules, enc = BetRules(**_tuples(rule_fields)), BetEncoding(**enc_fields)
            build = None if kernel is None else (lambda t=task_id, r=rules, e=enc: _rebuild(kernel, build_betting(t, r, e)))
            out.append(corpus.bet_candidate(task_id, rules, enc, build=build))
        else:
            rules, enc = TradeRules(**_tuples(rule_fields)), TradeEncoding(**enc_fields)
            build = None if kernel is None else (lambda t=task_id, r=rules, e=enc: _rebuild(kernel, build_negotiation(t, r, e)))
            out.append(corpus.trade_candidate(task_id, rules, enc, build=build))
    return out


def _rebuild(kernel, env):
    """The template env `env` re-classed as the candidate's kernel subclass (same fields)."""
    if not issubclass(kernel, type(env)):
        raise TypeError(f"KERNEL {kernel.__name__} must subclass {type(env).__name__}")
    clone = kernel.__new__(kernel)
    clone.__dict__.update(env.__dict__)
    return clone


def _tuples(fields: dict) -> dict:
    """JSON-ish lists -> tuples (the declarations are frozen dataclasses)."""
    def conv(v):
        return tuple(conv(x) for x in v) if isinstance(v, list) else v
    return {k: conv(v) for k, v in fields.items()}


def assess_module(path: Path, seeds: int, fresh: int, with_corpus: bool) -> dict:
    """Verdicts of every variant of one candidate module (run inside the subprocess)."""
    from glyphjax.zerosum import battery, corpus
    mod = _load(path)
    pool: dict = {}
    if with_corpus:
        for c in corpus.candidates():
            if c.encodes is None:
                env = c.build()
                pool[c.id] = (env, battery.fingerprint(env))
    result = {}
    for c in candidates_of(mod):
        fixed = battery.assess(c, np.arange(seeds), dict(pool))
        again = battery.assess(c, np.arange(10_000, 10_000 + fresh), dict(pool))
        failed = next((v for v in fixed + again if not v.passed), None)
        result[c.id] = {"admitted": failed is None, "test": None if failed is None else failed.test,
                        "detail": "" if failed is None else failed.detail,
                        "descriptor": mod.VARIANTS[c.id.rsplit("/", 1)[1]], "template": mod.TEMPLATE}
        if failed is None:
            battery.assess(c, np.arange(seeds), pool)  # later variants are compared with it
    return result


def _run_one(path: Path, args) -> dict:
    """One candidate module in a subprocess: its verdicts, or a single rejection for the module."""
    bad = forbidden_imports(path.read_text())
    if bad:
        return {"__module__": {"admitted": False, "test": "forbidden-import", "detail": ", ".join(bad)}}
    cmd = [sys.executable, "-m", "glyphjax.zerosum.admit", "--one", str(path), "--seeds", str(args.seeds),
           "--fresh-seeds", str(args.fresh_seeds)] + (["--with-corpus"] if args.with_corpus else [])
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"__module__": {"admitted": False, "test": "timeout", "detail": f"over {args.timeout} s"}}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"__module__": {"admitted": False, "test": "crash", "detail": tail}}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def admit(directory: Path, out: Path, args) -> dict:
    """Assess every candidate module; write manifest.json and report.json; return the report."""
    files = sorted(directory.glob("*.py"))
    if not files:
        raise SystemExit(f"no candidate modules (*.py) in {directory}; see `python -m glyphjax.zerosum.admit -h`")
    verdicts = {}
    for path in files:
        for key, v in _run_one(path, args).items():
            verdicts[f"{path.name}:{key}"] = v
    counts = {t: 0 for t in ("forbidden-import", "timeout", "crash", *_order())}
    for v in verdicts.values():
        if not v["admitted"]:
            counts[v["test"]] = counts.get(v["test"], 0) + 1
    manifest = {k.split(":", 1)[1]: {"template": v["template"], "descriptor": v["descriptor"]}
                for k, v in verdicts.items() if v["admitted"]}
    report = {"candidates": len(verdicts), "admitted": len(manifest), "eliminated_by": counts, "verdicts": verdicts}
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    (out / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    return report


def _order() -> tuple[str, ...]:
    from glyphjax.zerosum.battery import ORDER
    return ORDER


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("directory", type=Path, nargs="?")
    ap.add_argument("--out", type=Path, default=None, help="where manifest.json and report.json go "
                                                          "(default: DIRECTORY/admitted)")
    ap.add_argument("--seeds", type=int, default=32)
    ap.add_argument("--fresh-seeds", type=int, default=32)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per candidate module")
    ap.add_argument("--with-corpus", action="store_true", help="also compare with the declared corpus")
    ap.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(assess_module(args.one, args.seeds, args.fresh_seeds, args.with_corpus), default=str))
        return
    if args.directory is None or not args.directory.is_dir():
        ap.error(f"CANDIDATES_DIR {args.directory} is not a directory")
    report = admit(args.directory, args.out or args.directory / "admitted", args)
    print(f"{report['candidates']} candidates, {report['admitted']} admitted")
    for test, n in report["eliminated_by"].items():
        print(f"  {test:<18} eliminated {n}")


if __name__ == "__main__":
    main()
