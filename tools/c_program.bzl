"""c_program: a C program, name.c, that uses ctorch as a user's program would: plain C (std),
linked against libctorch.so (//capi:ctorch_shared)."""

def c_program(name, std = "c11", deps = [], **kwargs):
    native.cc_binary(
        name = name,
        srcs = [name + ".c"],
        copts = ["-std=" + std],
        deps = deps + ["//capi:ctorch_shared"],
        **kwargs
    )
