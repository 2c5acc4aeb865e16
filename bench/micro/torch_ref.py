import torch
from micro_torch import t
n = 8192
d = 'cuda'
u8a = torch.ones(n, n, dtype=torch.uint8, device=d); u8b = u8a.clone()
ba = torch.ones(n, n, dtype=torch.bool, device=d); bb = ba.clone()
ha = torch.ones(n, n, dtype=torch.half, device=d); hb = ha.clone()
N = n * n
t("add/u8", lambda: u8a + u8b, 3 * N)
t("eq/bool", lambda: ba == bb, 3 * N)
t("pow/f16", lambda: torch.pow(ha, hb), 6 * N)
t("add/f16", lambda: ha + hb, 6 * N)
