#!/usr/bin/env python3
"""Which public functions a test run reached (Note [Call trace] in capi/trace.cc).

usage: coverage.py --header capi/ctorch.h --suite NAME TRACE_FILE...

The public functions are the CT_API declarations of ctorch.h; the trace files hold the names
libctorch.so appended while the suite ran with CTORCH_TRACE_CALLS set. Prints one line
"coverage NAME: N of M public functions called" and the names never called; exits 1 when any
public function was not called, 2 when a trace file is missing or empty (tracing was off)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi as abilib  # noqa: E402  (the one reading of the header's CT_API declarations)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--header", required=True)
    ap.add_argument("--suite", required=True)
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    public = abilib.declared_functions(a.header)
    called = set()
    for t in a.traces:
        try:
            called.update(line.strip() for line in open(t, encoding="utf-8") if line.strip())
        except OSError as e:
            print(f"coverage {a.suite}: no trace ({e}); was CTORCH_TRACE_CALLS set?")
            return 2
    if not called:
        print(f"coverage {a.suite}: the trace is empty; was CTORCH_TRACE_CALLS set?")
        return 2
    missing = [f for f in public if f not in called]
    print(f"coverage {a.suite}: {len(public) - len(missing)} of {len(public)} public functions called")
    for f in missing:
        print(f"  not called: {f}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
