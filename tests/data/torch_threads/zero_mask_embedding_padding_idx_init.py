import torch
import torch.nn as nn

torch.manual_seed(0)
e = nn.Embedding(3, 2, padding_idx=0)
e.weight = nn.Parameter(torch.cat([torch.zeros(1, 2), torch.rand(2, 2)], dim=0))
optimizer = torch.optim.SGD(e.parameters(), lr=0.1)
indices = torch.LongTensor([0, 1, 2])
targets = torch.ones(3, 2)
for step in range(3):
    optimizer.zero_grad()
    loss = ((e(indices) - targets) ** 2).sum()
    loss.backward()
    optimizer.step()
print(e.weight)
print(e.weight.grad)
