import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(3, 1)
with torch.no_grad():
    layer.bias.fill_(-5.0)  # bad choice of weights initialization
w_before = layer.weight.detach().clone()
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
X = torch.rand(6, 3)
T = X.sum(1, keepdim=True)  # target is always > 0
for x, t in zip(X, T):  # online learning
    a = layer(x)
    o = torch.relu(a)
    J = (t - o) ** 2
    optimizer.zero_grad()
    J.backward()
    optimizer.step()
print(layer.weight.grad, layer.bias.grad)
