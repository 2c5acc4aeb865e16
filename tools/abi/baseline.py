#!/usr/bin/env python3
"""Rule 6 of the ABI ("additions only"), checked: capi/abi_baseline.txt lists every exported ct_
function and every public enum constant with its value (docs/abi.md, "The ABI baseline").

  python3 tools/abi/baseline.py --check LIB    (tests/capi:abi_baseline_test) fails when a listed
      symbol is gone or an enum value changed, when the library exports a ct_ function the
      baseline does not list, and when the header and the library disagree on the functions
  python3 tools/abi/baseline.py --write LIB    rewrites the baseline from LIB (after an addition; also
      done by `python3 tools/abi/gen.py --write`, from the header's declarations):
      bazel build //capi:libctorch.so && python3 tools/abi/baseline.py --write bazel-bin/capi/libctorch.so
Options: --abi, --header, --baseline (defaults: capi/abi.toml, capi/ctorch.h, capi/abi_baseline.txt).
Stdlib only; needs nm (binutils).
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi as abilib  # noqa: E402
import gen  # noqa: E402

HEAD = """# The ABI baseline of libctorch.so (docs/abi.md, "The ABI baseline"): every exported function and
# every public enum constant with its value. Rule 6: within a major version nothing listed here
# disappears or changes. Adding a function or a constant means adding its line here:
#   python3 tools/abi/gen.py --write   (from ctorch.h's declarations and capi/abi.toml), or
#   bazel build //capi:libctorch.so && python3 tools/abi/baseline.py --write bazel-bin/capi/libctorch.so
"""


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    return sorted({f.split()[-1] for f in out.splitlines() if f.split() and f.split()[-1].startswith("ct_")})


def current(functions, a):
    lines = [f"function {s}" for s in functions]
    lines += gen.gen_baseline_enums(a).splitlines()
    return lines


def write(path, functions, a):
    """Rewrites the baseline: the given functions and every enum constant of the table."""
    now = current(functions, a)
    with open(path, "w") as f:
        f.write(HEAD + "\n".join(now) + "\n")
    return len(now)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--abi", default=abilib.DEFAULT_PATH)
    ap.add_argument("--header", default=os.path.join(abilib.ROOT, "capi", "ctorch.h"))
    ap.add_argument("--baseline", default=os.path.join(abilib.ROOT, "capi", "abi_baseline.txt"))
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", metavar="LIB")
    mode.add_argument("--write", metavar="LIB")
    args = ap.parse_args()
    a = abilib.load(args.abi)
    lib = args.check or args.write
    now = current(exported(lib), a)
    if args.write:
        print(f"wrote {args.baseline}: {write(args.baseline, exported(lib), a)} entries")
        return 0
    base = [l.strip() for l in open(args.baseline) if l.strip() and not l.startswith("#")]
    fail = passed = 0
    base_names = {l.split()[1]: l for l in base}
    now_names = {l.split()[1]: l for l in now}
    for l in base:
        name = l.split()[1]
        if name not in now_names:
            print(f"FAIL: {l!r} is in capi/abi_baseline.txt but gone (rule 6: additions only)")
            fail += 1
        elif now_names[name] != l:
            print(f"FAIL: {name} changed: baseline {l!r}, now {now_names[name]!r} (rule 6: values never change)")
            fail += 1
        else:
            passed += 1
    for l in now:
        if l.split()[1] not in base_names:
            print(f"FAIL: new {l!r} is not in capi/abi_baseline.txt: adding one means updating capi/abi_baseline.txt "
                  "(python3 tools/abi/baseline.py --write bazel-bin/capi/libctorch.so)")
            fail += 1
    dec, exp = set(abilib.declared_functions(args.header)), set(exported(lib))
    for s in sorted(dec - exp):
        print(f"FAIL: {s} is declared in ctorch.h but not exported")
        fail += 1
    for s in sorted(exp - dec):
        print(f"FAIL: {s} is exported but not declared in ctorch.h")
        fail += 1
    if dec == exp:
        print(f"ok: the {len(exp)} exported functions are the ones ctorch.h declares")
        passed += 1
    print(f"{passed} passed, {fail} failed")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
