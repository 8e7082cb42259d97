import torch

torch.manual_seed(0)

a = torch.rand(1, requires_grad=True)
a = torch.clamp(a, 0, 1)
z = 2 * a
z.backward()
print(a.requires_grad)
print(a.grad)
