// ONNX Runtime's int8 and 4-bit paths through onnxruntime-node (the npm package ships ONNX
// Runtime's CPU library), for machines that reach ONNX Runtime only through the npm registry.
// Times the same shapes and thread counts as cpuml_bench's dqmatmul/, i2f/ and qgemm/ rows and
// prints one line per case in bench/device_peers.py's form:
//   onnxruntime_dqmatmul/u8s8/MxKxN/threads:T  GOPS=<median>   com.microsoft DynamicQuantizeMatMul
//   onnxruntime_i2f/u8s8/MxKxN/threads:T       GOPS=<median>   com.microsoft MatMulIntegerToFloat
//   onnxruntime/u8s8/MxKxN/threads:T           GOPS=<median>   QLinearMatMul
//   onnxruntime_nbits/u8u4/MxKxN/block:B/threads:T  GOPS=<median>   com.microsoft MatMulNBits
//   onnxruntime_nbits_model/<preset>/block:B/M:M/threads:T  us=<median>  GOPS=<median>
//                                              MatMulNBits, every linear layer of one decoder layer
//   onnxruntime_call_overhead/threads:T        us=<median>     an Identity of 4 floats, per run()
//   onnxruntime_exactness/u8s8  exact|INEXACT                  MatMulInteger on adversarial data
// Float A, s8 B with per-column scales and a bias, as bench/device_dynamic_peers.py builds them.
// MatMulNBits: float A, B in 4 bits with a float scale per block of B = 32 and 128 along K and the
// default zero point 8, no bias; accuracy_level 4 so that A is quantized to int8 and the int8 dot
// product kernels run, the CPU path of 4-bit language models.
// nbits_model: one model holding a MatMulNBits per linear layer of one decoder layer of a preset
// (llama3_8b, phi3_mini), each with its own A and Y, all in one run(), for M = 1 (a decoded token)
// and 128 (a prefill chunk): the per-node costs a single-shape row hides, at a weight footprint
// (57 and 109 MB at 4 bits) that no cache holds, so B streams from memory as it does in a model;
// us is the median run(), GOPS counts 2 * M * sum(K * N).
// No onnx package is needed: the models are written here as protobuf bytes.
// Usage: node bench/ort_node_peers.mjs [threads ...]   (default 1 and every CPU);
// CPUML_BENCH_SHAPES narrows the shapes; ORT_NODE_MODULES names the node_modules folder that
// holds onnxruntime-node (default: build/ort-node/node_modules); CPUML_ORT_FAMILIES, a comma list
// of dqmatmul, i2f, qlinear, nbits and nbits_model, narrows the GOPS rows (default: all of them);
// CPUML_MODEL_M, a comma list, replaces nbits_model's M (default 1,128); CPUML_MODEL_LAYERS=L puts L
// decoder layers in nbits_model's one model, each with weights of its own (rows named
// <preset>/layers:L), as cpuml_bench's --model-layers does.
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { FLOAT, INT8, UINT8, model, node, tensor, valueInfo } from "./onnx_proto.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const modules = process.env.ORT_NODE_MODULES || path.join(root, "build/ort-node/node_modules");
const ort = createRequire(path.join(modules, "noop.js"))("onnxruntime-node");

// --- the cases ---------------------------------------------------------------------------------
let seed = 1;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
function normal(count) {
  const out = new Float32Array(count);
  for (let i = 0; i < count; ++i) out[i] = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return out;
}
function integers(count, Type, low) {
  const out = new Type(count);
  for (let i = 0; i < count; ++i) out[i] = low + Math.floor(random() * 256);
  return out;
}

// One MatMulNBits layer; suffix keeps the tensor names of several layers in one graph apart.
// B as MatMulNBits reads it: [N][K blocks][block / 2], low nibble first.
function nbitsLayer(m, k, n, block, suffix = "") {
  const blocks = Math.ceil(k / block);
  const [a, b, scales, y] = ["A", "B", "scales", "Y"].map((name) => name + suffix);
  return {
    node: node("MatMulNBits", [a, b, scales], [y], "com.microsoft",
               { K: k, N: n, bits: 4, block_size: block, accuracy_level: 4 }),
    initializers: [tensor(b, UINT8, [n, blocks, block / 2], integers(n * blocks * block / 2, Uint8Array, 0)),
                   tensor(scales, FLOAT, [n * blocks],
                          Float32Array.from({ length: n * blocks }, (_, i) => 0.001 + 0.0001 * (i % 17)))],
    input: valueInfo(a, FLOAT, [m, k]),
    output: valueInfo(y, FLOAT, [m, n]),
  };
}
function layersModel(layers) {
  return model(layers.map((l) => l.node), layers.flatMap((l) => l.initializers),
               layers.map((l) => l.input), layers.map((l) => l.output));
}

