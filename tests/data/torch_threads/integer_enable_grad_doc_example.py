import torch

torch.manual_seed(0)

x = torch.tensor([1], requires_grad=True)
with torch.no_grad():
    with torch.enable_grad():
        y = x * 2
print(y.requires_grad)
y.backward()
print(x.grad)
