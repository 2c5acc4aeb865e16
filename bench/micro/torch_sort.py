# torch's side of sort_f16.cu: sort of 16M float16 in [0, 1), the same rounds.
import torch
from micro_torch import t
x = torch.rand(1 << 24, device='cuda', dtype=torch.half)
t("sort/f16/16M", lambda: torch.sort(x))
t("arange i64 16M", lambda: torch.arange(1 << 24, device='cuda'))
