#!/usr/bin/env python3
"""Writes the hand-made seeds of the fuzz corpus (tests/fuzz/corpus/seed_*) in the byte format
operator_fuzz.cc reads, leaving the seeds already there as they are. The rest of the corpus is what
libFuzzer found from them, merged."""
import os
import struct
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def size(n):
    """A Size() choice for n: small sizes directly, anything else as an explicit u32."""
    if 1 <= n <= 8:
        return bytes([n - 1])
    if 65535 <= n <= 65538:
        return bytes([0xA0 | (n - 65535)])
    return bytes([0xC0]) + struct.pack("<I", n)


def stride(s):
    if s == 0:
        return bytes([0])
    if 1 <= s <= 16:
        return bytes([0x40 | (s - 1)])
    return bytes([0xC0]) + struct.pack("<I", s)


def tensor(sizes, strides=None, owned=False, rank_min=1, rank_max=8):
    shape = (0x10 if strides is not None else 0) | (1 if owned else 0)
    out = bytes([shape, (len(sizes) - rank_min) % (rank_max - rank_min + 1)])
    for i, n in enumerate(sizes):
        out += size(n)
        if strides is not None:
            out += stride(strides[i])
    return out + bytes([0, 0])  # exact TotalTensorSizeInBytes, no alignment promise


def fill(tier, sequence, dtype, sizes, strides=None, start=0, delta=0, pool=0):
    data = bytes([tier, 1 if sequence else 0, dtype - 1]) + tensor(sizes, strides)
    data += struct.pack("<QQ", start, delta) + bytes([0, 0])
    return data + struct.pack("<Q", 0x0123456789ABCDEF) + bytes([0, pool])


def matmul(tier, a, b, out, owned_b=False, a_strides=None, out_strides=None, types=(0, 1, 0), pool=0):
    data = bytes([tier, 2]) + bytes(types) + bytes([0])  # every member present
    per_tensor = [1, 1]
    members = [
        tensor(a, a_strides, rank_min=2, rank_max=4),
        tensor(per_tensor, rank_min=2, rank_max=4),
        tensor(per_tensor, rank_min=2, rank_max=4),
        tensor(b, owned=owned_b, rank_min=2, rank_max=4),
        tensor([1, b[-1]], rank_min=2, rank_max=4),
        tensor(per_tensor, rank_min=2, rank_max=4),
        tensor(per_tensor, rank_min=2, rank_max=4),
        tensor(per_tensor, rank_min=2, rank_max=4),
        tensor(out, out_strides, rank_min=2, rank_max=4),
    ]
    data += b"".join(members) + bytes([0])  # sane scales
    # Each member's data pattern; after each scale's, one byte per float (0.001 + byte / 64): A and
    # B scales 0.001 and the output's 0.016, so that products of K up to a few hundred land inside
    # the output's range instead of saturating.
    scale_bytes = {1: [0], 4: [0] * b[-1], 6: [1]}
    for i in range(len(members)):
        data += struct.pack("<Q", 0x5A5A5A5AA5A5A5A5) + bytes(scale_bytes.get(i, []))
    return data + bytes([0] * 9 + [pool])  # exact bindings, then the pool


def derived(rank, strides=None, owned=False):
    """A tensor whose sizes the harness derives from other members (the new operators' shape mode):
    no rank or size bytes, only the strides if given."""
    shape = (0x10 if strides is not None else 0) | (1 if owned else 0)
    out = bytes([shape])
    if strides is not None:
        assert len(strides) == rank
        out += b"".join(stride(x) for x in strides)
    return out + bytes([0, 0])


