"""The font the replay page embeds, so every glyph the registry can draw renders on any machine.

The page's text font is one CSS family (`glyphjax-glyphs`) made of a few subset fonts in
eval/fonts/ (DejaVu Sans Mono first, then DejaVu Sans, Noto Sans Symbols and Symbols 2 for what the
earlier ones lack), each embedded as a base64 `@font-face` with a `unicode-range` of exactly the
code points assigned to it. eval/fonts/manifest.json lists the files and their code points.

    python -m eval.glyph_font --build    # re-subset after a task adds glyphs (needs fonttools and
                                         # the Debian packages fonts-dejavu-core, fonts-noto-core)
"""

from __future__ import annotations

import argparse
import base64
import json
from functools import lru_cache
from pathlib import Path

FAMILY = "glyphjax-glyphs"
FONT_DIR = Path(__file__).parent / "fonts"
MANIFEST = FONT_DIR / "manifest.json"

# (output file, Debian source font, package) in priority order: a code point goes to the first
# source that has it. Monospace first so ASCII, box drawing and blocks keep a common advance.
SOURCES: tuple[tuple[str, str, str], ...] = (
    ("glyphjax-dejavu-sans-mono.woff", "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "fonts-dejavu-core"),
    ("glyphjax-dejavu-sans.woff", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "fonts-dejavu-core"),
    ("glyphjax-noto-symbols.woff", "/usr/share/fonts/truetype/noto/NotoSansSymbols-Regular.ttf", "fonts-noto-core"),
    ("glyphjax-noto-symbols2.woff", "/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf", "fonts-noto-core"),
)

# Text the page draws besides the cards: ASCII, Latin-1 letters and the page's own marks
# (legend dash, arrows and symbols of the viewer's buttons and list).
EXTRA_TEXT = ("".join(chr(c) for c in range(0x20, 0x7F)) + "".join(chr(c) for c in range(0xA0, 0x100))
              + "—–‘’“”…•·×≤≥−✗✂⚠«»◀▶")


def registry_text_chars() -> set[str]:
    """Every character a registered task can put on the page: glyphs, HUD templates and enum
    names, event messages, and the system prompt (rules, actions, reward) of each harness."""
    import glyphjax
    from glyphjax.harness.prompt import HarnessConfig, system_prompt
    harnesses = [HarnessConfig(), HarnessConfig(name="memory", memory=True), HarnessConfig(name="compact")]
    chars = set(EXTRA_TEXT)
    for task in glyphjax.all_ids():
        card = glyphjax.make(task).card
        chars |= set(card.glyphs) | set(card.hud) | set("".join(card.events))
        chars |= set("".join(v for names in card.hud_enums.values() for v in names))
        for h in harnesses:
            chars |= set(system_prompt(card, h))
    return {c for c in chars if c.isprintable()}


def registry_glyphs() -> dict[str, list[str]]:
    """glyph -> ids of the tasks that draw it (the cells the grid shows)."""
    import glyphjax
    out: dict[str, list[str]] = {}
    for task in glyphjax.all_ids():
        for g in glyphjax.make(task).card.glyphs:
            out.setdefault(g, []).append(task)
    return out


@lru_cache(maxsize=1)
def manifest() -> list[dict]:
    """The shipped subset fonts: [{file, source, codepoints}] in CSS order."""
    return json.loads(MANIFEST.read_text(encoding="utf-8"))["fonts"]


def shipped_codepoints() -> set[int]:
    return {cp for entry in manifest() for cp in entry["codepoints"]}


def unicode_range(codepoints: list[int]) -> str:
    """CSS unicode-range of sorted code points, consecutive runs merged (U+41-5A)."""
    runs: list[list[int]] = []
    for cp in sorted(codepoints):
        if runs and cp == runs[-1][1] + 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    return ",".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in runs)


@lru_cache(maxsize=1)
def font_face_css() -> str:
    """The @font-face rules embedding every shipped subset as a data: URL."""
    rules = []
    for entry in manifest():
        data = base64.b64encode((FONT_DIR / entry["file"]).read_bytes()).decode("ascii")
        rules.append(f'@font-face{{font-family:"{FAMILY}";src:url(data:font/woff;base64,{data}) format("woff");'
                     f"unicode-range:{unicode_range(entry['codepoints'])};font-display:block}}")
    return "\n".join(rules)


# --- building the subsets (maintainer tool; needs fonttools and the Debian font packages) ---------

def assign_codepoints(chars: set[str], cmaps: list[set[int]]) -> tuple[list[list[int]], list[str]]:
    """Code points per source (first source that has it wins) and the characters none has."""
    per_source: list[list[int]] = [[] for _ in cmaps]
    missing = []
    for cp in sorted(ord(c) for c in chars):
        for i, cmap in enumerate(cmaps):
            if cp in cmap:
                per_source[i].append(cp)
                break
        else:
            missing.append(chr(cp))
    return per_source, missing


def build_fonts(out_dir: Path = FONT_DIR) -> list[dict]:
    """Subset every source to its share of the registry's characters; write woff files and the
    manifest. Raises naming the characters no source covers."""
    import logging
    from fontTools import subset
    from fontTools.ttLib import TTFont
    logging.getLogger("fontTools.subset").setLevel(logging.ERROR)  # "FFTM NOT subset" chatter
    for _, path, package in SOURCES:
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path} not found: install the Debian package {package}")
    fonts = [TTFont(path, recalcTimestamp=False) for _, path, _ in SOURCES]
    assigned, missing = assign_codepoints(registry_text_chars(), [set(f.getBestCmap()) for f in fonts])
    if missing:
        raise ValueError(f"no source font covers {''.join(missing)!r} "
                         f"({', '.join(f'U+{ord(c):04X}' for c in missing)}): add a font to SOURCES")
    entries = []
    for (name, path, _), cps in zip(SOURCES, assigned):
        if not cps:
            continue
        opts = subset.Options()
        opts.flavor, opts.hinting, opts.name_IDs = "woff", False, [0, 1, 2, 3, 4, 5, 6, 13, 14]
        font = TTFont(path, recalcTimestamp=False)
        sub = subset.Subsetter(opts)
        sub.populate(unicodes=cps)
        sub.subset(font)
        font.flavor = "woff"
        font.save(str(out_dir / name), reorderTables=True)
        entries.append({"file": name, "source": Path(path).name, "codepoints": cps})
    (out_dir / "manifest.json").write_text(json.dumps({"family": FAMILY, "fonts": entries}, indent=1) + "\n",
                                           encoding="utf-8")
    return entries


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m eval.glyph_font", description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="store_true", help="re-subset the shipped fonts from the registry")
    args = ap.parse_args(argv)
    if args.build:
        for e in build_fonts():
            size = (FONT_DIR / e["file"]).stat().st_size
            print(f"{e['file']}: {len(e['codepoints'])} code points from {e['source']}, {size} bytes")
    else:
        have = shipped_codepoints()
        missing = sorted(c for c in registry_text_chars() if ord(c) not in have)
        print(f"{len(have)} code points shipped; {len(missing)} missing: {''.join(missing)}")


if __name__ == "__main__":
    main()
