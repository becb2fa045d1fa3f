#!/usr/bin/env python3
"""Modeled throughput of the Arm GEMM micro-kernels and fill loops (scripts/arm_model.sh runs this).

For each object file or shared library given, every function's loops are found in the disassembly
(a backward conditional branch closes a loop); a GEMM kernel's modeled loop is the one with the
most multiply-accumulates (the full tile), a fill's the one with the most bytes stored. The loop
body goes to llvm-mca for each core's scheduling model, which predicts steady-state cycles per
iteration and the resource under most pressure. The peak is the same model's throughput for the
loop's own MAC instruction, twelve independent copies of it: "of peak" is how much of what that
instruction could give the loop gets.

This is a model of the scheduler, not a timing: it assumes every load hits L1 and every branch is
predicted, and it knows only what LLVM's scheduling model for that core says.
"""
import argparse
import collections
import re
import subprocess
import sys

LINE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)(?:\s+(.*))?$")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.*)>:$")
BRANCH_TARGET = re.compile(r"^(?:0x)?([0-9a-f]+)")
CONDITIONAL = re.compile(r"^(b\.\w+|cbnz|cbz|tbnz|tbz)$")
REGISTER = re.compile(r"\b([vqdszwx])(\d+)\b")


def macs(mnemonic, operands):
    """Multiply-accumulates of one instruction (0 if none)."""
    m = mnemonic.lower()
    if m in ("sdot", "udot", "usdot", "sudot"):
        return 16 if ".4s" in operands else 8
    if m in ("smmla", "ummla", "usmmla"):
        return 32
    if re.match(r"^(s|u)(mlal|mlsl|mull)2?$", m) or m in ("mla", "mul"):
        arrangement = re.search(r"\.(\d+)([bhsd])", operands)
        return int(arrangement.group(1)) if arrangement else 0
    return 0


def stored_bytes(mnemonic, operands):
    m = mnemonic.lower()
    if not (m.startswith("st") or m.startswith("stn")):
        return 0
    regs = re.findall(r"\b([qdsbhwx])\d+\b", operands.split("[")[0])
    sizes = {"q": 16, "d": 8, "s": 4, "h": 2, "b": 1, "w": 4, "x": 8}
    if m.startswith("st1") or m.startswith("st2") or m.startswith("st3") or m.startswith("st4"):
        vectors = re.findall(r"v\d+\.(\d+)([bhsd])", operands)
        elem = {"b": 1, "h": 2, "s": 4, "d": 8}
        return sum(int(n) * elem[t] for n, t in vectors)
    return sum(sizes[r] for r in regs)


def disassemble(objdump, path):
    """{function: [(address, mnemonic, operands)]}"""
    text = subprocess.run([objdump, "-d", "--no-show-raw-insn", "-C", path], check=True, capture_output=True,
                          text=True).stdout
    functions, current = collections.OrderedDict(), None
    for raw in text.splitlines():
        f = FUNCTION.match(raw.strip())
        if f:
            current = f.group(1)
            functions[current] = []
            continue
        m = LINE.match(raw)
        if m and current is not None:
            functions[current].append((int(m.group(1), 16), m.group(2), (m.group(3) or "").split(" <")[0].strip()))
    return functions


def loops(instructions):
    """(first index, last index) of each innermost backward conditional branch's range."""
    index = {address: i for i, (address, _, _) in enumerate(instructions)}
    found = []
    for i, (address, mnemonic, operands) in enumerate(instructions):
        if not CONDITIONAL.match(mnemonic):
            continue
        target = BRANCH_TARGET.match(operands.split(",")[-1].strip())
        if not target:
            continue
        start = int(target.group(1), 16)
        if start < address and start in index:
            found.append((index[start], i))
    # Innermost only: an outer loop (over tiles) holds the inner one's MACs and its remainders.
    return [(a, b) for a, b in found if not any((c, d) != (a, b) and a <= c and d <= b for c, d in found)]


