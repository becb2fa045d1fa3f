// A hand-written ONNX protobuf writer, only what cpuml's ONNX Runtime peers need (the node scripts
// run where no onnx package is installed): fields as Buffers, since a weight tensor is megabytes.
export function varint(value) {
  const out = [];
  let v = BigInt(value);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return Buffer.from(out);
}
export const int = (field, value) => Buffer.concat([varint(field << 3), varint(value)]);
export function bytes(field, payload) {
  const data = typeof payload === "string" ? Buffer.from(payload)
                                           : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  return Buffer.concat([varint((field << 3) | 2), varint(data.length), data]);
}
export const concat = (...parts) => Buffer.concat(parts.flat());

export const FLOAT = 1, UINT8 = 2, INT8 = 3;
export function tensor(name, type, dims, raw) {  // TensorProto
  return concat(...dims.map((d) => int(1, d)), int(2, type), bytes(8, name),
                bytes(9, new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)));
}
export function valueInfo(name, type, dims) {  // ValueInfoProto with a TypeProto.Tensor
  const shape = concat(...dims.map((d) => bytes(1, int(1, d))));
  return concat(bytes(1, name), bytes(2, bytes(1, concat(int(1, type), bytes(2, shape)))));
}
const INT_ATTRIBUTE = 2;
export function node(op, inputs, outputs, domain, ints = {}) {  // NodeProto; ints: integer attributes
  const attributes = Object.entries(ints).map(([name, value]) =>
      bytes(5, concat(bytes(1, name), int(3, value), int(20, INT_ATTRIBUTE))));
  return concat(...inputs.map((i) => bytes(1, i)), ...outputs.map((o) => bytes(2, o)), bytes(4, op),
                domain ? bytes(7, domain) : [], ...attributes);
}
export function model(nodes, initializers, inputs, outputs) {  // ModelProto, IR version 8
  const graph = concat(...nodes.map((n) => bytes(1, n)), bytes(2, "g"), ...initializers.map((t) => bytes(5, t)),
                       ...inputs.map((v) => bytes(11, v)), ...outputs.map((v) => bytes(12, v)));
  const opset = (domain, version) => concat(domain ? bytes(1, domain) : [], int(2, version));
  return new Uint8Array(concat(int(1, 8), bytes(8, opset("", 13)), bytes(8, opset("com.microsoft", 1)), bytes(7, graph)));
}
