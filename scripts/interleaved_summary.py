#!/usr/bin/env python3
"""Medians of interleaved rounds: cpuml_bench's CSV rows (OUT/cpuml_R.csv) and a peer script's
`name GOPS=value` lines (OUT/peers_R.txt) for rounds R = 1..ROUNDS, then, per round, cpuml u8s8
against the fastest peer timed next to it, and the median of those ratios (the comparison the
machine's drift between rounds cannot tilt).
  python3 scripts/interleaved_summary.py OUT ROUNDS
Written by scripts/device_bench.sh (the device's Python peers) and scripts/bench_ort_node.sh (ONNX
Runtime through onnxruntime-node on any machine with npm)."""
import csv
import re
import statistics
import sys

out, rounds = sys.argv[1], int(sys.argv[2])
gops = {}
for r in range(1, rounds + 1):
    for row in csv.reader(open(f"{out}/cpuml_{r}.csv")):
        name = re.sub(r"/real_time$", "", row[0])
        shape = re.search(r"/(\d+)x(\d+)x(\d+)/", name)
        if name.startswith("model/"):
            # A decoder-layer preset: its GOPS counter (the layer's operations, not one shape's).
            gops.setdefault(name, []).append(float(row[-1]))
            continue
        if not shape:
            continue
        m, k, n = map(int, shape.groups())
        # real_time: every row is timed with UseRealTime (cpu_time is the calling thread's alone).
        seconds = float(row[2]) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[row[4]]
        gops.setdefault(name, []).append(2.0 * m * n * k / seconds / 1e9)
    for line in open(f"{out}/peers_{r}.txt"):
        match = re.match(r"(\S+)\s+(?:us=[\d.]+\s+)?GOPS=([\d.]+)", line)
        if match:
            gops.setdefault(match.group(1), []).append(float(match.group(2)))
for name in sorted(gops):
    values = gops[name]
    print(f"{name:70s} median {statistics.median(values):8.1f} GOPS  ({len(values)} rounds: "
          + ", ".join(f"{v:.0f}" for v in values) + ")")
# Per round, cpuml u8s8 against the faster of oneDNN and ONNX Runtime run next to it: the median
# of those ratios is the comparison the machine's drift between rounds cannot tilt.
PEERS = {"qgemm": ("torch_onednn", "onnxruntime"),
         "dqmatmul": ("onnxruntime_dqmatmul", "torch_dynamic_fbgemm", "torch_dynamic_onednn", "torch_dynamic_x86"),
         "i2f": ("onnxruntime_i2f",)}
def round_ratios(name, against):
    """Name's GOPS over the fastest of those of `against` timed in the same rounds, round by round,
    and the names of `against` present in every round."""
    present = [p for p in against if p in gops and len(gops[p]) == len(gops.get(name, []))]
    if name not in gops or not present:
        return None, []
    return [c / max(gops[p][r] for p in present) for r, c in enumerate(gops[name])], present


def per_round(name, against):
    """One line: the per-round ratios against `against` and their median."""
    ratios, present = round_ratios(name, against)
    if not ratios:
        return None
    names = ", ".join(p.rsplit("/", 3)[0] for p in present)  # the case (types, shape, threads) dropped
    return f"/ {names}: median {statistics.median(ratios):.2f}  (rounds: " + ", ".join(f"{x:.2f}" for x in ratios) + ")"

for name in sorted(gops):
    # The peers quantize A as u8 (ORT) or run u8s8 (torch): an s8s8 cpuml row is held against them too.
    match = re.match(r"(qgemm|dqmatmul|i2f)/cpuml/(u8s8|s8s8)/(\d+x\d+x\d+/threads:\d+)$", name)
    if not match:
        continue
    kind, types, case = match.groups()
    if kind == "qgemm" and types != "u8s8":
        continue
    line = per_round(name, [f"{peer}/u8s8/{case}" for peer in PEERS[kind]])
    if line:
        print(f"{kind} {types} cpuml {line}   [{case}]")
    # The dynamic path against cpuml's own static QLinearMatMul at the same shape.
    if kind != "qgemm":
        line = per_round(name, [f"qgemm/cpuml/u8s8/{case}"])
        if line:
            print(f"{kind} {types} cpuml {line}   [{case}]")

# The dynamic int8 path as a table for docs/benchmarks.md: GOPS medians, the fastest peer of each
# round, and the medians of the per-round ratios.
def ratio_median(name, against):
    """The median per-round ratio against `against`, and the peer fastest over the rounds."""
    ratios, present = round_ratios(name, against)
    if not ratios:
        return None, None
    return statistics.median(ratios), max(present, key=lambda p: statistics.median(gops[p])).split("/")[0]

