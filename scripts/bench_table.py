#!/usr/bin/env python3
"""Turns cpuml_bench's JSON (--benchmark_out) into the README's tables: medians only.
Usage: python3 scripts/bench_table.py results.json"""
import json
import re
import sys


def medians(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name", "median") != "median":
            continue
        name = re.sub(r"(/real_time)?(_median)?$", "", b["run_name"] if "run_name" in b else b["name"])
        rows[name] = b
    return data.get("context", {}), rows


def fmt(b, key):
    if b is None or key not in b:
        return "-"
    value = f"{b[key]:.0f}" if b[key] >= 10 else f"{b[key]:.1f}"
    label = b.get("label", "")
    return value + (" (inexact)" if "INEXACT" in label else "")


def main():
    context, rows = medians(sys.argv[1])
    print(f"Host: {context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs, "
          f"date {context.get('date', '?')}; medians of the repetitions.\n")
    tier = next((b.get("label", "").split(", ")[-1] for n, b in rows.items() if n.startswith("qgemm/cpuml/")), "?")
    shapes = sorted({re.search(r"/(\d+x\d+x\d+)/", n).group(1) for n in rows if n.startswith("qgemm/")},
                    key=lambda s: [int(x) for x in s.split("x")])
    threads = sorted({int(re.search(r"threads:(\d+)", n).group(1)) for n in rows if n.startswith("qgemm/")})
    cols = [("cpuml", "u8s8"), ("cpuml_scratch", "u8s8"), ("cpuml", "u8u8"), ("cpuml", "s8s8"), ("cpuml", "s8u8"),
            ("cpuml", "u8s7"), ("onednn", "u8s8"), ("onednn", "s8s8"), ("onednn", "u8s7"), ("xnnpack", "u8u8"),
            ("xnnpack", "s8s8")]
    cols = [c for c in cols if any(n.startswith(f"qgemm/{c[0]}/{c[1]}/") for n in rows)]
    print(f"Quantized matmul, GOPS (2*M*N*K/s); cpuml tier {tier}; every cpuml result is exact. u8s7: u8 A,"
          " s8 B within [-64, 63] (reduce-range weights, owned by the operator).\n")
    print("| M x K x N | threads | " + " | ".join(f"{lib} {types}" for lib, types in cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    for s in shapes:
        for t in threads:
            cells = [fmt(rows.get(f"qgemm/{lib}/{types}/{s}/threads:{t}"), "GOPS") for lib, types in cols]
            print(f"| {s} | {t} | " + " | ".join(cells) + " |")
    # Same-run ratios: cpuml over each peer for the same operand types, shape and threads.
    pairs = [(("cpuml", "u8s8"), ("onednn", "u8s8")), (("cpuml", "s8s8"), ("onednn", "s8s8")),
             (("cpuml", "u8u8"), ("xnnpack", "u8u8")),
             (("cpuml", "s8s8"), ("xnnpack", "s8s8"))]
    pairs = [p for p in pairs if p[0] in cols and p[1] in cols]
    if pairs:
        print("\nSame-run ratios, cpuml / peer (above 1: cpuml faster):\n")
        print("| M x K x N | threads | " + " | ".join(f"{a[1]} / {b[0]} {b[1]}" for a, b in pairs) + " |")
        print("|---|---|" + "---|" * len(pairs))
        for s in shapes:
            for t in threads:
                cells = []
                for a, b in pairs:
                    x, y = rows.get(f"qgemm/{a[0]}/{a[1]}/{s}/threads:{t}"), rows.get(f"qgemm/{b[0]}/{b[1]}/{s}/threads:{t}")
                    cells.append(f"{x['GOPS'] / y['GOPS']:.2f}" if x and y and "GOPS" in x and "GOPS" in y else "-")
                print(f"| {s} | {t} | " + " | ".join(cells) + " |")
    # The dynamic int8 path: float A quantized at run time, float out (bench/dynamic_quant_bench.cc).
    dynamic_types = [t for t in ("u8s8", "s8s8") if any(n.startswith(f"dqmatmul/cpuml/{t}/") for n in rows)]
    if dynamic_types:
        print("\nDynamic int8 path, GOPS: dqmatmul = DYNAMIC_QUANTIZE_LINEAR + MATRIX_MULTIPLY_INTEGER_TO_FLOAT (float in,"
              " float out); i2f = MATRIX_MULTIPLY_INTEGER_TO_FLOAT alone, against cpuml's QLinearMatMul (qgemm) and"
              " oneDNN's int8 matmul with a float destination (A already quantized) in the same run:\n")
        print("| M x K x N | threads | types | dqmatmul | i2f | qgemm | oneDNN i2f | i2f / qgemm | dqmatmul / oneDNN i2f |")
        print("|---|---|---|---|---|---|---|---|---|")
        dyn_shapes = sorted({re.search(r"/(\d+x\d+x\d+)/", n).group(1) for n in rows if n.startswith("dqmatmul/")},
                            key=lambda s: [int(x) for x in s.split("x")])
        for sh in dyn_shapes:
            for t in threads:
                for types in dynamic_types:
                    get = lambda name: rows.get(f"{name}/{types}/{sh}/threads:{t}")
                    dq, i2f, q, dnn = get("dqmatmul/cpuml"), get("i2f/cpuml"), get("qgemm/cpuml"), get("i2f/onednn")
                    ratio = lambda x, y: f"{x['GOPS'] / y['GOPS']:.2f}" if x and y and "GOPS" in x and "GOPS" in y else "-"
                    print(f"| {sh} | {t} | {types} | {fmt(dq, 'GOPS')} | {fmt(i2f, 'GOPS')} | {fmt(q, 'GOPS')} | "
                          f"{fmt(dnn, 'GOPS')} | {ratio(i2f, q)} | {ratio(dq, dnn)} |")
    quantize = sorted(n for n in rows if n.startswith("dql/"))
    if quantize:
        print("\nDYNAMIC_QUANTIZE_LINEAR, FLOAT32 to UINT8, GB/s of input against the read probe of the same 64 MiB "
              "(per tensor reads the input twice, so its bound is half the probe):\n")
        print("| mode | threads | GB/s | read probe GB/s | fraction |")
        print("|---|---|---|---|---|")
        for n in quantize:
            mode, t = n.split("/")[2], n.split("threads:")[1]
            probe = rows.get(f"read_bandwidth/64MiB/threads:{t}")
            fraction = f"{rows[n]['GB/s'] / probe['GB/s']:.2f}" if probe and "GB/s" in probe and "GB/s" in rows[n] else "-"
            print(f"| {mode} | {t} | {fmt(rows[n], 'GB/s')} | {fmt(probe, 'GB/s')} | {fraction} |")
    kernels = sorted({n.split("/")[1] for n in rows if n.startswith("qgemm/") and "__" in n.split("/")[1]})
    if kernels:
        print("\nEvery registered kernel this CPU runs, u8s8 (u8s7 for kernels that need 7-bit B), 1 thread, GOPS"
              " (one process):\n")
        print("| kernel | " + " | ".join(shapes) + " |")
        print("|---|" + "---|" * len(shapes))
        for k in kernels:
            cells = [fmt(rows.get(f"qgemm/{k}/u8s8/{s}/threads:1") or rows.get(f"qgemm/{k}/u8s7/{s}/threads:1"), "GOPS")
                     for s in shapes]
            print(f"| {k} | " + " | ".join(cells) + " |")
    peaks = [(n, b) for n, b in rows.items() if n.startswith("isa_peak/")]
    if peaks:
        def probe_label(name):
            threads = name.split("threads:")[1] if "threads:" in name else "1"
            return f"{name.split('/')[1]} ({threads} thread{'' if threads == '1' else 's'})"
        print("\nInstruction peaks (independent accumulator chains): " +
              "; ".join(f"{probe_label(n)} {b['GOPS']:.0f} GOPS" for n, b in peaks))
    reads = [(n, b) for n, b in rows.items() if n.startswith("read_bandwidth/")]
    if reads:
        print("\nM = 1 against the read-bandwidth probes (B's bytes streamed by vector loads, same size; "
              "plain loads, and loads with requests into L2 ahead): B bytes per second of cpuml u8s8 / the "
              "faster probe's GB/s\n")
        print("| shape | threads | cpuml u8s8 B GB/s | read probe GB/s | with L2 requests GB/s | fraction |")
        print("|---|---|---|---|---|---|")
        for n, b in sorted(reads):
            parts = n.split("/")
            shape, t = parts[1], n.split("threads:")[1]
            if shape.count("x") != 2 or len(parts) != 3:
                continue  # the quantization probe (64MiB), the 4-bit and model probes, the L2 loop
            m, k, nn = (int(x) for x in shape.split("x"))
            mm = rows.get(f"qgemm/cpuml/u8s8/{shape}/threads:{t}")
            if mm is None or "GOPS" not in mm:
                continue
            b_rate = mm["GOPS"] / (2 * m)  # GB/s of B: each byte of B is one MAC per row of A
            l2 = rows.get(f"read_bandwidth/{shape}/l2_prefetch/threads:{t}")
            l2_rate = l2["GB/s"] if l2 and "GB/s" in l2 else 0.0
            best = max(b["GB/s"], l2_rate)
            print(f"| {shape} | {t} | {b_rate:.1f} | {b['GB/s']:.1f} | {fmt(l2, 'GB/s')} | {b_rate / best:.2f} |")
    # Decode against probes of its own bytes (4-bit shapes, decoder-layer presets): the probe reads
    # as many bytes as the operator's B, so the fraction is the probe's time over the operator's.
    def seconds(b):
        return b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
    decode = []
    for n, b in sorted(rows.items()):
        m = re.match(r"dqmatmul/cpuml/(\w+)/(1x\d+x\d+)/(block:\d+)/threads:(\d+)$", n)
        if m:
            decode.append((n, b, f"read_bandwidth/{m.group(1)}/{m.group(2)}/{m.group(3)}", m.group(4)))
        m = re.match(r"model/cpuml/(\w+)/(.+)/M:1/threads:(\d+)$", n)
        if m:
            decode.append((n, b, f"read_bandwidth/model/{m.group(1)}/{m.group(2)}", m.group(3)))
    decode = [(n, b, p, t) for n, b, p, t in decode if f"{p}/threads:{t}" in rows]
    if decode:
        print("\nDecode against read probes of the same bytes: the operator's time, the plain probe's, the probe's "
              "with requests into L2 ahead, and the faster probe's time over the operator's\n")
        print("| case | operator us | read probe us | with L2 requests us | fraction |")
        print("|---|---|---|---|---|")
        for n, b, p, t in decode:
            plain, l2 = rows[f"{p}/threads:{t}"], rows.get(f"{p}/l2_prefetch/threads:{t}")
            best = min(seconds(plain), seconds(l2) if l2 else float("inf"))
            l2_us = f"{seconds(l2) * 1e6:.0f}" if l2 else "-"
            print(f"| {n} | {seconds(b) * 1e6:.0f} | {seconds(plain) * 1e6:.0f} | {l2_us} | {best / seconds(b):.2f} |")
    fills = [(n, b) for n, b in rows.items() if n.startswith("fill/")]
    if fills:
        print("\nFills, GB/s written (1 thread unless noted):\n")
        sizes = ["4KiB", "256KiB", "64MiB"]
        kinds = sorted({n.split("/")[1] for n, _ in fills})
        print("| fill | " + " | ".join(sizes) + " |")
        print("|---|" + "---|" * len(sizes))
        for k in kinds:
            print(f"| {k} | " + " | ".join(fmt(rows.get(f"fill/{k}/{s}"), "GB/s") for s in sizes) + " |")
        for n, b in fills:
            if "threads:" in n:
                print(f"| {n.split('/')[1]} (2 threads) | - | - | {fmt(b, 'GB/s')} |")


if __name__ == "__main__":
    main()
