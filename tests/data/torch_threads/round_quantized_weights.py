import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def quantize(w, step=0.125):
    return torch.round(w / step) * step


class QuantNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16, bias=False)
        self.fc2 = nn.Linear(16, 3, bias=False)

    def forward(self, x):
        x = F.relu(F.linear(x, quantize(self.fc1.weight)))
        return F.linear(x, quantize(self.fc2.weight))


model = QuantNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
