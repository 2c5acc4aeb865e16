#!/usr/bin/env bash
# The GPU suite, run on the GPU host in one command (it has CUDA, g++ and torch, no Bazel):
#   bash tools/gpu_check.sh [gpu_artifacts]
# gpu_artifacts/ is the GPU bundle (tools/gpu_pack.sh here). Runs every C suite of the bundle
# (suites.txt), some again in other configurations, the comparisons against torch.cuda in
# tests/gpu/, the core unit tests, compute-sanitizer, the quickstart and the Go suite, then
# checks the C suite's reference values against torch. SANITIZE=0 leaves compute-sanitizer out,
# SANITIZE=only runs it alone: on two GPUs the whole takes longer than one device call allows
# (10 minutes), so it runs as `SANITIZE=0 ...` then `SANITIZE=only ...`. The bundle is larger
# than the device tool carries in one call (64 MiB): SKIP="core_test jit_run_test" leaves those
# (named as skipped, never silently) for a call of their own with ONLY="core_test jit_run_test".
set -uo pipefail
source "$(dirname "$0")/gpu_env.sh" "${1:-gpu_artifacts}" || exit 1  # A, LD_LIBRARY_PATH
cd "$(dirname "$0")/.."
rc=0
echo "== nvidia-smi"; nvidia-smi -L || true
# part T: whether this call runs test binary T (SKIP and ONLY, above)
part() {
  if [[ " ${SKIP:-} " == *" $1 "* ]]; then echo "   (skipped here: $1, SKIP)"; return 1; fi
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $1 "* ]]; then return 1; fi
  return 0
}
# sanitize TOOL TEST: compute-sanitizer's summary lines, its first findings when it fails
# (SANITIZE_OPTS: other options than memcheck's --leak-check full, for one call)
# (arguments after TEST go to the test)
sanitize() {
  local extra=""; [ "$1" = memcheck ] && extra="--leak-check full"
  extra="${SANITIZE_OPTS:-$extra}"
  local tool="$1" test="$2"; shift 2
  echo "== compute-sanitizer $tool: $test $extra $*"
  /usr/local/cuda/bin/compute-sanitizer --tool "$tool" $extra --error-exitcode 9 "$A/$test" "$@" > "/tmp/cs_${tool}_$test.txt" 2>&1
  local r=$?
  tail -3 "/tmp/cs_${tool}_$test.txt"; [ $r -eq 0 ] || { rc=1; grep -m20 -E "=========" "/tmp/cs_${tool}_$test.txt"; }
}
# sanitize_cases TOOL TEST: one process a case of tests/capi/TEST.c (CT_TESTS), all at once:
# racecheck of sort_test as one process outlasted 100 s; its cases alone take under 4 minutes
sanitize_cases() {
  local tool="$1" test="$2" c bad=0
  local cases; cases=$(grep -oE 'TEST_CASE\([A-Za-z0-9_]+\)' "tests/capi/$test.c" | sed -E 's/TEST_CASE\((.*)\)/\1/')
  echo "== compute-sanitizer $tool: $test, one process a case ($(echo $cases | wc -w))"
  for c in $cases; do
    CT_TESTS=$c /usr/local/cuda/bin/compute-sanitizer --tool "$tool" --error-exitcode 9 "$A/$test" > "/tmp/cs_${tool}_${test}_$c.txt" 2>&1 &
  done
  wait
  for c in $cases; do
    grep -qE '^1 passed, 0 failed' "/tmp/cs_${tool}_${test}_$c.txt" && grep -qE 'SUMMARY: 0 (hazards|errors)' "/tmp/cs_${tool}_${test}_$c.txt" ||
      { bad=1; echo "   $c:"; grep -m20 -E "=========|FAIL" "/tmp/cs_${tool}_${test}_$c.txt"; }
  done
  if [ $bad = 0 ]; then echo "   every case: 1 passed, 0 failed; SUMMARY: 0"; else rc=1; fi
}
# the jiterator (issue 18): its launch tests but the two over 2^31 elements (4 GiB each; their
# kernels are the same code at other index widths)
jit_sanitize() {
  sanitize memcheck jit_run_test --gtest_brief=1 '--gtest_filter=-*TwoToThe31*'
  sanitize initcheck jit_run_test --gtest_brief=1 '--gtest_filter=-*TwoToThe31*'
}
run_core() { echo "== core unit tests"; "$A/core_test" --gtest_brief=1 || rc=1; }
run_jit() { echo "== the jiterator's launch (issue 18)"; "$A/jit_run_test" --gtest_brief=1 || rc=1; }
if [ -n "${ONLY:-}" ]; then
  for t in $ONLY; do
    case $t in
      core_test) run_core ;;
      jit_run_test) run_jit ;;
      *) echo "ONLY: $t has no part of its own"; rc=1 ;;
    esac
  done
  if [[ " $ONLY " == *" jit_run_test "* ]] && [ "${SANITIZE:-1}" != 0 ]; then
    jit_sanitize
  fi
  echo "gpu_check rc=$rc"
  exit $rc
