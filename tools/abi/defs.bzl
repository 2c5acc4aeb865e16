"""abi_generated: a genrule that writes one output of tools/abi/gen.py from capi/abi.toml
(docs/abi.md, "The ABI's tables")."""

def abi_generated(name, kind, out, post = ""):
    """`python3 tools/abi/gen.py --out <kind> <out>`, then the shell command `post` (on $@)."""
    native.genrule(
        name = name,
        srcs = ["//capi:abi.toml"],
        outs = [out],
        cmd = "python3 $(location //tools/abi:gen.py) --abi $(location //capi:abi.toml) --out %s $@%s" % (
            kind,
            " && " + post if post else "",
        ),
        tools = ["//tools/abi:gen.py", "//tools/abi:abi.py"],
    )
