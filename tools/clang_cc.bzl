"""A second auto-configured C/C++ toolchain that compiles with clang, beside Bazel's own
@local_config_cc (gcc). Only --config=fuzz uses it (.bazelrc: --crosstool_top), for libFuzzer
and clang's sanitizers (README.md, "Fuzzing"); the other configs keep gcc, and the repository
is fetched only when a build asks for it, so a machine without clang builds everything else.

It is Bazel's own autoconfiguration (cc_autoconf_impl of @bazel_tools) with the compiler named
instead of read from $CC: the same flags, include directories and wrapper as @local_config_cc,
so switching configs refetches nothing."""

load("@bazel_tools//tools/cpp:cc_configure.bzl", "cc_autoconf_impl")

def _clang_cc_autoconf_impl(rctx):
    clang = rctx.which("clang")
    if clang == None:
        fail("clang not found on PATH (tools/setup.sh installs it)")
    cc_autoconf_impl(rctx, overriden_tools = {"gcc": str(clang)})

clang_cc_autoconf = repository_rule(
    implementation = _clang_cc_autoconf_impl,
    environ = ["PATH"],
    configure = True,
    local = True,
)
