# ctorch's NVML figures (section 23 of ctorch.h) against nvidia-smi in the same run (issue 17):
# utilization, memory usage, temperature, power draw, SM clock and memory used of every visible
# device, each read between two nvidia-smi queries and compared with the nearer one within a
# tolerance (the driver samples them); the NVML device count and torch.cuda._device_count_nvml;
# list_gpu_processes against nvidia-smi's compute apps (and torch.cuda.list_gpu_processes when
# pynvml is installed); init / is_initialized. With two GPUs or more it runs again in child
# processes with CUDA_VISIBLE_DEVICES reordered ("1,0") and as a GPU's UUID, where ctorch's
# device i must be nvidia-smi's row visible[i].
#   python3 tests/gpu/nvml_compare.py gpu_artifacts/libctorch.so
import ctypes as C
import os
import subprocess
import sys
import time

from ctlib import CUDA, P, Ctorch, Tally, i32, i64, vp

MiB = 1 << 20
QUERY = ("index,uuid,utilization.gpu,utilization.memory,temperature.gpu,power.draw,clocks.sm,memory.used,"
         "memory.total,memory.free")
INT_QUERIES = ["ct_cuda_utilization", "ct_cuda_memory_usage", "ct_cuda_temperature", "ct_cuda_power_draw",
               "ct_cuda_clock_rate"]

ct = Ctorch(sys.argv[1], {
    **{name: [i32, P(i32)] for name in INT_QUERIES},
    "ct_cuda_device_memory_used": [i32, P(i64)],
    "ct_cuda_list_gpu_processes": [i32, vp, i64, P(i64)],
    "ct_cuda_device_count_nvml": [P(i32)], "ct_cuda_device_count": [P(i32)],
    "ct_cuda_init": [], "ct_cuda_is_initialized": [P(i32)],
    "ct_empty": [P(i64), i32, i32, i32, i32, P(vp)],
})
lib, ck = ct.lib, ct.ck
child = len(sys.argv) > 3 and sys.argv[2] == "--child"
tally = Tally("nvml_compare child" if child else "nvml_compare")
if not child and "CUDA_VISIBLE_DEVICES" in os.environ:  # the parent sees every GPU (CUDA starts later)
    print(f"(CUDA_VISIBLE_DEVICES={os.environ.pop('CUDA_VISIBLE_DEVICES')!r} unset for the parent run)")


def number(s):
    try:
        return float(s)
    except ValueError:  # "[N/A]", "[Not Supported]"
        return None


