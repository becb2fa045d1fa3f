#!/usr/bin/env python3
"""Per build and round, cpuml's int8 pair over its 4-bit pair in the same process (the u8s8 and
s8u4 `dqmatmul` rows of scripts/device_variants.sh's CSV files): > 1 where the 4-bit pair is faster.
Usage: python3 scripts/variant_pair_ratios.py OUT_DIR BUILDS ROUNDS"""
import csv, statistics, sys
out, builds, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
for b in range(builds):
    cells = {}
    for r in range(1, rounds + 1):
        try:
            t = {row[0].replace("/real_time", ""): float(row[2]) * scale[row[4]] for row in csv.reader(open(f"{out}/b{b}_{r}.csv"))}
        except FileNotFoundError:
            continue
        for name, time in t.items():
            parts = name.split("/")
            if parts[0] != "dqmatmul" or parts[2] != "s8u4":
                continue
            int8 = f"dqmatmul/cpuml/u8s8/{parts[3]}/{parts[-1]}"
            if int8 in t:
                cells.setdefault(f"{parts[3]} {parts[4]} {parts[-1]}", []).append(t[int8] / time)
    for key, ratios in sorted(cells.items()):
        print(f"build {b} {key:40s} median {statistics.median(ratios):.3f} (" + ", ".join(f"{x:.2f}" for x in ratios) + ")")
