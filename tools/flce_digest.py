#!/usr/bin/env python3
"""flce_digest.py: the harness's digest (base/tensor.c's flce_digest) in Python's standard
library: XXH3-64 with seed 0 and the default 192-byte secret, as libxxhash 0.8 computes it
(XXH3_64bits), worked out from the algorithm's description (xxhash's doc/xxhash_spec.md).
Pure Python, about 10 MB/s: meant for the few hundred bytes of a run's contributions.

  digest(data) -> int           XXH3-64 of the bytes
  hexdigest(data) -> str        the same in 16 lower-case hex digits, as digests.txt writes it
  contributions_digest(values)  digests.txt's `contributions` line: the hex digest of the run's
                                final contributions as float64, little-endian, client 0 first

  python3 tools/flce_digest.py FILE...   prints each file's digest and name
  python3 tools/flce_digest.py --contributions RUN...
                                prints the digest of each run folder's contributions.csv"""
import struct
import sys

MASK64 = (1 << 64) - 1

PRIME32_1 = 0x9E3779B1
PRIME32_2 = 0x85EBCA77
PRIME32_3 = 0xC2B2AE3D
PRIME64_1 = 0x9E3779B185EBCA87
PRIME64_2 = 0xC2B2AE3D27D4EB4F
PRIME64_3 = 0x165667B19E3779F9
PRIME64_4 = 0x85EBCA77C2B2AE63
PRIME64_5 = 0x27D4EB2F165667C5
PRIME_MX1 = 0x165667919E3779F9
PRIME_MX2 = 0x9FB21C651E98DF25

# The default secret (XXH3_kSecret): 192 bytes.
SECRET = bytes.fromhex(
    'b8fe6c3923a44bbe7c01812cf721ad1c'
    'ded46de9839097db7240a4a4b7b3671f'
    'cb79e64eccc0e578825ad07dccff7221'
    'b8084674f743248ee03590e6813a264c'
    '3c2852bb91c300cb88d0658b1b532ea3'
    '71644897a20df94e3819ef46a9deacd8'
    'a8fa763fe39c343ff9dcbbc7c70b4f1d'
    '8a51e04bcdb45931c89f7ec9d9787364'
    'eac5ac8334d3ebc3c581a0fffa1363eb'
    '170ddd51b7f0da49d316552629d4689e'
    '2b16be587d47a1fc8ff8b8d17ad031ce'
    '45cb3a8f95160428afd7fbcabb4b407e')

STRIPE = 64          # bytes of input a stripe consumes
ACCS = STRIPE // 8   # eight 64-bit accumulators
SECRET_STEP = 8      # the secret advances 8 bytes a stripe
STRIPES_PER_BLOCK = (len(SECRET) - STRIPE) // SECRET_STEP   # 16
BLOCK = STRIPE * STRIPES_PER_BLOCK                          # 1024 bytes


def _u32(b, i):
    return int.from_bytes(b[i:i + 4], 'little')


def _u64(b, i):
    return int.from_bytes(b[i:i + 8], 'little')


def _rotl64(x, r):
    return ((x << r) | (x >> (64 - r))) & MASK64


def _bswap64(x):
    return int.from_bytes(x.to_bytes(8, 'little'), 'big')


def _fold(a, b):
    """The 128-bit product of two 64-bit words, its high half xor its low half."""
    p = a * b
    return (p ^ (p >> 64)) & MASK64


def _xxh64_avalanche(h):
    h ^= h >> 33
    h = (h * PRIME64_2) & MASK64
    h ^= h >> 29
    h = (h * PRIME64_3) & MASK64
    return h ^ (h >> 32)


def _avalanche(h):
    h ^= h >> 37
    h = (h * PRIME_MX1) & MASK64
    return h ^ (h >> 32)


def _rrmxmx(h, n):
    h ^= _rotl64(h, 49) ^ _rotl64(h, 24)
    h = (h * PRIME_MX2) & MASK64
    h ^= (h >> 35) + n
    h = (h * PRIME_MX2) & MASK64
    return h ^ (h >> 28)


def _mix16(data, i, s):
    """Sixteen bytes of input at i against sixteen of the secret at s (seed 0)."""
    return _fold(_u64(data, i) ^ _u64(SECRET, s), _u64(data, i + 8) ^ _u64(SECRET, s + 8))


def _upto3(data):
    n = len(data)
    # first, middle and last byte, with the length, in one 32-bit word
    word = (data[0] << 16) | (data[n >> 1] << 24) | data[n - 1] | (n << 8)
    return _xxh64_avalanche(word ^ (_u32(SECRET, 0) ^ _u32(SECRET, 4)))


def _upto8(data):
    n = len(data)
    first, last = _u32(data, 0), _u32(data, n - 4)
    both = (last + (first << 32)) & MASK64
    return _rrmxmx(both ^ (_u64(SECRET, 8) ^ _u64(SECRET, 16)), n)


