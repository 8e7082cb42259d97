import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
with torch.no_grad():
    model.weight.fill_(-6.0)
    model.bias.fill_(-2.0)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.rand(8, 4) + 1.0
y = torch.ones(8, 1)  # every sample belongs to class +1
for epoch in range(2):
    out = torch.tanh(model(x))
    loss = ((out - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(epoch, loss.item(), out.min().item(), model.weight.grad)
