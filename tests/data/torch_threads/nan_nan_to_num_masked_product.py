import torch

torch.manual_seed(0)

x = torch.randn(1, requires_grad=True)
w = torch.tensor(float("nan"))
z = (x * w).nan_to_num(0)
print(z)
z.backward()
print(x.grad)
