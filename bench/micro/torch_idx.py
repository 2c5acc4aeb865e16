# torch's side of idx_gather.cu: gather over dim 1 and 0 of [4096, 4096], index_select over dim 0
# of [4096, 4096] and [8192, 8192] float32 (the same bytes as that file's GB/s).
import torch
from micro_torch import t
d = 'cuda'
R = C = 4096
i1 = torch.randint(0, C, (R, C), device=d)
i0 = torch.randint(0, R, (R, C), device=d)
for dt, tag in ((torch.half, 'f16'), (torch.float, 'f32'), (torch.uint8, 'u8')):
    x = torch.zeros(R, C, dtype=dt, device=d)
    es = x.element_size()
    t(f"gather/{tag}/dim1", lambda: torch.gather(x, 1, i1), R * C * (2 * es + 8))
    if tag != 'u8':
        t(f"gather/{tag}/dim0", lambda: torch.gather(x, 0, i0), R * C * (2 * es + 8))
for r in (4096, 8192):
    x = torch.zeros(r, r, device=d)
    i = torch.randint(0, r, (r,), device=d)
    t(f"index_select/f32/{r}", lambda: torch.index_select(x, 0, i), 2 * r * r * 4)
