"""Typed configuration of glyphjax-train: one default per key, one-line errors before any work,
the bare command is the documented demo, presets carry the paper settings, Ctrl-C is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from rl.train_cli import compose, main

CONF = Path(__file__).resolve().parents[2] / "conf"
SAMPLING_KEYS = ("temperature", "max_new_tokens", "top_p", "top_k")


@pytest.fixture
def nothing_expensive(monkeypatch):
    """Fail the test if a model is loaded or training starts."""
    import rl.models.hf_io as hf_io
    import rl.trainer

    def boom(*a, **k):
        raise AssertionError("work started before the configuration was rejected")
    monkeypatch.setattr(hf_io, "load_model", boom)
    monkeypatch.setattr(rl.trainer.Trainer, "__init__", boom)


def cli_error(capsys, args: list[str]) -> str:
    """Run glyphjax-train in-process; it must exit 2 with exactly one line on stderr."""
    with pytest.raises(SystemExit) as e:
        main(args)
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("arg, says", [
    ("rl.foo=1", "unknown key 'rl.foo'; rl takes: loss,"),
    ("+rl.foo=1", "unknown key 'rl.foo'"),
    ("+bogus=1", "unknown key 'bogus'"),
    ("policy.concurrency=4", "unknown key 'policy.concurrency'; policy takes:"),  # a vllm key on policy=local
    ("rl.max_new_tokens=3", "it is now policy.max_new_tokens"),
    ("rl.temperature=0.5", "it is now policy.temperature"),
    ("rl.group_size=abc", "bad value for 'rl.group_size': 'abc' (str); it takes an integer"),
    ("rl.lr=fast", "bad value for 'rl.lr': 'fast' (str); it takes a number"),
    ("rl.group_size=2.5", "bad value for 'rl.group_size': '2.5' (float); it takes an integer"),
    ("policy=nosuch", "no policy preset 'nosuch'"),
])
def test_train_cli__unknown_key_or_wrong_type_is_one_line_exit_2_before_any_work(capsys, nothing_expensive,
                                                                                tmp_path, arg, says):
    line = cli_error(capsys, [f"hydra.run.dir={tmp_path}", arg])
    assert line.startswith("glyphjax-train: error: ") and says in line, line


def test_train_cli__a_bad_value_anywhere_in_a_sweep_stops_the_sweep_at_start(capsys, nothing_expensive, tmp_path):
    line = cli_error(capsys, ["-m", f"hydra.sweep.dir={tmp_path}", "rl.lr=1e-3,2e-3,oops"])
    assert "bad value for 'rl.lr': 'oops'" in line
    assert not any(tmp_path.iterdir()), "no job should have started"


def test_train_cli__missing_model_path_is_one_line(capsys, nothing_expensive, tmp_path):
    line = cli_error(capsys, [f"hydra.run.dir={tmp_path}", "model.path=/nonexistent"])
    assert "model.path=/nonexistent does not exist" in line


def test_train_cli__demo_random_init_never_replaces_a_given_checkpoint(capsys, nothing_expensive, tiny_ckpt, tmp_path):
    line = cli_error(capsys, [f"hydra.run.dir={tmp_path}", f"model.path={tiny_ckpt}"])
    assert "model.random_init_std=0.02" in line and "+experiment=glyphbench" in line


def test_train_cli__checkpoint_without_tokenizer_files_says_which_are_missing(capsys, nothing_expensive, tiny_ckpt,
                                                                            tmp_path):
    bare = tmp_path / "no-tokenizer"
    bare.mkdir()
    for name in ("config.json", "model.safetensors"):
        (bare / name).write_bytes((tiny_ckpt / name).read_bytes())
    line = cli_error(capsys, [f"hydra.run.dir={tmp_path / 'run'}", f"model.path={bare}",
                              "model.random_init_std=null"])
    assert "no tokenizer files" in line and "tokenizer_config.json" in line and "huggingface-cli download" in line
    assert "chat template" not in line


def test_sampling_defaults__one_owner_for_max_new_tokens_and_temperature():
    """The trainer's and both LLM policies' sampling settings are SamplingParams' defaults, and no
    YAML file outside the experiment presets sets a sampling key (a second default)."""
    from rl.config import LocalPolicyConfig, VLLMPolicyConfig
    from rl.policies.base import SamplingParams
    want = SamplingParams()
    for cfg in (compose([]).policy, compose(["policy=vllm"]).policy):
        for key in SAMPLING_KEYS:
            assert cfg[key] == getattr(want, key), (cfg.name, key)
    for cls in (LocalPolicyConfig, VLLMPolicyConfig):
        assert (cls.max_new_tokens, cls.temperature) == (want.max_new_tokens, want.temperature)
    assert "max_new_tokens" not in compose([]).rl and "temperature" not in compose([]).rl
    import yaml
    for path in CONF.rglob("*.yaml"):
        if path.parent.name == "experiment":
            continue
        doc = yaml.safe_load(path.read_text()) or {}
        flat = [k for k in doc if k in SAMPLING_KEYS] + [f"{g}.{k}" for g, v in doc.items() if isinstance(v, dict)
                                                          for k in v if k in SAMPLING_KEYS]
        assert not flat, f"{path.relative_to(CONF)} sets {flat}: sampling defaults belong to SamplingParams"


def test_train_config__bare_command_is_the_documented_demo(tmp_path):
    """README/training.md: the bare command is the learn_arrow demo (tiny random model on
    dummy/arrow-1, 60 updates of 2 groups x 16, action tokens, evaluation at 0 and 60)."""
    from rl.trainer import validate
    bare, named = compose([], tmp_path), compose(["+experiment=learn_arrow"], tmp_path)
    assert bare == named
    plan = validate(bare)
    assert plan.task_ids == ["dummy/arrow-1"] and plan.policy == "local"
    assert (plan.num_updates, plan.group_size, plan.groups_per_update) == (60, 16, 2)
    assert bare.rl.action_tokens and bare.model.path is None and bare.eval.every == 60


def test_train_config__paper_presets_carry_the_paper_settings(tmp_path):
    """formulas.md §1: single task dppo, LR 1e-6, G 32, 6,144 rollouts, 8,192 tokens; the Snake study
    uses ipo with 4,096 tokens; both train the checkpoint's own weights with full completions."""
    gb = compose(["+experiment=glyphbench"], tmp_path)
    assert (gb.rl.loss, gb.rl.lr, gb.rl.group_size, gb.rl.groups_per_update, gb.rl.rollout_budget) == \
        ("dppo", 1e-6, 32, 1, 6144)
    assert gb.policy.max_new_tokens == 8192 and gb.harness.name == "basic"
    snake = compose(["+experiment=snake_grid"], tmp_path)
    assert (snake.rl.loss, snake.policy.max_new_tokens, snake.tasks.ids) == ("ipo", 4096, ["classics/snake-easy"])
    for cfg in (gb, snake):
        assert cfg.model.random_init_std is None and not cfg.rl.action_tokens and cfg.policy.temperature == 1.0


