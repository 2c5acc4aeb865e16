#!/usr/bin/env python3
"""Generates everything that follows from capi/abi.toml (docs/abi.md, "The ABI's tables").

  python3 tools/abi/gen.py --write          rewrite the enum blocks of capi/ctorch.h in place, and
                                            capi/abi_baseline.txt (its functions and enum values)
  python3 tools/abi/gen.py --check          exit 1 when capi/ctorch.h is not what --write makes
  python3 tools/abi/gen.py --out KIND FILE  write one build-time output (the genrules call this):
      impl          impl/abi/tables.h: impl's own enums, name tables and op attributes
      capi          capi/abi_convert.h: static_asserts (public == impl values) and the checked
                    translations of the public values into impl's types
      baseline      the enum part of capi/abi_baseline.txt (NAME = VALUE lines)
      go            ctorch/abi_gen.go: the Go constants (ops, dtypes, status codes, device types,
                    FFT norms), name tables and named op methods
      go-cuda       ctorch/cuda/abi_gen.go: package cuda's device properties, event flags,
                    capture modes, sanitizer modes and jiterator argument types
      go-nccl       ctorch/nccl/abi_gen.go: package nccl's reduce ops (ReduceOp)
      csharp        Abi.g.cs: the C# enums (StatusCode, DType, DeviceType, FftNorm), op codes, event
                    flags and named op methods (partial class Tensor)
      java-enum     org/ctorch/<X>.java for X in UnaryOp, BinaryOp, ReduceOp, DeviceType, and the
                    package-private base CudaAbi (Cuda.Property, the event flags)
      java-template FILE.java.in -> FILE.java, each "// @abi <table>" line replaced by the table's
                    Java constants (dtype, status) or, for fft_norm, the whole enum FFT.Norm
Options: --abi PATH (default capi/abi.toml), --header PATH (default capi/ctorch.h).
Stdlib only.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi as abilib  # noqa: E402

GEN_NOTE = "Generated from capi/abi.toml by tools/abi/gen.py; do not edit."


def cmt(doc):
    return doc.replace("*/", "* /")


# ============================================================================ capi/ctorch.h

def header_enum(a, table):
    rows = a[table]
    entries = []  # (text, doc, blank_before, doc_above)
    prev_group = None
    for r in rows:
        group = r["value"] // 100 if table == "status" else None
        entries.append((f"{r['name']} = {r['value']}", r["doc"], prev_group is not None and group != prev_group, None))
        prev_group = group
    if table == "dtype":
        u = a.dtype_undefined
        entries.append((f"{u['name']} = {u['value']}", "", False, u.get("doc", "")))
    width = max(len(e[0]) for e in entries) + 2  # the comma and a space
    lines = ["enum {"]
    for i, (text, doc, blank, above) in enumerate(entries):
        last = i == len(entries) - 1
        if blank:
            lines.append("")
        if above:
            lines.append(f"  /** {cmt(above)} */")
        t = text + ("" if last else ",")
        lines.append(f"  {t.ljust(width)}/* {cmt(doc)} */" if doc else f"  {t}")
    lines.append("};")
    return "\n".join(lines) + "\n"


BLOCK = re.compile(r"(/\* BEGIN GENERATED: (\w+) \*/\n)(.*?)(/\* END GENERATED: \2 \*/\n)", re.S)


def render_header(a, text):
    seen = set()

    def sub(m):
        table = m.group(2)
        if table not in abilib.TABLES:
            raise abilib.AbiError(f"ctorch.h: unknown generated block '{table}'")
        seen.add(table)
        return m.group(1) + header_enum(a, table) + m.group(4)

    out = BLOCK.sub(sub, text)
    missing = set(abilib.TABLES) - seen
    if missing:
        raise abilib.AbiError(f"ctorch.h: no BEGIN/END GENERATED block for {sorted(missing)}")
    return out


# ============================================================================ impl/abi/tables.h

def gen_impl(a):
    o = [f"// {GEN_NOTE}",
         "// impl's own copy of the ABI's tables: enums with the public values (capi/abi_convert.h",
         "// proves they agree), name tables and op attributes; no impl file includes capi/ctorch.h.",
         "#pragma once", "#include <cstdint>", "", "namespace ct {", ""]

    def enum(cls, table, doc):
        o.append(f"// {doc} ({a.ctype(table)})")
        o.append(f"enum class {cls} : int32_t {{")
        for r in a[table]:
            o.append(f"  {r['camel']} = {r['value']},")
        o.append("};")
        o.append("")

    enum("Status", "status", "Status codes")
    enum("DType", "dtype", "Element types: PyTorch's c10::ScalarType numbers")
    o.append(f"// {a.dtype_undefined['name']}: no dtype given")
    o.append(f"inline constexpr int32_t kDTypeUndefined = {a.dtype_undefined['value']};")
    o.append("")
    enum("DeviceType", "device_type", "Device types")
    enum("DeviceProperty", "device_property", "Integer CUDA device properties")
    enum("UnaryOp", "unary_op", "Elementwise unary ops")
    enum("BinaryOp", "binary_op", "Elementwise binary ops")
    enum("ReduceOp", "reduce_op", "Reductions")
    enum("FftNorm", "fft_norm", "FFT normalizations")
    enum("CaptureMode", "capture_mode", "CUDA graph capture modes (cudaStreamCaptureMode's numbers)")
    enum("CommOp", "comm_op", "Communicator reduce ops (torch.distributed.ReduceOp's numbers)")
    enum("CsanMode", "csan_mode", "Stream sanitizer modes")
    enum("JitArg", "jit_arg", "The types of a jitted function's extra arguments")
    o.append("// Event flags (bits, ORed)")
    o.append("namespace event_flags {")
    for r in a["event_flag"]:
        o.append(f"inline constexpr int32_t k{r['camel']} = {r['value']};")
    o.append("}  // namespace event_flags")
    o.append("")
    for table, n in (("unary_op", "UnaryOp"), ("binary_op", "BinaryOp"), ("reduce_op", "ReduceOp")):
        o.append(f"inline constexpr int32_t k{n}Count = {len(a[table])};")
    o.append(f"inline constexpr int32_t kDeviceTypeCount = {len(a['device_type'])};")
    o.append(f"inline constexpr int32_t kDevicePropertyCount = {len(a['device_property'])};")
    o.append(f"inline constexpr int32_t kFftNormCount = {len(a['fft_norm'])};")
    o.append("")
    # X-macros
    o.append("// X-macros over the tables, for dispatch code that names each entry once:")
    o.append("//   CT_ABI_DTYPES(X):     X(Camel, value, \"torch name\", \"short name\", itemsize)")
    o.append("//   CT_ABI_UNARY_OPS(X):  X(Camel, value, \"torch name\")")
    o.append("//   CT_ABI_BINARY_OPS(X): X(Camel, value, \"torch name\", BinaryKind::kind)")
    o.append("//   CT_ABI_REDUCE_OPS(X): X(Camel, value, \"torch name\")")

    def xmacro(name, rows, fmt):
        o.append(f"#define {name}(X) \\")
        for i, r in enumerate(rows):
            o.append("  " + fmt(r) + (" \\" if i < len(rows) - 1 else ""))
        o.append("")

    xmacro("CT_ABI_DTYPES", a["dtype"],
           lambda r: f"X({r['camel']}, {r['value']}, \"{r['torch']}\", \"{r['short']}\", {r['itemsize']})")
    xmacro("CT_ABI_UNARY_OPS", a["unary_op"], lambda r: f"X({r['camel']}, {r['value']}, \"{r['torch']}\")")
    xmacro("CT_ABI_BINARY_OPS", a["binary_op"],
           lambda r: f"X({r['camel']}, {r['value']}, \"{r['torch']}\", BinaryKind::{r['kind'].capitalize()})")
    xmacro("CT_ABI_REDUCE_OPS", a["reduce_op"], lambda r: f"X({r['camel']}, {r['value']}, \"{r['torch']}\")")

    o.append("// What a binary op's result is (capi/abi.toml, kind).")
    o.append("enum class BinaryKind : int32_t { Arith, Compare, Logical };")
    o.append("")
    o.append("struct UnaryOpInfo {")
    o.append("  const char* name;  // PyTorch's name, e.g. \"exp\"")
    o.append("  bool to_float;     // integer and bool inputs compute in float32")
    o.append("  bool bool_result;  // a bool result for every input dtype (isnan)")
    o.append("  bool inplace;      // has an in-place form (ct_unary_)")
    o.append("};")
    o.append("struct BinaryOpInfo {")
    o.append("  const char* name;      // PyTorch's name, e.g. \"floor_divide\"")
    o.append("  BinaryKind kind;")
    o.append("  bool to_float;         // integer and bool inputs compute in float32 (div, atan2)")
    o.append("  bool complex;          // complex inputs allowed")
    o.append("  bool bool_inputs;      // a bool common dtype allowed")
    o.append("};")
    o.append("struct DTypeInfo {")
    o.append("  const char* torch_name;  // \"torch.float32\"")
    o.append("  const char* short_name;  // \"Float\", as PyTorch's error messages name it")
    o.append("  int64_t itemsize;")
    o.append("};")
    o.append("")
    o.append("namespace abi {")
    b = lambda v: "true" if v else "false"
    o.append("inline constexpr UnaryOpInfo kUnaryOps[] = {")
    for r in a["unary_op"]:
        o.append(f"    {{\"{r['torch']}\", {b(r['float'])}, {b(r['result'] == 'bool')}, {b(r['inplace'])}}},")
    o.append("};")
    o.append("inline constexpr BinaryOpInfo kBinaryOps[] = {")
    for r in a["binary_op"]:
        o.append(f"    {{\"{r['torch']}\", BinaryKind::{r['kind'].capitalize()}, {b(r['promote'] == 'int_to_float')}, "
                 f"{b(r['complex'])}, {b(r['bool'])}}},")
    o.append("};")
    o.append("inline constexpr const char* kReduceOpNames[] = {" +
             ", ".join(f"\"{r['torch']}\"" for r in a["reduce_op"]) + "};")
    o.append("inline constexpr const char* kDeviceTypeNames[] = {" +
             ", ".join(f"\"{r['torch']}\"" for r in a["device_type"]) + "};")
    o.append("inline constexpr const char* kCaptureModeNames[] = {" +
             ", ".join(f"\"{r['torch']}\"" for r in a["capture_mode"]) + "};")
    o.append("inline constexpr const char* kCommOpNames[] = {" +
             ", ".join(f"\"{r['torch']}\"" for r in a["comm_op"]) + "};")
    o.append("")
    o.append("// The DType's facts; nullptr for a value that is no dtype.")
    o.append("inline const DTypeInfo* dtype_info(int32_t v) {")
    o.append("  switch (v) {")
    for r in a["dtype"]:
        o.append(f"    case {r['value']}: {{ static constexpr DTypeInfo i{{\"torch.{r['torch']}\", \"{r['short']}\", "
                 f"{r['itemsize']}}}; return &i; }}")
    o.append("    default: return nullptr;")
    o.append("  }")
    o.append("}")
    o.append("// \"CT_ERR_SHAPE\"; nullptr for a value that is no status code.")
    o.append("inline const char* status_name(int32_t v) {")
    o.append("  switch (v) {")
    for r in a["status"]:
        o.append(f"    case {r['value']}: return \"{r['name']}\";")
    o.append("    default: return nullptr;")
    o.append("  }")
    o.append("}")
    o.append("inline const UnaryOpInfo& info(UnaryOp op) { return kUnaryOps[static_cast<int32_t>(op)]; }")
    o.append("inline const BinaryOpInfo& info(BinaryOp op) { return kBinaryOps[static_cast<int32_t>(op)]; }")
    o.append("}  // namespace abi")
    o.append("")
    o.append("}  // namespace ct")
    return "\n".join(o) + "\n"


# ============================================================================ capi/abi_convert.h

def gen_capi(a):
    o = [f"// {GEN_NOTE}",
         "// The boundary between the public values (capi/ctorch.h) and impl's types (impl/abi/tables.h):",
         "// static_asserts that prove each pair equal, and checked translations of caller values.",
         "#pragma once", "#include \"capi/ctorch.h\"", "#include \"impl/abi/tables.h\"",
         "#include \"impl/core/error.h\"", ""]
    pairs = [("status", "Status"), ("dtype", "DType"), ("device_type", "DeviceType"),
             ("device_property", "DeviceProperty"), ("unary_op", "UnaryOp"), ("binary_op", "BinaryOp"),
             ("reduce_op", "ReduceOp"), ("fft_norm", "FftNorm"), ("capture_mode", "CaptureMode"),
             ("comm_op", "CommOp"), ("csan_mode", "CsanMode"),
             ("jit_arg", "JitArg")]
    for table, cls in pairs:
        for r in a[table]:
            o.append(f"static_assert({r['name']} == static_cast<int32_t>(::ct::{cls}::{r['camel']}), "
                     f"\"{r['name']}: capi/ctorch.h and impl/abi/tables.h disagree\");")
    for r in a["event_flag"]:
        o.append(f"static_assert({r['name']} == ::ct::event_flags::k{r['camel']}, \"{r['name']}\");")
    u = a.dtype_undefined
    o.append(f"static_assert({u['name']} == ::ct::kDTypeUndefined, \"{u['name']}\");")
    o.append("")
    o.append("namespace ct::capi {")
    o.append("")
    o.append("inline ct_status to_c(Status s) { return static_cast<ct_status>(s); }")
    o.append("// A public status code as impl's (codes that are none map to Internal).")
    o.append("inline Status status_from_c(ct_status v) {")
    o.append("  return abi::status_name(v) ? static_cast<Status>(v) : Status::Internal;")
    o.append("}")
    o.append("")
    o.append("}  // namespace ct::capi")
    o.append("")
    o.append("namespace ct {")
    o.append("// CT_CHECK / fail with a public status code (CT_ERR_*), as the capi files write them.")
    o.append("template <typename... Args>")
    o.append("[[noreturn]] void fail(ct_status code, const Args&... args) {")
    o.append("  fail(capi::status_from_c(code), args...);")
    o.append("}")
    o.append("}  // namespace ct")
    o.append("")
    o.append("namespace ct::capi {")
    o.append("")
    for table, cls, what in (("unary_op", "UnaryOp", "unary op"), ("binary_op", "BinaryOp", "binary op"),
                             ("reduce_op", "ReduceOp", "reduction op"),
                             ("capture_mode", "CaptureMode", "capture error mode"),
                             ("comm_op", "CommOp", "communicator reduce op"),
                             ("csan_mode", "CsanMode", "sanitizer mode"),
                             ("jit_arg", "JitArg", "jiterator argument type"),
                             ("device_property", "DeviceProperty", "device property")):
        rows = a[table]
        fn = table + "_arg"
        lo, hi = rows[0]["value"], rows[-1]["value"]
        o.append(f"// {a.ctype(table)} -> {cls}; CT_ERR_ARGUMENT for a value outside {lo}..{hi}.")
        o.append(f"inline {cls} {fn}({a.ctype(table)} v) {{")
        o.append(f"  CT_CHECK(v >= {lo} && v <= {hi}, Status::Argument, \"unknown {what} \", v,")
        o.append(f"           \" (expected one of the {abilib.TABLES[table][1]}* {what} constants, {lo}..{hi})\");")
        o.append(f"  return static_cast<{cls}>(v);")
        o.append("}")
    o.append("")
    o.append("}  // namespace ct::capi")
    return "\n".join(o) + "\n"


# ============================================================================ baseline (enum part)

def gen_baseline_enums(a):
    o = []
    for table in abilib.TABLES:
        for r in a[table]:
            o.append(f"enum {r['name']} = {r['value']}")
    u = a.dtype_undefined
    o.append(f"enum {u['name']} = {u['value']}")
    return "\n".join(sorted(o)) + "\n"


# ============================================================================ Go

def gen_go(a):
    o = [f"// Code generated by tools/abi/gen.py from capi/abi.toml; DO NOT EDIT.", "", "package ctorch", ""]

    def consts(typ, prefix, table, title):
        rows = a[table]
        w = max(len(prefix + r["go"]) for r in rows)
        o.append(f"// {title}")
        o.append("const (")
        for r in rows:
            line = f"\t{(prefix + r['go']).ljust(w)} {typ} = {r['value']}"
            o.append(line + (f" // {r['doc']}" if r["doc"] else ""))
        o.append(")")
        o.append("")

    consts("UnaryOp", "Op", "unary_op", "Unary operations (ct_unary_op).")
    o.append("var unaryNames = [...]string{" + ", ".join(f"\"{r['torch']}\"" for r in a["unary_op"]) + "}")
    o.append("")
    consts("BinaryOp", "Op", "binary_op", "Binary operations (ct_binary_op).")
    o.append("var binaryNames = [...]string{" + ", ".join(f"\"{r['torch']}\"" for r in a["binary_op"]) + "}")
    o.append("")
    consts("ReduceOp", "Reduce", "reduce_op", "Reductions for Reduce (ct_reduce_op).")
    o.append("var reduceNames = [...]string{" + ", ".join(f"\"{r['torch']}\"" for r in a["reduce_op"]) + "}")
    o.append("")
    o.append("// The 12 dtypes, as torch.uint8 ... torch.bfloat16 (ct_dtype: c10::ScalarType numbers).")
    o.append("const (")
    for r in a["dtype"]:
        o.append(f"\t{r['go']} DType = {r['value']} // torch.{r['torch']}")
    o.append("\t// Undefined means \"no dtype given\": keep the input's dtype (for To, *Like, New*) or use the")
    o.append("\t// operation's default (reductions).")
    o.append(f"\tUndefined DType = {a.dtype_undefined['value']}")
    o.append(")")
    o.append("")
    o.append("// Device types (ct_device_type).")
    o.append("const (")
    for r in a["device_type"]:
        o.append(f"\tDevice{r['go']} DeviceType = {r['value']} // torch.device(\"{r['torch']}\")")
    o.append(")")
    o.append("")
    o.append("var deviceTypeNames = []string{" + ", ".join(f"\"{r['torch']}\"" for r in a["device_type"]) + "}")
    o.append("")
    o.append("// The norms of torch.fft (ct_fft_norm); n is the number of points of the transform (the")
    o.append("// product of the sizes for the n-dimensional ones).")
    o.append("const (")
    for r in a["fft_norm"]:
        o.append(f"\t// Norm{r['go']} is norm=\"{r['torch']}\": {r['doc']}.")
        o.append(f"\tNorm{r['go']} FFTNorm = {r['value']}")
    o.append(")")
    o.append("")
    o.append("var fftNormNames = []string{" + ", ".join(f"\"{r['torch']}\"" for r in a["fft_norm"]) + "}")
    o.append("")
    o.append("// DTypes lists the 12 dtypes in PyTorch's ScalarType order.")
    o.append("var DTypes = []DType{" + ", ".join(r["go"] for r in a["dtype"]) + "}")
    o.append("")
    o.append("// Status codes of capi/ctorch.h (section 2). They never change within a major version.")
    o.append("const (")
    for r in a["status"]:
        o.append(f"\tCode{r['go']} = {r['value']} // {r['name']}: {r['doc']}")
    o.append(")")
    o.append("")
    o.append("// Sentinels for errors.Is. Each matches every *Error with its code.")
    o.append("var (")
    for r in a["status"]:
        if r["value"] == 0:
            continue
        o.append(f"\t// Err{r['go']}: {r['doc']}.")
        o.append(f"\tErr{r['go']} = sentinel(Code{r['go']}, \"{r['name']}\")")
    o.append(")")
    for r in a["unary_op"]:
        n, t = r["go"], r["torch"]
        o.append(f"\n// {n} is torch.{t}(t).\nfunc (t *Tensor) {n}() (*Tensor, error) {{ return t.Unary(Op{n}) }}")
        if r["inplace"]:
            o.append(f"\n// {n}InPlace is t.{t}_().\nfunc (t *Tensor) {n}InPlace() error {{ return t.UnaryInPlace(Op{n}) }}")
    for r in a["binary_op"]:
        n, t = r["go"], r["torch"]
        o.append(f"\n// {n} is torch.{t}(t, o).\nfunc (t *Tensor) {n}(o *Tensor) (*Tensor, error) {{ return t.Binary(Op{n}, o) }}")
        o.append(f"\n// {n}Scalar is torch.{t}(t, s) with a Python float scalar s.\nfunc (t *Tensor) {n}Scalar(s float64) (*Tensor, error) {{ return t.BinaryScalar(Op{n}, s, false) }}")
        o.append(f"\n// {n}Int is torch.{t}(t, s) with a Python int scalar s.\nfunc (t *Tensor) {n}Int(s int64) (*Tensor, error) {{ return t.BinaryInt(Op{n}, s, false) }}")
        o.append(f"\n// {n}InPlace is t.{t}_(o).\nfunc (t *Tensor) {n}InPlace(o *Tensor) error {{ return t.BinaryInPlace(Op{n}, o) }}")
        o.append(f"\n// {n}ScalarInPlace is t.{t}_(s) with a Python float scalar s.\nfunc (t *Tensor) {n}ScalarInPlace(s float64) error {{ return t.BinaryScalarInPlace(Op{n}, s) }}")
        o.append(f"\n// {n}IntInPlace is t.{t}_(s) with a Python int scalar s.\nfunc (t *Tensor) {n}IntInPlace(s int64) error {{ return t.BinaryIntInPlace(Op{n}, s) }}")
        if r["reverse"]:
            o.append(f"\n// R{n}Scalar is torch.{t}(s, t) with a Python float scalar s.\nfunc (t *Tensor) R{n}Scalar(s float64) (*Tensor, error) {{ return t.BinaryScalar(Op{n}, s, true) }}")
            o.append(f"\n// R{n}Int is torch.{t}(s, t) with a Python int scalar s.\nfunc (t *Tensor) R{n}Int(s int64) (*Tensor, error) {{ return t.BinaryInt(Op{n}, s, true) }}")
    return "\n".join(o) + "\n"


def gen_go_cuda(a):
    """cuda/abi_gen.go: the tables of package ctorch/cuda (device properties, event flags, capture
    modes, sanitizer modes, jiterator argument types)."""
    o = [f"// Code generated by tools/abi/gen.py from capi/abi.toml; DO NOT EDIT.", "", "package cuda", "",
         "// Device properties for DeviceProperty (ct_device_property).", "const ("]
    for r in a["device_property"]:
        o.append(f"\tProp{r['go']} Property = {r['value']}" + (f" // {r['doc']}" if r["doc"] else ""))
    o += [")", "", "// Event flags for NewEvent (ct_event_flags), ORed.", "const ("]
    for r in a["event_flag"]:
        o.append(f"\tEvent{r['go']} EventFlags = {r['value']} // {r['name']}" + (f": {r['doc']}" if r["doc"] else ""))
    o += [")", "", "// Capture modes for Graph.CaptureBegin and the capture options (ct_capture_mode).", "const ("]
    for r in a["capture_mode"]:
        o.append(f"\tCaptureMode{r['go']} CaptureMode = {r['value']} // capture_error_mode=\"{r['torch']}\"" + (f": {r['doc']}" if r["doc"] else ""))
    o += [")", "", "var captureModeNames = []string{" + ", ".join(f"\"{r['torch']}\"" for r in a["capture_mode"]) + "}"]
    o += ["", "// Stream sanitizer modes for SetSanitizerMode (ct_csan_mode).", "const ("]
    for r in a["csan_mode"]:
        o.append(f"\tSanitizer{r['go']} SanitizerMode = {r['value']} // {r['name']}" + (f": {r['doc']}" if r["doc"] else ""))
    o += [")", "", "var sanitizerModeNames = []string{" + ", ".join(f"\"{r['upper'].lower()}\"" for r in a["csan_mode"]) + "}"]
    o += ["", "// The types of a jitted function's extra arguments (ct_jit_arg_type), JitArg.Type.", "const ("]
    for r in a["jit_arg"]:
        o.append(f"\tJitArg{r['go']} JitArgType = {r['value']} // {r['name']}" + (f": {r['doc']}" if r["doc"] else ""))
    o += [")", "", "var jitArgTypeNames = []string{" + ", ".join(f"\"{r['upper'].lower()}\"" for r in a["jit_arg"]) + "}"]
    return "\n".join(o) + "\n"


def gen_go_nccl(a):
    """nccl/abi_gen.go: package ctorch/nccl's reduce ops (torch.distributed.ReduceOp)."""
    o = [f"// Code generated by tools/abi/gen.py from capi/abi.toml; DO NOT EDIT.", "", "package nccl", "",
         "// The reduce operations of the collectives (ct_comm_op), torch.distributed.ReduceOp's numbers.",
         "const ("]
    for r in a["comm_op"]:
        o.append(f"\t{r['go']} ReduceOp = {r['value']} // ReduceOp.{r['torch']}" + (f": {r['doc']}" if r["doc"] else ""))
    o += [")", "", "var reduceOpNames = []string{" + ", ".join(f"\"{r['torch']}\"" for r in a["comm_op"]) + "}"]
    return "\n".join(o) + "\n"


