import torch
import torch.nn as nn

torch.manual_seed(0)


class SignedSqrtNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        xt = self.fc(x)
        pos = xt > 0
        safe = torch.where(pos, xt, torch.ones_like(xt))
        return torch.where(pos, torch.sqrt(safe), xt)


model = SignedSqrtNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 2)
for step in range(2):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
