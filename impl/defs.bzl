"""The kinds of impl target: C++ (cc_library with the impl copts), a whole folder of it, and
nvcc-built."""

load("//tools:cuda.bzl", "cuda_library")

# Nothing in impl is visible outside libctorch.so (hidden visibility + the version script in
# capi/).
IMPL_COPTS = [
    "-fvisibility=hidden",
    "-fopenmp",
    # No a * b + c fused on its own in the functions compiled for FMA targets (Note [CPU
    # SIMD kernels]): every SIMD level gives the same bits.
    "-ffp-contract=off",
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
]

def impl_library(name, **kwargs):
    """A cc_library of impl."""
    native.cc_library(name = name, copts = IMPL_COPTS, **kwargs)

def impl_layer(name, **kwargs):
    """The target of an impl folder that is one layer: an impl_library of every .cc and .h in
    it, named after the folder (//impl/<name>)."""
    if native.package_name() != "impl/" + name:
        fail("impl_layer %s must be the target of impl/%s, not of %s" % (name, name, native.package_name()))
    impl_library(name = name, srcs = native.glob(["*.cc"]), hdrs = native.glob(["*.h"]), **kwargs)

def impl_cuda_library(name, **kwargs):
    """nvcc-built code of impl (one nvcc action per .cu file). alwayslink: its objects are
    referenced only from other targets' objects."""
    cuda_library(name = name, nvcc_flags = ["-diag-suppress", "186"], alwayslink = True, **kwargs)
