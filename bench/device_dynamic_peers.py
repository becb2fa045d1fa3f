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
  onnxruntime_nbits_model     one model holding a MatMulNBits as above per linear layer of one
                              decoder layer of a preset (llama3_8b, phi3_mini), each with its own A
                              and Y, all in one run(), for M = 1 (a decoded token) and 128 (a
                              prefill chunk): the per-node costs a single-shape row hides, at a
                              weight footprint (57 and 109 MB at 4 bits) past most
                              caches; CPUML_MODEL_LAYERS below for larger ones
Prints one line per case, as bench/device_peers.py does:
  peer/types/MxKxN/threads:T  GOPS=<median>
  onnxruntime_nbits/u8u4/MxKxN/block:B/threads:T  GOPS=<median>
  onnxruntime_nbits_model/<preset>/block:B/M:M/threads:T  us=<median run()>  GOPS=<2 * M * sum(K * N)>
Usage: python3 bench/device_dynamic_peers.py [threads ...]   (default: 1 and every core);
CPUML_BENCH_SHAPES narrows the shapes; CPUML_ORT_FAMILIES, a comma list of dqmatmul, i2f, nbits
and nbits_model, narrows the ONNX Runtime rows (default: all of them; torch's rows always run);
CPUML_MODEL_M, a comma list, replaces nbits_model's M (default 1,128); CPUML_MODEL_LAYERS=L puts L
decoder layers in nbits_model's one model, each with weights of its own (rows named
<preset>/layers:L), as cpuml_bench's --model-layers does."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from device_peers import SHAPES, median_seconds, report  # noqa: E402

ORT_FAMILIES = os.environ.get("CPUML_ORT_FAMILIES", "dqmatmul,i2f,nbits,nbits_model").split(",")
MODEL_M = [int(m) for m in os.environ.get("CPUML_MODEL_M", "1,128").split(",")]
MODEL_LAYERS = int(os.environ.get("CPUML_MODEL_LAYERS", "1"))

