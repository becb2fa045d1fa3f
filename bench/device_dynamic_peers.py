#!/usr/bin/env python3
"""The dynamic int8 path of the Python peers, timed on the same shapes and thread counts as the
dqmatmul/ and i2f/ rows of cpuml_bench (bench/dynamic_quant_bench.cc): float activations in,
float out, B int8 per column, a bias.
  onnxruntime_dqmatmul/u8s8   com.microsoft DynamicQuantizeMatMul (what quantize_dynamic writes)
  onnxruntime_i2f/u8s8        com.microsoft MatMulIntegerToFloat on an already quantized u8 A
  torch_dynamic_<engine>/u8s8 torch's dynamic quantized Linear (fbgemm, onednn, x86 engines)
  onnxruntime_nbits/u8u4      com.microsoft MatMulNBits: B in 4 bits with a float scale per block
                              of 32 and 128 along K and the default zero point 8, no bias;
                              accuracy_level 4 so that A is quantized to int8 and the int8 dot
                              product kernels run, the CPU path of 4-bit language models
Prints one line per case, as bench/device_peers.py does:
  peer/types/MxKxN/threads:T  GOPS=<median>
  onnxruntime_nbits/u8u4/MxKxN/block:B/threads:T  GOPS=<median>
Usage: python3 bench/device_dynamic_peers.py [threads ...]   (default: 1 and every core);
CPUML_BENCH_SHAPES narrows the shapes."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from device_peers import SHAPES, median_seconds, report  # noqa: E402


def bench_torch(threads_list):
    import torch
    engines = [e for e in ("fbgemm", "onednn", "x86") if e in torch.backends.quantized.supported_engines]
    for engine in engines:
        torch.backends.quantized.engine = engine
        for threads in threads_list:
            torch.set_num_threads(threads)
            for m, k, n in SHAPES:
                layer = torch.ao.nn.quantized.dynamic.Linear(k, n, dtype=torch.qint8)
                x = torch.randn(m, k)
                with torch.no_grad():
                    report(f"torch_dynamic_{engine}/u8s8", m, k, n, threads, median_seconds(lambda: layer(x)))


def bench_ort(threads_list):
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    def serialize(node, a_type, inits, m, k, n):
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("A", a_type, [m, k])],
                                  [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [m, n])], inits)
        proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
        proto.ir_version = 8  # what ONNX Runtime 1.30 reads; onnx 1.23 writes a newer one
        return proto.SerializeToString()

    def model(m, k, n, op):
        rng = np.random.default_rng(1)
        inits = [numpy_helper.from_array(rng.integers(-128, 128, (k, n)).astype(np.int8), "B"),
                 numpy_helper.from_array((0.001 + 0.0001 * (np.arange(n) % 17)).astype(np.float32), "bs"),
                 numpy_helper.from_array(np.zeros(n, np.int8), "bz"),
                 numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), "bias")]
        if op == "DynamicQuantizeMatMul":
            node = helper.make_node(op, ["A", "B", "bs", "bz", "bias"], ["Y"], domain="com.microsoft")
            return serialize(node, TensorProto.FLOAT, inits, m, k, n)
        inits += [numpy_helper.from_array(np.array(0.02, np.float32), "as"),
                  numpy_helper.from_array(np.array(131, np.uint8), "az")]
        node = helper.make_node(op, ["A", "B", "as", "bs", "az", "bz", "bias"], ["Y"], domain="com.microsoft")
        return serialize(node, TensorProto.UINT8, inits, m, k, n)

    def nbits_model(m, k, n, block):  # B as MatMulNBits reads it: [N][K blocks][block / 2], low nibble first
        blocks = -(-k // block)
        rng = np.random.default_rng(1)
        inits = [numpy_helper.from_array(rng.integers(0, 256, (n, blocks, block // 2)).astype(np.uint8), "B"),
                 numpy_helper.from_array((0.001 + 0.0001 * (np.arange(n * blocks) % 17)).astype(np.float32), "scales")]
        node = helper.make_node("MatMulNBits", ["A", "B", "scales"], ["Y"], domain="com.microsoft",
                                K=k, N=n, bits=4, block_size=block, accuracy_level=4)
        return serialize(node, TensorProto.FLOAT, inits, m, k, n)

    def open_model(proto, threads):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        return ort.InferenceSession(proto, opts, providers=["CPUExecutionProvider"])

    for threads in threads_list:
        for name, op in (("onnxruntime_dqmatmul", "DynamicQuantizeMatMul"), ("onnxruntime_i2f", "MatMulIntegerToFloat")):
            for m, k, n in SHAPES:
                runner = open_model(model(m, k, n, op), threads)
                rng = np.random.default_rng(2)
                a = rng.standard_normal((m, k)).astype(np.float32) if op == "DynamicQuantizeMatMul" else \
                    rng.integers(0, 256, (m, k)).astype(np.uint8)
                report(f"{name}/u8s8", m, k, n, threads, median_seconds(lambda: runner.run(None, {"A": a})))
        for block in (32, 128):
            for m, k, n in SHAPES:
                runner = open_model(nbits_model(m, k, n, block), threads)
                a = np.random.default_rng(2).standard_normal((m, k)).astype(np.float32)
                seconds = median_seconds(lambda: runner.run(None, {"A": a}))
                # report() has no place for the block, which stands between the shape and the threads
                print(f"onnxruntime_nbits/u8u4/{m}x{k}x{n}/block:{block}/threads:{threads}  "
                      f"GOPS={2.0 * m * n * k / seconds / 1e9:.1f}", flush=True)


if __name__ == "__main__":
    threads_list = [int(t) for t in sys.argv[1:]] or [1, os.cpu_count()]
    for bench in (bench_torch, bench_ort):
        try:
            bench(threads_list)
        except Exception as e:  # a missing package skips that peer, loudly
            print(f"{bench.__name__}: skipped ({type(e).__name__}: {e})", flush=True)
