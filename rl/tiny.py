"""A tiny, randomly initialised Qwen3 checkpoint with a locally trained tokenizer, built offline.

Used by tests, CPU smoke runs and `conf/model/tiny.yaml` (``model.path: null``). The checkpoint is
a real Hugging Face directory (transformers `Qwen3ForCausalLM.save_pretrained`, fp32 safetensors,
config.json with a top-level ``rope_theta``) plus a byte-level BPE tokenizer trained with the
`tokenizers` library on a small built-in corpus of game glyphs, action names and ChatML markers,
with a ChatML chat template (``<|im_start|>``/``<|im_end|>``; eos = ``<|im_end|>``). It loads in
transformers, in vLLM (head_dim 32 >= vLLM CPU attention's minimum) and in `rl.models.hf_io`.

Deterministic given the seed: two builds produce byte-identical weight and tokenizer files.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

# Bump when the recipe changes so cached copies under ~/.cache are rebuilt.
TINY_VERSION = 2
DEFAULT_CACHE_DIR = Path(os.environ.get("GLYPHJAX_CACHE", Path.home() / ".cache" / "glyphjax")) / "tiny-qwen3"

IM_START, IM_END, END_OF_TEXT = "<|im_start|>", "<|im_end|>", "<|endoftext|>"
CHATML_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

TINY_ARCH = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=32, rope_theta=1_000_000.0, max_position_embeddings=4096,
                 rms_norm_eps=1e-6)
TINY_VOCAB = 1024


def tiny_corpus() -> list[str]:
    """Built-in training text: ChatML turns, game actions, glyph boards, HUD lines, answer tags."""
    actions = ["NOOP", "UP", "DOWN", "LEFT", "RIGHT", "FIRE", "UPLEFT", "UPRIGHT", "DOWNLEFT", "DOWNRIGHT",
               "TURN_LEFT", "TURN_RIGHT", "MOVE_FORWARD", "PICKUP", "DROP", "TOGGLE", "DONE", "WAIT", "SEARCH",
               "OPEN", "CLOSE", "EAT", "KICK", "SHOOT", "JUMP", "CRAFT_PICKAXE", "PLACE_TABLE", "SLEEP", "DO"]
    glyphs = "█░▒▓·@#$%&*+~^v<>○●◆◇■□▲▼◀▶★☆♠♣♥♦☺☻♪∙∘⊕⊗╔╗╚╝║═│─┌┐└┘├┤┬┴┼"
    words = ("you are playing a game on a grid . each turn choose one action . the legend explains every glyph "
             "on the board . reply with your reasoning then <action>NAME</action> . score step health food "
             "wall snake apple key door goal agent enemy lava water tree stone").split()
    lines = []
    for i, a in enumerate(actions):
        lines.append(f"{IM_START}system\nRules: move the agent. Actions: {', '.join(actions[:8])}.{IM_END}")
        lines.append(f"{IM_START}user\nStep {i} of 512. Score: {i % 7}. Choose an action.{IM_END}")
        lines.append(f"{IM_START}assistant\nThe goal is {words[i % len(words)]}; I go {a.lower()}. "
                     f"<action>{a}</action>{IM_END}")
    for r in range(48):
        row = "".join(glyphs[(r * 7 + c * 3) % len(glyphs)] for c in range(12))
        lines.append(f"{row}\n{glyphs[r % len(glyphs)]} : {words[r % len(words)]}")
    lines.append(" ".join(words))
    return lines * 4


def build_tokenizer(vocab_size: int = TINY_VOCAB):
    """A byte-level BPE `PreTrainedTokenizerFast` with ChatML special tokens and chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[END_OF_TEXT, IM_START, IM_END],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(tiny_corpus(), trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=IM_END, pad_token=END_OF_TEXT,
                                   chat_template=CHATML_TEMPLATE, model_max_length=TINY_ARCH["max_position_embeddings"])


