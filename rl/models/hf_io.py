"""Hugging Face checkpoint IO for the NNX Qwen3 model: config.json + safetensors, both ways.

`load_model(path)` reads ``config.json`` and the weights (``model.safetensors``, or the shards
named in ``model.safetensors.index.json``), fp32/bf16/fp16, into a `Qwen3ForCausalLM` without a
random initialisation (shapes come from `nnx.eval_shape`), optionally placed on a mesh.
`save_model(model, path)` writes the same format (``config.json`` + ``model.safetensors`` or
shards + index) that transformers and vLLM load; save -> load round-trips bit for bit.

The safetensors format (8-byte little-endian header size, JSON header, raw little-endian tensor
bytes) is read and written here with numpy + ml_dtypes so bfloat16 needs no torch, and so a corrupt
file gets an error that names it.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import struct
from pathlib import Path
from typing import Iterable

import jax
import ml_dtypes
import numpy as np
from flax import nnx

from rl.models.qwen3 import Qwen3Config, Qwen3ForCausalLM

log = logging.getLogger(__name__)

_ST_TO_NP = {
    "F64": np.dtype(np.float64), "F32": np.dtype(np.float32), "F16": np.dtype(np.float16),
    "BF16": np.dtype(ml_dtypes.bfloat16), "I64": np.dtype(np.int64), "I32": np.dtype(np.int32),
    "I16": np.dtype(np.int16), "I8": np.dtype(np.int8), "U8": np.dtype(np.uint8), "BOOL": np.dtype(np.bool_),
}
_NP_TO_ST = {v: k for k, v in _ST_TO_NP.items()}
_NAME_TO_NP = {"float32": np.dtype(np.float32), "bfloat16": np.dtype(ml_dtypes.bfloat16),
               "float16": np.dtype(np.float16)}
INDEX_FILE = "model.safetensors.index.json"
SINGLE_FILE = "model.safetensors"
# Files a serving stack needs beside the weights; `save_model(..., copy_tokenizer_from=...)` copies them.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "generation_config.json",
                   "chat_template.jinja", "vocab.json", "merges.txt", "added_tokens.json")


class CheckpointError(ValueError):
    """A checkpoint directory or file that cannot be read; the message names the file."""


# ---------------------------------------------------------------------------------------------
# safetensors files
# ---------------------------------------------------------------------------------------------

def read_safetensors(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """All tensors of one .safetensors file as numpy arrays (memory-mapped, read-only)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise CheckpointError(f"{path} not found: the checkpoint's weight file is missing")
    size = os.path.getsize(path)

    def corrupt(why: str) -> CheckpointError:
        return CheckpointError(f"{path} is not a valid safetensors file ({why}); re-download or re-export it")

    if size < 8:
        raise corrupt(f"only {size} bytes")
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        if header_len > size - 8 or header_len > 100_000_000:
            raise corrupt(f"header length {header_len} exceeds the file size {size}")
        try:
            header = json.loads(f.read(header_len))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise corrupt(f"header is not JSON: {e}") from e
    if not isinstance(header, dict):
        raise corrupt("header is not a JSON object")
    data_start = 8 + header_len
    buf = np.memmap(path, dtype=np.uint8, mode="r") if size > data_start else np.zeros(0, np.uint8)
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = _ST_TO_NP[info["dtype"]]
            shape = tuple(int(s) for s in info["shape"])
            begin, end = (int(o) for o in info["data_offsets"])
        except (KeyError, TypeError, ValueError) as e:
            raise corrupt(f"bad header entry for tensor {name!r}: {info!r}") from e
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if end - begin != nbytes or begin < 0 or data_start + end > size:
            raise corrupt(f"tensor {name!r} byte range [{begin}, {end}) does not fit its shape {shape} "
                          f"{info['dtype']} or the file size {size} (truncated?)")
        tensors[name] = buf[data_start + begin:data_start + end].view(dtype).reshape(shape)
    return tensors


def write_safetensors(path: str | os.PathLike, tensors: dict[str, np.ndarray], metadata: dict | None = None) -> None:
    """Writes tensors in the safetensors format (header padded to 8 bytes, as the reference writer)."""
    header: dict = {"__metadata__": {"format": "pt", **(metadata or {})}}
    offset = 0
    arrays = []
    for name in sorted(tensors):
        arr = np.ascontiguousarray(tensors[name])
        if arr.dtype not in _NP_TO_ST:
            raise ValueError(f"cannot write tensor {name!r} of dtype {arr.dtype} to safetensors")
        header[name] = {"dtype": _NP_TO_ST[arr.dtype], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + arr.nbytes]}
        offset += arr.nbytes
        arrays.append(arr)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    tmp = f"{os.fspath(path)}.tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for arr in arrays:
            f.write(arr.tobytes())
    os.replace(tmp, path)


