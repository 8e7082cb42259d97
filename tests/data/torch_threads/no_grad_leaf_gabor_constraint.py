import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class GaborConstraint(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self._kernel_size = kernel_size

    def forward(self, kernel):
        mu_lower, mu_upper = 0.0, math.pi
        sigma_lower, sigma_upper = 4 * math.sqrt(2 * math.log(2)) / math.pi, self._kernel_size * math.sqrt(2 * math.log(2)) / math.pi
        with torch.no_grad():
            clipped_mu = torch.clamp(kernel[:, 0], mu_lower, mu_upper)
            clipped_sigma = torch.clamp(kernel[:, 1], sigma_lower, sigma_upper)
        return torch.stack([clipped_mu, clipped_sigma], dim=1)


class GaborConv1D(nn.Module):
    def __init__(self, filters=4, kernel_size=33):
        super().__init__()
        self.kernel_size = kernel_size
        init = torch.stack([torch.linspace(0.2, 2.5, filters), torch.full((filters,), 6.0)], dim=1)
        self._kernel = nn.Parameter(init)
        self._kernel_constraint = GaborConstraint(kernel_size)

    def forward(self, x):
        kernel = self._kernel_constraint(self._kernel)
        t = torch.arange(-(self.kernel_size // 2), self.kernel_size // 2 + 1).float()
        mu, sigma = kernel[:, :1], kernel[:, 1:]
        gabor = torch.cos(mu * t) * torch.exp(-0.5 * (t / sigma) ** 2)
        return F.conv1d(x, gabor.unsqueeze(1), padding=self.kernel_size // 2)


class Leaf(nn.Module):
    def __init__(self):
        super().__init__()
        self._complex_conv = GaborConv1D()
        self.alpha = nn.Parameter(torch.full((4, 1), 0.96))

    def forward(self, x):
        return torch.log1p(self.alpha * self._complex_conv(x) ** 2).mean(-1)


a = Leaf()
x = torch.rand(1, 1, 400)
kernel_before = a._complex_conv._kernel.detach().clone()
opt = torch.optim.Adam(a.parameters(), lr=0.002)
for _ in range(3):
    b = a(x)
    b_gt = torch.ones_like(b)
    loss = torch.norm((b - b_gt).view(1, -1), p=2, dim=-1)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(a._complex_conv._kernel.data)