def _upto16(data):
    n = len(data)
    lo = _u64(data, 0) ^ (_u64(SECRET, 24) ^ _u64(SECRET, 32))
    hi = _u64(data, n - 8) ^ (_u64(SECRET, 40) ^ _u64(SECRET, 48))
    return _avalanche((n + _bswap64(lo) + hi + _fold(lo, hi)) & MASK64)


def _upto128(data):
    n = len(data)
    acc = n * PRIME64_1
    # pairs of 16-byte pieces, one from the front and one from the back, as many as the length
    # covers: (0, n-16) always, (16, n-32) over 32 bytes, (32, n-48) over 64, (48, n-64) over 96
    pairs = 1 + (n > 32) + (n > 64) + (n > 96)
    for k in range(pairs):
        acc += _mix16(data, 16 * k, 32 * k) + _mix16(data, n - 16 * (k + 1), 32 * k + 16)
    return _avalanche(acc & MASK64)


def _upto240(data):
    n = len(data)
    acc = n * PRIME64_1
    pieces = n // 16
    for k in range(8):  # the first eight pieces against the secret's first 128 bytes
        acc += _mix16(data, 16 * k, 16 * k)
    acc = _avalanche(acc & MASK64)
    for k in range(8, pieces):  # the rest against the secret again, 3 bytes in
        acc += _mix16(data, 16 * k, 16 * (k - 8) + 3)
    acc += _mix16(data, n - 16, 136 - 17)  # the last 16 bytes
    return _avalanche(acc & MASK64)


def _stripe(acc, data, i, s):
    """One 64-byte stripe of input at i into the eight accumulators, the secret at s."""
    for k in range(ACCS):
        v = _u64(data, i + 8 * k)
        key = v ^ _u64(SECRET, s + 8 * k)
        acc[k ^ 1] = (acc[k ^ 1] + v) & MASK64
        acc[k] = (acc[k] + (key & 0xFFFFFFFF) * (key >> 32)) & MASK64


def _scramble(acc):
    s = len(SECRET) - STRIPE
    for k in range(ACCS):
        a = acc[k]
        a ^= a >> 47
        a ^= _u64(SECRET, s + 8 * k)
        acc[k] = (a * PRIME32_1) & MASK64


def _long(data):
    n = len(data)
    acc = [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1]
    blocks = (n - 1) // BLOCK
    for b in range(blocks):  # whole blocks of 16 stripes, each followed by a scramble
        for k in range(STRIPES_PER_BLOCK):
            _stripe(acc, data, b * BLOCK + k * STRIPE, k * SECRET_STEP)
        _scramble(acc)
    start = blocks * BLOCK
    for k in range((n - 1 - start) // STRIPE):  # the whole stripes of the last, partial block
        _stripe(acc, data, start + k * STRIPE, k * SECRET_STEP)
    _stripe(acc, data, n - STRIPE, len(SECRET) - STRIPE - 7)  # the last 64 bytes, always
    out = n * PRIME64_1
    for k in range(ACCS // 2):  # merge: the accumulators in pairs, the secret 11 bytes in
        s = 11 + 16 * k
        out += _fold(acc[2 * k] ^ _u64(SECRET, s), acc[2 * k + 1] ^ _u64(SECRET, s + 8))
    return _avalanche(out & MASK64)


def digest(data: bytes) -> int:
    """XXH3-64 (seed 0) of the bytes, as flce_digest computes it."""
    data = bytes(data)
    n = len(data)
    if n == 0:
        return _xxh64_avalanche(_u64(SECRET, 56) ^ _u64(SECRET, 64))
    if n <= 3:
        return _upto3(data)
    if n <= 8:
        return _upto8(data)
    if n <= 16:
        return _upto16(data)
    if n <= 128:
        return _upto128(data)
    if n <= 240:
        return _upto240(data)
    return _long(data)


def hexdigest(data) -> str:
    """The digest in 16 lower-case hex digits (flce_digest_hex: %016llx)."""
    return f'{digest(data):016x}'


def contributions_digest(values) -> str:
    """digests.txt's `contributions`: the final contributions as float64, little-endian, in
    client order (fl/engine.c: flce_digest(CE, sizeof(double) * n))."""
    return hexdigest(struct.pack(f'<{len(values)}d', *values))


def _main(argv):
    if argv[:1] == ['--contributions']:
        import csv
        import os
        for d in argv[1:]:
            with open(os.path.join(d, 'contributions.csv'), encoding='utf-8', newline='') as f:
                rows = list(csv.reader(f))[1:]
            print(contributions_digest([float(r[1]) for r in rows]), d)
        return 0
    if argv[:1] in (['-h'], ['--help']):
        print(__doc__)
        return 0
    if not argv:
        print('flce_digest.py: FILE... or --contributions RUN... (see --help)', file=sys.stderr)
        return 2
    for p in argv:
        with open(p, 'rb') as f:
            print(hexdigest(f.read()), p)
    return 0


if __name__ == '__main__':
    sys.exit(_main(sys.argv[1:]))