def packed_bytes(sizes, strides, element_size):
    """DirectML's minimum size, as the harness computes it (TotalTensorSizeInBytes of a seed)."""
    if strides is None:
        strides, packed = [0] * len(sizes), 1
        for d in reversed(range(len(sizes))):
            strides[d], packed = packed, packed * sizes[d]
    last = sum((n - 1) * s for n, s in zip(sizes, strides))
    if element_size == 0.5:  # two 4-bit elements a byte
        return ((last + 2) // 2 + 3) // 4 * 4
    return ((last + 1) * element_size + 3) // 4 * 4


def pad4(sizes):
    return [1] * (4 - len(sizes)) + list(sizes)


# The roles of MATRIX_MULTIPLY_INTEGER(_TO_FLOAT) in descriptor order.
MMI_MEMBERS = ["a", "a_zero", "b", "b_zero", "out"]
I2F_MEMBERS = ["a", "a_scale", "a_zero", "b", "b_scale", "b_zero", "bias", "out"]
OPTIONAL = {"a_zero", "b_zero", "bias"}


def matmul_integer(tier, to_float, a, n, a_signed=False, b_signed=True, per_row=(), absent=(), b_batch_one=(False, False),
                   strides=None, owned=(), floats=None, float_mode=0, binds=None, alias=0, pool=0, scratch=0,
                   b4=False, block=0):
    """MATRIX_MULTIPLY_INTEGER (selector 3) or MATRIX_MULTIPLY_INTEGER_TO_FLOAT (selector 11) in the
    derived shape mode: A's sizes (rank 2 to 4) and N give every other member's. per_row names the
    members per row (A's) or per column (B's and the bias), absent the optional members left NULL,
    strides and owned per member; floats(member, count) gives the scale and bias bytes. b4 makes B
    (and its zero points) 4-bit, block (16-256, or 0) B's scales and zero points blockwise."""
    members = I2F_MEMBERS if to_float else MMI_MEMBERS
    strides = strides or {}
    rank = len(a)
    a4 = pad4(a)
    bits = {"a_scale": 0, "a_zero": 1, "b_scale": 2, "b_zero": 3, "bias": 4}
    shapes = sum(1 << bits[m] for m in per_row) | (0x20 if b_batch_one[0] else 0) | (0x40 if b_batch_one[1] else 0)
    absent_byte = sum(1 << j for j, m in enumerate(members) if m in absent)
    data = bytes([tier, 11 if to_float else 3, 1 if a_signed else 0, (1 if b_signed else 0) | (2 if b4 else 0),
                  absent_byte, shapes])
    if b4:
        data += bytes([[0, 16, 32, 64, 128, 256].index(block)])
    blocks = (a4[3] + block - 1) // block if block else 1
    sizes4 = {
        "a": a4,
        "b": [1 if b_batch_one[0] else a4[0], 1 if b_batch_one[1] else a4[1], a4[3], n],
        "out": [a4[0], a4[1], a4[2], n],
        "a_scale": [1, 1, a4[2] if "a_scale" in per_row else 1, 1],
        "a_zero": [1, 1, a4[2] if "a_zero" in per_row else 1, 1],
        "b_scale": [1, 1, blocks, n if "b_scale" in per_row else 1],
        "b_zero": [1, 1, blocks, n if "b_zero" in per_row else 1],
        "bias": [1, 1, 1, n if "bias" in per_row else 1],
    }
    element = {"a": 1, "a_zero": 1, "b": 0.5 if b4 else 1, "b_zero": 0.5 if b4 else 1, "a_scale": 4, "b_scale": 4,
               "bias": 4, "out": 4}
    for m in members:
        if m == "a":
            data += tensor(a, strides.get("a"), owned="a" in owned, rank_min=2, rank_max=4) + size(n)
        else:
            data += derived(rank, strides.get(m), owned=m in owned)
    if to_float:
        data += bytes([float_mode])
    present = [m for m in members if m not in absent]
    for m in present:
        data += struct.pack("<Q", 0x5A5A5A5AA5A5A5A5)
        if m in ("a_scale", "b_scale", "bias") and float_mode < 0xF0:
            count = packed_bytes(sizes4[m][4 - rank:], strides.get(m), element[m]) // 4
            data += bytes(floats(m, count) if floats else [0x10] * count)  # 1.0 by default
    binds = binds or {}
    data += bytes(binds.get(m, 0) for m in present)  # inputs then the output, exact unless given
    return data + bytes([alias, pool, scratch])


def dynamic_quantize(tier, sizes, f16=False, s8=False, per_row=False, rank1_scale=False, strides=None, data_mode=0,
                     values=None, binds=None, alias=0, pool=0, scratch=0):
    """DYNAMIC_QUANTIZE_LINEAR (selector 15) in the derived shape mode: the output has the input's
    sizes, scale and zero point per row or per tensor. values(count) gives the input's bytes
    (data_mode below 0xF0: one byte per element, a multiple of 1/16, or 0xF8 and up specials)."""
    strides = strides or {}
    rank = len(sizes)
    shapes = (1 if per_row else 0) | (2 if rank1_scale else 0)
    data = bytes([tier, 15, 1 if f16 else 0, 1 if s8 else 0, 0, shapes])
    data += tensor(sizes, strides.get("input"), rank_min=1, rank_max=4)
    param_rank = 1 if rank1_scale and not per_row else rank
    param_sizes = (list(sizes[:-1]) + [1]) if per_row else [1] * param_rank
    data += derived(rank, strides.get("out"))
    data += derived(param_rank, strides.get("scale"))
    data += derived(param_rank, strides.get("zero"))
    data += bytes([data_mode])
    in_size = 2 if f16 else 4
    for member, sz, es in (("input", sizes, in_size), ("out", sizes, 1), ("scale", param_sizes, 4),
                           ("zero", param_sizes, 1)):
        data += struct.pack("<Q", 0x0123456789ABCDEF)
        if member == "input" and data_mode < 0xF0:
            count = packed_bytes(sz, strides.get(member), es) // es
            data += bytes(values(count) if values else [(i * 37 + 11) & 0xFF for i in range(count)])
    binds = binds or {}
    data += bytes(binds.get(m, 0) for m in ("input", "out", "scale", "zero"))
    return data + bytes([alias, pool, scratch])


def ramp(count):
    """Scale or bias bytes: multiples of 1/16 of either sign, zeros among them."""
    return [((i * 29 + 3) % 64 - 24) & 0xFF for i in range(count)]


SEEDS = {
    "fill_constant_f32": fill(3, False, 1, [2, 3], start=0x3F800000),
    "fill_constant_f16_strided": fill(3, False, 2, [3, 4], [8, 2], start=0x3C00),
    "fill_sequence_u8": fill(0, True, 5, [4], start=10, delta=0xFE),
    "fill_sequence_i32_rank5": fill(2, True, 6, [2, 1, 3, 1, 5], start=7, delta=3, pool=1),
    "fill_sequence_f32_broadcast": fill(1, True, 1, [3, 4], [0, 1], start=0x3F800000, delta=0x3F000000),
    "matmul_3x4x5": matmul(3, [3, 4], [4, 5], [3, 5]),
    "matmul_batched_owned_b": matmul(2, [2, 3, 5, 7], [1, 3, 7, 6], [2, 3, 5, 6], owned_b=True, pool=1),
    "matmul_s8s8_s8": matmul(1, [9, 33], [33, 17], [9, 17], types=(1, 1, 1)),
    "matmul_broadcast_both": matmul(3, [1, 1, 2, 3], [1, 1, 3, 4], [5, 1, 2, 4]),
    # Sixteen threads (pool byte 0xBF), where the VNNI and AMX kernels read A in place: the
    # avx512vnni cap with two 12-row tiles of u8 A, and the amx cap with one whole 32-row tile.
    "matmul_vnni_a_in_place": matmul(4, [24, 64], [64, 96], [24, 96], pool=0xBF),
    "matmul_amx_a_in_place": matmul(5, [32, 128], [128, 48], [32, 48], pool=0xBF),
    # The report's reproducer: 65537 x 65537 batches of A broadcast by stride 0.
    "matmul_batch_wrap": matmul(3, [65537, 65537, 1, 1], [1, 1], [65537, 65537, 1, 1], a_strides=[0, 0, 0, 0]),
    # MATRIX_MULTIPLY_INTEGER: per-tensor zero points; per-row and per-column ones with batches,
    # B broadcast and owned, two threads; none, with A and the output strided; K past one int32
    # chain; sixteen threads where the VNNI kernels read A in place; an aliasing output stride
    # (refused at create); caller scratch one byte short (refused at execute).
    "mmi_3x4x5": matmul_integer(2, False, [3, 4], 5),
    "mmi_batched_per_row_zero_owned_b": matmul_integer(3, False, [2, 3, 5, 7], 6, a_signed=True, b_signed=False,
                                                       per_row=("a_zero", "b_zero"), b_batch_one=(True, True),
                                                       owned=("b",), pool=1),
    "mmi_strided_no_zero_points": matmul_integer(1, False, [5, 9], 7, absent=("a_zero", "b_zero"),
                                                 strides={"a": [16, 1], "out": [16, 2]}),
    "mmi_long_k": matmul_integer(4, False, [2, 33000], 3, scratch=1),
    "mmi_vnni_a_in_place": matmul_integer(4, False, [24, 64], 96, a_signed=True, b_signed=False, pool=0xBF),
    "mmi_output_stride0": matmul_integer(3, False, [3, 4], 5, strides={"out": [0, 1]}),
    "mmi_scratch_short": matmul_integer(3, False, [6, 20], 10, scratch=3),
    # MATRIX_MULTIPLY_INTEGER_TO_FLOAT: per-tensor scales and a per-column bias with caller
    # scratch; per-row A scale and zero point, per-column B scale, no bias, B and the scales owned,
    # two threads; a NaN scale (refused at execute); FLT_MAX scales whose product overflows; the
    # output bound over A (refused); whole AMX tiles with sixteen threads; one row; rank 3 with B's
    # channel broadcast; a NaN in an owned scale (refused at initialize).
    "i2f_per_tensor_bias_scratch": matmul_integer(3, True, [4, 12], 9, per_row=("bias",), floats=lambda m, c: ramp(c),
                                                  scratch=1),
    "i2f_per_row_owned": matmul_integer(2, True, [7, 19], 11, a_signed=True, per_row=("a_scale", "a_zero", "b_scale"),
                                        absent=("bias",), owned=("b", "a_scale", "b_scale"),
                                        floats=lambda m, c: ramp(c), pool=1),
    # 4-bit B (owned, with its zero points): UINT4 blocks of 32 over K = 100 (the last block 4 rows)
    # with zero points per block and column and a bias; INT4 per column, B stored N x K.
    "i2f_uint4_blocks_of_32": matmul_integer(3, True, [3, 100], 9, b_signed=False, b4=True, block=32,
                                             per_row=("b_scale", "b_zero", "bias"), owned=("b", "b_zero"),
                                             floats=lambda m, c: ramp(c)),
    "i2f_int4_per_column_transposed": matmul_integer(2, True, [5, 40], 7, b4=True, per_row=("a_scale", "b_scale"),
                                                     absent=("b_zero",), owned=("b",), strides={"b": [1, 40]}),
    "i2f_nan_scale": matmul_integer(3, True, [3, 5], 4, per_row=("b_scale",), float_mode=0x80,
                                    floats=lambda m, c: [0xF8 if m == "b_scale" and i == c - 1 else 0x08
                                                         for i in range(c)]),
    "i2f_flt_max_scales": matmul_integer(1, True, [3, 5], 4, float_mode=0x80,
                                         floats=lambda m, c: [0xFC if m != "bias" else 0x10] * c),
    "i2f_output_over_a": matmul_integer(3, True, [4, 64], 4, alias=0xFF),  # A 256 bytes, the output 64
    "i2f_amx_a_in_place": matmul_integer(5, True, [32, 128], 48, per_row=("a_scale", "b_scale", "bias"),
                                         floats=lambda m, c: ramp(c), pool=0xBF),
    "i2f_one_row": matmul_integer(4, True, [1, 256], 40, a_signed=True, b_signed=True, per_row=("b_scale", "b_zero"),
                                  floats=lambda m, c: ramp(c)),
    "i2f_rank3_b_channel_broadcast": matmul_integer(2, True, [2, 4, 8], 6, b_batch_one=(False, True),
                                                    per_row=("a_scale",), floats=lambda m, c: ramp(c)),
    "i2f_owned_nan_scale": matmul_integer(3, True, [2, 3], 2, owned=("a_scale",), float_mode=0x80,
                                          floats=lambda m, c: [0xF8 if m == "a_scale" else 0x10] * c),
    # DYNAMIC_QUANTIZE_LINEAR: per tensor; FLOAT16 per row to INT8 with two threads; NaN,
    # infinities, -0, FLT_MAX and subnormals; strided input and output with a rank-1 scale; 64K
    # elements of raw bits on sixteen threads; FLOAT16 raw bits (NaNs and infinities) per row;
    # the output bound over the input, and the scale over the output (refused); misaligned
    # caller scratch (refused); a stride-0 output (refused at create).
    "dql_f32_u8_per_tensor": dynamic_quantize(2, [3, 17]),
    "dql_f16_s8_per_row": dynamic_quantize(3, [2, 3, 33], f16=True, s8=True, per_row=True, pool=1),
    "dql_specials": dynamic_quantize(4, [4, 31], data_mode=0x80, per_row=True,
                                     values=lambda c: [0xF8 + i % 8 if i % 5 == 0 else (i * 13) & 0xF7
                                                       for i in range(c)]),
    "dql_strided_rank1_scale": dynamic_quantize(1, [4, 9], rank1_scale=True, s8=True,
                                                strides={"input": [20, 2], "out": [10, 1]}),
    "dql_64k_sixteen_threads": dynamic_quantize(4, [1, 65536], data_mode=0xF0, pool=0xBF),
    "dql_f16_raw_bits_per_row": dynamic_quantize(3, [5, 40], f16=True, per_row=True, data_mode=0xF0, pool=1),
    "dql_output_over_input": dynamic_quantize(2, [3, 8], alias=0xFF),
    "dql_scale_over_output": dynamic_quantize(2, [3, 8], per_row=True, alias=0xFE),
    "dql_scratch_misaligned": dynamic_quantize(0, [2, 5], scratch=3 | (1 << 2)),
    "dql_output_stride0": dynamic_quantize(2, [3, 8], strides={"out": [0, 1]}),
}

if __name__ == "__main__":
    # Seeds already in the corpus are never rewritten: one whose bytes this script no longer
    # makes is reported and kept (the corpus replays as it was committed).
    os.makedirs(OUT, exist_ok=True)
    written = kept = 0
    for name, data in SEEDS.items():
        path = os.path.join(OUT, "seed_" + name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                if f.read() != data:
                    print(f"seed_{name}: the file differs from what this script makes; kept as it is", file=sys.stderr)
            kept += 1
            continue
        with open(path, "wb") as f:
            f.write(data)
        written += 1
    print(f"{written} seeds written to {OUT}, {kept} already there kept", file=sys.stderr)