# ============================================================================ C#

def xml(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def op_rows(a, table, esc):
    """(row, torch name, " doc." or "") of each op of table, the doc escaped by esc."""
    for r in a[table]:
        yield r, r["torch"], (f" {esc(r['doc'])}." if r["doc"] else "")


def gen_csharp(a):
    o = [f"// {GEN_NOTE}", "using System;", "", "namespace Ctorch", "{"]
    o.append("    /// <summary>The status codes of <c>capi/ctorch.h</c> (the numbers are the C constants).</summary>")
    o.append("    public enum StatusCode")
    o.append("    {")
    for r in a["status"]:
        o.append(f"        /// <summary>{r['name']}: {xml(r['doc'])}.</summary>")
        o.append(f"        {r['camel']} = {r['value']},")
    o.append("    }")
    o.append("")
    o.append("    /// <summary>Tensor element types. The values are the C constants (CT_UINT8 ...), which are")
    o.append("    /// PyTorch's c10::ScalarType numbers.</summary>")
    o.append("    public enum DType")
    o.append("    {")
    for r in a["dtype"]:
        o.append(f"        /// <summary>torch.{r['torch']}</summary>")
        o.append(f"        {r['camel']} = {r['value']},")
    o.append("    }")
    o.append("")
    o.append("    /// <summary>Device types (<c>ct_device_type</c>).</summary>")
    o.append("    public enum DeviceType")
    o.append("    {")
    for r in a["device_type"]:
        o.append(f"        /// <summary>\"{r['torch']}\"</summary>")
        o.append(f"        {abilib.camel_of(r['torch'])} = {r['value']},")
    o.append("    }")
    o.append("")
    o.append("    /// <summary>The normalization of an FFT (torch.fft's <c>norm</c> argument, <c>ct_fft_norm</c>);")
    o.append("    /// n is the number of points of the transform (the product of the transformed sizes for the")
    o.append("    /// n-dimensional ones).</summary>")
    o.append("    public enum FftNorm")
    o.append("    {")
    for r in a["fft_norm"]:
        o.append(f"        /// <summary>norm=\"{r['torch']}\": {xml(r['doc'])}.</summary>")
        o.append(f"        {r['camel']} = {r['value']},")
    o.append("    }")
    o.append("")
    o.append("    /// <summary>The capture error mode of a CUDA graph capture (torch.cuda.graph's")
    o.append("    /// <c>capture_error_mode</c>, <c>ct_capture_mode</c>): which threads' unsafe calls fail while")
    o.append("    /// a capture runs.</summary>")
    o.append("    public enum CaptureMode")
    o.append("    {")
    for r in a["capture_mode"]:
        o.append(f"        /// <summary>\"{r['torch']}\": {xml(r['doc'])}.</summary>")
        o.append(f"        {r['camel']} = {r['value']},")
    o.append("    }")
    o.append("")
    o.append("    /// <summary>What the CUDA stream sanitizer does with a race (<c>ct_csan_mode</c>; see")
    o.append("    /// <see cref=\"CudaSanitizer\"/>).</summary>")
    o.append("    public enum SanitizerMode")
    o.append("    {")
    for r in a["csan_mode"]:
        o.append(f"        /// <summary>{r['name']}: {xml(r['doc'])}.</summary>")
        o.append(f"        {r['camel']} = {r['value']},")
    o.append("    }")
    o.append("")
    o.append("    public sealed partial class JitFunction")
    o.append("    {")
    o.append("        /// <summary>The type of an extra argument as the C layer receives it (<c>ct_jit_arg_type</c>;")
    o.append("        /// a kwarg's C# type picks it: long/int, double/float, bool).</summary>")
    o.append("        public enum ArgType")
    o.append("        {")
    for r in a["jit_arg"]:
        o.append(f"            /// <summary>{r['name']}: {xml(r['doc'])}.</summary>")
        o.append(f"            {r['camel']} = {r['value']},")
    o.append("        }")
    o.append("    }")
    o.append("")
    o.append("    public sealed partial class NcclComm")
    o.append("    {")
    o.append("        /// <summary>The reduction of a collective (torch.distributed.ReduceOp, <c>ct_comm_op</c>; the")
    o.append("        /// values are torch's numbers).</summary>")
    o.append("        public enum ReduceOp")
    o.append("        {")
    for r in a["comm_op"]:
        d = f": {xml(r['doc'])}." if r["doc"] else "."
        o.append(f"            /// <summary>torch.distributed.ReduceOp.{r['torch']}{d}</summary>")
        o.append(f"            {r['camel']} = {r['value']},")
    o.append("        }")
    o.append("    }")
    o.append("")
    o.append("    // The event flags of capi/ctorch.h (ct_event_flags), ORed.")
    o.append("    internal static class EventFlags")
    o.append("    {")
    for r in a["event_flag"]:
        o.append(f"        public const int {r['camel']} = {r['value']};")
    o.append("    }")
    o.append("")
    o.append("    public static partial class DTypes")
    o.append("    {")
    o.append(f"        internal const int Undefined = {a.dtype_undefined['value']}; // {a.dtype_undefined['name']}")
    o.append("    }")
    o.append("")
    o.append("    // The op codes of capi/ctorch.h (ct_unary_op, ct_binary_op, ct_reduce_op), never renumbered.")
    for cls, table in (("UnaryOp", "unary_op"), ("BinaryOp", "binary_op"), ("ReduceOp", "reduce_op")):
        o.append(f"    internal static class {cls}")
        o.append("    {")
        for r in a[table]:
            o.append(f"        public const int {r['camel']} = {r['value']};")
        o.append("    }")
        o.append("")
    o.append("    public sealed partial class Tensor")
    o.append("    {")
    for r, t, d in op_rows(a, "unary_op", xml):
        n = r["camel"]
        o.append(f"        /// <summary>torch.{t}(this).{d}</summary>")
        o.append(f"        public Tensor {n}() => Unary(UnaryOp.{n});")
        if r["inplace"]:
            o.append(f"        /// <summary>In-place {t}_; returns this.</summary>")
            o.append(f"        public Tensor {n}_() => UnaryInPlace(UnaryOp.{n});")
    for r, t, d in op_rows(a, "binary_op", xml):
        n = r["camel"]
        # (summary, method suffix, parameter type, call) of the six forms
        for summary, suffix, ptype, call in (
                (f"torch.{t}(this, other).{d}", "", "Tensor", "Binary"),
                (f"torch.{t}(this, s) with a Python float scalar.", "", "double", "Binary"),
                (f"torch.{t}(this, s) with a Python int scalar.", "", "long", "Binary"),
                (f"this.{t}_(other) in place; returns this.", "_", "Tensor", "BinaryInPlace"),
                (f"this.{t}_(s) in place with a Python float scalar; returns this.", "_", "double", "BinaryInPlace"),
                (f"this.{t}_(s) in place with a Python int scalar; returns this.", "_", "long", "BinaryInPlace")):
            o.append(f"        /// <summary>{summary}</summary>")
            o.append(f"        public Tensor {n}{suffix}({ptype} other) => {call}(BinaryOp.{n}, other);")
    o.append("    }")
    o.append("}")
    return "\n".join(o) + "\n"


# ============================================================================ Java

JAVA_OP_DOC = {
    "UnaryOp": ("unary_op", "Elementwise unary operations ({@code ct_unary_op}), for {@link Tensor#unary(UnaryOp)} and\n"
                " * {@link Tensor#unary_(UnaryOp)}; each also has its own method ({@code t.exp()}, ...)."),
    "BinaryOp": ("binary_op", "Elementwise binary operations ({@code ct_binary_op}) with broadcasting and PyTorch's type\n"
                 " * promotion, for {@link Tensor#binary(BinaryOp, Tensor)} and its scalar, reverse and in-place\n"
                 " * forms."),
    "ReduceOp": ("reduce_op", "Reductions over dims ({@code ct_reduce_op}), for {@link Tensor#reduce}."),
}


def jdoc(s):
    return s.replace("*/", "* /").replace("<", "&lt;").replace(">", "&gt;").replace("&", "&amp;") \
        .replace("&amp;lt;", "&lt;").replace("&amp;gt;", "&gt;")


def java_coded_enum(a, cls, table, doc, const_doc, named=False, from_code=False):
    """The lines of a Java enum over table's rows, each constant NAME(code) (with named,
    NAME(code, "torch name"), which toString returns) with the javadoc const_doc(row); code()
    gives the C ABI's number and, with from_code, fromCode(int) the constant of one."""
    rows = a[table]
    o = ["/**", f" * {doc}", " */", f"public enum {cls} {{"]
    for i, r in enumerate(rows):
        o.append(f"  /** {const_doc(r)} */")
        name = f", \"{r['torch']}\"" if named else ""
        o.append(f"  {r['upper']}({r['value']}{name}){';' if i == len(rows) - 1 else ','}")
    o += ["", "  private final int code;"]
    if named:
        o += ["  private final String torchName;", "", f"  {cls}(int code, String torchName) {{",
              "    this.code = code;", "    this.torchName = torchName;", "  }"]
    else:
        o += ["", f"  {cls}(int code) {{", "    this.code = code;", "  }"]
    o += ["", f"  /** The C ABI's number ({{@code {a.ctype(table)}}}). */", "  public int code() {", "    return code;", "  }"]
    if from_code:
        o += ["", "  /** The constant of a C ABI number; IllegalArgumentException for an unknown one. */",
              f"  public static {cls} fromCode(int code) {{",
              f"    return Native.fromCode(values(), {cls}::code, code, \"{a.ctype(table)}\");", "  }"]
    if named:
        o += ["", "  /** PyTorch's name, e.g. {@code \"" + rows[0]["torch"] + "\"}. */", "  @Override",
              "  public String toString() {", "    return torchName;", "  }"]
    o.append("}")
    return o


def indented(lines, by="  "):
    return [by + l if l else l for l in lines]


def gen_java_enum(a, cls):
    o = [f"// {GEN_NOTE}", "package org.ctorch;", ""]
    if cls in JAVA_OP_DOC:
        table, doc = JAVA_OP_DOC[cls]
        o += java_coded_enum(a, cls, table, doc,
                             lambda r: f"torch.{r['torch']}{': ' + jdoc(r['doc']) if r['doc'] else ''}.")
    elif cls == "DeviceType":
        o += java_coded_enum(a, cls, "device_type", "The kind of a {@link Device}: {@code torch.device(...).type}.",
                             lambda r: f"{{@code \"{r['torch']}\"}}.", named=True, from_code=True)
    elif cls == "CudaAbi":
        o += ["/** {@link Cuda}'s tables: {@link Cuda.Property} and the event flags. */", "abstract class CudaAbi {",
              "  CudaAbi() {}", ""]
        o += indented(java_coded_enum(a, "Property", "device_property",
                                      "Integer properties of a CUDA device ({@code ct_device_property}).",
                                      lambda r: f"{r['name']}{': ' + jdoc(r['doc']) if r['doc'] else ''}."))
        o.append("")
        o.append("  // The event flags ({@code ct_event_flags}), ORed, for Event.create.")
        for r in a["event_flag"]:
            o.append(f"  /** {r['name']}{': ' + jdoc(r['doc']) if r['doc'] else ''}. */")
            o.append(f"  static final int EVENT_{r['upper']} = {r['value']};")
        o.append("}")
    else:
        raise abilib.AbiError(f"java-enum: no class '{cls}'")
    return "\n".join(o) + "\n"


def java_block(a, table):
    o = []
    if table == "dtype":
        rows = a["dtype"]
        for i, r in enumerate(rows):
            o.append(f"  /** torch.{r['torch']} */")
            o.append(f"  {r['upper']}({r['value']}, \"{r['torch']}\"){';' if i == len(rows) - 1 else ','}")
        u = a.dtype_undefined
        o += ["", f"  /** {u['name']}: no dtype given (the operation's default, or the input's dtype). */",
              f"  static final int UNDEFINED_CODE = {u['value']};"]
    elif table == "status":
        for r in a["status"]:
            if r["value"] == 0:
                continue
            o.append(f"  /** {r['name']}: {jdoc(r['doc'])}. */")
            o.append(f"  public static final int {r['upper']} = {r['value']};")
    elif table == "fft_norm":  # the whole nested enum FFT.Norm
        o += indented(java_coded_enum(
            a, "Norm", "fft_norm", "{@code norm=}: which direction of a transform pair is scaled, and by how much.",
            lambda r: f"{{@code \"{r['torch']}\"}}: {jdoc(r['doc'])}.", named=True))
    elif table == "capture_mode":  # the whole nested enum CudaGraph.CaptureMode
        o += indented(java_coded_enum(
            a, "CaptureMode", "capture_mode",
            "{@code capture_error_mode=}: which threads' unsafe CUDA calls fail while a capture runs.",
            lambda r: f"{{@code \"{r['torch']}\"}}: {jdoc(r['doc'])}.", named=True))
    elif table == "comm_op":  # the whole nested enum NcclComm.ReduceOp
        o += indented(java_coded_enum(
            a, "ReduceOp", "comm_op",
            "{@code torch.distributed.ReduceOp}: how a collective combines the members' tensors.",
            lambda r: f"{{@code ReduceOp.{r['torch']}}}{': ' + jdoc(r['doc']) if r['doc'] else ''}.",
            from_code=True))
    elif table == "csan_mode":  # the whole nested enum CudaSanitizer.Mode
        o += indented(java_coded_enum(
            a, "Mode", "csan_mode", "What the stream sanitizer does with a race.",
            lambda r: f"{r['name']}: {jdoc(r['doc'])}.", from_code=True))
    elif table == "jit_arg":  # the whole nested enum JitFunction.ArgType
        o += indented(java_coded_enum(
            a, "ArgType", "jit_arg", "The type of an extra argument, as the C ABI marshals it.",
            lambda r: f"{r['name']}: {jdoc(r['doc'])}.", from_code=True))
    else:
        raise abilib.AbiError(f"java template: no block for table '{table}'")
    return o


def render_java_template(a, text):
    out, skipping = [], False
    for line in text.splitlines():
        m = re.match(r"(\s*)// @abi (\w+)\s*$", line)
        if m:  # the block at the marker's indentation (java_block's lines are indented by two)
            out.append(f"{m.group(1)}// {GEN_NOTE}")
            out.extend(m.group(1) + l[2:] if l else l for l in java_block(a, m.group(2)))
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def java_method(camel):
    return camel[0].lower() + camel[1:]


def gen_java_elementwise(a):
    """TensorElementwise.java: Tensor's named elementwise methods, one line each, over the by-code
    methods of TensorOps (unary, unary_, binary, rbinary, binary_)."""
    o = [f"// {GEN_NOTE}", "package org.ctorch;", "", "/**",
         " * {@link Tensor}'s named elementwise methods, one per op of {@code capi/abi.toml}: {@code t.exp()},",
         " * {@code t.exp_()}; {@code t.add(other)} with a tensor, a Python int ({@code long}) or float",
         " * ({@code double}) scalar, the in-place {@code t.add_(other)}, and where the table says so the",
         " * reverse scalar form ({@code t.rsub(2)} is {@code 2 - t}). Each delegates to {@link TensorOps}.",
         " */", "abstract class TensorElementwise extends TensorOps {", "  TensorElementwise(long handle) {",
         "    super(handle);", "  }", ""]
    for r, t, d in op_rows(a, "unary_op", jdoc):
        m, u = java_method(r["camel"]), r["upper"]
        o.append(f"  /** {{@code torch.{t}(t)}}.{d} */")
        o.append(f"  public Tensor {m}() {{ return unary(UnaryOp.{u}); }}")
        if r["inplace"]:
            o.append(f"  /** {{@code t.{t}_()}} in place; returns this. */")
            o.append(f"  public Tensor {m}_() {{ return unary_(UnaryOp.{u}); }}")
    for r, t, d in op_rows(a, "binary_op", jdoc):
        m, u = java_method(r["camel"]), r["upper"]
        o.append(f"  /** {{@code torch.{t}(t, other)}}.{d} */")
        for ty in ("Tensor", "long", "double"):
            o.append(f"  public Tensor {m}({ty} other) {{ return binary(BinaryOp.{u}, other); }}")
        o.append(f"  /** {{@code t.{t}_(other)}} in place; returns this. */")
        for ty in ("Tensor", "long", "double"):
            o.append(f"  public Tensor {m}_({ty} other) {{ return binary_(BinaryOp.{u}, other); }}")
        if r["reverse"]:
            o.append(f"  /** {{@code torch.{t}(s, t)}} for a scalar {{@code s}}. */")
            for ty in ("long", "double"):
                o.append(f"  public Tensor r{m}({ty} scalar) {{ return rbinary(BinaryOp.{u}, scalar); }}")
    o.append("}")
    return "\n".join(o) + "\n"


# ============================================================================ main

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--abi", default=abilib.DEFAULT_PATH)
    ap.add_argument("--header", default=os.path.join(abilib.ROOT, "capi", "ctorch.h"))
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out", nargs="+", metavar=("KIND", "FILE"))
    args = ap.parse_args()
    try:
        a = abilib.load(args.abi)
        if args.write or args.check:
            with open(args.header) as f:
                old = f.read()
            new = render_header(a, old)
            if args.check:
                if new != old:
                    sys.stderr.write(f"{args.header} is not what {args.abi} makes of it: "
                                     "run python3 tools/abi/gen.py --write\n")
                    import difflib
                    sys.stderr.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                               "ctorch.h (committed)", "ctorch.h (generated)"))
                    return 1
                print(f"ok: {args.header} matches {args.abi}")
            else:
                if new != old:
                    with open(args.header, "w") as f:
                        f.write(new)
                    print(f"wrote {args.header}")
                # the ABI baseline follows: the header's functions and the table's enum values
                import baseline
                path = os.path.join(os.path.dirname(args.header), "abi_baseline.txt")
                with open(path) as f:
                    before = f.read()
                baseline.write(path, abilib.declared_functions(args.header), a)
                with open(path) as f:
                    if f.read() != before:
                        print(f"wrote {path}")
        if args.out:
            kind, rest = args.out[0], args.out[1:]
            if kind == "java-template":
                src, dst = rest
                with open(src) as f:
                    text = render_java_template(a, f.read())
                rest = [dst]
            elif kind == "java-elementwise":
                text = gen_java_elementwise(a)
            elif kind == "java-enum":
                cls, dst = rest
                text = gen_java_enum(a, cls)
                rest = [dst]
            else:
                text = {"impl": gen_impl, "capi": gen_capi, "baseline": gen_baseline_enums, "go": gen_go, "go-cuda": gen_go_cuda,
                        "go-nccl": gen_go_nccl,
                        "csharp": gen_csharp}[kind](a)
            with open(rest[0], "w") as f:
                f.write(text)
    except abilib.AbiError as e:
        sys.stderr.write(f"gen.py: {e}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
