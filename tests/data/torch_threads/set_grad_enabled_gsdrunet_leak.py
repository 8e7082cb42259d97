import torch
import torch.nn as nn

torch.manual_seed(0)


class GSPnP(nn.Module):
    def __init__(self, denoiser, alpha=1.0):
        super().__init__()
        self.student_grad = denoiser
        self.alpha = alpha

    def potential_grad(self, x, sigma):
        torch.set_grad_enabled(True)
        x = x.float().requires_grad_()
        N = self.student_grad(x)
        JN = torch.autograd.grad(N, x, grad_outputs=x - N, create_graph=False)[0]
        torch.set_grad_enabled(False)
        Dg = x.detach() - N.detach() - JN.detach()
        return self.alpha * Dg

    def forward(self, x, sigma):
        return x - self.potential_grad(x, sigma)


x = torch.tensor(12., requires_grad=True)
y = x ** 2 - 2
print(y.requires_grad)  # True as expected

img = torch.rand((1, 3, 30, 30))
model = GSPnP(nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ELU(), nn.Conv2d(8, 3, 3, padding=1)))
out = model(img, 0.1)

head = nn.Linear(4, 1)
y = x ** 2 - 2 + head(torch.ones(4)).sum()
print(y.requires_grad)  # False
y.backward()
