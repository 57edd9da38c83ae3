"""The documentation's runnable code runs as written.

Convention: a fenced block whose info string is `python test` (```` ```python test ````) is run;
plain `python` blocks are illustrations (they may need a server or a checkpoint). The blocks of one
page run in order in one namespace, so a page can build on its earlier blocks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted([REPO / "README.md", *(REPO / "docs").rglob("*.md")])
FENCE = re.compile(r"^```python test[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def runnable_blocks(text: str) -> list[str]:
    return FENCE.findall(text)


def test_runnable_blocks__the_marker_finds_exactly_the_marked_blocks():
    page = ("```python\nillustration()\n```\n\n```python test\nx = 1\n```\n\n```bash\nls\n```\n"
            "```python test\ny = x\n```\n")
    assert runnable_blocks(page) == ["x = 1\n", "y = x\n"]


@pytest.mark.parametrize("page", [p for p in PAGES if runnable_blocks(p.read_text(encoding="utf-8"))],
                         ids=lambda p: str(p.relative_to(REPO)))
def test_docs__runnable_python_blocks_run_as_written(page):
    namespace: dict = {"__name__": f"docs:{page.name}"}
    for i, block in enumerate(runnable_blocks(page.read_text(encoding="utf-8"))):
        code = compile(block, f"{page.relative_to(REPO)} block {i + 1}", "exec")
        exec(code, namespace)  # noqa: S102 - the repository's own documentation


def test_docs__core_page_has_a_runnable_block():
    assert runnable_blocks((REPO / "docs" / "core.md").read_text(encoding="utf-8")), \
        "docs/core.md's opening snippet must stay marked ```python test"
