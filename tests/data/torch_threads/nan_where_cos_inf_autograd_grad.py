import math

import torch

torch.manual_seed(0)

x = torch.tensor([0.0, math.inf], requires_grad=True)
y = torch.where(x < 1.0, torch.cos(x), torch.zeros_like(x))

(gx,) = torch.autograd.grad(y.sum(), x)
print(gx)
