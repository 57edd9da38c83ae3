"""The replay page in a real headless Chromium (Selenium): arrow keys step turns, injected
`<script>` in model text does not run, filters work, mismatch warnings show.

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
    with open(traj, "a", encoding="utf-8") as f:
        f.write(json.dumps(eps[-1], ensure_ascii=False) + "\n")
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
    assert text(driver, "count").startswith("3 of 3")
    Select(driver.find_element(By.ID, "f-task")).select_by_value("dummy/arrow-4")
    assert text(driver, "count").startswith("1 of 3")
    assert "dummy/arrow-4" in text(driver, "header")
    assert "disagrees with the frame rebuilt" in text(driver, "warnings") and "1" in text(driver, "warnings")
    fails = driver.execute_script("return document.querySelectorAll('#timeline span.fail').length")
    assert fails == sum(t["parse_status"] != "ok" for t in eps[-1]["turns"])
    Select(driver.find_element(By.ID, "f-task")).select_by_value("")
    seed = driver.find_element(By.ID, "f-seed")
    seed.send_keys("4")
    assert text(driver, "count").startswith("1 of 3") and "seed 4" in text(driver, "header")
