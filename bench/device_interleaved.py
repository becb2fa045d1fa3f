#!/usr/bin/env python3
"""cpuml and its Python-only peers (torch's oneDNN and FBGEMM, ONNX Runtime's MLAS) timed in one
process, round-robin: every round times each library once, back to back, on the same shape and
thread count, so all of them see the same machine state. On the device the AMX unit of a core
switches between full and about half speed within seconds; comparing libraries within a round
(tenths of a second) and taking the median of those per-round ratios cancels most of that, where
separate processes minutes apart (bench/device_peers.py) do not.

cpuml is called through ctypes on libcpuml.so (the public C API), u8 A x s8 B owned by the
operator, u8 output, per-tensor scales and zero points like the peers'; the other three type
combinations of cpuml run in the same rounds. Prints, per shape and thread count, the median GOPS
of every library and the median over rounds of cpuml / the faster of oneDNN and ONNX Runtime.
Usage: taskset -c CORE python3 bench/device_interleaved.py LIBCPUML[,OTHER_LIBCPUML...] [ROUNDS]
  Further builds of libcpuml.so after commas (a change against the build before it) run u8s8 in
  the same rounds, each reported as the median of its per-round ratios to the first build.
  One thread only, every library on the caller's (pinned) thread: with several threads, each
  library's idle workers keep spinning while the next library runs, and the rounds measure that
  contention instead (bench/device_peers.py and scripts/device_bench.sh time those per process).
  CPUML_BENCH_SHAPES=MxKxN,... picks the shapes (default: the AMX issue's six).
  CPUML_BENCH_BINARY=path/to/cpuml_bench adds its register-only AMX probe before every round, and
  the ratios are then also given separately for the rounds that began with the tile unit at full
  speed (probe above 3500 GOPS) and at about half (below 2600); with it, cpuml / probe per round too.
  CPUML_BENCH_PROBE names another of its isa_peak probes (e.g. avx512vnni_vpdpbusd, with
  CPUML_MAX_ISA=avx512vnni to time that tier).
  CPUML_BENCH_I2F=1 also times MATRIX_MULTIPLY_INTEGER_TO_FLOAT (u8 A, s8 B, per-tensor A scale,
  per-column B scale and bias, float output) of every build in the same rounds, and reports each
  build's product / its own QuantizedLinear and each further build's product / the first's."""
import re
import subprocess
import ctypes
import os
import statistics
import sys
import time

import numpy as np

SHAPES = [(1, 4096, 4096), (1, 4096, 11008), (16, 4096, 4096), (128, 768, 3072), (1024, 1024, 1024),
          (2048, 2048, 2048)]
if os.environ.get("CPUML_BENCH_SHAPES"):
    SHAPES = [tuple(int(x) for x in s.split("x")) for s in os.environ["CPUML_BENCH_SHAPES"].split(",")]

U8, S8, F32 = 5, 8, 1  # CPUML_TENSOR_DATA_TYPE values


class BufferTensorDesc(ctypes.Structure):
    _fields_ = [("DataType", ctypes.c_int), ("Flags", ctypes.c_int), ("DimensionCount", ctypes.c_uint32),
                ("Sizes", ctypes.POINTER(ctypes.c_uint32)), ("Strides", ctypes.POINTER(ctypes.c_uint32)),
                ("TotalTensorSizeInBytes", ctypes.c_uint64), ("GuaranteedBaseOffsetAlignment", ctypes.c_uint32)]


class TensorDesc(ctypes.Structure):
    _fields_ = [("Type", ctypes.c_int), ("Desc", ctypes.c_void_p)]


class QLinearMatMulDesc(ctypes.Structure):
    _fields_ = [(name, ctypes.POINTER(TensorDesc)) for name in
                ("A", "AScale", "AZeroPoint", "B", "BScale", "BZeroPoint", "OutputScale", "OutputZeroPoint", "Output")]


class IntegerToFloatDesc(ctypes.Structure):
    _fields_ = [(name, ctypes.POINTER(TensorDesc)) for name in
                ("A", "AScale", "AZeroPoint", "B", "BScale", "BZeroPoint", "Bias", "Output")]


