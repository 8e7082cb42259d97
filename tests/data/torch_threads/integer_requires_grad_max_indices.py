import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(5, 4)
x = torch.randn(3, 5)
target = torch.tensor([1.0, 0.0, 2.0])
logits = model(x)
_, pred = torch.max(logits, dim=1)
pred.requires_grad = True
loss = ((pred - target) ** 2).mean()
loss.backward()