fi
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "${SANITIZE:-1}" != only ]; then
[ -f "$A/suites.txt" ] || { echo "no $A/suites.txt: not a GPU bundle (bash tools/gpu_pack.sh)"; rc=1; }
# the C suites of tests/capi (one line each in its BUILD: what a suite covers)
for t in $(cat "$A/suites.txt" 2>/dev/null); do
  echo "== C suite $t (tests/capi/$t.c)"; "$A/$t" || rc=1
done
# Note [Stream sanitizer]: the whole C suite again with the sanitizer on, in warn mode (reports
# on stderr, nothing fails): any report is a false positive or a race in a test, so none may come
for t in $(cat "$A/suites.txt" 2>/dev/null); do
  [ "$t" = sanitizer_test ] && continue
  CTORCH_CUDA_SANITIZER=warn "$A/$t" > "/tmp/csan_$t.txt" 2>&1 || rc=1
  n=$(grep -c "CSAN detected" "/tmp/csan_$t.txt")
  echo "== $t with CTORCH_CUDA_SANITIZER=warn: $(grep -E '^[0-9]+ passed' "/tmp/csan_$t.txt" | tail -1), $n race reports"
  [ "$n" -eq 0 ] || { rc=1; grep -m3 -A8 "CSAN detected" "/tmp/csan_$t.txt"; }
done
echo "== cuda_test with CUDA_LAUNCH_BLOCKING=1"; CUDA_LAUNCH_BLOCKING=1 "$A/cuda_test" || rc=1
echo "== pluggable allocator loaded from libmyalloc.so"
"$A/pluggable_test" load "$A/libmyalloc.so" || rc=1
echo "== device_test with expandable segments (every CUDA tensor in mapped pages)"
CTORCH_CUDA_ALLOC_CONF=expandable_segments:True "$A/device_test" > /tmp/dev_exp.txt 2>&1 || rc=1
tail -2 /tmp/dev_exp.txt
echo "== memory_stats, ctorch vs torch (tests/gpu/alloc_compare.py)"
python3 tests/gpu/alloc_compare.py "$A/alloc_trace" || rc=1
echo "== memory_stats with expandable segments, ctorch vs torch"
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True CTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
  python3 tests/gpu/alloc_compare.py "$A/alloc_trace" || rc=1
for c in linalg fft rng graph comm nvml safetensors dlpack scan sort indexing rowfuncs ewfuncs; do
  echo "== ctorch vs torch.cuda (tests/gpu/${c}_compare.py)"
  python3 "tests/gpu/${c}_compare.py" "$A/libctorch.so" || rc=1
done
echo "== NCCL communicators, ctorch vs torch.distributed, one process a GPU (tests/gpu/nccl_dist_compare.py)"
python3 tests/gpu/nccl_dist_compare.py "$A/libctorch.so" || rc=1
echo "== the same two with NCCL_RUNTIME_CONNECT=1: no blocking twins, every collective nonblocking (Note [Fast collectives])"
NCCL_RUNTIME_CONNECT=1 "$A/nccl_test" || rc=1
NCCL_RUNTIME_CONNECT=1 python3 tests/gpu/nccl_dist_compare.py "$A/libctorch.so" || rc=1
echo "== NVTX: nvtx_test, then again under the recording injection library"
"$A/nvtx_test" "$A/libnvtx_inject.so" || rc=1
if command -v nsys > /dev/null; then
  echo "== NVTX ranges in Nsight Systems: the profile example under nsys profile -t nvtx,cuda"
  nsys profile -t nvtx,cuda -f true -o /tmp/ct_nvtx "$A/profile" > /tmp/nsys.txt 2>&1 || rc=1
  nsys stats -q -r nvtx_sum /tmp/ct_nvtx.nsys-rep 2>&1 | head -20
else
  echo "   (no nsys on this host: the injection library above is the check)"