def write_tiny_checkpoint(out_dir: str | os.PathLike, *, seed: int = 0, tie_word_embeddings: bool = True,
                          initializer_range: float = 0.2) -> Path:
    """Writes the tiny checkpoint (weights, config, tokenizer, generation config) into `out_dir`.

    `initializer_range` is larger than HF's 0.02 so the random model's next-token distribution is
    far from uniform (greedy decoding has clear winners; sampling tests see real structure).
    """
    import torch
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer()
    eos_id = tokenizer.convert_tokens_to_ids(IM_END)
    pad_id = tokenizer.convert_tokens_to_ids(END_OF_TEXT)
    # Like the real Qwen3 checkpoints, the embedding has a few more rows than the tokenizer has
    # tokens (rounded up to a multiple of 128, so the vocabulary shards evenly on small meshes).
    vocab_size = -(-len(tokenizer) // 128) * 128
    config = Qwen3Config(vocab_size=vocab_size, tie_word_embeddings=tie_word_embeddings, eos_token_id=eos_id,
                         pad_token_id=pad_id, bos_token_id=None, initializer_range=initializer_range,
                         use_sliding_window=False, **TINY_ARCH)
    torch.manual_seed(seed)
    with torch.device("cpu"):
        model = Qwen3ForCausalLM(config).to(torch.float32).eval()
    # HF initialises norms to 1; perturb them (deterministically) so the norm weights are exercised.
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=gen))
    model.generation_config = GenerationConfig(eos_token_id=eos_id, pad_token_id=pad_id, bos_token_id=None)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    cfg_path = out / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["rope_theta"] = TINY_ARCH["rope_theta"]  # top-level too: older vLLM/transformers read it there
    cfg["torch_dtype"] = "float32"
    cfg_path.write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    # Readable by older transformers too (vLLM pins its own): a classic class name, template inline.
    tok_cfg_path = out / "tokenizer_config.json"
    tok_cfg = json.loads(tok_cfg_path.read_text())
    tok_cfg.update(tokenizer_class="PreTrainedTokenizerFast", chat_template=CHATML_TEMPLATE,
                   add_bos_token=False, add_eos_token=False)
    tok_cfg_path.write_text(json.dumps(tok_cfg, indent=2, sort_keys=True) + "\n")
    (out / "glyphjax_tiny.json").write_text(json.dumps({"version": TINY_VERSION, "seed": seed,
                                                        "tie_word_embeddings": tie_word_embeddings}) + "\n")
    return out


def tiny_checkpoint(cache_dir: str | os.PathLike | None = None, *, seed: int = 0,
                    tie_word_embeddings: bool = True) -> Path:
    """The tiny checkpoint directory, built on first use under `cache_dir` (default
    ~/.cache/glyphjax/tiny-qwen3, or $GLYPHJAX_CACHE/tiny-qwen3) and reused while its stamp matches.
    Safe against concurrent builders: each builds in a temporary directory and renames it into place."""
    target = Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR
    stamp = {"version": TINY_VERSION, "seed": seed, "tie_word_embeddings": tie_word_embeddings}
    stamp_file = target / "glyphjax_tiny.json"
    if stamp_file.is_file():
        try:
            if json.loads(stamp_file.read_text()) == stamp:
                return target
        except json.JSONDecodeError:
            pass
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        write_tiny_checkpoint(tmp, seed=seed, tie_word_embeddings=tie_word_embeddings)
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.replace(tmp, target)
        except OSError:
            if not (stamp_file.is_file() and json.loads(stamp_file.read_text()) == stamp):
                raise  # someone else won the race only if their copy matches
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def resolve_model_path(path: str | os.PathLike | None, *, seed: int = 0) -> Path:
    """`conf/model/*.yaml` semantics: None means the tiny checkpoint (built on first use); a
    glyphjax-train run directory means its final model or latest checkpoint (rl.export.run_model_dir)."""
    if path is None:
        return tiny_checkpoint(seed=seed)
    p = Path(os.path.expanduser(os.fspath(path)))
    if not (p / "config.json").is_file():
        raise FileNotFoundError(f"model.path {p} has no config.json: point it at a Hugging Face checkpoint "
                                f"directory or a glyphjax-train run directory, or set model.path=null for the "
                                f"tiny test model")
    from rl.export import is_run_dir, run_model_dir
    if is_run_dir(p):
        return run_model_dir(p)
    return p