def test_train_config__gamesmith_presets_carry_the_recipe(tmp_path):
    """gamesmith.md §5.1-5.2: self-play with Crab kappa 4 and the state-value term, G = 5, 200
    steps, temperature 1, 16,384 tokens; distillation 8 epochs x 32; the toys validate on a CPU."""
    from rl.trainer import validate
    sp = compose(["+experiment=gamesmith_selfplay"], tmp_path)
    assert (sp.rl.advantage, sp.rl.advantage_kwargs["kappa"], sp.rl.state_value_beta, sp.rl.opponent) == \
        ("crab", 4.0, 1.0, "self")
    assert sp.rl.rollout_budget // (sp.rl.group_size * sp.rl.groups_per_update) == 200 and sp.rl.group_size == 5
    assert (sp.policy.temperature, sp.policy.max_new_tokens, sp.tasks.name) == (1.0, 16384, "zerosum_train")
    assert sp.rl.variant_sampling == "uniform"  # variants uniform, the encoding per episode (§5.2)
    sft = compose(["+experiment=gamesmith_sft"], tmp_path)
    assert (sft.rl.mode, sft.rl.sft.epochs, sft.rl.sft.batch_size) == ("sft", 8, 32)
    plan = validate(compose(["+experiment=gamesmith_selfplay_toy"], tmp_path))
    assert plan.task_ids == ["zerosum/tictactoe/base"] and plan.num_updates == 4 and plan.mode == "rl"


