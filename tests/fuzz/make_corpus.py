#!/usr/bin/env python3
"""Writes the seed corpus of the C API fuzzer (tests/fuzz/corpus/): small programs in the
harness's input format (capi_fuzz.cc: an op byte, then the bytes its arguments read, in the
order the harness reads them), one or a few per op family, so that fuzzing starts from inputs
that reach every op with mostly valid arguments.

    python3 tests/fuzz/make_corpus.py            # rewrites tests/fuzz/corpus/

The op numbers are read from capi_fuzz.cc's enum Op. The argument encodings below follow the
harness's pickers (shape(), dtype(), real(), ...); if they drift, the seeds still run but reach
less, and //tests/fuzz:capi_fuzz_corpus_test fails when some op no longer succeeds at all."""

import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_ops():
    src = open(os.path.join(HERE, "capi_fuzz.cc")).read()
    body = re.search(r"enum Op : uint8_t \{(.*?)\};", src, re.S).group(1)
    ops = {m.group(1): int(m.group(2)) for m in re.finditer(r"kOp(\w+) = (\d+)", body)}
    if not ops:
        sys.exit("make_corpus.py: no ops found in capi_fuzz.cc")
    return ops


OPS = read_ops()

# The harness's tables (capi_fuzz.cc): dtype() indexes kDtypes, real() and integer() their kTable,
# shape() kDims.
DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128", "bool", "bfloat16"]
ITEMSIZE = dict(zip(DTYPES, [1, 1, 2, 4, 8, 2, 4, 8, 8, 16, 1, 2]))
REALS = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -2.5, 3.0, 7.0, 100.0, 255.0, 256.0, -128.0, 65504.0,
         65520.0, 1e10, -1e10, 2147483648.0, 9.223372036854775807e18, -9.223372036854775808e18,
         1e308, -1e308, 4.9e-324, 1e-300, "inf", "-inf", "nan", "-nan", 1.5, 0.1, 1e38, 3.5e38]
INTS = [0, 1, -1, 2, 3, -2, 7, -7, 127, -128, 255, 256, 32767, -32768, 65535]
DIMS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 100, 128, 255, 256, 1000, 4096]
UNARY = ["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu",
         "logical_not", "sign", "floor", "ceil", "round", "reciprocal", "square"]
BINARY = ["add", "sub", "mul", "div", "pow", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
          "logical_or", "logical_xor", "maximum", "minimum", "floor_divide", "remainder", "atan2"]


class Prog:
    def __init__(self):
        self.b = bytearray()

    def raw(self, *xs):
        for x in xs:
            self.b.append(x & 0xff)
        return self

    def op(self, name, variant=None):
        self.raw(OPS[name])
        if variant is not None:
            self.raw(variant)
        return self

    # pickers
    def dtype(self, name):
        return self.raw(DTYPES.index(name))

    def keep(self):                 # dtype_or_keep(): CT_DTYPE_UNDEFINED
        return self.raw(0)

    def dtype_or_keep(self, name):  # dtype_or_keep(): a dtype
        return self.raw(0x80 + (DTYPES.index(name) - 0x80 % 12) % 12)

    def cpu(self):
        return self.raw(0)

    def real(self, x):
        return self.raw(REALS.index(x))

    def integer(self, x):
        return self.raw(INTS.index(x))

    def index(self, x, size):       # index_in(size)
        return self.raw(x + size + 2)

    def dim(self, d, ndim):         # dim_in(ndim)
        return self.raw(d + ndim + 1)

    def shape(self, *sizes):
        self.raw(len(sizes))
        for s in sizes:
            self.raw(DIMS.index(s))
        return self.raw(0)          # maybe_corrupt(): no

    def dims(self, ndim, *ds):      # dims_list()
        self.raw(len(ds))
        for d in ds:
            self.dim(d, ndim)
        return self.raw(0)

    # whole ops
    def from_buffer(self, slot, dtype, sizes, values):
        fmt = {"uint8": "B", "int8": "b", "int16": "h", "int32": "i", "int64": "q", "float16": "e",
               "float32": "f", "float64": "d", "bool": "?"}
        self.op("FromBuffer").raw(slot).shape(*sizes).dtype(dtype).cpu().raw(0)
        if dtype in fmt:
            conv = float if dtype.startswith(("float", "bfloat")) else int
            if dtype == "uint8":
                conv = lambda v: int(v) & 0xff
            elif dtype == "bool":
                conv = bool
            data = b"".join(struct.pack("<" + fmt[dtype], conv(v)) for v in values)
        elif dtype == "bfloat16":
            data = b"".join(struct.pack("<f", v)[2:] for v in values)
        else:  # complex: (re, im) pairs
            f = "f" if dtype == "complex64" else "d"
            data = b"".join(struct.pack("<" + f + f, v, -v / 2) for v in values)
        n = 1
        for s in sizes:
            n *= s
        assert len(data) == n * ITEMSIZE[dtype], (dtype, sizes, len(data))
        self.b += data
        return self

    def arange(self, slot, start, end, step, dtype):
        return self.op("Arange").raw(slot).real(start).real(end).real(step).dtype(dtype).cpu()

    def full(self, slot, dtype, sizes, value):
        return self.op("Factory", 3).raw(slot).shape(*sizes).dtype(dtype).cpu().real(value)

    def repr(self, slot, cap_index=7):
        return self.op("Repr").raw(slot).raw(cap_index)

    def bytes(self):
        return bytes(self.b)


