# ctorch's safetensors files (section 27 of ctorch.h) against torch's on the GPU host: a dict of
# torch tensors (every dtype both have, 0-dim, empty, large) written by safetensors.torch.save_file
# when the `safetensors` package is importable, otherwise by this script from the format's
# description, is read by ctorch onto the CPU and onto each GPU with the same values; ctorch
# writes the same dict from CUDA tensors (one of them strided) and torch reads it back equal;
# with the package, ctorch's file is byte for byte the package's.
#   python3 tests/gpu/safetensors_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import json
import os
import struct
import sys
import tempfile

import torch

from ctlib import CPU, CUDA, P, Ctorch, Tally, i32, i64, vp

ct = Ctorch(sys.argv[1], {
    "ct_safetensors_save_file": [C.c_char_p, P(C.c_char_p), P(vp), i32, P(C.c_char_p), P(C.c_char_p), i32],
    "ct_safetensors_open": [C.c_char_p, P(vp)],
    "ct_safetensors_release": [vp],
    "ct_safetensors_count": [vp, P(i64)],
    "ct_safetensors_name": [vp, i64, vp, i64, P(i64)],
    "ct_safetensors_get_tensor": [vp, C.c_char_p, i32, i32, P(vp)],
    "ct_safetensors_metadata_get": [vp, C.c_char_p, vp, i64, P(i64)],
    "ct_tensor_device": [vp, P(i32), P(i32)],
    "ct_transpose": [vp, i32, i32, P(vp)],
})
lib, ck = ct.lib, ct.ck
tally = Tally("safetensors_compare")

try:
    import safetensors.torch as st
except ImportError:
    st = None
    print("note: the safetensors package is not installed: files written from the format's description"
          " here, and no byte-for-byte check")

# the format's dtype names, in its writer's order (increasing alignment)
ORDER = [(torch.bool, "BOOL"), (torch.uint8, "U8"), (torch.int8, "I8"), (torch.int16, "I16"),
         (torch.float16, "F16"), (torch.bfloat16, "BF16"), (torch.int32, "I32"), (torch.float32, "F32"),
         (torch.complex64, "C64"), (torch.float64, "F64"), (torch.int64, "I64")]
NAME = dict(ORDER)
RANK = {dt: i for i, (dt, _) in enumerate(ORDER)}