def loop_source(body):
    """The loop body as llvm-mca input: one label, the closing branch back to it, others dropped."""
    lines = ["loop_top:"]
    for _, mnemonic, operands in body[:-1]:
        if mnemonic.startswith("b") and (mnemonic in ("b", "bl") or mnemonic.startswith("b.")):
            continue
        if mnemonic in ("cbz", "cbnz", "tbz", "tbnz"):
            continue
        lines.append(f"  {mnemonic} {operands}")
    last = body[-1]
    operands = last[2].split(",")
    lines.append(f"  {last[1]} {', '.join(operands[:-1] + ['loop_top']) if len(operands) > 1 else 'loop_top'}")
    return "\n".join(lines) + "\n"


def peak_source(mnemonic, operands):
    """Twelve independent copies of one MAC instruction: destinations v16..v27, sources v14, v15
    (by-element forms of 16-bit lanes reach only v0..v15)."""
    parts = [p.strip() for p in re.split(r",(?![^\[]*\])", operands)]
    lines = []
    for d in range(12):
        out = [re.sub(r"v\d+", f"v{16 + d}", parts[0], count=1)]
        for s, p in enumerate(parts[1:]):
            out.append(re.sub(r"v\d+", f"v{14 + s}", p, count=1))
        lines.append(f"  {mnemonic} {', '.join(out)}")
    return "\n".join(lines) + "\n"


