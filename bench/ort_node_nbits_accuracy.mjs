// ONNX Runtime's MatMulNBits (com.microsoft, 4 bits) on the cases cpuml_int4_accuracy wrote,
// through onnxruntime-node, against the same float64 reference and with the same two errors:
//   <case dir name>  max_rel=<max|y - ref| / max|ref|>  rms_rel=<sqrt(sum (y - ref)^2 / sum ref^2)>
//                    vs_cpuml=<max|y - y_cpuml| / max|ref|>   (with the case's cpuml.f32)
// vs_cpuml separates the two libraries' own differences (A's rounding, the order of float sums)
// from the error both share, which quantizing A dominates.
// B and scales are the model's initializers, read from the case's files; no zero_points input,
// so the zero point is MatMulNBits' default 8, as in cpuml's run.
// Usage: node bench/ort_node_nbits_accuracy.mjs CASE_DIR...
// ORT_NODE_MODULES names the node_modules folder that holds onnxruntime-node (default:
// build/ort-node/node_modules); ORT_ACCURACY_LEVEL replaces accuracy_level 4 (int8 activations,
// the path cpuml's is compared with), e.g. 0 for float activations, the floor the int8 path's
// error sits on.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { FLOAT, UINT8, model, node, tensor, valueInfo } from "./onnx_proto.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const modules = process.env.ORT_NODE_MODULES || path.join(root, "build/ort-node/node_modules");
const ort = createRequire(path.join(modules, "noop.js"))("onnxruntime-node");
const accuracyLevel = Number(process.env.ORT_ACCURACY_LEVEL ?? 4);

// One MatMulNBits layer over B and scales as read from the case files.
function nbitsModel(m, k, n, block, b, scales) {
  const blocks = Math.ceil(k / block);
  return model([node("MatMulNBits", ["A", "B", "scales"], ["Y"], "com.microsoft",
                     { K: k, N: n, bits: 4, block_size: block, accuracy_level: accuracyLevel })],
               [tensor("B", UINT8, [n, blocks, block / 2], b), tensor("scales", FLOAT, [n * blocks], scales)],
               [valueInfo("A", FLOAT, [m, k])], [valueInfo("Y", FLOAT, [m, n])]);
}

// A file as a typed array (a fresh copy: Buffer's pool would leave it unaligned for Float64Array).
function read(dir, file, Type) {
  const buffer = fs.readFileSync(path.join(dir, file));
  const out = new Type(buffer.byteLength / Type.BYTES_PER_ELEMENT);
  new Uint8Array(out.buffer).set(buffer);
  return out;
}

// As C's %.3e writes it (two exponent digits), so both tools' lines read alike.
const exp3 = (x) => x.toExponential(3).replace(/e([+-])(\d)$/, "e$10$2");

const dirs = process.argv.slice(2);
if (!dirs.length) throw new Error("usage: node bench/ort_node_nbits_accuracy.mjs CASE_DIR...");
for (const dir of dirs) {
  const [m, k, n, block] = fs.readFileSync(path.join(dir, "case.txt"), "utf8").trim().split(/\s+/).map(Number);
  const a = read(dir, "a.f32", Float32Array), ref = read(dir, "ref.f64", Float64Array);
  const runner = await ort.InferenceSession.create(
      nbitsModel(m, k, n, block, read(dir, "b.u8", Uint8Array), read(dir, "scales.f32", Float32Array)),
      { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", executionProviders: ["cpu"],
        logSeverityLevel: 3 });
  const y = (await runner.run({ A: new ort.Tensor("float32", a, [m, k]) })).Y.data;
  await runner.release();
  if (y.length !== ref.length) throw new Error(`${dir}: ${y.length} outputs, ${ref.length} in ref.f64`);
  let maxError = 0, maxRef = 0, error2 = 0, ref2 = 0;
  for (let i = 0; i < y.length; ++i) {
    const e = y[i] - ref[i];
    maxError = Math.max(maxError, Math.abs(e));
    maxRef = Math.max(maxRef, Math.abs(ref[i]));
    error2 += e * e;
    ref2 += ref[i] * ref[i];
  }
  let line = `${path.basename(path.resolve(dir))}  max_rel=${exp3(maxError / maxRef)}  ` +
             `rms_rel=${exp3(Math.sqrt(error2 / ref2))}`;
  if (fs.existsSync(path.join(dir, "cpuml.f32"))) {
    const cpuml = read(dir, "cpuml.f32", Float32Array);
    let maxDifference = 0;
    for (let i = 0; i < y.length; ++i) maxDifference = Math.max(maxDifference, Math.abs(y[i] - cpuml[i]));
    line += `  vs_cpuml=${exp3(maxDifference / maxRef)}`;
  }
  console.log(line);
}