def smi():
    """{NVML index: {field: value}} from one nvidia-smi query"""
    out = subprocess.run(["nvidia-smi", "--query-gpu=" + QUERY, "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.strip().splitlines():
        f = [x.strip() for x in line.split(",")]
        rows[int(f[0])] = dict(uuid=f[1], util=number(f[2]), mem=number(f[3]), temp=number(f[4]),
                               power=number(f[5]), clock=number(f[6]), used=number(f[7]), total=number(f[8]),
                               free=number(f[9]))
    return rows


def compute_apps():
    """{gpu uuid: {pid: used MiB}} of nvidia-smi's compute apps"""
    out = subprocess.run(["nvidia-smi", "--query-compute-apps=gpu_uuid,pid,used_memory",
                          "--format=csv,noheader,nounits"], capture_output=True, text=True, check=True).stdout
    apps = {}
    for line in out.strip().splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) == 3:
            apps.setdefault(f[0], {})[int(f[1])] = number(f[2])
    return apps


def ct_int(name, device):
    v = i32(-1)
    ck(getattr(lib, name)(device, C.byref(v)), f"{name}({device})")
    return v.value


def ct_used(device):
    v = i64(-1)
    ck(lib.ct_cuda_device_memory_used(device, C.byref(v)), f"device_memory_used({device})")
    return v.value


def ct_processes(device):
    need = i64()
    st = lib.ct_cuda_list_gpu_processes(device, None, 0, C.byref(need))
    if st != 106:  # CT_ERR_BUFFER_SIZE: the length in need
        ck(st, f"list_gpu_processes({device}) size")
    buf = C.create_string_buffer(need.value + 64)
    ck(lib.ct_cuda_list_gpu_processes(device, buf, len(buf), C.byref(need)), f"list_gpu_processes({device})")
    return buf.value.decode()


def ct_count(name):
    v = i32(-5)
    ck(getattr(lib, name)(C.byref(v)), name)
    return v.value


def near(ct_value, smi_values, tol, what):
    """ct_value within tol of the nearer of the nvidia-smi readings taken before and after it"""
    values = [v for v in smi_values if v is not None]
    if not values:
        print(f"SKIP {what}: nvidia-smi reports no value")
        return
    d = min(abs(ct_value - v) for v in values)
    tally.check(d <= tol, f"{what}: ctorch {ct_value}, nvidia-smi {values} (tolerance {tol:g})")
    print(f"  {what}: ctorch {ct_value}, nvidia-smi {values}")


def is_initialized():
    return ct_count("ct_cuda_is_initialized")


# ---- which NVML index each ctorch device is: visible[i] (the parent: every GPU, in order)
rows0 = smi()
visible = [int(x) for x in sys.argv[3].split(",")] if child else sorted(rows0)
print(f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')!r}: ctorch device i is NVML index {visible}")

# ---- the count, before CUDA is initialized (it must not initialize it)
tally.check(is_initialized() == 0, "is_initialized is 0 at the start")
n_nvml = ct_count("ct_cuda_device_count_nvml")
tally.check(n_nvml == len(visible), f"ct_cuda_device_count_nvml {n_nvml} == {len(visible)} visible")
tally.check(is_initialized() == 0, "the NVML count does not initialize CUDA")
try:
    import torch
    t_count = torch.cuda._device_count_nvml()
    tally.check(t_count == n_nvml, f"torch.cuda._device_count_nvml() {t_count} == ctorch's {n_nvml}")
    for i in range(len(visible)):
        t_index = torch.cuda._get_nvml_device_index(i)
        tally.check(t_index == visible[i], f"torch.cuda._get_nvml_device_index({i}) {t_index} == {visible[i]}")
except Exception as e:  # noqa: BLE001 (a torch without these private functions)
    print(f"SKIP torch's NVML count: {type(e).__name__}: {e}")

# ---- the figures of every device, between two nvidia-smi queries, after an idle moment
time.sleep(1.0)
for i, idx in enumerate(visible):
    before = smi()[idx]
    got = {name: ct_int(name, i) for name in INT_QUERIES}
    used = ct_used(i)
    after = smi()[idx]
    both = (before, after)
    what = f"device {i} (NVML {idx})"
    near(got["ct_cuda_utilization"], [r["util"] for r in both], 25, f"{what} utilization %")
    near(got["ct_cuda_memory_usage"], [r["mem"] for r in both], 25, f"{what} memory usage %")
    near(got["ct_cuda_temperature"], [r["temp"] for r in both], 3, f"{what} temperature C")
    smi_w = [r["power"] for r in both if r["power"] is not None]
    near(got["ct_cuda_power_draw"] / 1000.0, smi_w, max(15.0, 0.15 * max(smi_w or [0])), f"{what} power W")
    smi_mhz = [r["clock"] for r in both if r["clock"] is not None]
    near(got["ct_cuda_clock_rate"], smi_mhz, max(300.0, 0.25 * max(smi_mhz or [0])), f"{what} SM clock MHz")
    # NVML's used (version 1) is reserved + allocated: nvidia-smi's total - free
    near(used / MiB, [r["total"] - r["free"] for r in both if r["total"] is not None and r["free"] is not None], 64,
         f"{what} memory used MiB (nvidia-smi memory.total - memory.free; memory.used {before['used']})")
tally.check(is_initialized() == 0, "NVML queries of explicit devices do not initialize CUDA")

# ---- init, then this process on device 0 with 256 MiB, listed as nvidia-smi lists it
ck(lib.ct_cuda_init(), "init")
ck(lib.ct_cuda_init(), "init again")
tally.check(is_initialized() == 1, "is_initialized is 1 after init")
tally.check(ct_count("ct_cuda_device_count") == len(visible),
            f"ct_cuda_device_count {ct_count('ct_cuda_device_count')} == {len(visible)}")
t = vp()
ck(lib.ct_empty((i64 * 1)(64 * MiB), 1, 6, CUDA, 0, C.byref(t)), "empty 256 MiB on device 0")
time.sleep(0.5)
for i, idx in enumerate(visible):
    text = ct_processes(i)
    apps = compute_apps().get(rows0[idx]["uuid"], {})
    lines = text.split("\n")
    tally.check(lines[0] == f"GPU:{idx}", f"list_gpu_processes({i}) starts 'GPU:{idx}': {lines[0]!r}")
    listed = {}
    for line in lines[1:]:
        if line == "no processes are running":
            continue
        parts = line.split()  # process <pid> uses <MB> MB GPU memory
        ok = len(parts) == 7 and parts[0] == "process" and parts[2] == "uses" and line.endswith(" MB GPU memory")
        tally.check(ok, f"list_gpu_processes({i}) line {line!r}")
        if ok:
            listed[int(parts[1])] = number(parts[3])
    tally.check(set(listed) == set(apps), f"device {i}: pids {sorted(listed)} == nvidia-smi's {sorted(apps)}")
    for pid, mb in listed.items():
        if pid in apps and mb is not None and apps[pid] is not None:
            tally.check(abs(mb - apps[pid]) <= 64, f"device {i} pid {pid}: {mb} MB, nvidia-smi {apps[pid]} MiB")
    if i == 0:
        tally.check(len(listed) >= 1, f"device 0 lists this process's 256 MiB: {text!r}")
    print("  " + text.replace("\n", "\n  "))
    try:
        import pynvml  # noqa: F401 (torch.cuda.list_gpu_processes needs it)
    except ImportError:
        print("SKIP torch.cuda's NVML figures: pynvml is not installed")
        continue
    try:
        import torch
        t_text = torch.cuda.list_gpu_processes(i)
        tally.check(t_text.split("\n")[0] == lines[0], f"torch.cuda.list_gpu_processes({i}) header {t_text[:8]!r}")
        t_pids = {int(l.split()[1]) for l in t_text.split("\n")[1:] if l.startswith("process")}
        tally.check(t_pids == set(listed), f"torch's pids {sorted(t_pids)} == ctorch's {sorted(listed)}")
        for name, fn in (("temperature", torch.cuda.temperature), ("clock_rate", torch.cuda.clock_rate)):
            tol = 3 if name == "temperature" else 300
            near(ct_int("ct_cuda_" + name, i), [fn(i)], tol, f"device {i} {name} vs torch.cuda.{name}")
    except Exception as e:  # noqa: BLE001 (torch's own failure, e.g. on a memory figure pynvml gives as None)
        print(f"SKIP torch.cuda.list_gpu_processes({i}): {type(e).__name__}: {e}")
ck(lib.ct_tensor_release(t), "release")

# ---- a device no GPU backs: CT_ERR_INDEX, torch's message
v = i32()
st = lib.ct_cuda_temperature(len(visible), C.byref(v))
msg = lib.ct_last_error_message().decode()
tally.check(st == 105 and f"device {len(visible)} is not visible (CUDA_VISIBLE_DEVICES={visible})" in msg,
            f"device {len(visible)}: {st} {msg}")

# ---- again with CUDA_VISIBLE_DEVICES reordered, and as a UUID prefix (2 GPUs or more)
if not child:
    if len(rows0) >= 2:
        order = list(reversed(sorted(rows0)))
        uuid1 = rows0[order[0]]["uuid"]  # whole: prefixes are tests/impl/nvml_test's
        for env, mapping in ((",".join(map(str, order)), order), (uuid1, [order[0]])):
            print(f"== child: CUDA_VISIBLE_DEVICES={env}")
            r = subprocess.run([sys.executable, __file__, sys.argv[1], "--child", ",".join(map(str, mapping))],
                               env={**os.environ, "CUDA_VISIBLE_DEVICES": env}, capture_output=True, text=True)
            print(r.stdout + r.stderr)
            last = [l for l in r.stdout.splitlines() if l.startswith("nvml_compare child:")]
            if last:
                p, f = last[-1].split(":")[1].replace("passed", "").replace("failed", "").split(",")
                tally.passed += int(p)
                tally.failed += int(f)
            tally.check(r.returncode == 0 and bool(last), f"child with CUDA_VISIBLE_DEVICES={env} (rc {r.returncode})")
    else:
        print("SKIP the reordered CUDA_VISIBLE_DEVICES runs: one GPU")
tally.exit()
