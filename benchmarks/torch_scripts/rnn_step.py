"""One training step of a character-level GRU unrolled by hand over 100 time steps (batch
32, hidden 64): thousands of small torch calls, the op-heavy shape of a training step."""

import torch
import torch.nn as nn

torch.manual_seed(0)
embed, cell, head = nn.Embedding(50, 32), nn.GRUCell(32, 64), nn.Linear(64, 50)
params = [*embed.parameters(), *cell.parameters(), *head.parameters()]
opt = torch.optim.Adam(params, lr=1e-3)
text = torch.randint(0, 50, (101, 32))
h = torch.zeros(32, 64)
loss = torch.zeros(())
for t in range(100):
    h = cell(embed(text[t]), h)
    loss = loss + nn.functional.cross_entropy(head(torch.tanh(h)), text[t + 1])
opt.zero_grad()
(loss / 100).backward()
opt.step()