def two_matrices(p, dtype):
    """slot 0: a 2x3 of dtype, slot 1: a 3 of dtype (broadcasts), slot 2: a 3x2."""
    p.from_buffer(0, dtype, (2, 3), [1, -2, 3, 0, 5, 7] if dtype != "bool" else [1, 0, 1, 1, 0, 0])
    p.from_buffer(1, dtype, (3,), [2, 1, -1] if dtype != "bool" else [1, 1, 0])
    p.from_buffer(2, dtype, (3, 2), [1, 0, 2, 1, 0, 3] if dtype != "bool" else [0, 1, 1, 0, 1, 1])
    return p


def seeds():
    out = {}
    real_dtypes = ["float32", "float64", "int32", "int64", "uint8", "int8", "int16", "float16",
                   "bfloat16", "bool", "complex64", "complex128"]

    # factories
    p = Prog()
    for i, dt in enumerate(["float32", "int64", "bool", "complex64", "float16", "uint8"]):
        p.op("Factory", i % 4).raw(i).shape(2, 3).dtype(dt).cpu()
        if i % 4 == 3:
            p.real(2.0)
        p.repr(i)
    p.op("Factory", 4).raw(6).index(3, 64).index(4, 64).dtype("float32").cpu()    # eye(3, 4)
    p.op("Factory", 5).raw(7).real(0.0).real(1.0).index(5, 200).dtype("float64").cpu()  # linspace
    out["factory"] = p
    p = Prog()
    p.op("Factory", 3).raw(0).shape(0, 4).dtype("float32").cpu().real(1.5)  # empty tensor
    p.op("Factory", 3).raw(1).shape().dtype("int32").cpu().real(7.0)        # 0-dim
    p.op("Factory", 1).raw(2).shape(33).dtype("float64").cpu()              # a vector tail
    p.repr(0).repr(1).repr(2)
    out["factory_edges"] = p

    p = Prog()
    p.arange(0, 0.0, 7.0, 1.0, "float32").arange(1, 0.0, 100.0, 7.0, "int64")
    p.arange(2, 1.0, -2.5, -1.0, "float64").repr(0).repr(1).repr(2)
    out["arange"] = p

    for dt in real_dtypes:
        p = Prog()
        p.from_buffer(0, dt, (2, 3), [1, 0, 3, 1, 2, 1] if dt == "bool" else [1, -2, 3, 0, 5, 7])
        p.repr(0)
        out["from_buffer_" + dt] = p

    p = Prog()
    p.from_buffer(0, "float32", (2, 3), [1, 2, 3, 4, 5, 6])
    for v in range(4):
        p.op("Like", v).raw(1 + v).raw(0).keep().real(3.0)
    for v in range(4, 8):
        p.op("Like", v).raw(v).raw(0).shape(3, 2).keep().real(2.0)
    p.op("Like", 8).raw(5).raw(0).shape(2).keep().real(0.0).dtype("int32").raw(0)
    p.b += struct.pack("<ii", 4, -5)
    out["like"] = p

    # views
    p = Prog()
    p.arange(0, 0.0, 255.0, 1.0, "float32")       # 255 elements
    p.op("View", 0).raw(1).raw(0).raw(0xe0)      # view: any shape (fails), then valid ones
    p.shape(3)
    p.arange(0, 0.0, 100.0, 1.0, "float32")
    p.op("View", 0).raw(1).raw(0).raw(2).raw(4).raw(0)         # view (5, 20)
    p.op("View", 1).raw(2).raw(1).raw(0x42).raw(0)             # reshape(-1)
    p.repr(1).repr(2)
    out["view"] = p

    p = Prog()
    p.full(0, "float32", (2, 3, 4), 1.5)
    p.op("Permute", 0).raw(1).raw(0).raw(1).raw(0).raw(0)      # permute
    p.op("Permute", 1).raw(2).raw(0).dim(0, 3).dim(2, 3)       # transpose(0, 2)
    p.op("Contiguous", 0).raw(3).raw(1).repr(3)
    out["permute"] = p

    p = Prog()
    p.arange(0, 0.0, 100.0, 1.0, "int64")
    p.op("View", 0).raw(0).raw(0).raw(2).raw(4).raw(0)         # (5, 20)
    p.op("Narrow", 0).raw(1).raw(0).dim(1, 2).index(2, 20).index(5, 20)
    p.op("Narrow", 1).raw(2).raw(0).dim(1, 2).index(1, 20).index(17, 20).index(3, 3)
    p.op("Narrow", 2).raw(3).raw(0).dim(0, 2).index(-1, 5)
    p.repr(1).repr(2).repr(3)
    out["narrow"] = p

    p = Prog()
    p.from_buffer(0, "float32", (3, 1), [1, 2, 3])
    p.op("Expand").raw(1).raw(0).raw(0).raw(1).raw(1).raw(0).raw(0).raw(5).raw(0)  # (2, 3, 6)
    p.op("Contiguous", 1).raw(2).raw(1).repr(1).repr(2)
    out["expand"] = p

    p = Prog()
    p.full(0, "float64", (2, 1, 3), 2.0)
    p.op("Squeeze", 0).raw(1).raw(0)
    p.op("Squeeze", 1).raw(2).raw(0).dim(1, 3)
    p.op("Squeeze", 2).raw(3).raw(0).dim(0, 4)
    p.op("Squeeze", 3).raw(4).raw(0).dim(0, 3).dim(-1, 3)
    p.repr(1).repr(2).repr(3).repr(4)
    out["squeeze"] = p

    for dt in ["float32", "int32", "complex64", "float16"]:
        p = Prog()
        p.from_buffer(0, dt, (2, 3), [0.5, -1, 2, 3, -4, 0])
        for k, name in enumerate(UNARY):
            p.op("Unary", 0).raw(k).raw(1 + k % 7).raw(0)
        p.op("Unary", 1).raw(0).raw(0).raw(0)
        p.repr(1)
        out["unary_" + dt] = p

    for dt in ["float32", "int64", "bool", "complex128", "bfloat16"]:
        p = Prog()
        two_matrices(p, dt)
        for k, name in enumerate(BINARY):
            p.op("Binary", 0).raw(k).raw(3 + k % 5).raw(0).raw(1)
        p.op("Binary", 1).raw(0).raw(0).raw(0).raw(1)              # add_ with broadcasting
        p.repr(3)
        out["binary_" + dt] = p

    p = Prog()
    p.from_buffer(0, "int32", (4,), [1, -2, 3, 100])
    p.op("Scalar", 0).raw(0).raw(1).raw(0).raw(0).real(1.5)        # int + 1.5 -> float
    p.op("Scalar", 1).raw(2).raw(2).raw(0).raw(1).integer(7)       # 7 * t
    p.op("Scalar", 2).raw(0).raw(0).raw(1).raw(0).real(1.5)
    p.op("Scalar", 3).raw(17).raw(0).raw(0).raw(0).integer(3)      # remainder_
    p.op("Scalar", 3).raw(16).raw(0).raw(0).raw(0).integer(0)      # floor_divide_ by 0
    p.repr(0).repr(1).repr(2)
    out["scalar"] = p

    p = Prog()
    p.from_buffer(0, "float32", (2, 3), [1, -2, 3, 0, 5, 7])
    p.from_buffer(1, "bool", (3,), [1, 0, 1])
    p.op("Clamp", 0).raw(2).raw(0).raw(1).raw(1).real(-1.0).real(3.0)
    p.op("Clamp", 1).raw(2).raw(0).raw(1).raw(0).real(0.0).real(0.0)
    p.op("Clamp", 2).raw(3).raw(1).raw(0).raw(2)                   # where(cond, t0, t2)
    p.op("Clamp", 3).raw(2).raw(2).real(7.0)
    p.op("Clamp", 4).raw(2).raw(2)
    p.repr(0).repr(3)
    out["clamp_where_fill"] = p

    for dt in ["float32", "int16", "bool", "complex64"]:
        p = Prog()
        p.from_buffer(0, dt, (2, 3), [1, -2, 3, 0, 5, 7])
        for k in range(5):
            p.op("Reduce").raw(k).raw(1 + k).raw(0).dims(2, 1).raw(k & 1).keep()
        p.op("Reduce").raw(0).raw(6).raw(0).dims(2).raw(0).dtype_or_keep("float64")
        p.repr(1).repr(3)
        out["reduce_" + dt] = p

    p = Prog()
    p.from_buffer(0, "float32", (2, 3), [1, -2, 3, 0, 5, 7])
    p.op("MaxMin", 0).raw(1).raw(1).raw(0)
    p.op("MaxMin", 1).raw(1).raw(1).raw(0)
    p.op("MaxMin", 2).raw(2).raw(3).raw(0).dim(1, 2).raw(1)
    p.op("MaxMin", 3).raw(2).raw(3).raw(0).dim(0, 2).raw(0)
    p.op("MaxMin", 4).raw(4).raw(4).raw(0).raw(1).dim(1, 2).raw(0)
    p.op("MaxMin", 5).raw(4).raw(4).raw(0).raw(0).dim(0, 2).raw(0)
    p.op("MaxMin", 6).raw(5).raw(5).raw(0).real(2.0).dims(2, 0).raw(1)
    p.repr(2).repr(3).repr(5)
    out["maxmin_norm"] = p

    for src in ["float32", "int64", "complex64", "bool"]:
        p = Prog()
        p.from_buffer(0, src, (2, 3), [1, -2, 3, 0, 5, 7] if src != "bool" else [1, 0, 1, 1, 0, 1])
        for k, dt in enumerate(DTYPES):
            p.op("To", 0).raw(1 + k % 6).raw(0).cpu().dtype_or_keep(dt).raw(0).raw(0)
        p.op("To", 0).raw(7).raw(0).cpu().keep().raw(0).raw(1)   # copy=1
        p.op("To", 1).raw(0).raw(0).raw(1).raw(0)                # copy_(t0, t1)
        p.repr(1).repr(7)
        out["to_" + src] = p

    p = Prog()
    two_matrices(p, "float32")
    p.op("Join", 1).raw(3).raw(2).raw(0).raw(0).dim(0, 2)        # cat((t0, t0), 0)
    p.op("Join", 0).raw(4).raw(2).raw(0).raw(0).dim(1, 3)        # stack((t0, t0), 1)
    p.op("Join", 1).raw(5).raw(2).raw(0).raw(2).dim(0, 2)        # cat of mismatched shapes
    p.repr(3).repr(4)
    out["join"] = p

    p = Prog()
    p.from_buffer(0, "float64", (3,), [1.5, -2, 1e10])
    for cap in range(8):
        p.repr(0, cap)
    p.from_buffer(1, "complex64", (2,), [1, 2])
    p.repr(1, 7)
    out["repr"] = p

    p = Prog()
    p.from_buffer(0, "int16", (2, 2), [1, -2, 3, 4])
    p.op("ToBuffer", 0).raw(0).raw(0)
    p.op("ToBuffer", 0).raw(0).raw(6)                            # one byte too many
    p.from_buffer(1, "float32", (1,), [2.5])
    p.op("ToBuffer", 1).raw(1).op("ToBuffer", 2).raw(1).op("ToBuffer", 3).raw(1)
    out["to_buffer_item"] = p

    p = Prog()
    p.from_buffer(0, "float32", (2, 3), [1, -2, 3, 0, 5, 7])
    p.op("Permute", 1).raw(1).raw(0).dim(0, 2).dim(1, 2)
    for k in range(14):
        p.op("Meta", k).raw(1)
        if k in (1, 2):
            p.dim(1, 2)
        if k in (3, 4):
            p.raw(2)
        if k in (11, 12):
            p.raw(0)
    out["meta"] = p

    p = Prog()
    p.from_buffer(0, "float32", (2,), [1, 2])
    p.op("Retain").raw(1).raw(0)                                 # slot 1: a second reference
    p.op("Release").raw(0)
    p.repr(1)
    p.op("Release").raw(1)                                       # now released
    p.op("BadHandle").raw(0).raw(0)                              # the released handle
    p.op("BadHandle").raw(8).raw(3)                              # release(NULL)
    p.op("Unary").raw(0).raw(0).raw(2).raw(0xf0)                 # neg of a released handle
    p.op("Release").raw(0xf9)                                    # release of a foreign value
    out["retain_release"] = p

    p = Prog()
    two_matrices(p, "float32")
    p.op("Linalg", 0).raw(3).raw(0).raw(2)                       # matmul (2,3)x(3,2)
    p.op("Linalg", 1).raw(4).raw(2).raw(0)                       # mm
    p.op("Linalg", 3).raw(5).raw(1).raw(1)                       # dot
    p.op("Linalg", 4).raw(6).raw(0).raw(1)                       # mv
    p.op("Linalg", 5).raw(7).raw(0).raw(2).raw(3).real(0.5).real(2.0)   # addmm
    p.op("View", 1).raw(5).raw(0).raw(3).raw(0).raw(1).raw(0)   # (1, 2, 3)
    p.op("View", 1).raw(6).raw(2).raw(3).raw(0).raw(2).raw(0)   # (1, 3, 2)
    p.op("Linalg", 2).raw(4).raw(5).raw(6)                       # bmm
    p.repr(3).repr(4).repr(7)
    out["linalg"] = p

    p = Prog()
    p.from_buffer(0, "float32", (8,), [1, 2, 0, -1, 3, 0.5, 0, 1])
    p.op("Fft", 0).raw(1).raw(0).raw(0).raw(0).dim(0, 1)        # fft(n=-1)
    p.op("Fft", 1).raw(2).raw(1).raw(0).raw(9).dim(0, 1)        # ifft(n=8) of it
    p.op("Fft", 2).raw(3).raw(0).raw(2).raw(0).dim(0, 1)        # rfft
    p.op("Fft", 3).raw(4).raw(3).raw(0).raw(0).dim(0, 1)        # irfft
    p.op("Fft", 4).raw(5).raw(3).raw(1).raw(5).dim(0, 1)        # hfft(n=4)
    p.op("Fft", 5).raw(6).raw(0).raw(0).dims(1, 0)
    p.op("Fft", 6).raw(6).raw(0).raw(0).dims(1)
    p.op("Fft", 7).raw(7).raw(0).raw(0).index(8, 100).real(0.5).dtype("float32").cpu()
    p.repr(1).repr(4).repr(7)
    out["fft"] = p

    p = Prog()
    p.op("Random", 0).raw(0).raw(1).shape(2, 3).dtype("float32").cpu()
    p.op("Random", 1).raw(1).raw(0).shape(4).dtype("float64").cpu()
    p.op("Random", 2).raw(2).raw(1).shape(5).dtype("int64").cpu().integer(0).integer(7)
    p.op("Random", 3).raw(3).raw(1).raw(0).keep()
    p.op("Random", 4).raw(3).raw(1).raw(0).keep()
    p.op("Random", 5).raw(3).raw(1).raw(0).real(-1.0).real(1.0)
    p.op("Random", 6).raw(3).raw(1).raw(0).real(0.0).real(2.0)
    p.op("Random", 7).raw(3).raw(1).raw(2).raw(1)
    p.op("Random", 7).raw(3).raw(1).raw(2).raw(0).integer(-2).integer(3)
    p.op("Random", 8).raw(3).raw(1).raw(0).real(0.5)
    p.repr(0).repr(2)
    out["random"] = p

    p = Prog()
    p.op("DtypeDevice", 0).dtype("complex128")
    p.op("DtypeDevice", 1).raw(19).dtype("bfloat16")
    p.op("DtypeDevice", 1).raw(3).dtype("float32")              # too small
    p.op("DtypeDevice", 2).dtype("int8").dtype("float16")
    for s in [b"cpu", b"cuda:1", b"cpu:0", b"cuda:-1", b"", b"cuda:99999999999", b"CPU"]:
        p.op("DtypeDevice", 3).raw(len(s))
        p.b += s
    p.op("DtypeDevice", 4).raw(10).cpu()
    out["dtype_device"] = p

    # a few hostile ones: huge sizes, bad dtypes, views of empty tensors with huge dims
    p = Prog()
    p.op("Factory", 1).raw(0).raw(2).raw(0).raw(0xf4).raw(0).dtype("float32").cpu()  # (0, 2^62)
    p.op("Expand").raw(1).raw(0).raw(0xe0).raw(1).raw(0xfb).raw(0)                   # expand to INT64_MAX
    p.op("Factory", 0).raw(2).raw(1).raw(0xf5).raw(0).dtype("uint8").cpu()           # 2^40 bytes
    p.op("Factory", 0).raw(3).raw(1).raw(2).raw(0).raw(0xf0 + 2).cpu()                   # dtype 12
    p.repr(0)
    out["hostile"] = p
    return out


def main():
    corpus = os.path.join(HERE, "corpus")
    os.makedirs(corpus, exist_ok=True)
    for f in os.listdir(corpus):
        os.remove(os.path.join(corpus, f))
    s = seeds()
    for name, p in sorted(s.items()):
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(p.bytes())
    print("make_corpus.py: %d seeds in %s" % (len(s), corpus))


if __name__ == "__main__":
    main()
