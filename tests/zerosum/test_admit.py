"""The admission pipeline (subprocess per candidate, time limit, forbidden imports, per-test
counts) and the synthesis command against a fake OpenAI-compatible server."""

from __future__ import annotations

import argparse
import json

import pytest

from glyphjax.zerosum import admit, synthesise
from tests.rl.fake_openai import FakeOpenAIServer

GOOD = '''TEMPLATE = "grid"
FAMILY = "misere3"
VARIANTS = {"base": {"size": 3, "rules": {"k": 3, "misere": True}},
            "enc-m1-rc-rot90": {"size": 3, "rules": {"k": 3, "misere": True},
                                "encoding": {"marks": 1, "coordinates": "rc", "orientation": 1}},
            "rule-blocked": {"size": 3, "rules": {"k": 3, "blocked": [4]}}}
'''
FORBIDDEN = 'import os\nTEMPLATE = "grid"\nFAMILY = "sneaky"\nVARIANTS = {}\n'
CRASH = 'TEMPLATE = "grid"\nFAMILY = "crash"\nVARIANTS = {"base": {"size": 3, "rules": {"k": 9}}}\n'
HANG = 'TEMPLATE = "grid"\nFAMILY = "hang"\nwhile True:\n    pass\nVARIANTS = {}\n'


def test_forbidden_imports__names_modules_and_calls_outside_the_allowed_set():
    assert admit.forbidden_imports("import os\nfrom subprocess import run\nimport numpy as np\nopen('x')") == \
        ["os", "subprocess", "open()"]
    assert admit.forbidden_imports("import jax.numpy as jnp\nfrom glyphjax.zerosum.gridgame import GridGame") == []


def test_admit__admits_good_variants_and_rejects_bad_modules_by_name(tmp_path):
    for name, src in (("a_good", GOOD), ("b_forbidden", FORBIDDEN), ("c_crash", CRASH)):
        (tmp_path / f"{name}.py").write_text(src)
    args = argparse.Namespace(seeds=16, fresh_seeds=16, timeout=60.0, with_corpus=False)
    report = admit.admit(tmp_path, tmp_path / "out", args)
    v = report["verdicts"]
    assert v["a_good.py:zerosum/misere3/base"]["admitted"]
    assert v["a_good.py:zerosum/misere3/enc-m1-rc-rot90"]["admitted"]
    assert v["a_good.py:zerosum/misere3/rule-blocked"]["test"] == "playability"  # bots draw without the centre
    assert v["b_forbidden.py:__module__"]["test"] == "forbidden-import"
    assert v["c_crash.py:__module__"]["test"] == "crash" and "line length k=9" in v["c_crash.py:__module__"]["detail"]
    assert report["eliminated_by"]["playability"] == 1 and report["eliminated_by"]["crash"] == 1
    assert sum(report["eliminated_by"].values()) + report["admitted"] == report["candidates"]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert sorted(manifest) == ["zerosum/misere3/base", "zerosum/misere3/enc-m1-rc-rot90"]


def test_admit__a_hanging_module_is_stopped_by_the_time_limit(tmp_path):
    (tmp_path / "hang.py").write_text(HANG)
    args = argparse.Namespace(seeds=8, fresh_seeds=8, timeout=3.0, with_corpus=False)
    verdict = admit._run_one(tmp_path / "hang.py", args)["__module__"]
    assert verdict["test"] == "timeout"


def test_synthesise__retries_until_a_well_formed_module_and_saves_it(tmp_path):
    replies = ["I would rather not.", "```python\nimport socket\nTEMPLATE = 'grid'\nFAMILY = 'x'\nVARIANTS = {}\n```",
               f"Here it is:\n```python\n{GOOD}```"]
    with FakeOpenAIServer(lambda body, n: replies[n], max_model_len=1 << 20) as server:
        path = synthesise.synthesise("grid", "Tic-Tac-Toe where three in a row loses.", tmp_path, server.url,
                                     "fake-model", max_tokens=4000)
        bodies = [b for p, b in server.requests if p == "/v1/chat/completions"]
    assert path == tmp_path / "misere3.py" and path.read_text() == GOOD
    assert "no ```python code block" in bodies[1]["messages"][-1]["content"]
    assert "socket" in bodies[2]["messages"][-1]["content"]
    assert bodies[0]["messages"][0]["content"].startswith("You write one candidate family module for the 'grid'")


def test_synthesise__gives_up_after_the_tries_and_says_so_for_an_unreachable_server(tmp_path):
    with FakeOpenAIServer(lambda body, n: "no code", max_model_len=1 << 20) as server:
        assert synthesise.synthesise("grid", "spec", tmp_path, server.url, "m", max_tokens=100, tries=2) is None
    with pytest.raises(SystemExit, match="cannot reach an OpenAI-compatible server"):
        synthesise.chat("http://127.0.0.1:9", "m", [], 0.6, 10, None, timeout=2)
