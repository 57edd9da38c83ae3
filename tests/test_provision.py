"""The first-use provisioning that lets `python -m pytest -q` set a fresh machine up itself."""

from __future__ import annotations

import threading

import pytest

from tests import provision


@pytest.fixture(autouse=True)
def lock_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(provision, "LOCK_DIR", tmp_path / "locks")


def test_ensure__runs_the_script_only_when_not_ready(tmp_path):
    marker, count = tmp_path / "ready", tmp_path / "count"
    script = tmp_path / "setup.sh"
    script.write_text(f'echo x >> "{count}"; touch "{marker}"\n')
    provision.ensure("thing", marker.exists, script)
    provision.ensure("thing", marker.exists, script)
    assert marker.exists() and count.read_text().count("x") == 1


def test_ensure__parallel_callers_run_it_once(tmp_path):
    marker, count = tmp_path / "ready", tmp_path / "count"
    script = tmp_path / "setup.sh"
    script.write_text(f'echo x >> "{count}"; sleep 0.5; touch "{marker}"\n')
    threads = [threading.Thread(target=provision.ensure, args=("thing", marker.exists, script)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert count.read_text().count("x") == 1


def test_ensure__failed_setup_raises_with_the_log(tmp_path):
    script = tmp_path / "setup.sh"
    script.write_text('echo "no network for you" >&2; exit 3\n')
    with pytest.raises(provision.ProvisionError, match="(?s)exited 3.*no network for you"):
        provision.ensure("thing", lambda: False, script)


def test_ensure__script_that_succeeds_without_effect_is_an_error(tmp_path):
    script = tmp_path / "setup.sh"
    script.write_text("true\n")
    with pytest.raises(provision.ProvisionError, match="still not ready"):
        provision.ensure("thing", lambda: False, script)


def test_start_in_background__overlaps_and_ensure_waits_for_it(tmp_path):
    marker, count = tmp_path / "ready", tmp_path / "count"
    script = tmp_path / "setup.sh"
    script.write_text(f'echo x >> "{count}"; sleep 1; touch "{marker}"\n')
    thread = provision.start_in_background("thing", marker.exists, script)
    assert thread is not None and not marker.exists(), "returns while the set-up runs"
    provision.ensure("thing", marker.exists, script)  # waits on the background run's lock
    assert marker.exists() and count.read_text().count("x") == 1
    thread.join(5)
    assert provision.start_in_background("thing", marker.exists, script) is None  # ready: nothing to do
