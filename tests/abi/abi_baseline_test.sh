#!/bin/bash
# Rule 6 of the ABI: nothing in capi/abi_baseline.txt disappears or changes, and every addition
# is listed there (tools/abi/baseline.py).
set -u
python3 "$1" --check "$2" --abi "$3" --header "$4" --baseline "$5"
