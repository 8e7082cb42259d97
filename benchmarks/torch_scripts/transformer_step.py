"""One training step of a transformer encoder block (d_model 128, 4 heads; batch 32 x 64)."""

import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256, batch_first=True)
head = nn.Linear(128, 10)
opt = torch.optim.Adam([*block.parameters(), *head.parameters()], lr=1e-3)
x, y = torch.randn(32, 64, 128), torch.randint(0, 10, (32,))
loss = nn.functional.cross_entropy(head(block(x).mean(1)), y)
opt.zero_grad()
loss.backward()
opt.step()