cases = sorted({m.group(1) for n in gops for m in [re.match(r"dqmatmul/cpuml/u8s8/(\S+)$", n)] if m},
               key=lambda c: (int(c.split("threads:")[1]), [int(x) for x in c.split("/")[0].split("x")]))
if cases:
    fmt = lambda name: f"{statistics.median(gops[name]):.0f}" if name in gops else "-"
    print("\n| M x K x N | threads | cpuml dqmatmul | fastest peer | dqmatmul / peer | cpuml i2f | ORT i2f | i2f / ORT i2f "
          "| cpuml qgemm | i2f / qgemm | dqmatmul / qgemm |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        shape, threads = case.split("/threads:")
        dq, i2f, q = (f"{k}/cpuml/u8s8/{case}" for k in ("dqmatmul", "i2f", "qgemm"))
        r_peer, fastest = ratio_median(dq, [f"{p}/u8s8/{case}" for p in PEERS["dqmatmul"]])
        r_ort, _ = ratio_median(i2f, [f"onnxruntime_i2f/u8s8/{case}"])
        r_q, _ = ratio_median(i2f, [q])
        r_dq, _ = ratio_median(dq, [q])
        show = lambda x: f"{x:.2f}" if x is not None else "-"
        peer_gops = fmt(f"{fastest}/u8s8/{case}") if fastest else "-"
        print(f"| {shape} | {threads} | {fmt(dq)} | {peer_gops} ({fastest}) | {show(r_peer)} | {fmt(i2f)} | "
              f"{fmt(f'onnxruntime_i2f/u8s8/{case}')} | {show(r_ort)} | {fmt(q)} | {show(r_q)} | {show(r_dq)} |")

# 4-bit B (dqmatmul/cpuml/{u8u4,s8u4}) against ONNX Runtime's MatMulNBits at the same block, and
# against cpuml's own int8 path at the same shape; the decoder-layer presets likewise.
rows4 = sorted(n for n in gops if re.match(r"dqmatmul/cpuml/(u8u4|s8u4)/", n))
if rows4:
    print("\n| M x K x N | threads | block | cpuml 4-bit (A) | ORT MatMulNBits | / ORT | cpuml int8 | / int8 |")
    print("|---|---|---|---|---|---|---|---|")
    for name in sorted(rows4, key=lambda n: (int(n.split("threads:")[1]), n)):
        types, shape, block, threads = re.match(r"dqmatmul/cpuml/(\w+)/(\S+)/block:(\d+)/threads:(\d+)", name).groups()
        ort = f"onnxruntime_nbits/u8u4/{shape}/block:{block}/threads:{threads}"
        int8 = f"dqmatmul/cpuml/u8s8/{shape}/threads:{threads}"
        r_ort, _ = ratio_median(name, [ort])
        r_int8, _ = ratio_median(name, [int8])
        show = lambda x: f"{x:.2f}" if x is not None else "-"
        fmt = lambda n: f"{statistics.median(gops[n]):.0f}" if n in gops else "-"
        print(f"| {shape} | {threads} | {block} | {fmt(name)} ({types[:2]}) | {fmt(ort)} | {show(r_ort)} | {fmt(int8)} | "
              f"{show(r_int8)} |")
models = sorted(n for n in gops if n.startswith("model/cpuml/"))
if models:
    print("\n| preset | weights | M | threads | cpuml GOPS | ORT MatMulNBits GOPS | / ORT |")
    print("|---|---|---|---|---|---|---|")
    for name in models:
        preset, weights, m, threads = re.match(r"model/cpuml/(\w+(?:/layers:\d+)?)/(int8|int4/block:\d+)/M:(\d+)/threads:(\d+)",
                                                name).groups()
        ort = f"onnxruntime_nbits_model/{preset}/{weights.replace('int4/', '')}/M:{m}/threads:{threads}"
        r_ort, _ = ratio_median(name, [ort]) if weights != "int8" else (None, None)
        fmt = lambda n: f"{statistics.median(gops[n]):.1f}" if n in gops else "-"
        show = lambda x: f"{x:.2f}" if x is not None else "-"
        print(f"| {preset} | {weights} | {m} | {threads} | {fmt(name)} | {fmt(ort) if weights != 'int8' else '-'} | "
              f"{show(r_ort)} |")
