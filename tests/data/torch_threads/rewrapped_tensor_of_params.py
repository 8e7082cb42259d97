import torch
import torch.nn as nn

torch.manual_seed(0)


class Affine(nn.Module):
    def __init__(self):
        super().__init__()
        self.p_scale = nn.Parameter(torch.FloatTensor([1.0]))
        self.p_shift = nn.Parameter(torch.FloatTensor([0.0]))

    def forward(self, x):
        coeffs = torch.Tensor([self.p_scale, self.p_shift])
        return coeffs[0] * x + coeffs[1]


model = Affine()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.linspace(-1, 1, 8)
y = 3 * x + 1
for step in range(2):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
