import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class GaussianDiffusion1D(nn.Module):
    def __init__(self, model, timesteps=100):
        super().__init__()
        self.model = model
        self.register_buffer("alphas_cumprod", torch.cumprod(1 - torch.linspace(1e-4, 0.02, timesteps), 0))

    def forward(self, x_start):
        t = torch.randint(0, len(self.alphas_cumprod), (x_start.size(0),))
        a = self.alphas_cumprod[t].view(-1, 1, 1)
        noise = torch.randn_like(x_start)
        x_noisy = a.sqrt() * x_start + (1 - a).sqrt() * noise
        return F.mse_loss(self.model(x_noisy), noise)


model = nn.Sequential(nn.Conv1d(3, 16, 3, padding=1), nn.SiLU(), nn.Conv1d(16, 3, 3, padding=1))
diffusion = GaussianDiffusion1D(model)
conv1d = nn.Conv1d(1, 3, 1)
my_data = torch.randn(8, 1, 32)
training_seq = conv1d(my_data)
opt = torch.optim.Adam(list(model.parameters()) + list(conv1d.parameters()), lr=1e-4)
for step in range(2):
    loss = diffusion(training_seq)
    opt.zero_grad()
    loss.backward()
    opt.step()
