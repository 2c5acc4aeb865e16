#!/usr/bin/env python3
"""Prints ctorch's version, read from the one place it is written: capi/ctorch.h's
CT_VERSION_MAJOR / CT_VERSION_MINOR / CT_VERSION_PATCH.

  python3 dist/version.py [--major] [path/to/ctorch.h]

prints e.g. "0.1.0" (or "0" with --major). The header path defaults to capi/ctorch.h next to
this script's folder. Build rules call it as
  python3 $(location //dist:version.py) $(location //capi:ctorch.h)
"""
import os
import re
import sys

PARTS = ("MAJOR", "MINOR", "PATCH")


def read_version(header_path):
    """Returns (major, minor, patch) as ints; exits with a message naming what is missing."""
    with open(header_path, encoding="utf-8") as f:
        text = f.read()
    found = {}
    for part in PARTS:
        m = re.findall(r"^\s*#\s*define\s+CT_VERSION_%s\s+(\d+)\s*$" % part, text, re.MULTILINE)
        if len(m) != 1:
            sys.exit("version.py: %s: expected exactly one '#define CT_VERSION_%s <number>', found %d"
                     % (header_path, part, len(m)))
        found[part] = int(m[0])
    return tuple(found[p] for p in PARTS)


def main(argv):
    args = list(argv)
    major_only = "--major" in args
    args = [a for a in args if a != "--major"]
    if any(a.startswith("-") for a in args) or len(args) > 1:
        sys.exit("usage: version.py [--major] [path/to/ctorch.h]")
    header = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "capi", "ctorch.h")
    major, minor, patch = read_version(header)
    print(major if major_only else "%d.%d.%d" % (major, minor, patch))


if __name__ == "__main__":
    main(sys.argv[1:])