def write_by_hand(path, tensors, metadata):
    """the format's description: dtype alignment descending then name, offsets in that order,
    header compact JSON padded with spaces to a multiple of 8"""
    names = sorted(tensors, key=lambda k: (-RANK[tensors[k].dtype], k))
    header, off, blobs = {}, 0, []
    if metadata:
        header["__metadata__"] = metadata
    for k in names:
        t = tensors[k].detach().contiguous().cpu()
        raw = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[k] = {"dtype": NAME[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        blobs.append(raw)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_by_hand(path):
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack("<Q", b[:8])[0]
    header = json.loads(b[8:8 + n])
    meta = header.pop("__metadata__", None)
    out = {}
    for k, e in header.items():
        dt = {v: d for d, v in ORDER}[e["dtype"]]
        s, t = e["data_offsets"]
        raw = bytearray(b[8 + n + s:8 + n + t])
        out[k] = (torch.frombuffer(raw, dtype=dt) if raw else torch.empty(0, dtype=dt)).reshape(e["shape"])
    return out, meta


def to_ct(t, dev, index=0):
    """a ctorch tensor with torch tensor t's shape, dtype and values on dev (ctlib's to_ct, for
    0-dim tensors too: their bytes are taken through a 1-element view)"""
    t = t.detach().contiguous().cpu()
    raw = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
    sizes = (i64 * max(t.dim(), 1))(*t.shape)
    out = vp()
    ck(lib.ct_from_buffer(raw, len(raw), sizes, t.dim(), ct.dt[t.dtype], dev, index if dev == CUDA else -1,
                          C.byref(out)), "from_buffer")
    return out


def same(a, b):
    a, b = a.cpu(), b.cpu()
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.view(torch.uint8) if a.dim() else a, b.view(torch.uint8) if b.dim() else b)


g = torch.Generator(device="cuda").manual_seed(21)
tensors = {}
for dt, name in ORDER:
    if dt == torch.bool:
        x = torch.rand(5, 7, device="cuda", generator=g) > 0.5
    elif dt.is_floating_point or dt.is_complex:
        x = torch.randn(33, 5, device="cuda", generator=g, dtype=dt)
    else:
        info = torch.iinfo(dt)
        x = torch.randint(max(info.min, -1000), min(info.max, 1000), (4, 3, 2), device="cuda", generator=g, dtype=dt)
    tensors[f"layer.{name.lower()}"] = x
tensors["scalar"] = torch.tensor(3.5, device="cuda")
tensors["empty"] = torch.empty(0, 4, device="cuda", dtype=torch.float16)
tensors["big"] = torch.randn(1 << 20, device="cuda", generator=g)
tensors["unicodé/😀"] = torch.arange(6, device="cuda", dtype=torch.int32)
metadata = {"format": "pt", "note": "ctorch issue 21"}

tmp = tempfile.mkdtemp(prefix="ct_st_")
theirs = os.path.join(tmp, "theirs.safetensors")
if st is not None:
    try:
        st.save_file({k: v.contiguous() for k, v in tensors.items()}, theirs, metadata=metadata)
    except Exception as e:  # an old package without C64
        print(f"note: safetensors.torch.save_file failed ({e}); dropping complex64")
        tensors.pop("layer.c64")
        st.save_file(tensors, theirs, metadata=metadata)
else:
    write_by_hand(theirs, tensors, metadata)


def names_of(f):
    n = i64()
    ck(lib.ct_safetensors_count(f, C.byref(n)), "count")
    out = []
    for i in range(n.value):
        buf, need = C.create_string_buffer(512), i64()
        ck(lib.ct_safetensors_name(f, i, buf, 512, C.byref(need)), "name")
        out.append(buf.raw[:need.value].decode())
    return out


# torch wrote -> ctorch reads, onto the CPU and onto every GPU
f = vp()
ck(lib.ct_safetensors_open(theirs.encode(), C.byref(f)), "open")
tally.check(names_of(f) == sorted(tensors, key=lambda s: s.encode()), "keys() sorted as the file's names")
buf, need = C.create_string_buffer(64), i64()
ck(lib.ct_safetensors_metadata_get(f, b"note", buf, 64, C.byref(need)), "metadata")
tally.check(buf.value.decode() == metadata["note"], "metadata read back")
for k, v in tensors.items():
    for dev, idx in [(CPU, -1)] + [(CUDA, d) for d in range(torch.cuda.device_count())]:
        h = vp()
        ck(lib.ct_safetensors_get_tensor(f, k.encode(), dev, idx, C.byref(h)), f"get_tensor {k}")
        ty, ix = i32(), i32()
        ck(lib.ct_tensor_device(h, C.byref(ty), C.byref(ix)), "device")
        got = ct.from_ct(h, v.dtype)
        tally.check(ty.value == dev and (dev == CPU or ix.value == idx) and same(got, v),
                    f"torch -> ctorch {k} {v.dtype} {tuple(v.shape)} on {'cpu' if dev == CPU else f'cuda:{idx}'}")
        lib.ct_tensor_release(h)
lib.ct_safetensors_release(f)

# ctorch writes (from CUDA tensors) -> torch reads
mine = os.path.join(tmp, "mine.safetensors")
handles = [to_ct(v, CUDA, 0) for v in tensors.values()]
names = (C.c_char_p * len(tensors))(*[k.encode() for k in tensors])
arr = (vp * len(handles))(*handles)
mk = (C.c_char_p * len(metadata))(*[k.encode() for k in metadata])
mv = (C.c_char_p * len(metadata))(*[v.encode() for v in metadata.values()])
ck(lib.ct_safetensors_save_file(mine.encode(), names, arr, len(handles), mk, mv, len(metadata)), "save_file")
if st is not None:
    back = st.load_file(mine, device="cuda:0")
    from safetensors import safe_open
    with safe_open(mine, framework="pt") as sf:
        meta = sf.metadata()
else:
    back, meta = read_by_hand(mine)
tally.check(meta == metadata, "ctorch -> torch metadata")
for k, v in tensors.items():
    tally.check(k in back and same(back[k], v), f"ctorch -> torch {k} {v.dtype}")
if st is not None:
    # byte for byte: the package writes metadata in its hash map's order, so compare with one key
    one = {"format": "pt"}
    a, b = os.path.join(tmp, "a.safetensors"), os.path.join(tmp, "b.safetensors")
    st.save_file({k: v.contiguous() for k, v in tensors.items()}, a, metadata=one)
    ck(lib.ct_safetensors_save_file(b.encode(), names, arr, len(handles), (C.c_char_p * 1)(b"format"),
                                    (C.c_char_p * 1)(b"pt"), 1), "save_file")
    with open(a, "rb") as fa, open(b, "rb") as fb:
        tally.check(fa.read() == fb.read(), "ctorch's file is byte for byte safetensors.torch.save_file's")
    st.save_file({k: v.contiguous() for k, v in tensors.items()}, a)
    ck(lib.ct_safetensors_save_file(b.encode(), names, arr, len(handles), None, None, 0), "save_file")
    with open(a, "rb") as fa, open(b, "rb") as fb:
        tally.check(fa.read() == fb.read(), "byte for byte without metadata")

# a strided CUDA tensor is written contiguous
x = torch.randn(6, 9, device="cuda", generator=g)
hx = to_ct(x, CUDA, 0)
ht = vp()
ck(lib.ct_transpose(hx, 0, 1, C.byref(ht)), "transpose")
strided = os.path.join(tmp, "strided.safetensors")
ck(lib.ct_safetensors_save_file(strided.encode(), (C.c_char_p * 1)(b"xt"), (vp * 1)(ht), 1, None, None, 0), "save_file")
got = (st.load_file(strided) if st is not None else read_by_hand(strided)[0])["xt"]
tally.check(same(got, x.t().contiguous()), "a transposed CUDA tensor written contiguous")
for h in handles + [hx, ht]:
    lib.ct_tensor_release(h)
tally.exit()