fi
part core_test && run_core
echo "== impl runtime layer (device resolution, stream guard, raw allocations)"; "$A/runtime_test" --gtest_brief=1 || rc=1
part jit_run_test && run_jit
fi
if [ "${SANITIZE:-1}" != 0 ]; then
  # SANITIZE_PART=1, 2, 3 or 4: one part of what follows (on one GPU the whole outlasts a device
  # call; each part takes under 10 minutes on an H200, and parts 3 and 4 may run at once)
  if [ "${SANITIZE_PART:-1}" = 1 ]; then
  for t in device_test cuda_test random_test layout_test graph_test; do sanitize memcheck $t; done
  # racecheck of layout_test on every device takes longer than a device call on two GPUs: there
  # it runs the cases on the last device alone (one GPU: device 0, as always)
  sanitize racecheck device_test
  # issue 21's suites (each where the bundle has it): memcheck with the leak check, racecheck of
  # those with kernels of their own (shared memory, block scans)
  # (indexing_test's device-side assertions run in child processes of their own, which are
  # meant to assert and exit: the tool follows the test process alone there)
  for t in dlpack_test safetensors_test scan_test sort_test rowfuncs_test ewfuncs_test; do
    [ -x "$A/$t" ] && sanitize memcheck $t
  done
  [ -x "$A/indexing_test" ] && SANITIZE_OPTS="--leak-check full --target-processes application-only" sanitize memcheck indexing_test
  for t in scan_test rowfuncs_test; do [ -x "$A/$t" ] && sanitize racecheck $t; done
  fi
  if [ "${SANITIZE_PART:-2}" = 2 ]; then
  [ -x "$A/sort_test" ] && sanitize_cases racecheck sort_test
  [ -x "$A/indexing_test" ] && SANITIZE_OPTS="--target-processes application-only" sanitize racecheck indexing_test
  fi
  if [ "${SANITIZE_PART:-3}" = 3 ]; then
  LAYOUT_TEST_FIRST_DEVICE=$(( NGPU > 1 ? NGPU - 1 : 0 )) sanitize racecheck layout_test
  fi
  if [ "${SANITIZE_PART:-4}" = 4 ]; then
  # the jiterator (issue 18): its C suite, and its launch tests (jit_sanitize)
  sanitize memcheck jiterator_test
  sanitize racecheck jiterator_test
  part jit_run_test && jit_sanitize
  # NCCL itself: its start probes kernels of other architectures (API errors that are NCCL's
  # own), an initialization aborted midway (nccl_test's timeout and bad-id cases) leaks two 4-byte
  # host allocations inside ncclCommInitRankConfig, and torch.cuda.comm's communicators (two GPUs
  # or more) are kept for the process by design, as PyTorch's; so memory errors only, without the
  # leak check, where NCCL runs (cuda_comm_test on one GPU uses no NCCL: the leak check stays)
  nccl_opts="--report-api-errors no"
  if [ "$NGPU" -ge 2 ]; then SANITIZE_OPTS="$nccl_opts" sanitize memcheck cuda_comm_test; else sanitize memcheck cuda_comm_test; fi
  SANITIZE_OPTS="$nccl_opts" sanitize memcheck nccl_test
  fi
fi
[ "${SANITIZE:-1}" = only ] && { echo "gpu_check rc=$rc"; exit $rc; }
echo "== quickstart"; "$A/quickstart" || rc=1
echo "== graphs example"; "$A/graphs" || rc=1
echo "== profile example (NVTX ranges, NVML figures)"; "$A/profile" || rc=1
echo "== jiterator example (a fused GELU against the formula in double, a two-output op)"; "$A/jiterator" || rc=1
echo "== the Go jiterator example (examples/go/jiterator.go)"; "$A/go_jiterator" || rc=1
echo "== allreduce example, one rank"; "$A/allreduce" || rc=1
if [ "$NGPU" -ge 2 ]; then
  echo "== allreduce example, two processes exchanging the unique id through a file"
  idf=$(mktemp -u); "$A/allreduce" 1 2 "$idf" & p1=$!
  "$A/allreduce" 0 2 "$idf" || rc=1; wait $p1 || rc=1
fi
if [ -x "$A/go_ctorch.test" ]; then
  echo "== Go binding suite on the GPU"
  "$A/go_ctorch.test" -test.v -test.count=1 > /tmp/go_gpu.txt 2>&1 || rc=1
  [ -n "${OUT:-}" ] && cp /tmp/go_gpu.txt "$OUT/"  # the whole log comes back from the device tool
  grep -E "^--- FAIL|^(ok|FAIL|PASS)$|^panic" /tmp/go_gpu.txt | head -20
  echo "go: $(grep -c '^--- PASS' /tmp/go_gpu.txt) passed, $(grep -c '^--- FAIL' /tmp/go_gpu.txt) failed, $(grep -c '^--- SKIP' /tmp/go_gpu.txt) skipped"
  grep -A3 "^--- SKIP" /tmp/go_gpu.txt | grep -v "^--" | head -10
  echo "== Go binding suite again with the stream sanitizer on (CTORCH_CUDA_SANITIZER=warn): no reports"
  CTORCH_CUDA_SANITIZER=warn "$A/go_ctorch.test" -test.count=1 > /tmp/go_csan.txt 2>&1 || rc=1
  n=$(grep -c "CSAN detected" /tmp/go_csan.txt)
  echo "go with the sanitizer: $(grep -c '^--- FAIL' /tmp/go_csan.txt) failed, $n race reports"
  [ "$n" -eq 0 ] || { rc=1; grep -m3 -A8 "CSAN detected" /tmp/go_csan.txt; }
fi
echo "== torch, same devices; the C suite's reference values (tests/gpu/torch_reference.py)"
python3 tests/gpu/torch_reference.py || rc=1
echo "gpu_check rc=$rc"
exit $rc
