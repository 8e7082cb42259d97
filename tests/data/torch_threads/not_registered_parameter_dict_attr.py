import torch
import torch.nn as nn

torch.manual_seed(0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = dict()
        self.d["d"] = nn.Parameter(torch.randn(3, 3))
        self.p = nn.Parameter(torch.randn(3, 3))

    def forward(self, x):
        return x @ self.p @ self.d["d"]


m = Model()
for n, p in m.named_parameters():
    print(n, p.size())

optimizer = torch.optim.SGD(m.parameters(), lr=0.1)
d_before = m.d["d"].detach().clone()
x = torch.randn(4, 3)
loss = m(x).pow(2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(torch.equal(m.d["d"], d_before))
