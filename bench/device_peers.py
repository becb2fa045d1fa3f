#!/usr/bin/env python3
"""Peers that exist only as Python packages (torch's FBGEMM and oneDNN, ONNX Runtime's MLAS),
timed on the same shapes and thread counts as bench/qgemm_bench.cc, for machines where the
C++ peers are not installed (the Sapphire Rapids device). Prints one line per case:
  peer/types/MxKxN/threads:T  GOPS=<median>
Usage: python3 bench/device_peers.py [threads ...]   (default: 1 and every core).
CPUML_BENCH_SHAPES (MxKxN,...) and CPUML_PEER_TYPES (ONNX Runtime's combinations) narrow the
runs (the shapes as they do cpuml_bench's)."""
import os
import statistics
import sys
import time

import numpy as np

SHAPES = [(1, 4096, 4096), (16, 4096, 4096), (128, 768, 3072), (1024, 1024, 1024), (2048, 2048, 2048)]
if os.environ.get("CPUML_BENCH_SHAPES"):
    SHAPES = [tuple(int(x) for x in s.split("x")) for s in os.environ["CPUML_BENCH_SHAPES"].split(",")]
TYPES = os.environ.get("CPUML_PEER_TYPES", "u8s8,u8u8,s8s8").split(",")


def median_seconds(fn, min_time=0.3, reps=5):
    fn()
    samples = []
    for _ in range(reps):
        n, start = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time / reps:
                break
        samples.append(elapsed / n)
    return statistics.median(samples)


def report(name, m, k, n, threads, seconds):
    print(f"{name}/{m}x{k}x{n}/threads:{threads}  GOPS={2.0 * m * n * k / seconds / 1e9:.1f}", flush=True)


def bench_torch(threads_list):
    import torch
    engines = [e for e in ("fbgemm", "onednn", "x86") if e in torch.backends.quantized.supported_engines]
    for engine in engines:
        torch.backends.quantized.engine = engine
        for threads in threads_list:
            torch.set_num_threads(threads)
            for m, k, n in SHAPES:
                x = torch.quantize_per_tensor(torch.rand(m, k) * 5, 0.02, 131, torch.quint8)
                w = torch.quantize_per_tensor(torch.randn(n, k), 0.015, 0, torch.qint8)
                packed = torch.ops.quantized.linear_prepack(w, None)
                run = lambda: torch.ops.quantized.linear(x, packed, 0.5, 7)
                report(f"torch_{engine}/u8s8", m, k, n, threads, median_seconds(run))


def bench_ort(threads_list):
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    def model(m, k, n, a_type, b_type):
        rng = np.random.default_rng(1)
        b = rng.integers(-128 if b_type == np.int8 else 0, 128 if b_type == np.int8 else 256, (k, n)).astype(b_type)
        inits = [numpy_helper.from_array(b, "B"), numpy_helper.from_array(np.array(0.015, np.float32), "bs"),
                 numpy_helper.from_array(np.array(0 if b_type == np.int8 else 128, b_type), "bz"),
                 numpy_helper.from_array(np.array(0.02, np.float32), "as"),
                 numpy_helper.from_array(np.array(3, a_type), "az"),
                 numpy_helper.from_array(np.array(0.5, np.float32), "ys"),
                 numpy_helper.from_array(np.array(7, a_type), "yz")]
        elem = TensorProto.INT8 if a_type == np.int8 else TensorProto.UINT8
        node = helper.make_node("QLinearMatMul", ["A", "as", "az", "B", "bs", "bz", "ys", "yz"], ["Y"])
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("A", elem, [m, k])],
                                  [helper.make_tensor_value_info("Y", elem, [m, n])], inits)
        proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        proto.ir_version = 8  # what ONNX Runtime 1.30 reads; onnx 1.23 writes a newer one
        return proto.SerializeToString()

    combos = [("u8s8", np.uint8, np.int8), ("u8u8", np.uint8, np.uint8), ("s8s8", np.int8, np.int8)]
    combos = [c for c in combos if c[0] in TYPES]
    for threads in threads_list:
        for name, a_type, b_type in combos:
            for m, k, n in SHAPES:
                opts = ort.SessionOptions()
                opts.intra_op_num_threads = threads
                opts.inter_op_num_threads = 1
                sess = ort.InferenceSession(model(m, k, n, a_type, b_type), opts, providers=["CPUExecutionProvider"])
                a = np.random.default_rng(2).integers(0 if a_type == np.uint8 else -128, 256 if a_type == np.uint8 else 128,
                                                      (m, k)).astype(a_type)
                report(f"onnxruntime/{name}", m, k, n, threads, median_seconds(lambda: sess.run(None, {"A": a})))


if __name__ == "__main__":
    threads_list = [int(t) for t in sys.argv[1:]] or [1, os.cpu_count()]
    for bench in (bench_torch, bench_ort):
        try:
            bench(threads_list)
        except Exception as e:  # a missing package skips that peer, loudly
            print(f"{bench.__name__}: skipped ({type(e).__name__}: {e})", flush=True)
