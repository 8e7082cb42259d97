import torch
import torch.nn as nn
from torch.func import functional_call, grad

torch.manual_seed(0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(8, 4)
        self.l2 = nn.Linear(8, 4)

    def forward(self, x):
        with torch.no_grad():
            y = self.l1(x)
        return self.l2(x) + y


m = Model()
params = dict(m.named_parameters())
x = torch.ones(1, 8)


def loss_fn(params, x):
    return functional_call(m, params, (x,)).pow(2).sum()


grads = grad(loss_fn)(params, x)
print({k: float(v.abs().sum()) for k, v in grads.items()})
