import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Adam

torch.manual_seed(0)


class BYOL(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.online = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 8))
        self.predictor = nn.Linear(8, 8)
        self.target = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 8)).requires_grad_(False)

    def forward(self, images):
        v1 = images + 0.1 * torch.randn_like(images)
        v2 = images + 0.1 * torch.randn_like(images)
        p = F.normalize(self.predictor(self.online(v1)), dim=-1)
        z = F.normalize(self.target(v2), dim=-1)
        return (2 - 2 * (p * z).sum(-1)).mean()


class BYOLTrainer(nn.Module):
    def __init__(self, num_train_steps=3, learning_rate=3e-4):
        super().__init__()
        self.byol = BYOL()
        self.optimizer = Adam(self.byol.parameters(), lr=learning_rate)
        self.num_train_steps = num_train_steps

    def forward(self):
        for _ in range(self.num_train_steps):
            images = torch.randn(8, 16)
            loss = self.byol(images)
            loss.backward()
            print(f'loss {loss.item():.3f}')
            self.optimizer.zero_grad()
            self.optimizer.step()


trainer = BYOLTrainer()
w_before = trainer.byol.online[0].weight.detach().clone()
trainer()
