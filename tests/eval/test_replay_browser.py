"""The replay page in a real headless Chromium (Selenium): arrow keys step turns, injected
`<script>` in model text does not run, filters work, mismatch warnings show, the embedded font
draws every glyph cell (no empty boxes), and each turn shows prompt, tokens, log-probs, return.

Needs chromium + chromium-driver (Debian) and selenium (the test extra): scripts/ci/browser.sh
installs the browser on first use.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from eval.fixtures import write_fixture
from eval.replay import replay_main, split_observation
from tests.provision import ensure

INJECT = ('<script>window.__pwned = 1</script></script><script>window.__pwned = 2</script>'
          '<img src=x onerror="window.__pwned = 3">')



def browser_paths() -> tuple[str | None, str | None]:
    return (shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome"),
            shutil.which("chromedriver"))


# First use on a fresh machine installs Chromium + chromedriver (scripts/ci/browser.sh); a failed
# install fails these tests, it never skips them.
ensure("chromium", lambda: all(browser_paths()), "scripts/ci/browser.sh")
CHROMIUM, DRIVER = browser_paths()

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    d = tmp_path_factory.mktemp("replay")
    traj = d / "run.jsonl"
    eps = write_fixture(traj, ["classics/snake-easy"], [3, 4], inject=INJECT, max_turns=30, memory=True)
    eps += write_fixture(d / "arrow.jsonl", ["dummy/arrow-4"], [5], fail_every=2)
    # one tampered frame in the arrow episode, to check the page's warning
    eps[-1]["turns"][1]["observation"] = eps[-1]["turns"][1]["observation"].replace("·", "x", 1)
    # glyphs that stock fonts lack (2048 tiles, MiniGrid balls and boxes), and varied log-probs
    eps += write_fixture(d / "glyphs.jsonl", ["classics/2048", "minigrid/blockedunlockpickup"], [3], max_turns=12)
    eps[-2]["turns"][2]["logprobs"] = [-0.1, -2.0, -0.3]
    eps[-2]["turns"][2]["completion_ids"] = [7, 8, 9]
    with open(traj, "a", encoding="utf-8") as f:
        for ep in eps[2:]:
            f.write(json.dumps(ep, ensure_ascii=False) + "\n")
    out = d / "run.html"
    replay_main([str(traj), "-o", str(out)])
    return out, eps


@pytest.fixture(scope="module")
def driver():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield drv
    drv.quit()


def text(driver, id_):
    return driver.execute_script(f"return document.getElementById('{id_}').textContent")


def test_replay_page__right_arrow_k_times_shows_turn_k_grid(page, driver, tmp_path):
    out, eps = page
    driver.get(out.as_uri())
    ep = eps[0]
    expected = [split_observation(t["observation"])["grid"] for t in ep["turns"]]
    body = driver.find_element(By.TAG_NAME, "body")
    assert text(driver, "grid") == expected[0], "turn 0 grid"
    for k in range(1, 8):
        body.send_keys(Keys.ARROW_RIGHT)
        assert text(driver, "grid") == expected[k], f"classics/snake-easy seed 3: grid after {k} right presses"
        assert f"turn {k} /" in text(driver, "pos")
    shot = os.environ.get("GLYPHJAX_SCREENSHOT_DIR", str(tmp_path))
    os.makedirs(shot, exist_ok=True)
    path = os.path.join(shot, "replay_turn7.png")
    assert driver.save_screenshot(path) and os.path.getsize(path) > 1000
    body.send_keys(Keys.ARROW_LEFT)
    body.send_keys(Keys.ARROW_LEFT)
    assert text(driver, "grid") == expected[5]
    jump = driver.find_element(By.ID, "jump")
    j = len(expected) - 2
    jump.send_keys(str(j), Keys.ENTER)
    assert text(driver, "grid") == expected[j], f"grid after jumping to turn {j}"
    assert text(driver, "memory") == ep["turns"][j]["memory"]


def test_replay_page__injected_script_does_not_run(page, driver):
    out, eps = page
    driver.get(out.as_uri())
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)  # turn 1 carries the injected text
    assert INJECT in text(driver, "completion"), "the injected text must be shown as text"
    assert driver.execute_script("return window.__pwned === undefined"), "injected script ran"
    assert driver.execute_script("return document.querySelectorAll('img').length") == 0


def test_replay_page__filters_and_failure_markers(page, driver):
    out, eps = page
    driver.get(out.as_uri())
    assert text(driver, "count").startswith("5 of 5")
    Select(driver.find_element(By.ID, "f-task")).select_by_value("dummy/arrow-4")
    assert text(driver, "count").startswith("1 of 5")
    assert "dummy/arrow-4" in text(driver, "header")
    assert "disagrees with the frame rebuilt" in text(driver, "warnings") and "1" in text(driver, "warnings")
    fails = driver.execute_script("return document.querySelectorAll('#timeline span.fail').length")
    assert fails == sum(t["parse_status"] != "ok" for t in eps[2]["turns"])
    Select(driver.find_element(By.ID, "f-task")).select_by_value("")
    seed = driver.find_element(By.ID, "f-seed")
    seed.send_keys("4")
    assert text(driver, "count").startswith("1 of 5") and "seed 4" in text(driver, "header")


# Pixels of one character drawn on a canvas with the page's grid font (after the font has loaded).
INK_JS = """
const [ch, done] = arguments;
document.fonts.load('48px "glyphjax-glyphs"', ch).then(() => {
  const c = document.createElement("canvas"); c.width = 64; c.height = 64;
  const ctx = c.getContext("2d"); ctx.font = '48px "glyphjax-glyphs"'; ctx.fillStyle = "#000";
  ctx.fillText(ch, 4, 50);
  const px = ctx.getImageData(0, 0, 64, 64).data, alpha = [];
  for (let i = 3; i < px.length; i += 4) alpha.push(px[i]);
  done(alpha);
});
"""
TOFU = "\ue000"  # a private-use code point no font here has: drawn as the missing-glyph box


def _select_task(driver, task):
    Select(driver.find_element(By.ID, "f-task")).select_by_value(task)
    assert task in text(driver, "header")


@pytest.mark.parametrize("task", ["classics/2048", "minigrid/blockedunlockpickup"])
def test_replay_page__embedded_font_draws_every_glyph_cell(page, driver, task):
    out, eps = page
    driver.get(out.as_uri())
    _select_task(driver, task)
    cells = driver.execute_script("return [...document.querySelectorAll('#grid .cell')].map(c => c.textContent)")
    glyphs = sorted(set(cells) - {" "})
    assert any(ord(g) > 0x2400 for g in glyphs), f"{task}: the first frame should show an enclosed glyph"
    family = driver.execute_script("return getComputedStyle(document.querySelector('#grid .cell')).fontFamily")
    assert family.replace('"', "").startswith("glyphjax-glyphs,"), family
    tofu = driver.execute_async_script(INK_JS, TOFU)
    for g in glyphs:
        ink = driver.execute_async_script(INK_JS, g)
        assert sum(ink) > 0, f"{task}: glyph {g!r} draws nothing"
        assert ink != tofu, f"{task}: glyph {g!r} U+{ord(g):04X} draws the missing-glyph box"
        assert driver.execute_script('return document.fonts.check(\'20px "glyphjax-glyphs"\', arguments[0])', g)
    loaded = driver.execute_script(
        "return [...document.fonts].filter(f => f.family.replace(/\"/g, '') === 'glyphjax-glyphs')"
        ".map(f => f.status)")
    assert loaded and "loaded" in loaded and "error" not in loaded, loaded


def test_replay_page__cells_are_square_and_coloured_by_meaning(page, driver):
    out, eps = page
    driver.get(out.as_uri())
    _select_task(driver, "minigrid/blockedunlockpickup")
    sizes = driver.execute_script(
        "return [...document.querySelectorAll('#grid .cell')].map(c => [c.offsetWidth, c.offsetHeight,"
        " getComputedStyle(c).color, c.textContent, c.title])")  # layout boxes (walls are stretched on top)
    assert {(round(w, 1), round(h, 1)) for w, h, *_ in sizes} == {(round(sizes[0][0], 1),) * 2}, "cells not square"
    by_meaning: dict[str, set[str]] = {}
    for *_, colour, ch, meaning in sizes:
        by_meaning.setdefault(meaning, set()).add(colour)
    assert all(len(c) == 1 for c in by_meaning.values()), by_meaning
    assert by_meaning["wall"] != by_meaning["empty floor"]


def test_replay_page__turn_shows_prompt_tokens_logprobs_and_return(page, driver):
    out, eps = page
    driver.get(out.as_uri())
    _select_task(driver, "classics/2048")
    ep = eps[-2]
    body = driver.find_element(By.TAG_NAME, "body")
    ret = 0.0
    for k in range(6):
        turn = ep["turns"][k]
        ret += turn["reward"]
        assert text(driver, "return-so-far").startswith(f"{ret:.4f}"), f"classics/2048 seed 3 turn {k}"
        assert text(driver, "tokens").startswith(f"{len(turn['prompt_ids'])} / {len(turn['completion_ids'])}")
        assert text(driver, "prompt-system") == ep["system_prompt"]
        assert text(driver, "prompt-user") == turn["observation"]  # basic harness, no history
        if k == 2:
            assert text(driver, "logprobs") == "-0.800 / -2.000"
        body.send_keys(Keys.ARROW_RIGHT)
    assert ret != 0.0, "the 2048 episode should have scored within 6 turns (a stronger return check)"
    assert driver.execute_script("return document.getElementById('prompt-box').open") is False, "collapsed by default"


class _WitnessScript:
    """A fake model for a WITNESS run: one move then CONFIRM (rejected: the head is not on the
    exit), then RESET and the stored solution of level 1."""

    name = "fake-witness"

    def __init__(self, task):
        from glyphjax.witness.bank import load_bank
        from glyphjax.witness.games import BY_ID
        game = BY_ID[task]
        solution = load_bank()[game.name][0].solution
        self.plans = [[f"A{game.sigma.index(solution[0]) + 1}", "CONFIRM"],
                      ["RESET"] + [f"A{game.sigma.index(d) + 1}" for d in solution] + ["CONFIRM"]]
        self.calls = 0

    def complete(self, conversations, sampling):
        from rl.policies.base import Completion
        plan = self.plans[min(self.calls, 1)]
        self.calls += 1
        ops = [{"op": "add", "rule": "the exit must be reached", "evidence": [0, 1]}] if self.calls == 2 else []
        return [Completion(json.dumps({"analysis": "try", "plan": plan, "memory_ops": ops}), [1, 2], [3], [-0.1], "stop")]


def test_replay_page__witness_run_shows_path_rejection_marks_and_rule_memory(driver, tmp_path):
    from rl.policies.base import SamplingParams
    from rl.witness_rollout import play_witness
    task = "witness/test/polyomino"
    rec = play_witness(_WitnessScript(task), task, 0, SamplingParams(), call_budget=2)
    traj = tmp_path / "witness.jsonl"
    traj.write_text(rec.to_json() + "\n", encoding="utf-8")
    out = tmp_path / "witness.html"
    replay_main([str(traj), "-o", str(out)])
    driver.get(out.as_uri())
    marks = driver.execute_script("return [...document.querySelectorAll('#timeline span')].map(s => s.className)")
    rejected = [i for i, c in enumerate(marks) if "rej" in c]
    assert rejected == [2], marks  # the frame after the CONFIRM (turn 1) shows the rejection
    assert "rej" not in marks[1] and any("win" in c for c in marks[3:])
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    assert text(driver, "message").startswith("rejected")
    from glyphjax.witness.bank import load_bank
    from glyphjax.witness.games import BY_ID
    from glyphjax.witness.reference import violations
    from glyphjax.witness.solver import cells_of
    level = load_bank()[BY_ID[task].name][0]
    tried = cells_of(level, list(level.solution[:1]))
    viol = driver.execute_script("return [...document.querySelectorAll('#grid .cell.violation')].map(c => c.textContent)")
    assert viol == ["!"] * len(violations(level, tried)) and viol  # exactly the reference's violating cells
    body.send_keys(Keys.ARROW_RIGHT)  # turn 3: RESET, the first action of the second call
    assert "the exit must be reached" in text(driver, "memory")
    body.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)  # two moves along the solution
    path = driver.execute_script("return [...document.querySelectorAll('#grid .cell.path')].map(c => c.textContent)")
    assert set(path) == {"@", "o"}
    assert "harness witness" in text(driver, "header")