// The linear layers of one decoder layer, [name, K, N]: the weights a 4-bit model streams per token.
const presets = {
  llama3_8b: [["q", 4096, 4096], ["k", 4096, 1024], ["v", 4096, 1024], ["o", 4096, 4096],
              ["gate", 4096, 14336], ["up", 4096, 14336], ["down", 14336, 4096]],
  phi3_mini: [["qkv", 3072, 9216], ["o", 3072, 3072], ["gate_up", 3072, 16384], ["down", 8192, 3072]],
};

function buildModel(kind, m, k, n, block) {
  if (kind === "nbits") return layersModel([nbitsLayer(m, k, n, block)]);
  const bScale = Float32Array.from({ length: n }, (_, j) => 0.001 + 0.0001 * (j % 17));
  const b = tensor("B", INT8, [k, n], integers(k * n, Int8Array, -128));
  const as = tensor("as", FLOAT, [], Float32Array.of(0.02)), az = tensor("az", UINT8, [], Uint8Array.of(131));
  if (kind === "qlinear")  // per-tensor B scale and zero point, u8 out
    return model([node("QLinearMatMul", ["A", "as", "az", "B", "bs", "bz", "ys", "yz"], ["Y"])],
                 [b, as, az, tensor("bs", FLOAT, [], Float32Array.of(0.015)), tensor("bz", INT8, [], Int8Array.of(0)),
                  tensor("ys", FLOAT, [], Float32Array.of(0.5)), tensor("yz", UINT8, [], Uint8Array.of(7))],
                 [valueInfo("A", UINT8, [m, k])], [valueInfo("Y", UINT8, [m, n])]);
  const inits = [b, tensor("bs", FLOAT, [n], bScale), tensor("bz", INT8, [n], new Int8Array(n)),
                 tensor("bias", FLOAT, [n], normal(n))];
  const out = valueInfo("Y", FLOAT, [m, n]);
  if (kind === "dqmatmul")
    return model([node("DynamicQuantizeMatMul", ["A", "B", "bs", "bz", "bias"], ["Y"], "com.microsoft")], inits,
                 [valueInfo("A", FLOAT, [m, k])], [out]);
  return model([node("MatMulIntegerToFloat", ["A", "B", "as", "bs", "az", "bz", "bias"], ["Y"], "com.microsoft")],
               [...inits, as, az], [valueInfo("A", UINT8, [m, k])], [out]);
}

