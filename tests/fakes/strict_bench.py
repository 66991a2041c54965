"""The benchmark stand-ins: `vllm bench serve` and srt-slurm's sa-bench
`benchmark_serving.py` (tests/fakes; see README.md, "Benchmark stand-ins").

Both parse their real flags (tables flags/vllm-bench-serve.flags and
flags/sa-bench.flags, argparse's errors and exit 2), then really run the
load: `--num-prompts` streaming POSTs to <base-url><endpoint> with at most
`--max-concurrency` in flight (and the warmup requests first), measure
TTFT, TPOT, ITL and E2EL from the stream as the real request functions do,
print the real stdout summary and, with --save-result, write the real
result JSON (same keys, same value types) to --result-dir/--result-filename.

The load generator speaks the OpenAI completions stream (`data: {...}`
lines, `data: [DONE]`); a server that answers one JSON body instead counts
as one chunk (TTFT = E2EL, no ITL), as the real tools would measure it.

Fault knobs (environment): FAKE_BENCH_FAIL_AT_CONCURRENCY, FAKE_BENCH_ZERO_OUTPUT[_AT_CONCURRENCY],
FAKE_BENCH_ERROR_RATIO, FAKE_BENCH_TRUNCATE, FAKE_BENCH_HANG[_AT_CONCURRENCY] (README.md).

Python 3 standard library only.
"""

import argparse
import http.client
import json
import math
import os
import random
import sys
import threading
import time
import urllib.parse
from datetime import datetime

import strict_cli
import flagdata


# ---------------------------------------------------------------------------
# Parsing

def build_vllm_bench(args):
    """`vllm bench serve ...` parsed as vLLM parses it: the top-level `vllm`
    parser reports unknown arguments."""
    top = argparse.ArgumentParser(prog="vllm", description="vLLM CLI")
    sub = top.add_subparsers(dest="subparser",
                             metavar="{%s}" % ",".join(strict_cli.VLLM_SUBCOMMANDS))
    bench = sub.add_parser("bench", prog="vllm bench")
    bsub = bench.add_subparsers(dest="bench_type")
    serve = bsub.add_parser("serve", prog="vllm bench serve")
    for row in flagdata.load("vllm-bench-serve"):
        strict_cli.add_row(serve, row)
    for name in ("latency", "throughput", "sweep", "startup", "mm-processor"):
        bsub.add_parser(name, prog="vllm bench " + name)
    ns = vars(top.parse_args(["bench"] + strict_cli.vllm_preprocess(args)))
    if ns.get("bench_type") != "serve":
        bench.print_usage(sys.stderr)
        bench.exit(2, "vllm bench %s: not imitated by the stand-in (only `vllm bench serve` is)\n"
                   % (ns.get("bench_type") or ""))
    return ns


def parse_sa_bench(args):
    return strict_cli.parse_argparse("sa-bench", "benchmark_serving.py", args)


# ---------------------------------------------------------------------------
# One request: the OpenAI completions stream, timed as the real tools time it

class Output:
    def __init__(self, prompt_len):
        self.prompt_len = prompt_len
        self.success = False
        self.ttft = 0.0
        self.itl = []
        self.latency = 0.0
        self.output_tokens = None
        self.chunks = 0
        self.text = ""
        self.error = ""
        self.start_time = 0.0


def send(url, body, prompt_len, timeout):
    out = Output(prompt_len)
    u = urllib.parse.urlsplit(url)
    st = time.perf_counter()
    out.start_time = st
    last = st
    try:
        conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=timeout)
        path = u.path + ("?" + u.query if u.query else "")
        conn.request("POST", path, json.dumps(body),
                     {"Content-Type": "application/json",
                      "Authorization": "Bearer %s" % os.environ.get("OPENAI_API_KEY")})
        resp = conn.getresponse()
        if resp.status != 200:
            out.error = resp.reason or ""
            resp.read()
            conn.close()
            return out
        first = True
        while True:
            line = resp.readline()
            if not line:
                break
            line = line.strip()
            if not line or line.startswith(b":") or line.startswith(b"event:"):
                continue
            chunk = line.decode("utf-8", "replace")
            if chunk.startswith("data: "):
                chunk = chunk[len("data: "):]
            elif chunk.startswith("data:"):
                chunk = chunk[len("data:"):]
            if chunk == "[DONE]":
                continue
            data = json.loads(chunk)
            choices = data.get("choices")
            if choices:
                now = time.perf_counter()
                if first:
                    first = False
                    out.ttft = now - st
                else:
                    out.itl.append(now - last)
                last = now
                out.chunks += 1
                out.text += choices[0].get("text") or ""
            usage = data.get("usage")
            if usage:
                out.output_tokens = usage.get("completion_tokens")
        conn.close()
        if first:
            out.error = ("Never received a valid chunk to calculate TTFT."
                         "This response will be marked as failed!")
            return out
        out.latency = last - st
        out.success = True
    except Exception as e:     # the real tools keep the traceback text
        out.error = "Traceback (most recent call last):\n%s: %s" % (type(e).__name__, e)
    return out


