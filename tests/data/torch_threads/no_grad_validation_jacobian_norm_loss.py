import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def loss_fn(model, x, y):
    x = x.requires_grad_(True)
    out = model(x)
    (jac,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    return nn.functional.mse_loss(out, y) + 0.1 * jac.norm()


x, y = torch.randn(5, 3), torch.randn(5, 2)
loss = loss_fn(model, x, y)
optimizer.zero_grad()
loss.backward()
optimizer.step()

model.eval()
with torch.no_grad():
    val_loss = loss_fn(model, torch.randn(5, 3), torch.randn(5, 2))
print(val_loss)
