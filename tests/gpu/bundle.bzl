"""runfiles_matching: the files of a target's runfiles whose names end in a suffix (the GPU
bundle compiles the Go suite from the *_test.go files //tests/go:go_test runs)."""

def _runfiles_matching_impl(ctx):
    files = ctx.attr.target[DefaultInfo].default_runfiles.files.to_list()
    return [DefaultInfo(files = depset([f for f in files if f.basename.endswith(ctx.attr.suffix)]))]

runfiles_matching = rule(
    implementation = _runfiles_matching_impl,
    attrs = {
        "target": attr.label(mandatory = True),
        "suffix": attr.string(mandatory = True),
    },
)
