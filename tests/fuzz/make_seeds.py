#!/usr/bin/env python3
"""Writes the hand-made seeds of the fuzz corpus (tests/fuzz/corpus/seed_*) in the byte format
operator_fuzz.cc reads. The rest of the corpus is what libFuzzer found from them, merged."""
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
}

if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(OUT, "seed_" + name), "wb") as f:
            f.write(data)
    print(f"{len(SEEDS)} seeds written to {OUT}", file=sys.stderr)
