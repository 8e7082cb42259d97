"""A GAN's generator step with a .detach() left in from the discriminator's step."""

import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)

noise = torch.randn(16, 4)
fake = G(noise).detach()  # copied from the discriminator's step
loss_g = -D(fake).mean()
opt_g.zero_grad()
loss_g.backward()
opt_g.step()
