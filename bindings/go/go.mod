module ctorch.dev/ctorch

go 1.19