def run_mca(llvm_mca, cpu, source, attrs, iterations):
    result = subprocess.run([llvm_mca, "-mtriple=aarch64", f"-mcpu={cpu}", f"-mattr={attrs}",
                             f"-iterations={iterations}"], input=source, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(result.stderr)
    return result.stdout


def arithmetic_source(body):
    """The loop's vector arithmetic alone: no loads, stores, scalar or branch instructions, the
    dependencies between the remaining instructions kept. Its rate is what the kernel's own
    instruction mix (products and the adds that widen or accumulate them) allows on the core."""
    lines = ["loop_top:"]
    for _, mnemonic, operands in body:
        if mnemonic.startswith(("ld", "st", "prfm")) or not re.search(r"\bv\d+\.", operands):
            continue
        lines.append(f"  {mnemonic} {operands}")
    return "\n".join(lines) + "\n"


def mca(llvm_mca, cpu, source, attrs):
    """Steady-state cycles per iteration (the difference of 400 and 200 iterations, so the
    pipeline's fill and drain drop out) and the resource pressure per iteration."""
    out = run_mca(llvm_mca, cpu, source, attrs, 400)
    shorter = run_mca(llvm_mca, cpu, source, attrs, 200)
    total = lambda text: int(re.search(r"Total Cycles:\s+(\d+)", text).group(1))
    cycles = (total(out) - total(shorter)) / 200.0
    names = {}
    for m in re.finditer(r"^\[(\d+(?:\.\d+)?)\]\s+-\s+(\S+)", out, re.M):
        names[m.group(1)] = m.group(2)
    pressure = {}
    block = re.search(r"Resource pressure per iteration:\n(.*)\n(.*)\n", out)
    if block:
        header = re.findall(r"\[(\d+(?:\.\d+)?)\]", block.group(1))
        values = block.group(2).split()
        for key, value in zip(header, values):
            pressure[names.get(key, key)] = 0.0 if value == "-" else float(value)
    return cycles, pressure


def bottleneck(cycles, pressure):
    if not pressure:
        return "?"
    # Units of one kind (N1UnitV0, N1UnitV1) are listed separately: report the busiest one.
    name, busy = max(pressure.items(), key=lambda kv: kv[1])
    if busy >= 0.9 * cycles:
        return f"{name} {busy:.1f}/iter"
    return f"dependencies ({name} {busy:.1f}/iter)"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--llvm-mca", required=True)
    parser.add_argument("--objdump", required=True)
    parser.add_argument("--cpus", default="cortex-a55,cortex-a510,neoverse-n1,neoverse-n2,neoverse-v1")
    parser.add_argument("--attrs", default="+neon,+dotprod,+i8mm")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("entries", nargs="+",
                        help="label=path[@function-substring][#gemm|#fill] (the function substring picks symbols)")
    args = parser.parse_args()
    cpus = args.cpus.split(",")
    cache = {}
    rows = []
    for entry in args.entries:
        kind = "gemm"
        if "#" in entry:
            entry, kind = entry.rsplit("#", 1)
        label, spec = entry.split("=", 1)
        path, symbol = (spec.split("@", 1) + [""])[:2]
        if path not in cache:
            cache[path] = disassemble(args.objdump, path)
        best = None
        for name, instructions in cache[path].items():
            if symbol and symbol not in name:
                continue
            for first, last in loops(instructions):
                body = instructions[first:last + 1]
                work = sum(macs(m, o) if kind == "gemm" else stored_bytes(m, o) for _, m, o in body)
                # The most work per loop; among equals the shortest body (the tightest loop).
                key = (work, -len(body))
                if work and (best is None or key > best[0]):
                    best = (key, body)
        if best is None:
            print(f"{label}: no loop with {'MACs' if kind == 'gemm' else 'stores'} in {path} {symbol}", file=sys.stderr)
            return 1
        body = best[1]
        work = best[0][0]
        source = loop_source(body)
        mac_forms = collections.Counter((m, o) for _, m, o in body if macs(m, o))
        for cpu in cpus:
            cycles, pressure = mca(args.llvm_mca, cpu, source, args.attrs)
            row = {"label": label, "cpu": cpu, "cycles": cycles, "instructions": len(body), "work": work,
                   "kind": kind, "bottleneck": bottleneck(cycles, pressure)}
            if kind == "gemm":
                (mnemonic, operands), _ = mac_forms.most_common(1)[0]
                peak_cycles, _ = mca(args.llvm_mca, cpu, peak_source(mnemonic, operands), args.attrs)
                peak = 12 * macs(mnemonic, operands) / peak_cycles
                mix_cycles, _ = mca(args.llvm_mca, cpu, arithmetic_source(body), args.attrs)
                row.update(instruction=mnemonic, rate=work / cycles, peak=peak, mix=work / mix_cycles)
            else:
                # The store peak: 128-bit pair stores back to back.
                stores = "".join(f"  stp q0, q1, [x0, #{32 * i}]\n" for i in range(12)) + "  add x0, x0, #384\n"
                peak_cycles, _ = mca(args.llvm_mca, cpu, stores, args.attrs)
                row.update(instruction="stores", rate=work / cycles, peak=384 / peak_cycles, mix=None)
            rows.append(row)
    unit = {"gemm": "MACs/cycle", "fill": "bytes/cycle"}
    header = ["loop", "core", "instructions", "cycles/iter", "work/iter", "rate", "peak", "of peak", "of mix",
              "bottleneck"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(f"{'loop':44s} {'core':12s} {'insts':>5s} {'cyc/it':>7s} {'work/it':>8s} {'rate':>7s} {'peak':>6s} "
              f"{'of peak':>7s} {'of mix':>6s}  bottleneck")
    for r in rows:
        peak = f"{r['peak']:.1f}" if r["peak"] else "-"
        share = f"{r['rate'] / r['peak']:.2f}" if r["peak"] else "-"
        mix = f"{r['rate'] / r['mix']:.2f}" if r.get("mix") else "-"
        rate = f"{r['rate']:.1f} {unit[r['kind']].split('/')[0]}"
        if args.markdown:
            print(f"| {r['label']} ({r['instruction']}) | {r['cpu']} | {r['instructions']} | {r['cycles']:.2f} | "
                  f"{r['work']} | {r['rate']:.1f} | {peak} | {share} | {mix} | {r['bottleneck']} |")
        else:
            print(f"{r['label'] + ' (' + r['instruction'] + ')':44s} {r['cpu']:12s} {r['instructions']:5d} "
                  f"{r['cycles']:7.2f} {r['work']:8d} {r['rate']:7.1f} {peak:>6s} {share:>7s} {mix:>6s}  {r['bottleneck']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
