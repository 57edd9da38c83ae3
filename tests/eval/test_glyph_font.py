"""The replay page's embedded font covers every character the registry can draw, and the page
embeds it (checked against the shipped files' own cmaps, not the manifest)."""

from __future__ import annotations

import base64
import re

import pytest

from eval.glyph_font import (FAMILY, FONT_DIR, assign_codepoints, font_face_css, manifest, registry_glyphs,
                             registry_text_chars, unicode_range)

TTFont = pytest.importorskip("fontTools.ttLib", reason="pip install fonttools (test extra)").TTFont


@pytest.fixture(scope="module")
def shipped_cmaps() -> dict[str, set[int]]:
    return {e["file"]: set(TTFont(str(FONT_DIR / e["file"])).getBestCmap()) for e in manifest()}


def _covered(shipped_cmaps) -> set[int]:
    """Code points a browser can draw from the page: in a face's unicode-range and its cmap."""
    return {cp for e in manifest() for cp in e["codepoints"] if cp in shipped_cmaps[e["file"]]}


def test_glyph_font__covers_every_registered_glyph(shipped_cmaps):
    covered = _covered(shipped_cmaps)
    missing = {g: tasks for g, tasks in registry_glyphs().items() if ord(g) not in covered}
    assert not missing, ("glyphs the embedded font cannot draw (run `python -m eval.glyph_font --build`): "
                         + "; ".join(f"{g!r} U+{ord(g):04X} in {ts[0]}" for g, ts in sorted(missing.items())))


def test_glyph_font__covers_hud_legend_messages_and_prompts(shipped_cmaps):
    covered = _covered(shipped_cmaps)
    missing = sorted(c for c in registry_text_chars() if ord(c) not in covered)
    assert not missing, f"characters of HUDs/legends/prompts the font lacks: {''.join(missing)!r}"
    for c in "— 0123456789[]":  # legend separator, grid labels, section heads
        assert ord(c) in covered


def test_glyph_font__the_glyphs_that_stock_fonts_lack_are_shipped(shipped_cmaps):
    covered = _covered(shipped_cmaps)
    for g in "⒝⓪⑴⌖ⒷⓅ":  # MiniGrid balls/boxes, 2048 tiles, packages, laser target (not in DejaVu)
        assert ord(g) in covered, f"{g!r} U+{ord(g):04X}"


def test_glyph_font__each_code_point_has_one_face_and_ranges_are_exact(shipped_cmaps):
    seen: dict[int, str] = {}
    for e in manifest():
        for cp in e["codepoints"]:
            assert cp not in seen, f"U+{cp:04X} in {seen.get(cp)} and {e['file']}"
            seen[cp] = e["file"]
        assert set(e["codepoints"]) <= shipped_cmaps[e["file"]], f"{e['file']} lacks code points it claims"


def test_glyph_font__css_embeds_every_shipped_file_with_its_range():
    css = font_face_css()
    faces = re.findall(r'@font-face\{font-family:"([^"]+)";src:url\(data:font/woff;base64,([A-Za-z0-9+/=]+)\) '
                       r'format\("woff"\);unicode-range:([^;]+);', css)
    assert len(faces) == len(manifest())
    for (family, b64, ranges), e in zip(faces, manifest()):
        assert family == FAMILY
        assert base64.b64decode(b64) == (FONT_DIR / e["file"]).read_bytes()
        assert ranges == unicode_range(e["codepoints"])


def test_unicode_range__merges_consecutive_code_points():
    assert unicode_range([0x41, 0x43, 0x42, 0x2500, 0x45]) == "U+41-43,U+45,U+2500"


def test_assign_codepoints__first_source_wins_and_missing_is_reported():
    per, missing = assign_codepoints({"a", "b", "c", "z"}, [{ord("a")}, {ord("a"), ord("b"), ord("c")}])
    assert per == [[ord("a")], [ord("b"), ord("c")]] and missing == ["z"]


def test_glyph_font__licence_files_ship_beside_the_fonts():
    sources = {e["source"] for e in manifest()}
    if any(s.startswith("DejaVu") for s in sources):
        assert "Bitstream" in (FONT_DIR / "LICENSE-DejaVu.txt").read_text()
    if any(s.startswith("Noto") for s in sources):
        assert "SIL OPEN FONT LICENSE" in (FONT_DIR / "LICENSE-Noto.txt").read_text()
