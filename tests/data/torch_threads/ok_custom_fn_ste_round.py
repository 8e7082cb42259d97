import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, w, step):
        return torch.round(w / step) * step

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


class QuantNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16, bias=False)
        self.fc2 = nn.Linear(16, 3, bias=False)

    def forward(self, x):
        x = F.relu(F.linear(x, RoundSTE.apply(self.fc1.weight, 0.125)))
        return F.linear(x, RoundSTE.apply(self.fc2.weight, 0.125))


model = QuantNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
