import torch

torch.manual_seed(0)

x1 = torch.tensor([0.0, 2.0, 3.0], requires_grad=True)

# the condition filters out x1 <= 2, but log2 still runs (and is differentiated) there
y1 = torch.where(x1 > 2, torch.log2(x1), 2 * x1)

z1 = y1.sum()
z1.backward()

print("y1 =", y1)
print("x1.grad =", x1.grad)