def test_train_config__learn_minigrid_is_the_documented_cpu_run(tmp_path):
    """docs/training.md "Learning on CPU on a real game": fresh tiny weights on a real MiniGrid task,
    constrained action decoding (not action tokens), episodes cut at 8 turns, 60 updates of 16,
    held-out evaluation on 128 seeds every 15 updates."""
    from rl.trainer import validate
    cfg = compose(["+experiment=learn_minigrid"], tmp_path)
    plan = validate(cfg)
    assert plan.task_ids == ["minigrid/empty-random-5x5"] and plan.policy == "local"
    assert (plan.num_updates, plan.group_size, plan.groups_per_update) == (60, 16, 1)
    assert cfg.model.path is None and cfg.model.random_init_std == 0.02
    assert cfg.policy.constrained_actions and not cfg.rl.action_tokens and cfg.harness.name == "minimal"
    assert (cfg.rl.max_turns, cfg.eval.every, cfg.eval.seeds) == (8, 15, 128)


def test_train_cli__tasks_given_a_task_id_trains_on_that_task(tmp_path):
    from rl.hydra_cli import rewrite_task_arg
    from rl.trainer import validate
    args = rewrite_task_arg(["tasks=dummy/arrow-4", "tasks=snake_easy"])
    assert validate(compose(args[:2], tmp_path)).task_ids == ["dummy/arrow-4"]
    assert args[2] == "tasks=snake_easy", "a preset name stays a preset"


def test_train_cli__mapping_on_the_command_line_adds_keys_and_merges_into_the_preset(tmp_path):
    from rl.config import TrainConfig
    from rl.hydra_cli import mapping_keys, rewrite_mapping_args
    assert {"tasks.mixture", "rl.task_weights"} <= mapping_keys(TrainConfig)
    args = rewrite_mapping_args(["+experiment=multitask100_toy", "tasks.mixture={minihack: 2, procgen: 0}",
                                 "rl.task_weights={classics/snake-*: 3}", "rl.lr=0.1"], mapping_keys(TrainConfig))
    assert args[1:] == ["++tasks.mixture={minihack: 2, procgen: 0}", "++rl.task_weights={classics/snake-*: 3}",
                        "rl.lr=0.1"]
    cfg = compose(args, tmp_path)
    assert dict(cfg.tasks.mixture) == {"classics": 2, "minigrid": 2, "procgen": 0, "minihack": 2}
    assert dict(cfg.rl.task_weights) == {"*": 1.0, "classics/snake-*": 3.0}  # the preset's catch-all stays
    from rl.mixture import mixture_tasks
    ids, _ = mixture_tasks(cfg.tasks.mixture)
    assert not any(t.startswith("procgen/") for t in ids), "quota 0 leaves the suite out"
    with pytest.raises(ValueError, match="must be >= 0"):
        mixture_tasks({"classics": -1})


def test_train_cli__help_shows_its_own_groups_and_keys(capsys):
    main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("glyphjax-train: ")
    policy_line = next(l for l in out.splitlines() if l.strip().startswith("policy:"))
    assert policy_line.split(":", 1)[1].split(",") == [" local", " vllm"], policy_line
    assert "experiment: " in out and "glyphbench" in out
    assert "  policy.max_new_tokens=4096" in out and "  rl.group_size=16" in out


def test_train_cli__ctrl_c_is_one_line_naming_the_run_dir_exit_130(capsys, monkeypatch, tmp_path):
    import rl.trainer

    def interrupted(cfg):
        raise KeyboardInterrupt
    monkeypatch.setattr(rl.trainer, "train", interrupted)
    with pytest.raises(SystemExit) as e:
        main([f"hydra.run.dir={tmp_path}"])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 130 and len(err) == 1, err
    assert err[0].startswith("glyphjax-train: interrupted; partial results in ") and str(tmp_path) in err[0]


def test_start_banner__names_model_size_updates_rollouts_and_out_dir(tmp_path):
    import jax
    import numpy as np

    from rl.models import hf_io
    from rl.trainer import Trainer, start_banner
    cfg = compose(["rl.group_size=4", "rl.groups_per_update=1", "rl.rollout_budget=8", "eval.every=0"], tmp_path)
    trainer = Trainer(cfg)
    reference = hf_io.load_model(trainer.model_path)  # an independent count from the checkpoint
    from flax import nnx
    n = sum(int(np.prod(x.shape)) for x in jax.tree_util.tree_leaves(nnx.state(reference, nnx.Param)))
    line = start_banner(trainer)
    assert f"({n / 1e6:.2f}M params)" in line and "2 updates x 4 rollouts" in line and str(tmp_path) in line
