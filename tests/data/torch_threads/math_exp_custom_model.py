import math
import torch

torch.manual_seed(0)

# Fit y = A * exp(-k * t) + c
ts = torch.linspace(0, 4, 9)
ys = 2.0 * torch.exp(-1.3 * ts) + 0.5 + 0.01 * torch.randn(9)

A = torch.tensor(1.0, requires_grad=True)
k = torch.tensor(0.5, requires_grad=True)
c = torch.tensor(0.0, requires_grad=True)
optimizer = torch.optim.SGD([A, k, c], lr=0.05)

for epoch in range(3):
    optimizer.zero_grad()
    loss = 0.0
    for t_i, y_i in zip(ts, ys):
        pred = A * math.exp(-k * t_i) + c
        loss = loss + (pred - y_i) ** 2
    loss = loss / len(ts)
    loss.backward()
    optimizer.step()
    print(epoch, loss.item(), A.item(), k.item(), c.item())
