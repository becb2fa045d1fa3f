#!/usr/bin/env python3
"""Draws the output folder of scripts/device_bench.sh (cpuml_<round>.csv and peers_<round>.txt)
as the chart scripts/bench_chart.py draws for this machine: quantized matmul GOPS per shape,
medians over the rounds, one panel per thread count, cpuml and the Python peers (torch's oneDNN
and FBGEMM, ONNX Runtime) of the same rounds.
Usage: python3 scripts/device_chart.py OUT_DIR chart.svg --cpu "CPU name" --date YYYY-MM-DD"""
import argparse
import csv
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_chart import draw  # noqa: E402

SERIES = [("cpuml", "u8s8", "#1f4e9c"), ("cpuml", "s8s8", "#5b8bd9"),
          ("torch_onednn", "u8s8", "#c0392b"), ("torch_fbgemm", "u8s8", "#e67e22"),
          ("onnxruntime", "u8s8", "#27864a"), ("onnxruntime", "s8s8", "#6cc48a")]


def device_medians(out):
    gops = {}
    for path in sorted(glob.glob(os.path.join(out, "cpuml_*.csv"))):
        for row in csv.reader(open(path)):
            name = re.sub(r"/real_time$", "", row[0])
            if not name.startswith("qgemm/cpuml/"):
                continue
            m, k, n = map(int, re.search(r"/(\d+)x(\d+)x(\d+)/", name).groups())
            seconds = float(row[3]) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[row[4]]
            gops.setdefault(name, []).append(2.0 * m * n * k / seconds / 1e9)
    for path in sorted(glob.glob(os.path.join(out, "peers_*.txt"))):
        for line in open(path):
            match = re.match(r"(\S+)\s+GOPS=([\d.]+)", line)
            if match:
                gops.setdefault("qgemm/" + match.group(1), []).append(float(match.group(2)))
    return {name: {"GOPS": statistics.median(values)} for name, values in gops.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("output")
    parser.add_argument("--cpu", default="")
    parser.add_argument("--date", default="")
    args = parser.parse_args()
    qgemm = device_medians(args.out)
    if not qgemm:
        raise SystemExit("device_chart: no results in " + args.out)
    draw(qgemm, SERIES, args.output,
         "Quantized matmul, M x K x N: cpuml (dispatched tier, exact) and the Python peers, medians over rounds\n"
         f"{args.cpu}, {args.date}")


if __name__ == "__main__":
    main()