def run_load(url, model, lens, concurrency, ignore_eos, warmups, timeout=6 * 3600):
    """Send one request per (prompt_len, output_len) with at most
    `concurrency` in flight; returns (outputs, duration, peak in flight)."""
    ratio = float(os.environ.get("FAKE_BENCH_ERROR_RATIO") or 0)
    n_fail = int(round(ratio * len(lens)))
    sem = threading.Semaphore(concurrency or len(lens) or 1)
    lock = threading.Lock()
    state = {"in_flight": 0, "peak": 0}

    def body(pl, ol):
        b = {"model": model, "prompt": " ".join(["tok"] * pl), "max_tokens": ol,
             "temperature": 0.0, "stream": True, "stream_options": {"include_usage": True}}
        if ignore_eos:
            b["ignore_eos"] = True
        return b

    def one(i, pl, ol, results):
        with sem:
            with lock:
                state["in_flight"] += 1
                state["peak"] = max(state["peak"], state["in_flight"])
            if i < n_fail:
                o = Output(pl)
                o.error = "FAKE_BENCH_ERROR_RATIO: request %d failed on purpose" % i
            else:
                o = send(url, body(pl, ol), pl, timeout)
            with lock:
                state["in_flight"] -= 1
            if results is not None:
                results[i] = o

    def wave(items, results):
        threads = [threading.Thread(target=one, args=(i, pl, ol, results), daemon=True)
                   for i, (pl, ol) in enumerate(items)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    if warmups:
        wave([lens[0]] * warmups, None)
        state["peak"] = 0
    outputs = [None] * len(lens)
    t0 = time.perf_counter()
    wave(lens, outputs)
    return outputs, time.perf_counter() - t0, state["peak"]


# ---------------------------------------------------------------------------
# Metrics, as calculate_metrics computes them

def percentile(values, p):
    """numpy.percentile's default (linear interpolation); 0 when empty."""
    if not values:
        return 0.0
    v = sorted(values)
    k = (len(v) - 1) * p / 100.0
    lo = math.floor(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def mean(values):
    return sum(values) / len(values) if values else 0.0


def std(values):
    if not values:
        return 0.0
    m = mean(values)
    return math.sqrt(sum((x - m) ** 2 for x in values) / len(values))


def metrics(outputs, duration, zero_output):
    lens, ttfts, tpots, itls, e2els = [], [], [], [], []
    total_in = completed = 0
    for o in outputs:
        if not o.success:
            lens.append(0)
            continue
        n = o.output_tokens if o.output_tokens is not None else o.chunks
        if zero_output:
            n = 0
        lens.append(n)
        total_in += o.prompt_len
        if n > 1:
            tpots.append((o.latency - o.ttft) / (n - 1))
        itls += o.itl
        ttfts.append(o.ttft)
        e2els.append(o.latency)
        completed += 1
    total_out = sum(lens)
    return {"completed": completed, "failed": len(outputs) - completed, "total_input": total_in,
            "total_output": total_out, "lens": lens, "request_throughput": completed / duration,
            "output_throughput": total_out / duration,
            "total_token_throughput": (total_in + total_out) / duration,
            "values": {"ttft": ttfts, "tpot": tpots, "itl": itls, "e2el": e2els}}


HEADERS = {"ttft": ("TTFT", "Time to First Token"),
           "tpot": ("TPOT", "Time per Output Token (excl. 1st token)"),
           "itl": ("ITL", "Inter-token Latency"),
           "e2el": ("E2EL", "End-to-end Latency")}


def p_word(p):
    return str(int(p)) if int(p) == p else str(p)


def add_metric_stats(result, m, selected, percentiles):
    """Print each selected metric's section and add its keys to result."""
    for name in ("ttft", "tpot", "itl", "e2el"):
        if name not in selected:
            continue
        label, header = HEADERS[name]
        vals = m["values"][name]
        print("{s:{c}^{n}}".format(s=header, n=50, c="-"))
        print("{:<40} {:<10.2f}".format("Mean %s (ms):" % label, mean(vals) * 1000))
        print("{:<40} {:<10.2f}".format("Median %s (ms):" % label, percentile(vals, 50) * 1000))
        result["mean_%s_ms" % name] = mean(vals) * 1000
        result["median_%s_ms" % name] = percentile(vals, 50) * 1000
        result["std_%s_ms" % name] = std(vals) * 1000
        for p in percentiles:
            value = percentile(vals, p) * 1000
            print("{:<40} {:<10.2f}".format("P%s %s (ms):" % (p_word(p), label), value))
            result["p%s_%s_ms" % (p_word(p), name)] = value


def peak_tokens_per_s(outputs):
    """Output tokens per 1-second bucket of the run, the busiest one."""
    ok = [o for o in outputs if o.success]
    if not ok:
        return 0.0
    t0 = min(o.start_time for o in ok)
    buckets = {}
    for o in ok:
        t = o.start_time + o.ttft
        for k, gap in enumerate([0.0] + o.itl):
            t += gap
            buckets[int(t - t0)] = buckets.get(int(t - t0), 0) + 1
    return float(max(buckets.values()))


# ---------------------------------------------------------------------------
# Faults and the run

def at_concurrency(ns, knob):
    """Is the knob on for this run: KNOB set, or KNOB_AT_CONCURRENCY the run's --max-concurrency?"""
    if os.environ.get(knob) not in (None, "", "0"):
        return True
    at = os.environ.get(knob + "_AT_CONCURRENCY")
    return bool(at) and ns.get("max_concurrency") is not None and int(at) == ns["max_concurrency"]


def faults_before_load(ns):
    at = os.environ.get("FAKE_BENCH_FAIL_AT_CONCURRENCY")
    if at and ns.get("max_concurrency") is not None and int(at) == ns["max_concurrency"]:
        sys.stderr.write("Traceback (most recent call last):\n"
                         "RuntimeError: FAKE_BENCH_FAIL_AT_CONCURRENCY=%s: failing on purpose\n" % at)
        sys.exit(1)
    if at_concurrency(ns, "FAKE_BENCH_HANG"):
        sys.stdout.write("FAKE_BENCH_HANG: sleeping until killed\n")
        sys.stdout.flush()
        while True:
            time.sleep(3600)
    hold = os.environ.get("FAKE_BENCH_HOLD_FILE")
    if hold and at_concurrency(ns, "FAKE_BENCH_HOLD"):
        # Held while the file exists (at most 10 minutes): a test decides when this point may run.
        sys.stdout.write("FAKE_BENCH_HOLD: waiting while %s exists\n" % hold)
        sys.stdout.flush()
        for _ in range(6000):
            if not os.path.exists(hold):
                break
            time.sleep(0.1)


def sample_lens(ns, range_ratio_low):
    """(prompt_len, output_len) per prompt: random lengths in the tool's
    range around --random-input-len/--random-output-len."""
    rng = random.Random(ns.get("seed") or 0)
    isl, osl, r = ns["random_input_len"], ns["random_output_len"], ns["random_range_ratio"]
    out = []
    for _ in range(ns["num_prompts"]):
        lo_i, hi_i, lo_o, hi_o = range_ratio_low(isl, osl, r)
        out.append((rng.randint(lo_i, hi_i), rng.randint(lo_o, hi_o)))
    return out


def write_result(path, result):
    text = json.dumps(result)
    if os.environ.get("FAKE_BENCH_TRUNCATE") not in (None, "", "0"):
        text = text[:len(text) // 2]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def record(tool, ns):
    d = os.environ.get("FAKE_RECORD_DIR")
    if d:
        import strict_engine
        strict_engine.FE.append_line(os.path.join(d, "bench.jsonl"),
                                     {"prog": tool, "pid": os.getpid(), "argv": sys.argv,
                                      "options": ns, "time": time.time()})


def add_traffic(result, ns):
    """--metadata KEY=VALUE pairs, then the traffic keys, as both tools save them."""
    for item in ns["metadata"] or []:
        k, _, v = item.partition("=")
        result[k.strip()] = v.strip()
    result["request_rate"] = ns["request_rate"] if ns["request_rate"] < float("inf") else "inf"
    result["burstiness"] = ns["burstiness"]
    result["max_concurrency"] = ns["max_concurrency"]


def print_head(m, duration, max_concurrency, request_rate, vllm_style):
    print("{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
    print("{:<40} {:<10}".format("Successful requests:", m["completed"]))
    if vllm_style:
        print("{:<40} {:<10}".format("Failed requests:", m["failed"]))
        if max_concurrency is not None:
            print("{:<40} {:<10}".format("Maximum request concurrency:", max_concurrency))
        if request_rate != float("inf"):
            print("{:<40} {:<10.2f}".format("Request rate configured (RPS):", request_rate))
    print("{:<40} {:<10.2f}".format("Benchmark duration (s):", duration))
    print("{:<40} {:<10}".format("Total input tokens:", m["total_input"]))
    print("{:<40} {:<10}".format("Total generated tokens:", m["total_output"]))
    print("{:<40} {:<10.2f}".format("Request throughput (req/s):", m["request_throughput"]))
    print("{:<40} {:<10.2f}".format("Output token throughput (tok/s):", m["output_throughput"]))


def main_vllm_bench(args):
    """`vllm bench serve ARGS` (args after `bench`)."""
    ns = build_vllm_bench(args)
    record("vllm bench serve", ns)
    faults_before_load(ns)
    if ns["input_len"] is not None:
        ns["random_input_len"] = ns["input_len"]
    if ns["output_len"] is not None:
        ns["random_output_len"] = ns["output_len"]
    if ns["dataset_name"] != "random":
        sys.stderr.write("vllm bench serve: the stand-in generates only --dataset-name random\n")
        return 1
    if ns["max_concurrency"] is not None and ns["max_concurrency"] <= 0:
        sys.stderr.write("ValueError: --max-concurrency must be greater than 0\n")
        return 1
    if not 0.0 <= ns["random_range_ratio"] < 1.0:
        sys.stderr.write("ValueError: range_ratio must be in [0, 1).\n")
        return 1
    print(argparse.Namespace(**ns))
    base = ns["base_url"] or "http://%s:%d" % (ns["host"], ns["port"])
    model = ns["model"] or "unknown"
    lens = sample_lens(ns, lambda i, o, r: (math.floor(i * (1 - r)), math.ceil(i * (1 + r)),
                                            max(math.floor(o * (1 - r)), 1),
                                            max(math.ceil(o * (1 + r)), 1)))
    # random datasets with an OpenAI-compatible backend always ignore EOS
    outputs, duration, peak = run_load(base + ns["endpoint"], ns["served_model_name"] or model,
                                       lens, ns["max_concurrency"], True, ns["num_warmups"])
    m = metrics(outputs, duration, at_concurrency(ns, "FAKE_BENCH_ZERO_OUTPUT"))
    print_head(m, duration, ns["max_concurrency"], ns["request_rate"], True)
    peak_tps = peak_tokens_per_s(outputs)
    print("{:<40} {:<10.2f}".format("Peak output token throughput (tok/s):", peak_tps))
    print("{:<40} {:<10.2f}".format("Peak concurrent requests:", peak))
    print("{:<40} {:<10.2f}".format("Total token throughput (tok/s):", m["total_token_throughput"]))
    result = {"date": datetime.now().strftime("%Y%m%d-%H%M%S"), "endpoint_type": ns["backend"],
              "backend": ns["backend"], "label": ns["label"], "model_id": model,
              "tokenizer_id": ns["tokenizer"] if ns["tokenizer"] is not None else model,
              "num_prompts": ns["num_prompts"]}
    add_traffic(result, ns)
    result.update({
        "duration": duration, "completed": m["completed"], "failed": m["failed"],
        "total_input_tokens": m["total_input"], "total_output_tokens": m["total_output"],
        "request_throughput": m["request_throughput"], "request_goodput": None,
        "output_throughput": m["output_throughput"],
        "total_token_throughput": m["total_token_throughput"],
        "input_lens": [o.prompt_len for o in outputs], "output_lens": m["lens"],
        "ttfts": [o.ttft for o in outputs], "itls": [o.itl for o in outputs],
        "latencies": [o.latency for o in outputs], "start_times": [o.start_time for o in outputs],
        "queue_times": [0.0 for _ in outputs], "generated_texts": [o.text for o in outputs],
        "errors": [o.error for o in outputs], "max_output_tokens_per_s": peak_tps,
        "max_concurrent_requests": peak, "rtfx": 0.0})
    selected = (ns["percentile_metrics"] or "ttft,tpot,itl").split(",")
    add_metric_stats(result, m, selected, [float(p) for p in ns["metric_percentiles"].split(",")])
    print("=" * 50)
    if not ns["save_detailed"]:
        for k in ("input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts",
                  "errors"):
            del result[k]
    if ns["save_result"] or ns["append_result"]:
        name = ns["result_filename"] or "%s-%sqps-%s-%s.json" % (
            ns["label"] or ns["backend"], ns["request_rate"], model.split("/")[-1], result["date"])
        if ns["result_dir"]:
            os.makedirs(ns["result_dir"], exist_ok=True)
            name = os.path.join(ns["result_dir"], name)
        write_result(name, result)
    return 0


def main_sa_bench(args):
    """srt-slurm's sa-bench `benchmark_serving.py ARGS`."""
    ns = parse_sa_bench(args)
    record("sa-bench", ns)
    faults_before_load(ns)
    print(argparse.Namespace(**ns))
    if ns["dataset_name"] != "random":
        sys.stderr.write("benchmark_serving.py: the stand-in generates only --dataset-name random\n")
        return 1
    if ns["api_urls"]:
        url = ns["api_urls"][0][0]
    elif ns["base_url"] is not None:
        url = ns["base_url"] + ns["endpoint"]
    else:
        url = "http://%s:%d%s" % (ns["host"], ns["port"], ns["endpoint"])
    lens = sample_lens(ns, lambda i, o, r: (int(i * r) if i > 1 else 1, i,
                                            int(o * r) if o > 1 else 1, o))
    model = ns["served_model_name"] or ns["model"]
    print("Starting initial single prompt test run...")
    test = send(url, {"model": model, "prompt": "tok " * lens[0][0], "max_tokens": lens[0][1],
                      "temperature": 0.0, "stream": True,
                      "stream_options": {"include_usage": True}}, lens[0][0], 600)
    if not test.success:
        sys.stderr.write("ValueError: Initial test run failed - Please make sure benchmark "
                         "arguments are correctly specified. url=%s Error: %s\n" % (url, test.error))
        return 1
    print("Initial test run completed. Starting main benchmark run...")
    print("Traffic request rate: %s" % ns["request_rate"])
    print("Maximum request concurrency: %s" % ns["max_concurrency"])
    outputs, duration, _ = run_load(url, model, lens, ns["max_concurrency"], ns["ignore_eos"], 0)
    m = metrics(outputs, duration, at_concurrency(ns, "FAKE_BENCH_ZERO_OUTPUT"))
    print_head(m, duration, None, None, False)
    peak_tps = peak_tokens_per_s(outputs)
    print("{:<40} {:<10.2f}".format("Peak output token throughput (tok/s):", peak_tps))
    print("{:<40} {:<10.2f}".format("Total Token throughput (tok/s):", m["total_token_throughput"]))
    result = {"duration": duration, "completed": m["completed"],
              "total_input_tokens": m["total_input"], "total_output_tokens": m["total_output"],
              "request_throughput": m["request_throughput"], "request_goodput": None,
              "output_throughput": m["output_throughput"], "peak_output_tokens_per_s": peak_tps,
              "total_token_throughput": m["total_token_throughput"],
              "input_lens": [o.prompt_len for o in outputs], "output_lens": m["lens"],
              "ttfts": [o.ttft for o in outputs], "itls": [o.itl for o in outputs],
              "generated_texts": [o.text for o in outputs], "errors": [o.error for o in outputs]}
    add_metric_stats(result, m, ns["percentile_metrics"].split(","),
                     [float(p) for p in ns["metric_percentiles"].split(",")])
    print("=" * 50)
    if ns["save_result"]:
        head = {"date": datetime.now().strftime("%Y%m%d-%H%M%S"), "backend": ns["backend"],
                "model_id": ns["model"],
                "tokenizer_id": ns["tokenizer"] if ns["tokenizer"] is not None else ns["model"],
                "best_of": ns["best_of"], "num_prompts": ns["num_prompts"]}
        add_traffic(head, ns)
        name = ns["result_filename"] or "%s-%sqps%s-%s-%s.json" % (
            ns["backend"], ns["request_rate"],
            "-concurrency%s" % ns["max_concurrency"] if ns["max_concurrency"] is not None else "",
            ns["model"].split("/")[-1], head["date"])
        if ns["result_dir"]:
            name = os.path.join(ns["result_dir"], name)
        write_result(name, {**head, **result})
    return 0