async function medianSeconds(run, minTime = 0.3, reps = 5) {
  await run();
  const samples = [];
  for (let r = 0; r < reps; ++r) {
    let count = 0;
    const start = process.hrtime.bigint();
    let elapsed;
    do {
      await run();
      ++count;
      elapsed = Number(process.hrtime.bigint() - start) * 1e-9;
    } while (elapsed < minTime / reps);
    samples.push(elapsed / count);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

async function openModel(bytes, threads) {
  return ort.InferenceSession.create(bytes, { intraOpNumThreads: threads, interOpNumThreads: 1,
                                              executionMode: "sequential", executionProviders: ["cpu"],
                                              logSeverityLevel: 3 });
}

const shapes = (process.env.CPUML_BENCH_SHAPES ||
                "1x4096x4096,1x4096x11008,1x11008x4096,16x4096x4096,128x768x3072,1024x1024x1024,2048x2048x2048")
                   .split(",").map((s) => s.split("x").map(Number));
const cases = [["dqmatmul", "onnxruntime_dqmatmul/u8s8"], ["i2f", "onnxruntime_i2f/u8s8"], ["qlinear", "onnxruntime/u8s8"],
               ["nbits", "onnxruntime_nbits/u8u4", 32], ["nbits", "onnxruntime_nbits/u8u4", 128]];
const families = (process.env.CPUML_ORT_FAMILIES || "dqmatmul,i2f,qlinear,nbits,nbits_model").split(",");
for (const family of families)  // a misspelt family would otherwise leave its rows silently out
  if (family !== "nbits_model" && !cases.some(([kind]) => kind === family))
    throw new Error(`CPUML_ORT_FAMILIES: no family ${family}`);
const modelMs = (process.env.CPUML_MODEL_M || "1,128").split(",").map(Number);
if (!modelMs.every((m) => Number.isInteger(m) && m > 0)) throw new Error("CPUML_MODEL_M: a comma list of positive M");
const modelLayers = Number(process.env.CPUML_MODEL_LAYERS || "1");
if (!Number.isInteger(modelLayers) || modelLayers < 1) throw new Error("CPUML_MODEL_LAYERS: a positive count");

// Exactness, as cpuml_bench labels oneDNN and XNNPACK: MatMulInteger (int32 out, no scales to
// hide an error) on adversarial u8 x s8 data, A = 255 and B = -128 everywhere, whose pair sums
// (2 * 255 * -128) do not fit int16: a kernel that adds pairs in int16 with saturation (vpmaddubsw)
// returns something else than K * 255 * -128.
async function exactness() {
  const m = 4, k = 64, n = 32;
  const runner = await openModel(
      model([node("MatMulInteger", ["A", "B"], ["Y"])],
            [tensor("B", INT8, [k, n], new Int8Array(k * n).fill(-128))], [valueInfo("A", UINT8, [m, k])],
            [valueInfo("Y", 6 /* INT32 */, [m, n])]), 1);
  const y = (await runner.run({ A: new ort.Tensor("uint8", new Uint8Array(m * k).fill(255), [m, k]) })).Y.data;
  await runner.release();
  const expected = k * 255 * -128;
  const wrong = Array.from(y).filter((v) => v !== expected).length;
  console.log(`onnxruntime_exactness/u8s8  ${wrong ? "INEXACT" : "exact"}  MatMulInteger, A = 255, B = -128, K = ${k}: ` +
              `${wrong} of ${y.length} outputs differ from ${expected} (first: ${y[0]})`);
}
await exactness();

const threadsList = process.argv.slice(2).map(Number);
if (!threadsList.length) threadsList.push(1, os.cpus().length);
for (const threads of threadsList) {
  const identity = await openModel(model([node("Identity", ["X"], ["Y"])], [], [valueInfo("X", FLOAT, [4])],
                                       [valueInfo("Y", FLOAT, [4])]), threads);
  const x = new ort.Tensor("float32", new Float32Array(4), [4]);
  const overhead = await medianSeconds(() => identity.run({ X: x }));
  console.log(`onnxruntime_call_overhead/threads:${threads}  us=${(overhead * 1e6).toFixed(1)}`);
  for (const [kind, name, block] of cases.filter(([kind]) => families.includes(kind))) {
    for (const [m, k, n] of shapes) {
      const runner = await openModel(buildModel(kind, m, k, n, block), threads);
      const a = kind === "dqmatmul" || kind === "nbits" ? new ort.Tensor("float32", normal(m * k), [m, k])
                                                        : new ort.Tensor("uint8", integers(m * k, Uint8Array, 0), [m, k]);
      const seconds = await medianSeconds(() => runner.run({ A: a }));
      console.log(`${name}/${m}x${k}x${n}${block ? `/block:${block}` : ""}/threads:${threads}  ` +
                  `GOPS=${(2 * m * n * k / seconds / 1e9).toFixed(1)}`);
      await runner.release();
    }
  }
  if (!families.includes("nbits_model")) continue;
  for (const [preset, oneLayer] of Object.entries(presets)) {
    // modelLayers decoder layers, each with weights of its own, as cpuml_bench's --model-layers
    const linears = Array.from({ length: modelLayers }, (_, copy) =>
        oneLayer.map(([layer, k, n]) => [modelLayers > 1 ? `${layer}${copy}` : layer, k, n])).flat();
    const name = modelLayers > 1 ? `${preset}/layers:${modelLayers}` : preset;
    const macsPerRow = linears.reduce((sum, [, k, n]) => sum + k * n, 0);
    for (const block of [32, 128]) {
      for (const m of modelMs) {
        const runner = await openModel(
            layersModel(linears.map(([layer, k, n]) => nbitsLayer(m, k, n, block, `_${layer}`))), threads);
        const feeds = Object.fromEntries(linears.map(([layer, k]) =>
            [`A_${layer}`, new ort.Tensor("float32", normal(m * k), [m, k])]));
        const seconds = await medianSeconds(() => runner.run(feeds));
        console.log(`onnxruntime_nbits_model/${name}/block:${block}/M:${m}/threads:${threads}  ` +
                    `us=${(seconds * 1e6).toFixed(1)}  GOPS=${(2 * m * macsPerRow / seconds / 1e9).toFixed(1)}`);
        await runner.release();
      }
    }
  }
}
