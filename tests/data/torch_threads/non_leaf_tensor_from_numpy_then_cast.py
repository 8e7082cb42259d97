import numpy as np
import torch

torch.manual_seed(0)

a = torch.tensor(np.array([1.0, 2.0, 3.0]), dtype=torch.float, requires_grad=True).double()
print(a.requires_grad, a.dtype)
b = torch.ones(3, dtype=torch.double)
l = a @ b
print(l.item())
l.backward()
print(a.grad)