def checkpoint_weight_files(path: str | os.PathLike) -> list[Path]:
    """The safetensors files of a checkpoint directory (from the index if there is one)."""
    root = Path(path)
    if not root.is_dir():
        raise CheckpointError(f"{root} is not a directory: pass a Hugging Face checkpoint directory")
    index = root / INDEX_FILE
    if index.is_file():
        try:
            weight_map = json.loads(index.read_text())["weight_map"]
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise CheckpointError(f"{index} is not a valid index (needs a 'weight_map' object): {e}") from e
        return [root / f for f in sorted(set(weight_map.values()))]
    if (root / SINGLE_FILE).is_file():
        return [root / SINGLE_FILE]
    files = sorted(root.glob("*.safetensors"))
    if not files:
        raise CheckpointError(f"{root} holds no *.safetensors weights (expected {SINGLE_FILE} or {INDEX_FILE})")
    return files


def read_checkpoint_tensors(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Every tensor of a checkpoint directory, by HF name."""
    tensors: dict[str, np.ndarray] = {}
    for f in checkpoint_weight_files(path):
        tensors.update(read_safetensors(f))
    return tensors


# ---------------------------------------------------------------------------------------------
# NNX <-> HF names
# ---------------------------------------------------------------------------------------------

def hf_name(nnx_path: tuple) -> tuple[str, bool]:
    """(HF tensor name, transpose?) for an NNX parameter path such as ('model', 'layers', 0, ...)."""
    *prefix, leaf = (str(p) for p in nnx_path)
    if leaf == "kernel":
        return ".".join(prefix + ["weight"]), True
    if leaf == "embedding":
        return ".".join(prefix + ["weight"]), False
    return ".".join(prefix + [leaf]), False


def _abstract_model(config: Qwen3Config) -> Qwen3ForCausalLM:
    with nnx.use_eager_sharding(False):
        return nnx.eval_shape(lambda: Qwen3ForCausalLM(config, rngs=nnx.Rngs(0)))


def model_from_tensors(config: Qwen3Config, tensors: dict[str, np.ndarray], *, mesh: jax.sharding.Mesh | None = None,
                       source: str = "checkpoint") -> Qwen3ForCausalLM:
    """Builds a model whose parameters are `tensors` (HF names, HF layouts) cast to config.dtype."""
    graphdef, abstract_state = nnx.split(_abstract_model(config))
    target = _NAME_TO_NP[config.dtype]
    leaves = []
    used = set()
    for path, var in nnx.to_flat_state(abstract_state):
        name, transpose = hf_name(path)
        if name not in tensors:
            raise CheckpointError(f"{source}: tensor {name!r} is missing (needed for a {config.num_hidden_layers}-layer "
                                  f"Qwen3); is this a complete Qwen3 checkpoint?")
        arr = np.asarray(tensors[name])
        if transpose:
            arr = arr.T
        if arr.shape != var.get_value().shape:
            raise CheckpointError(f"{source}: tensor {name!r} has shape {tuple(tensors[name].shape)}, expected "
                                  f"{var.get_value().shape[::-1] if transpose else var.get_value().shape} "
                                  f"from config.json")
        arr = arr.astype(target, copy=False)
        spec = var.get_metadata().get("out_sharding") or var.get_metadata().get("sharding")
        if mesh is not None and spec is not None:
            value = jax.device_put(arr, jax.sharding.NamedSharding(mesh, fit_spec(spec, arr.shape, mesh, name)))
        else:
            value = jax.numpy.asarray(arr)
        leaves.append((path, var.replace(value=value)))
        used.add(name)
    unused = sorted(set(tensors) - used - {"lm_head.weight"} if config.tie_word_embeddings else set(tensors) - used)
    unused = [n for n in unused if not n.endswith("rotary_emb.inv_freq")]
    if unused:
        log.warning("%s: %d tensors not used by Qwen3ForCausalLM, e.g. %s", source, len(unused), unused[:5])
    return nnx.merge(graphdef, nnx.from_flat_state(leaves))


def fit_spec(spec: tuple, shape: tuple, mesh: jax.sharding.Mesh, name: str = "") -> jax.sharding.PartitionSpec:
    """The partition spec with axes dropped (replicated) where the mesh axis does not divide the
    dimension (e.g. a vocabulary of 151,669 on 2 devices): correct everywhere, sharded where it can be."""
    fitted = []
    for axis, dim in zip(spec, shape):
        names = (axis,) if isinstance(axis, str) else tuple(axis or ())
        size = int(np.prod([mesh.shape[a] for a in names])) if names else 1
        if names and dim % size:
            log.info("%s: dimension %d not divisible by mesh axes %s (%d); replicating it", name, dim, names, size)
            axis = None
        fitted.append(axis)
    return jax.sharding.PartitionSpec(*fitted)


def load_model(path: str | os.PathLike, *, dtype: str | None = None,
               mesh: jax.sharding.Mesh | None = None) -> Qwen3ForCausalLM:
    """Loads a HF Qwen3 checkpoint directory. dtype: 'float32' / 'bfloat16' / 'float16' or None (the
    checkpoint's `torch_dtype`). mesh: place parameters by their partition specs."""
    path = Path(path)
    if not path.is_dir():
        raise CheckpointError(f"{path} is not a directory: pass a Hugging Face checkpoint directory "
                              f"(config.json + *.safetensors)")
    config = Qwen3Config.from_json(path / "config.json")
    if dtype is not None:
        if dtype not in _NAME_TO_NP:
            raise ValueError(f"dtype {dtype!r} is not one of {sorted(_NAME_TO_NP)}")
        config = dataclasses.replace(config, dtype=dtype)
    return model_from_tensors(config, read_checkpoint_tensors(path), mesh=mesh, source=str(path))


def model_tensors(model: Qwen3ForCausalLM, dtype: str | None = None) -> dict[str, np.ndarray]:
    """The model's parameters as HF-named numpy arrays in HF layouts (tied lm_head omitted)."""
    target = _NAME_TO_NP[dtype] if dtype else None
    out = {}
    for path, var in nnx.to_flat_state(nnx.state(model, nnx.Param)):
        name, transpose = hf_name(path)
        arr = np.asarray(jax.device_get(var.get_value()))
        if transpose:
            arr = np.ascontiguousarray(arr.T)
        out[name] = arr.astype(target) if target is not None else arr
    return out


def save_model(model: Qwen3ForCausalLM, path: str | os.PathLike, *, dtype: str | None = None,
               max_shard_bytes: int = 5 * 2**30, copy_tokenizer_from: str | os.PathLike | None = None,
               untie: bool = False) -> Path:
    """Writes `config.json` + safetensors (sharded with an index above `max_shard_bytes`) to `path`.

    untie: for a tied-embedding model, also write `lm_head.weight` (a copy of the embedding) and
    `tie_word_embeddings: false`. The trainer's vLLM weight push uses it: vLLM 0.32's
    `reload_weights` on a tied model reloads the embedding but keeps the old output projection
    (rl/vllm_server.py `untied_copy`), so a served model must be untied.

    dtype: cast on write (None keeps the parameters' dtype). copy_tokenizer_from: a checkpoint
    directory whose tokenizer / generation-config files are copied alongside, so vLLM can serve it.
    """
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tensors = model_tensors(model, dtype)
    dtypes = {str(a.dtype) for a in tensors.values()}
    config = dataclasses.replace(model.config, dtype=dtype or (dtypes.pop() if len(dtypes) == 1 else model.config.dtype))
    if untie and config.tie_word_embeddings:
        if "lm_head.weight" not in tensors:
            tensors["lm_head.weight"] = np.array(tensors["model.embed_tokens.weight"], copy=True)
        config = dataclasses.replace(config, tie_word_embeddings=False)
    for stale in [path / SINGLE_FILE, path / INDEX_FILE, *path.glob("model-*-of-*.safetensors")]:
        stale.unlink(missing_ok=True)
    shards: list[dict[str, np.ndarray]] = [{}]
    size = 0
    for name in sorted(tensors):
        nbytes = tensors[name].nbytes
        if shards[-1] and size + nbytes > max_shard_bytes:
            shards.append({})
            size = 0
        shards[-1][name] = tensors[name]
        size += nbytes
    if len(shards) == 1:
        write_safetensors(path / SINGLE_FILE, shards[0])
    else:
        weight_map = {}
        for i, shard in enumerate(shards):
            fname = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
            write_safetensors(path / fname, shard)
            weight_map.update({n: fname for n in shard})
        total = sum(a.nbytes for a in tensors.values())
        (path / INDEX_FILE).write_text(json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map},
                                                  indent=2, sort_keys=True))
    (path / "config.json").write_text(json.dumps(config.to_hf_dict(), indent=2, sort_keys=True))
    if copy_tokenizer_from is not None:
        src = Path(copy_tokenizer_from)
        for fname in TOKENIZER_FILES:
            if (src / fname).is_file() and (src / fname).resolve() != (path / fname).resolve():
                shutil.copyfile(src / fname, path / fname)
    return path


def iter_param_specs(model: Qwen3ForCausalLM) -> Iterable[tuple[str, tuple]]:
    """(HF name, partition spec) for every parameter: a readable view of the sharding layout."""
    for p, var in nnx.to_flat_state(nnx.state(model, nnx.Param)):
        meta = var.get_metadata()
        yield hf_name(p)[0], tuple(meta.get("out_sharding") or meta.get("sharding") or ())
