"""A -m sweep through Hydra's submitit launcher (its local executor standing in for SLURM): the
2 x 2 toy grid gives four run dirs that the Snake figure script draws."""

from __future__ import annotations

import pytest

from eval.snake_figures import load_runs, make_all


@pytest.mark.slow
def test_submitit_sweep__2x2_toy_grid_gives_four_runs_the_figure_script_draws(tmp_path):
    from rl.train_cli import main
    sweep = tmp_path / "sweep"
    main(["-m", "+experiment=sweep_toy", "+cluster=local", f"hydra.sweep.dir={sweep}"])
    assert sorted(p.name for p in sweep.iterdir() if p.is_dir() and not p.name.startswith(".")) == ["0", "1", "2", "3"]
    assert any((sweep / ".submitit").iterdir()), "the jobs did not go through submitit"
    runs = load_runs(sweep)
    assert sorted((r.group_size, r.lr) for r in runs) == [(2, 1e-4), (2, 1e-3), (4, 1e-4), (4, 1e-3)]
    assert all(sum(len(b) for b in r.batch_returns) == 4 for r in runs)  # the whole rollout budget
    out = make_all(sweep, tmp_path / "figures")
    assert (tmp_path / "figures" / "snake_grid.png").stat().st_size > 0 and len(out["table"]) == 4
