"""ChatTokenizer: prompt ids are exactly the chat template's rendering; decoding reproduces text."""

from __future__ import annotations

import json

import pytest

from rl.tokenizer import ChatTokenizer, load_tokenizer

CONVERSATIONS = [
    [{"role": "user", "content": "hello"}],
    [{"role": "system", "content": "Rules: eat the apple ●. Actions: UP, DOWN, LEFT, RIGHT."},
     {"role": "user", "content": "█████\n█·@·█\n█░●░█\n█████\nStep 4 of 512. Score: 0."},
     {"role": "assistant", "content": "The apple is below. <action>DOWN</action>"},
     {"role": "user", "content": "Ünïcödé ☺ ♠♣ and emoji 🐍 stay intact"}],
]


@pytest.fixture(scope="module")
def tok(tiny_ckpt) -> ChatTokenizer:
    return load_tokenizer(tiny_ckpt)


def _chatml(conv) -> str:
    """ChatML written out by hand (independent of the checkpoint's Jinja template)."""
    return "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in conv) + "<|im_start|>assistant\n"


@pytest.mark.parametrize("i", range(len(CONVERSATIONS)))
def test_tokenizer__ids_equal_apply_chat_template(tok, i):
    conv = CONVERSATIONS[i]
    ids = tok.encode_conversation(conv)
    ref = tok.hf.apply_chat_template(conv, add_generation_prompt=True, tokenize=True, return_dict=True)["input_ids"]
    assert ids == list(ref), f"conversation {i}: ids differ from apply_chat_template"
    assert tok.render(conv) == _chatml(conv), f"conversation {i}: template is not ChatML"
    # Special markers are single tokens, not spelled out in bytes.
    assert ids[0] == tok.hf.convert_tokens_to_ids("<|im_start|>")
    assert ids.count(tok.hf.convert_tokens_to_ids("<|im_end|>")) == len(conv)


@pytest.mark.parametrize("i", range(len(CONVERSATIONS)))
def test_tokenizer__decode_reproduces_text(tok, i):
    conv = CONVERSATIONS[i]
    assert tok.decode(tok.encode_conversation(conv)) == _chatml(conv), f"conversation {i}"
    body = conv[-1]["content"]
    assert tok.decode(tok.hf.encode(body, add_special_tokens=False)) == body


def test_tokenizer__decode_completion_drops_the_stop_token_only(tok):
    ids = tok.hf.encode("go <action>UP</action>", add_special_tokens=False)
    eos = tok.hf.convert_tokens_to_ids("<|im_end|>")
    assert tok.eos_token_ids == (eos,)
    assert tok.decode_completion(ids + [eos]) == "go <action>UP</action>"
    assert tok.decode_completion(ids) == "go <action>UP</action>"
    # ids past the tokenizer (the model's padded embedding rows) are dropped, not a crash
    assert tok.decode(ids + [len(tok) + 5]) == "go <action>UP</action>"


def test_tokenizer__eos_ids_come_from_generation_config(tiny_ckpt, tmp_path):
    for f in tiny_ckpt.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    gen = json.loads((tmp_path / "generation_config.json").read_text())
    gen["eos_token_id"] = [0, 2]
    (tmp_path / "generation_config.json").write_text(json.dumps(gen))
    assert set(load_tokenizer(tmp_path).eos_token_ids) == {0, 2}


def test_tokenizer__missing_chat_template_is_a_clear_error(tok):
    class NoTemplate:
        chat_template = None
        eos_token_id = 2
        pad_token_id = 0

    with pytest.raises(ValueError, match="chat template"):
        ChatTokenizer(NoTemplate(), source="some/ckpt")


def test_tokenizer__missing_directory_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "nope")):
        load_tokenizer(tmp_path / "nope")


def test_tokenizer__checkpoint_without_tokenizer_files_names_them_not_the_chat_template(tiny_ckpt, tmp_path):
    for name in ("config.json", "model.safetensors", "generation_config.json"):
        (tmp_path / name).write_bytes((tiny_ckpt / name).read_bytes())
    with pytest.raises(FileNotFoundError) as e:
        ChatTokenizer.from_pretrained(tmp_path)
    msg = str(e.value)
    assert "no tokenizer files" in msg and "tokenizer_config.json" in msg and "tokenizer.json" in msg
    assert "huggingface-cli download" in msg and "chat template" not in msg
    (tmp_path / "tokenizer.json").write_bytes((tiny_ckpt / "tokenizer.json").read_bytes())
    with pytest.raises(FileNotFoundError, match=r"\(tokenizer_config.json missing\)"):
        ChatTokenizer.from_pretrained(tmp_path)
