"""Corpus statistics (gamesmith.md §2.4) as a Markdown table: per family, over its game-changing
variants (base, rule and size variants), from the 80-episode random-play fingerprint.

    python -m glyphjax.zerosum.stats [--episodes 80]

Columns: variants; decisive share (min / median); first-mover win share (median); mean length in
plies (median); mean branching (median); complexity = L̄·log10(b̄) (min – max, gamesmith.md §2.4,
ours). Then the corpus counts per axis, with and without the base games.
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict

import numpy as np

from glyphjax.zerosum import battery, corpus


def family_rows(episodes: int) -> list[tuple]:
    """(template, family, n, decisive min, median, first mover, length, branching, cx min, cx max)."""
    groups: dict[tuple[str, str], list[battery.Fingerprint]] = defaultdict(list)
    for c in corpus.candidates():
        if c.encodes is not None:
            continue
        fam = c.id.split("/")[1]
        template = type(c.build()).__name__.replace("Game", "").lower()
        groups[(template, fam)].append(battery.fingerprint(c.build(), np.arange(episodes)))
    rows = []
    for (template, fam), fps in groups.items():
        cx = [fp.length * math.log10(max(fp.branching, 1.0)) for fp in fps]
        rows.append((template, fam, len(fps), min(f.decisive for f in fps), float(np.median([f.decisive for f in fps])),
                     float(np.median([f.first_mover for f in fps])), float(np.median([f.length for f in fps])),
                     float(np.median([f.branching for f in fps])), min(cx), max(cx)))
    return rows


def counts() -> dict[str, int]:
    """Variants per axis over the declared corpus."""
    ids = corpus.corpus()
    kinds = [t.rsplit("/", 1)[1].split("-", 1)[0] for t in ids]
    fams = {t.split("/")[1] for t in ids}
    return {"families": len(fams), "base": kinds.count("base"), "rule": kinds.count("rule"),
            "size": kinds.count("size"), "encoding": kinds.count("enc")}


def table(episodes: int) -> str:
    lines = ["| template | family | variants | decisive min / median | first-mover | length | branching | complexity |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for t, f, n, dmin, dmed, fm, ln, br, cmin, cmax in family_rows(episodes):
        lines.append(f"| {t} | {f} | {n} | {dmin:.2f} / {dmed:.2f} | {fm:.2f} | {ln:.1f} | {br:.1f} | {cmin:.1f}–{cmax:.1f} |")
    c = counts()
    lines += ["", f"Families {c['families']}; game-changing variants {c['rule'] + c['size']} (rule {c['rule']}, "
                  f"size {c['size']}), {c['rule'] + c['size'] + c['base']} with the {c['base']} base games; "
                  f"encoding variants {c['encoding']}; all declared variants {sum(v for k, v in c.items() if k != 'families')}."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=battery.FINGERPRINT_EPISODES)
    print(table(ap.parse_args(argv).episodes))


if __name__ == "__main__":
    main()
