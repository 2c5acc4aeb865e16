"""nvcc for Bazel 4.2.3 offline: compiles .cu files with the include paths and defines of
their cc deps, then wraps the objects in a cc_library.

Device code is built for sm_80 and sm_90 plus compute_90 PTX (ARCHS below; JIT for newer GPUs; README.md,
"Building by hand"). The list is short on purpose: nvcc compiles every .cu once per entry, and
CI is a 2-core box.

Note [Sanitizers and nvcc]: Bazel's --copt does not reach nvcc (this rule builds its own
command line), so the .cu files' host code is not instrumented by the sanitizers. That code is
kernels, their launches and nvcc's generated stubs; host logic with state of its own (the
device-count probe, the current device, "CUDA is not available": impl/cuda/runtime.cc) is
plain C++ compiled with the rest of impl, so ASan and TSan see it, from every thread under
TSan (tests/capi/stress_test.c). Device code cannot be instrumented, and the CUDA runtime and
driver stay uninstrumented, so on a GPU TSan would not see the ordering they provide: TSan runs
without a GPU (Note [TSan] in tests/capi/stress_test.c)."""

NVCC = "/usr/local/cuda/bin/nvcc"

# What device code is built for: SASS for sm_80 and sm_90, PTX for compute_90 (the one home of
# this list: nvcc's -gencode flags and the library's ct_cuda_get_arch_list / _gencode_flags,
# through -DCT_CUDA_ARCHS=sm_80:sm_90:compute_90 in impl/cuda/BUILD, come from it).
ARCHS = ["sm_80", "sm_90", "compute_90"]

# Note [Sanitizer builds' device code]: the sanitizer configs (--config=asan / fuzz / tsan, which
# set //tools:sanitized) run without a GPU (CI) and instrument host code only, so their device
# code is PTX for compute_80 alone, which any GPU the library supports compiles at load: a
# quarter of the nvcc time of the three entries above, on a 2-core CI box that builds every .cu
# once per config. Their device code and the host side of the .cu files are also compiled
# without optimization (SANITIZER_NVCC_OPT): nothing of it runs in those builds (no GPU, and
# the host code is not instrumented, Note [Sanitizers and nvcc]), and cicc at -O2 is most of an
# nvcc call (binary.cu: 36 s at -O2, 11 s at -O0, one core).
SANITIZER_ARCHS = ["compute_80"]
SANITIZER_NVCC_OPT = ["-O0", "-Xcicc", "-O0"]

def cuda_archs_define():
    """The -D (local_defines entry) that tells the library what its device code was built for."""
    return select({
        "//tools:sanitized": ["CT_CUDA_ARCHS=" + ":".join(SANITIZER_ARCHS)],
        "//conditions:default": ["CT_CUDA_ARCHS=" + ":".join(ARCHS)],
    })

def _gencode(arch):
    return "-gencode=arch=compute_%s,code=%s" % (arch.split("_")[1], arch)

def _nvcc_objects_impl(ctx):
    cc = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps]).compilation_context
    objs = []
    archs = SANITIZER_ARCHS if ctx.attr.sanitized else ARCHS
    for src in ctx.files.srcs:
        obj = ctx.actions.declare_file("_objs_cuda/%s/%s.pic.o" % (ctx.label.name, src.basename.rsplit(".", 1)[0]))
        args = ctx.actions.args()
        args.add_all(["-c", "-std=c++17"])
        args.add_all(SANITIZER_NVCC_OPT if ctx.attr.sanitized else ["-O2"])
        args.add_all(["-Xcompiler", "-fPIC,-fvisibility=hidden"])
        args.add_all([_gencode(a) for a in archs])
        args.add_all(cc.defines, format_each = "-D%s")
        args.add_all(cc.includes, before_each = "-I")
        args.add_all(cc.quote_includes, before_each = "-I")
        args.add_all(cc.system_includes, before_each = "-isystem")
        args.add_all(ctx.attr.nvcc_flags)
        args.add(src)
        args.add("-o", obj)
        ctx.actions.run(
            executable = NVCC,
            arguments = [args],
            inputs = depset([src] + ctx.files.hdrs, transitive = [cc.headers]),
            outputs = [obj],
            mnemonic = "Nvcc",
            progress_message = "nvcc %s" % src.short_path,
            use_default_shell_env = True,
            # Note [nvcc outside the sandbox]: nvcc names its temporary files in /tmp after its
            # process id and a counter (tmpxft_<pid>_<counter>-<n>_<file>). In Bazel's
            # linux-sandbox every action runs in its own pid namespace, so every nvcc has the
            # same pid, while /tmp is shared: two nvcc actions at once could take each other's
            # files (CI once failed with "cc1plus: fatal error: /tmp/tmpxft_00000002_0000000b-
            # 6_sort.cudafe1.cpp: No such file or directory"). Outside the sandbox each nvcc has
            # its own pid. The inputs are declared all the same; execution requirements are not
            # part of the action's cache key, so cached objects stay valid.
            execution_requirements = {"no-sandbox": "1"},
        )
        objs.append(obj)
    return [DefaultInfo(files = depset(objs))]

nvcc_objects = rule(
    implementation = _nvcc_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = True),
        "deps": attr.label_list(providers = [CcInfo]),
        "nvcc_flags": attr.string_list(),
        "sanitized": attr.bool(),
    },
)

def cuda_library(name, srcs, hdrs = [], deps = [], nvcc_flags = [], **kwargs):
    nvcc_objects(
        name = name + "_nvcc",
        srcs = srcs,
        hdrs = hdrs,
        deps = deps + ["@cuda//:headers"],
        nvcc_flags = nvcc_flags,
        sanitized = select({"//tools:sanitized": True, "//conditions:default": False}),
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_nvcc"],
        hdrs = hdrs,
        deps = deps + ["@cuda//:cudart_static"],
        **kwargs
    )
