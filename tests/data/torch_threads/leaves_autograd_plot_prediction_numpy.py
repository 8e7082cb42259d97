import numpy as np
import torch
from torch import nn

torch.manual_seed(0)

n = 20
x = torch.ones(n, 2)
x[:, 0].uniform_(-1.0, 1)
a = torch.tensor([3.0, 2])
y = x @ a + torch.rand(n)


def mse(y_hat, y):
    return ((y_hat - y) ** 2).mean()


a = nn.Parameter(torch.tensor([-1.0, 1]))


def update():
    y_hat = x @ a
    loss = mse(y, y_hat)
    loss.backward()
    with torch.no_grad():
        a.sub_(0.1 * a.grad)
        a.grad.zero_()


for t in range(5):
    update()

# the lesson then plots the fit: plt.scatter(x[:, 0], x @ a)
points = np.asarray(x @ a)
print(points[:3])
