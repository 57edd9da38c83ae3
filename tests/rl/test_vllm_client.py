"""VLLMPolicy against the in-process fake OpenAI server: parsing, retries, clear errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_openai import EOS, FakeOpenAIServer, Fault, decode, encode, fake_logprob, free_port, template  # noqa: E402

from rl.policies.base import FINISH_LENGTH, FINISH_STOP, SamplingParams  # noqa: E402
from rl.policies.vllm import PolicyServerError, VLLMPolicy  # noqa: E402

CONV = [{"role": "system", "content": "rules"}, {"role": "user", "content": "obs ↑"}]
NO_SLEEP = dict(sleep=lambda s: None)


def echo_last(body, n):
    return f"reply {n}: <action>UP</action>"


def test_complete__returns_ids_logprobs_and_text_of_the_wire_reply():
    with FakeOpenAIServer(lambda b, n: "go <action>LEFT</action>") as srv:
        pol = VLLMPolicy(srv.url, "fake-model", **NO_SLEEP)
        (c,) = pol.complete([CONV], SamplingParams(max_new_tokens=64))
    expected_ids = encode("go <action>LEFT</action>") + [EOS]
    assert c.completion_ids == expected_ids
    assert c.prompt_ids == encode(template(CONV))
    assert c.logprobs == [fake_logprob(i, t) for i, t in enumerate(expected_ids)]
    assert c.text == "go <action>LEFT</action>" == decode(c.completion_ids)
    assert c.finish_reason == FINISH_STOP and not c.truncated
    assert pol.max_model_len == 4096


def test_complete__sends_sampling_params_and_token_id_extensions():
    with FakeOpenAIServer(echo_last) as srv:
        pol = VLLMPolicy(srv.url, "fake-model", chat_template_kwargs={"enable_thinking": False}, **NO_SLEEP)
        pol.complete([CONV], SamplingParams(temperature=0.7, top_p=0.9, top_k=5, max_new_tokens=33, seed=4))
        body = [b for p, b in srv.requests if p == "/v1/chat/completions"][0]
    assert body["max_tokens"] == 33 and body["temperature"] == 0.7 and body["top_p"] == 0.9
    assert body["top_k"] == 5 and body["logprobs"] is True and body["return_token_ids"] is True
    assert body["return_tokens_as_token_ids"] is True
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["messages"] == CONV
    assert "seed" not in body  # unseeded by default (vLLM CPU crashes on seeded chunked prefill)


def test_seeded_policy__sends_one_seed_per_request_position():
    with FakeOpenAIServer(echo_last) as srv:
        pol = VLLMPolicy(srv.url, seeded=True, concurrency=1, **NO_SLEEP)
        pol.complete([CONV, CONV, CONV], SamplingParams(max_new_tokens=8, seed=4))
        seeds = [b["seed"] for p, b in srv.requests if p == "/v1/chat/completions"]
    assert seeds == [4 * 1_000_003 + i for i in range(3)]


def test_complete__keeps_batch_order_under_concurrency():
    convs = [[{"role": "user", "content": f"episode {i}"}] for i in range(40)]

    def answer(body, n):
        return "answer to " + body["messages"][-1]["content"]

    with FakeOpenAIServer(answer) as srv:
        pol = VLLMPolicy(srv.url, concurrency=8, **NO_SLEEP)  # model=None takes the only one
        outs = pol.complete(convs, SamplingParams(max_new_tokens=64))
    assert [o.text for o in outs] == [f"answer to episode {i}" for i in range(40)]
    assert pol.model == "fake-model"


def test_complete__length_finish_marks_truncation():
    with FakeOpenAIServer(lambda b, n: "x" * 100) as srv:
        (c,) = VLLMPolicy(srv.url, **NO_SLEEP).complete([CONV], SamplingParams(max_new_tokens=10))
    assert c.finish_reason == FINISH_LENGTH and c.truncated and len(c.completion_ids) == 10


@pytest.mark.parametrize("fault", ["http500", "garbage", "truncated_json", "drop"])
def test_transient_fault__is_retried_then_succeeds(fault):
    def flaky(body, n):
        return Fault(fault) if n < 2 else "<action>UP</action>"

    with FakeOpenAIServer(flaky) as srv:
        pol = VLLMPolicy(srv.url, retries=3, **NO_SLEEP)
        (c,) = pol.complete([CONV], SamplingParams(max_new_tokens=64))
        assert c.text == "<action>UP</action>", fault
        assert srv.chat_count == 3, f"{fault}: expected 2 failed attempts then a success"


@pytest.mark.parametrize("fault,words", [("http500", "HTTP 500"), ("garbage", "malformed JSON"),
                                         ("truncated_json", "malformed JSON"), ("drop", "connect")])
def test_lasting_fault__raises_policy_server_error_naming_url_and_fault(fault, words):
    with FakeOpenAIServer(lambda b, n: Fault(fault)) as srv:
        pol = VLLMPolicy(srv.url, retries=2, **NO_SLEEP)
        with pytest.raises(PolicyServerError) as err:
            pol.complete([CONV], SamplingParams(max_new_tokens=8))
        assert srv.chat_count == 3, f"{fault}: 1 try + 2 retries"
    msg = str(err.value)
    assert srv.url in msg and words in msg and "3 attempts" in msg, msg


def test_timeout__is_retried_then_clear_error():
    with FakeOpenAIServer(lambda b, n: Fault("slow", 1.0)) as srv:
        pol = VLLMPolicy(srv.url, retries=1, timeout=0.2, **NO_SLEEP)
        with pytest.raises(PolicyServerError, match="timeout") as err:
            pol.complete([CONV], SamplingParams(max_new_tokens=8))
        assert srv.chat_count == 2
    assert srv.url in str(err.value)


def test_backoff__grows_exponentially_up_to_the_cap():
    waits = []
    with FakeOpenAIServer(lambda b, n: Fault("http500")) as srv:
        pol = VLLMPolicy(srv.url, retries=5, backoff=0.5, max_backoff=3.0, sleep=waits.append)
        with pytest.raises(PolicyServerError):
            pol.complete([CONV], SamplingParams(max_new_tokens=8))
    assert waits == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_client_error__is_not_retried():
    with FakeOpenAIServer(lambda b, n: Fault("http400")) as srv:
        pol = VLLMPolicy(srv.url, retries=3, **NO_SLEEP)
        with pytest.raises(PolicyServerError, match="HTTP 400.*bad request from the test"):
            pol.complete([CONV], SamplingParams(max_new_tokens=8))
        assert srv.chat_count == 1


def test_unreachable_server__fails_at_start_with_url_and_hint():
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(PolicyServerError) as err:
        VLLMPolicy(url, "m", **NO_SLEEP)
    msg = str(err.value)
    assert url in msg and "launch_vllm.py" in msg and "connect" in msg, msg


def test_refused_connection_mid_run__retried_then_clear_error():
    with FakeOpenAIServer(echo_last) as srv:
        pol = VLLMPolicy(srv.url, retries=2, **NO_SLEEP)
    # the server is gone now: every attempt is refused
    with pytest.raises(PolicyServerError, match="3 attempts: cannot connect") as err:
        pol.complete([CONV], SamplingParams(max_new_tokens=8))
    assert srv.url in str(err.value)


def test_wrong_model__fails_at_start_naming_served_models():
    with FakeOpenAIServer(echo_last, model="served-one") as srv:
        with pytest.raises(PolicyServerError, match="serves \\['served-one'\\], not the requested model 'other'"):
            VLLMPolicy(srv.url, "other", **NO_SLEEP)


def test_count_tokens__matches_prompt_ids_of_a_completion():
    with FakeOpenAIServer(echo_last) as srv:
        pol = VLLMPolicy(srv.url, **NO_SLEEP)
        (n,) = pol.count_tokens([CONV])
        (c,) = pol.complete([CONV], SamplingParams(max_new_tokens=64))
    assert n == len(c.prompt_ids) == len(encode(template(CONV)))


def test_weight_reload_helpers__post_the_dev_mode_endpoints():
    with FakeOpenAIServer(echo_last) as srv:
        pol = VLLMPolicy(srv.url, **NO_SLEEP)
        pol.pause()
        pol.reload_weights("/ckpt/step-10")
        pol.resume()
        posts = [(p, b) for p, b in srv.requests if p in ("/pause", "/collective_rpc", "/resume")]
    assert posts == [("/pause", {}),
                     ("/collective_rpc", {"method": "reload_weights", "kwargs": {"weights_path": "/ckpt/step-10"}}),
                     ("/resume", {})]


def test_no_server__hint_names_the_real_config_key():
    with pytest.raises(PolicyServerError) as e:  # nothing listens on a fresh free port
        VLLMPolicy(f"http://127.0.0.1:{free_port()}", "m", retries=0, **NO_SLEEP)
    assert "server.url=" in str(e.value) and "policy.server.url" not in str(e.value)


def test_make_policy__vllm_without_url_names_the_real_config_key():
    from rl.llm_eval import make_policy
    with pytest.raises(ValueError) as e:
        make_policy("vllm", model="m")
    assert "server.url=" in str(e.value) and "policy.server.url" not in str(e.value)
