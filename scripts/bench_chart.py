#!/usr/bin/env python3
"""Draws cpuml_bench's JSON (--benchmark_out) as a chart: quantized matmul GOPS per shape for
cpuml and the peers in the run, one panel per thread count, medians; hatched bars are libraries
whose results differ from the exact formula (the peers' saturating paths).
Usage: python3 scripts/bench_chart.py results.json chart.svg [--cpu "CPU name"]"""
import argparse
import os
import re
import sys

import matplotlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_table import medians  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = [("cpuml", "u8s8", "#1f4e9c"), ("cpuml", "s8s8", "#5b8bd9"), ("cpuml", "u8u8", "#9dbcf0"),
          ("onednn", "u8s8", "#c0392b"), ("onednn", "s8s8", "#e67e73"),
          ("xnnpack", "u8u8", "#27864a"), ("xnnpack", "s8s8", "#6cc48a")]


def draw(qgemm, series, output, title):
    """qgemm: {"qgemm/<lib>/<types>/<MxKxN>/threads:<T>": {"GOPS": value, "label": text}}; one
    panel per thread count, one bar per (library, types) of `series` that has results."""
    shapes = sorted({n.split("/")[3] for n in qgemm}, key=lambda s: [int(x) for x in s.split("x")])
    threads = sorted({int(n.split("threads:")[1]) for n in qgemm})
    series = [s for s in series if any(n.startswith(f"qgemm/{s[0]}/{s[1]}/") for n in qgemm)]
    fig, axes = plt.subplots(len(threads), 1, figsize=(max(9, 1.6 * len(shapes) + 4.5), 3.6 * len(threads)),
                             squeeze=False)
    width = 0.8 / len(series)
    for row, t in enumerate(threads):
        ax = axes[row][0]
        for i, (lib, types, color) in enumerate(series):
            for x, shape in enumerate(shapes):
                b = qgemm.get(f"qgemm/{lib}/{types}/{shape}/threads:{t}")
                if b is None:
                    continue
                inexact = "INEXACT" in b.get("label", "")
                ax.bar(x + (i - (len(series) - 1) / 2) * width, b["GOPS"], width, color=color,
                       hatch="///" if inexact else None, edgecolor="white" if inexact else color,
                       label=f"{lib} {types}")
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels([s.replace("x", " x ") for s in shapes])
        ax.set_ylabel("GOPS (2MNK/s)")
        ax.set_title(f"{t} thread{'s' if t > 1 else ''}", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        unique = dict(zip(labels, handles))
        ax.legend(unique.values(), unique.keys(), fontsize=8, loc="upper left", bbox_to_anchor=(1.005, 1.0))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(output)
    print(f"chart: {output}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("output")
    parser.add_argument("--cpu", default="")
    args = parser.parse_args()
    context, rows = medians(args.results)
    qgemm = {n: b for n, b in rows.items() if re.match(r"qgemm/(cpuml|onednn|xnnpack)/", n) and "GOPS" in b}
    if not qgemm:
        raise SystemExit("bench_chart: no qgemm results in " + args.results)
    tier = next((b.get("label", "").split(", ")[-1] for n, b in qgemm.items() if n.startswith("qgemm/cpuml/")), "?")
    cpu = args.cpu or context.get("host_name", "?")
    draw(qgemm, SERIES, args.output,
         f"Quantized matmul, M x K x N: cpuml ({tier}, exact) and peers, medians\n"
         f"{cpu}, {context.get('date', '?')[:10]}; hatched: inexact results")


if __name__ == "__main__":
    main()
