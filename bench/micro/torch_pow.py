import torch
from micro_torch import t
n = 8192
a = torch.rand(n, n, device='cuda').half(); b = torch.rand(n, n, device='cuda').half()
for _ in range(2): t("pow/f16", lambda: torch.pow(a, b))
for _ in range(2): t("add/f16", lambda: a + b)
for _ in range(2): t("div/f16", lambda: a / b)
