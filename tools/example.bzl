"""example(): a program to `bazel run` (name) and the same program as a test (name_test: it
must exit 0), so an example cannot rot. driver is the sh script that runs it (tools/go_run.sh,
tools/mono_run.sh, ...), with args and data as for sh_binary."""

def example(name, driver, args, data):
    native.sh_binary(name = name, srcs = [driver], args = args, data = data)
    native.sh_test(name = name + "_test", size = "medium", srcs = [driver], args = args, data = data)  # Go examples build at test time