class OperatorDesc(ctypes.Structure):
    _fields_ = [("Type", ctypes.c_int), ("Desc", ctypes.c_void_p)]


class Binding(ctypes.Structure):
    _fields_ = [("Data", ctypes.c_void_p), ("SizeInBytes", ctypes.c_uint64)]


class Cpuml:
    """One cpuml operator: A {m,k}, B {k,n} stored N x K and owned by the operator, output {m,n}:
    QuantizedLinear's bytes, or with to_float MATRIX_MULTIPLY_INTEGER_TO_FLOAT's floats."""

    def __init__(self, lib, pool, m, k, n, a_signed, b_signed, to_float=False):
        self.lib, self.pool, self.keep = lib, pool, []
        rng = np.random.default_rng(3)
        a_type, b_type = (S8 if a_signed else U8), (S8 if b_signed else U8)
        # 64-byte aligned, as engines' arenas give (the AMX tier reads such an A in place).
        storage = np.empty(m * k + 64, np.uint8)
        offset = (-storage.ctypes.data) % 64
        self.a = storage[offset:offset + m * k]
        self.a[:] = rng.integers(0, 256, m * k, dtype=np.uint8)
        b_nk = rng.integers(0, 256, k * n, dtype=np.uint8)
        self.out = np.zeros((m * n + 4) * (4 if to_float else 1) + 64, np.uint8)
        self.out = self.out[(-self.out.ctypes.data) % 64:]
        scalars = {"as": np.array([0.02], np.float32), "bs": np.array([0.015], np.float32),
                   "os": np.array([0.5], np.float32), "az": np.array([3], np.uint8),
                   "bz": np.array([0], np.uint8), "oz": np.array([7], np.uint8)}

        def tensor(dtype, sizes, strides, nbytes, flags=0):
            sizes_c = (ctypes.c_uint32 * 4)(*sizes)
            strides_c = (ctypes.c_uint32 * 4)(*strides) if strides else None
            desc = BufferTensorDesc(dtype, flags, 4, sizes_c, strides_c, nbytes, 0)
            t = TensorDesc(1, ctypes.cast(ctypes.pointer(desc), ctypes.c_void_p))
            self.keep += [sizes_c, strides_c, desc, t]
            return ctypes.pointer(t)

        one = (1, 1, 1, 1)
        ta = tensor(a_type, (1, 1, m, k), None, (m * k + 3) // 4 * 4)
        tb = tensor(b_type, (1, 1, k, n), (0, 0, 1, k), (k * n + 3) // 4 * 4, flags=1)
        out_bytes = m * n * 4 if to_float else (m * n + 3) // 4 * 4
        to = tensor(F32 if to_float else U8, (1, 1, m, n), None, out_bytes)
        tf = tensor(F32, one, None, 4)
        tza, tzb, tzo = tensor(a_type, one, None, 4), tensor(b_type, one, None, 4), tensor(U8, one, None, 4)
        bind = lambda arr, nbytes: Binding(arr.ctypes.data, nbytes)
        if to_float:
            scalars["bs"] = (0.01 + 0.0001 * (np.arange(n) % 17)).astype(np.float32)
            scalars["bias"] = rng.standard_normal(n).astype(np.float32)
            tcol = tensor(F32, (1, 1, 1, n), None, n * 4, flags=1)
            desc = IntegerToFloatDesc(ta, tf, tza, tb, tcol, None, tcol, to)
            op_type, owned = 5, (3, 4, 6)
            self.inputs = (Binding * 7)(bind(self.a, (m * k + 3) // 4 * 4), bind(scalars["as"], 4),
                                        bind(scalars["az"], 4), bind(b_nk, (k * n + 3) // 4 * 4),
                                        bind(scalars["bs"], n * 4), Binding(None, 0), bind(scalars["bias"], n * 4))
        else:
            desc = QLinearMatMulDesc(ta, tf, tza, tb, tf, tzb, tf, tzo, to)
            op_type, owned = 3, (3,)
            self.inputs = (Binding * 8)(bind(self.a, (m * k + 3) // 4 * 4), bind(scalars["as"], 4),
                                        bind(scalars["az"], 4), bind(b_nk, (k * n + 3) // 4 * 4),
                                        bind(scalars["bs"], 4), bind(scalars["bz"], 4), bind(scalars["os"], 4),
                                        bind(scalars["oz"], 4))
        op_desc = OperatorDesc(op_type, ctypes.cast(ctypes.pointer(desc), ctypes.c_void_p))
        self.keep += [desc, op_desc, scalars]
        self.op = ctypes.c_void_p()
        self.input_count = len(self.inputs)
        if lib.cpuml_create_operator(ctypes.byref(op_desc), ctypes.byref(self.op)) or \
                lib.cpuml_initialize_operator(self.op, self.inputs, self.input_count):
            raise RuntimeError(lib.cpuml_last_error_message().decode())
        for i in owned:  # owned: bound at initialize only
            self.inputs[i] = Binding(None, 0)
        self.output = (Binding * 1)(Binding(self.out.ctypes.data, out_bytes))

    def __call__(self):
        if self.lib.cpuml_execute_operator(self.op, self.inputs, self.input_count, self.output, 1, self.pool):
            raise RuntimeError(self.lib.cpuml_last_error_message().decode())


def load_cpuml(path):
    lib = ctypes.CDLL(path)
    lib.cpuml_create_operator.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.cpuml_initialize_operator.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32]
    lib.cpuml_execute_operator.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p,
                                           ctypes.c_uint32, ctypes.c_void_p]
    lib.cpuml_last_error_message.restype = ctypes.c_char_p
    lib.cpuml_isa_name.restype = ctypes.c_char_p
    return lib


def best_seconds(fn, budget=0.03):
    fn()
    best, spent = float("inf"), 0.0
    while spent < budget:
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best, spent = min(best, elapsed), spent + elapsed
    return best


def torch_runner(engine, threads, m, k, n):
    import torch
    torch.backends.quantized.engine = engine
    x = torch.quantize_per_tensor(torch.rand(m, k) * 5, 0.02, 131, torch.quint8)
    w = torch.quantize_per_tensor(torch.randn(n, k), 0.015, 0, torch.qint8)
    packed = torch.ops.quantized.linear_prepack(w, None)

    def run():
        torch.backends.quantized.engine = engine
        torch.set_num_threads(threads)
        torch.ops.quantized.linear(x, packed, 0.5, 7)
    return run


def ort_runner(threads, m, k, n):
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(1)
    values = {"B": rng.integers(-128, 128, (k, n)).astype(np.int8), "bs": np.array(0.015, np.float32),
              "bz": np.array(0, np.int8), "as": np.array(0.02, np.float32), "az": np.array(3, np.uint8),
              "ys": np.array(0.5, np.float32), "yz": np.array(7, np.uint8)}
    inits = [numpy_helper.from_array(value, name) for name, value in values.items()]
    node = helper.make_node("QLinearMatMul", ["A", "as", "az", "B", "bs", "bz", "ys", "yz"], ["Y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("A", TensorProto.UINT8, [m, k])],
                              [helper.make_tensor_value_info("Y", TensorProto.UINT8, [m, n])], inits)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    proto.ir_version = 8
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(proto.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    a = np.random.default_rng(2).integers(0, 256, (m, k)).astype(np.uint8)
    return lambda: sess.run(None, {"A": a})


def main():
    paths = sys.argv[1].split(",")
    lib = load_cpuml(paths[0])
    # Each build in its own namespace (ctypes loads with RTLD_LOCAL), so none resolves to another.
    variants = {f"build{i}": load_cpuml(path) for i, path in enumerate(paths[1:], 1)}
    for name, path in zip(variants, paths[1:]):
        print(f"{name}: {path}", flush=True)
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    probe_binary = os.environ.get("CPUML_BENCH_BINARY")
    probe_name = os.environ.get("CPUML_BENCH_PROBE", "amx_tdpbusd")
    with_i2f = os.environ.get("CPUML_BENCH_I2F") == "1"

    def probe():
        if not probe_binary:
            return None
        out = subprocess.run([probe_binary, f"--benchmark_filter=isa_peak/{probe_name}$", "--benchmark_min_time=0.02",
                              "--benchmark_format=csv"], capture_output=True, text=True).stdout
        match = re.search(rf'^"isa_peak/{probe_name}".*,([\d.]+)$', out, re.M)
        return float(match.group(1)) if match else None
    print(f"cpuml tier: {lib.cpuml_isa_name(lib.cpuml_get_isa()).decode()}; {rounds} rounds per case", flush=True)
    skipped = set()
    threads, pool = 1, None
    for m, k, n in SHAPES:
        runners = {f"cpuml/{t}": Cpuml(lib, pool, m, k, n, t[0] == "s", t[2] == "s")
                   for t in ("u8s8", "u8u8", "s8s8", "s8u8")}
        for name, variant in variants.items():
            runners[f"{name}/u8s8"] = Cpuml(variant, pool, m, k, n, False, True)
        if with_i2f:
            for name, build in (("cpuml", lib), *variants.items()):
                runners[f"{name}/i2f"] = Cpuml(build, pool, m, k, n, False, True, to_float=True)
        for name, make in (("torch_onednn", lambda: torch_runner("onednn", threads, m, k, n)),
                           ("torch_fbgemm", lambda: torch_runner("fbgemm", threads, m, k, n)),
                           ("onnxruntime", lambda: ort_runner(threads, m, k, n))):
            try:
                runners[name + "/u8s8"] = make()
            except Exception as e:  # a missing package skips that peer, loudly (once)
                if name not in skipped:
                    print(f"{name}: skipped ({type(e).__name__}: {e})", flush=True)
                skipped.add(name)
        gops = {name: [] for name in runners}
        names = list(runners)
        probes = []
        for r in range(rounds):
            probes.append(probe())
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                gops[name].append(2.0 * m * n * k / best_seconds(runners[name]) / 1e9)
        base = gops["cpuml/u8s8"]
        peers = [gops[p] for p in ("torch_onednn/u8s8", "onnxruntime/u8s8") if p in gops]
        line = f"{m}x{k}x{n} t{threads}: " + "  ".join(f"{name} {statistics.median(v):.0f}" for name, v in gops.items())
        if peers:
            ratios = [base[r] / max(p[r] for p in peers) for r in range(rounds)]
            line += f"  | cpuml / best of oneDNN, ORT (median of per-round ratios) {statistics.median(ratios):.2f}"
            for mode, keep in (("full", lambda g: g > 3500), ("half", lambda g: g < 2600)):
                picked = [x for x, g in zip(ratios, probes) if g is not None and keep(g)]
                if picked and probe_name == "amx_tdpbusd":
                    line += f", {mode}-speed rounds ({len(picked)}) {statistics.median(picked):.2f}"
        if "torch_fbgemm/u8s8" in gops:
            fbgemm = gops["torch_fbgemm/u8s8"]
            line += f"  | cpuml / FBGEMM {statistics.median(base[r] / fbgemm[r] for r in range(rounds)):.2f}"
        types = ", ".join(f"{statistics.median(gops[f'cpuml/{t}'][r] / base[r] for r in range(rounds)):.2f}"
                          for t in ("u8u8", "s8s8", "s8u8"))
        line += f"  | u8u8, s8s8, s8u8 / u8s8 {types}"
        for name in variants:
            line += f"  | {name} / cpuml {statistics.median(gops[name + '/u8s8'][r] / base[r] for r in range(rounds)):.3f}"
        if with_i2f:
            def median_ratio(x, y):
                return statistics.median(gops[x][r] / gops[y][r] for r in range(rounds))
            line += "  | i2f GOPS " + ", ".join(f"{name} {statistics.median(gops[name + '/i2f']):.0f}"
                                                 for name in ("cpuml", *variants))
            line += "  | i2f / own u8s8 " + ", ".join(f"{name} {median_ratio(name + '/i2f', name + '/u8s8'):.3f}"
                                                       for name in ("cpuml", *variants))
            for name in variants:
                line += f"  | {name} i2f / cpuml i2f {median_ratio(name + '/i2f', 'cpuml/i2f'):.3f}"
        if any(g is not None for g in probes):
            line += f"  | {probe_name} probe median {statistics.median(g for g in probes if g is not None):.0f} GOPS"
            line += (", cpuml / probe " +
                     f"{statistics.median(b / g for b, g in zip(base, probes) if g is not None):.2f}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
