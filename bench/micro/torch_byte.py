import torch
from micro_torch import t
n = 8192
d = 'cuda'; N = n * n
import sys
skew = int(sys.argv[1]) if len(sys.argv) > 1 else 0
print("torch skew", skew)
big = torch.ones(4 * N + 4 * skew, dtype=torch.uint8, device=d)
def part(i, dt): return big[i * (N + skew): i * (N + skew) + N].view(dt).view(n, n)
u8a, u8b, u8c, u8o = part(0, torch.uint8), part(1, torch.uint8), part(2, torch.uint8), part(3, torch.uint8)
i8a, i8b, i8o = part(0, torch.int8), part(1, torch.int8), part(3, torch.int8)
ba, bb, bc, bo = part(0, torch.bool), part(1, torch.bool), part(2, torch.bool), part(3, torch.bool)
t("add/u8", lambda: torch.add(u8a, u8b, out=u8o), 3 * N)
t("add/i8", lambda: torch.add(i8a, i8b, out=i8o), 3 * N)
t("mul/bool", lambda: torch.mul(ba, bb, out=bo), 3 * N)
t("eq/bool", lambda: torch.eq(ba, bb, out=bo), 3 * N)
t("eq/u8", lambda: torch.eq(u8a, u8b, out=bo), 3 * N)
t("where/u8", lambda: torch.where(bc, u8a, u8b, out=u8o), 4 * N)
t("where/bool", lambda: torch.where(bc, ba, bb, out=bo), 4 * N)
