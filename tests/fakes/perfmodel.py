"""Performance model of the strict engine stand-ins (see README.md,
"Performance model").  How long a worker takes to answer a streaming
request, so that a benchmark against the stand-ins measures latency and
throughput curves with a real Pareto frontier.

Times are in seconds.  S = $FAKE_PERF_SCALE (default 1), tp = the worker's
tensor-parallel size, p = prompt tokens, n = requests in flight on the
worker (the one being timed included), T = tokens held in the KV cache of
the requests the worker is decoding (prompt + generated so far, summed):

    f(tp)       = tp ** E                              E   = 0.75
    prefill(p)  = S * (P0 + P1 * p) / f(tp)            P0  = 0.5 ms, P1 = 2.5 us/token
    step(n, T)  = S * D0 * (1 + n / K + T / C) / f(tp) D0  = 0.6 ms, K = 4, C = 16384
    kv(p)       = S * (X0 + X1 * p)                    X0  = 0.2 ms, X1 = 0.25 us/token

- Time to first token: a worker prefills one request at a time, first come
  first served, so a request waits for the prefills queued before it, then
  takes prefill(p).  The first token is out when its prefill ends.  In PD
  mode the prefill runs on the prefill worker; the decode worker emits the
  first token kv(p) after that prefill ended.
- Each further token takes step(n, T) (a decode step of the whole batch):
  it grows with the batch (n / K) and with the attention over every
  sequence in the batch (T / C).  A worker's output throughput,
  n / step(n, T), therefore rises with n and saturates at
  f(tp) / (S * D0 * (1 / K + L / C)) tokens/s (L: mean sequence length)
  while the time per token keeps growing linearly.
- f grows more slowly than tp (diminishing returns): TP 2 is 1.68x faster
  than TP 1 on 2x the GPUs, TP 4 2.83x on 4x, TP 8 4.76x on 8x.  More TP
  means lower latency and less throughput per GPU.

A 1024-token prompt with 128 output tokens at concurrency 1 on TP 1 takes
about 3 ms to its first token and 103 ms in all at S = 1.

$FAKE_PERF_JITTER (default 0.05) multiplies every prefill and step by a
uniform random factor in [1 - J, 1 + J]; 0 makes the model deterministic.
$FAKE_PERF_OFF=1 makes every time 0 (answers as fast as the host allows).

The functions below are pure; Load holds one worker's mutable state (the
in-flight requests and the prefill queue) behind a lock.

Python 3 standard library only.
"""

import os
import random
import threading
import time

E = 0.75
P0, P1 = 0.5e-3, 2.5e-6
D0, K, C = 0.6e-3, 4.0, 16384.0
X0, X1 = 0.2e-3, 0.25e-6


def tp_speedup(tp):
    """f(tp): how much faster a step runs on tp GPUs than on one."""
    return max(1, int(tp or 1)) ** E


def prefill_seconds(prompt_tokens, tp, scale=1.0):
    return scale * (P0 + P1 * max(0, prompt_tokens)) / tp_speedup(tp)


def step_seconds(inflight, kv_tokens, tp, scale=1.0):
    """One decode step (one output token for each request in the batch)."""
    return scale * D0 * (1.0 + max(1, inflight) / K + max(0, kv_tokens) / C) / tp_speedup(tp)


def kv_seconds(prompt_tokens, scale=1.0):
    """Moving a prompt's KV cache from a prefill to a decode worker."""
    return scale * (X0 + X1 * max(0, prompt_tokens))


def jittered(seconds, jitter, rng=random):
    if jitter <= 0 or seconds <= 0:
        return seconds
    return seconds * (1.0 + jitter * (2.0 * rng.random() - 1.0))


def settings(env=None):
    """(scale, jitter, off) from the environment."""
    env = os.environ if env is None else env

    def num(name, default):
        try:
            v = float(env.get(name, "").strip() or default)
        except ValueError:
            return default
        return v if v >= 0 else default

    off = env.get("FAKE_PERF_OFF", "").strip() not in ("", "0")
    return num("FAKE_PERF_SCALE", 1.0), num("FAKE_PERF_JITTER", 0.05), off


def prompt_tokens(body):
    """Token count of a request's prompt: whitespace-separated words of a
    text, the length of a list of token ids (first prompt of a batch)."""
    def count(x):
        if isinstance(x, str):
            return len(x.split())
        if isinstance(x, list):
            if x and isinstance(x[0], (list, str)):
                return count(x[0])
            return len(x)
        return 0

    if "messages" in body:
        total = 0
        for m in body.get("messages") or []:
            content = m.get("content") if isinstance(m, dict) else None
            if isinstance(content, list):       # [{"type": "text", "text": ...}]
                content = " ".join(part.get("text") or "" for part in content
                                   if isinstance(part, dict))
            total += count(content)
        return total
    for key in ("prompt", "text", "input_ids"):
        if key in body:
            return count(body[key])
    return 0


def max_tokens(body, default=16):
    """The output length asked for (the stand-in always generates exactly
    that many tokens, as with ignore_eos)."""
    for v in (body.get("max_completion_tokens"), body.get("max_tokens"),
              (body.get("sampling_params") or {}).get("max_new_tokens")
              if isinstance(body.get("sampling_params"), dict) else None):
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            return v
    return default


class Load:
    """One worker's in-flight requests and FCFS prefill queue."""

    def __init__(self, tp, env=None):
        self.tp = tp
        self.scale, self.jitter, self.off = settings(env)
        self.lock = threading.Lock()
        self.inflight = 0
        self.kv = {}                # request key -> tokens in its KV cache
        self.kv_total = 0           # their sum
        self.prefill_free = 0.0     # monotonic time the prefill queue drains
        self.rng = random.Random()

    def enter(self):
        with self.lock:
            self.inflight += 1

    def leave(self, key=None):
        with self.lock:
            self.inflight -= 1
            self.kv_total -= self.kv.pop(key, 0)

    def prefill_end(self, prompt):
        """Queue a prefill of `prompt` tokens; monotonic time it ends."""
        if self.off:
            return time.monotonic()
        with self.lock:
            d = jittered(prefill_seconds(prompt, self.tp, self.scale), self.jitter, self.rng)
            start = max(time.monotonic(), self.prefill_free)
            self.prefill_free = start + d
            return self.prefill_free

    def kv_delay(self, prompt):
        return 0.0 if self.off else kv_seconds(prompt, self.scale)

    def hold(self, key, tokens):
        """Request `key` now holds `tokens` tokens of KV cache."""
        with self.lock:
            self.kv_total += tokens - self.kv.get(key, 0)
            self.kv[key] = tokens

    def step(self):
        """Seconds of the next decode step at the current load."""
        if self.off:
            return 0.0
        with self.lock:
            n, t = self.inflight, self.kv_total
            return jittered(step_seconds(n, t, self.tp, self.scale), self.jitter, self.rng)


def sleep_until(deadline):
    d = deadline - time.monotonic()
    if d > 0:
        time.sleep(d)
