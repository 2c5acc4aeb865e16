#!/bin/bash
# capi/ctorch.h's enum blocks are what capi/abi.toml makes of them (else: run
# python3 tools/abi/gen.py --write).
set -u
python3 "$1" --abi "$2" --header "$3" --check