# The linear layers of one decoder layer, (name, K, N): the weights a 4-bit model streams per token.
PRESETS = {
    "llama3_8b": [("q", 4096, 4096), ("k", 4096, 1024), ("v", 4096, 1024), ("o", 4096, 4096),
                  ("gate", 4096, 14336), ("up", 4096, 14336), ("down", 14336, 4096)],
    "phi3_mini": [("qkv", 3072, 9216), ("o", 3072, 3072), ("gate_up", 3072, 16384), ("down", 8192, 3072)],
}


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

    def serialize_graph(nodes, inputs, outputs, inits):
        graph = helper.make_graph(nodes, "g", inputs, outputs, inits)
        proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
        proto.ir_version = 8  # what ONNX Runtime 1.30 reads; onnx 1.23 writes a newer one
        return proto.SerializeToString()

    def serialize(node, a_type, inits, m, k, n):
        return serialize_graph([node], [helper.make_tensor_value_info("A", a_type, [m, k])],
                               [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [m, n])], inits)

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

    def nbits_layer(m, k, n, block, suffix="", seed=1):
        """One MatMulNBits as (node, inits, input, output); suffix keeps the tensor names of several
        layers in one graph apart. B as MatMulNBits reads it: [N][K blocks][block / 2], low nibble first."""
        blocks = -(-k // block)
        rng = np.random.default_rng(seed)
        a, b, scales, y = (name + suffix for name in ("A", "B", "scales", "Y"))
        # dtype=uint8 from the start: an int64 draw of the largest layer would be a quarter gigabyte
        inits = [numpy_helper.from_array(rng.integers(0, 256, (n, blocks, block // 2), dtype=np.uint8), b),
                 numpy_helper.from_array((0.001 + 0.0001 * (np.arange(n * blocks) % 17)).astype(np.float32), scales)]
        node = helper.make_node("MatMulNBits", [a, b, scales], [y], domain="com.microsoft",
                                K=k, N=n, bits=4, block_size=block, accuracy_level=4)
        return (node, inits, helper.make_tensor_value_info(a, TensorProto.FLOAT, [m, k]),
                helper.make_tensor_value_info(y, TensorProto.FLOAT, [m, n]))

    def layers_model(layers):
        nodes, inits, inputs, outputs = zip(*layers)
        return serialize_graph(list(nodes), list(inputs), list(outputs), [t for ts in inits for t in ts])

    def open_model(proto, threads):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        return ort.InferenceSession(proto, opts, providers=["CPUExecutionProvider"])

    for threads in threads_list:
        for family, name, op in (("dqmatmul", "onnxruntime_dqmatmul", "DynamicQuantizeMatMul"),
                                 ("i2f", "onnxruntime_i2f", "MatMulIntegerToFloat")):
            if family not in ORT_FAMILIES:
                continue
            for m, k, n in SHAPES:
                runner = open_model(model(m, k, n, op), threads)
                rng = np.random.default_rng(2)
                a = rng.standard_normal((m, k)).astype(np.float32) if op == "DynamicQuantizeMatMul" else \
                    rng.integers(0, 256, (m, k)).astype(np.uint8)
                report(f"{name}/u8s8", m, k, n, threads, median_seconds(lambda: runner.run(None, {"A": a})))
        for block in (32, 128) if "nbits" in ORT_FAMILIES else ():
            for m, k, n in SHAPES:
                runner = open_model(layers_model([nbits_layer(m, k, n, block)]), threads)
                a = np.random.default_rng(2).standard_normal((m, k)).astype(np.float32)
                seconds = median_seconds(lambda: runner.run(None, {"A": a}))
                # report() has no place for the block, which stands between the shape and the threads
                print(f"onnxruntime_nbits/u8u4/{m}x{k}x{n}/block:{block}/threads:{threads}  "
                      f"GOPS={2.0 * m * n * k / seconds / 1e9:.1f}", flush=True)
        for preset, linears in PRESETS.items() if "nbits_model" in ORT_FAMILIES else ():
            # MODEL_LAYERS decoder layers, each with weights of its own, as cpuml_bench's --model-layers
            linears = [(f"{layer}{copy if MODEL_LAYERS > 1 else ''}", k, n)
                       for copy in range(MODEL_LAYERS) for layer, k, n in linears]
            name = f"{preset}/layers:{MODEL_LAYERS}" if MODEL_LAYERS > 1 else preset
            macs_per_row = sum(k * n for _, k, n in linears)
            for block in (32, 128):
                for m in MODEL_M:
                    runner = open_model(layers_model([nbits_layer(m, k, n, block, f"_{layer}", seed=1 + i)
                                                      for i, (layer, k, n) in enumerate(linears)]), threads)
                    rng = np.random.default_rng(2)
                    feeds = {f"A_{layer}": rng.standard_normal((m, k)).astype(np.float32) for layer, k, _ in linears}
                    seconds = median_seconds(lambda: runner.run(None, feeds))
                    print(f"onnxruntime_nbits_model/{name}/block:{block}/M:{m}/threads:{threads}  "
                          f"us={seconds * 1e6:.1f}  GOPS={2.0 * m * macs_per_row / seconds / 1e9:.1f}", flush=True)
                    del runner  # the next model's weights would otherwise sit beside this one's


if __name__ == "__main__":
    # a misspelt family would otherwise leave its rows silently out
    unknown = set(ORT_FAMILIES) - {"dqmatmul", "i2f", "nbits", "nbits_model"}
    if unknown:
        sys.exit(f"CPUML_ORT_FAMILIES: no family {', '.join(sorted(unknown))}")
    threads_list = [int(t) for t in sys.argv[1:]] or [1, os.cpu_count()]
    for bench in (bench_torch, bench_ort):
        try:
            bench(threads_list)
        except Exception as e:  # a missing package skips that peer, loudly
            print(f"{bench.__name__}: skipped ({type(e).__name__}: {e})", flush=True)
