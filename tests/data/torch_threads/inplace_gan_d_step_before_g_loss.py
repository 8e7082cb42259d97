import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

N_IDEAS, ART = 5, 15
POINTS = np.vstack([np.linspace(-1, 1, ART) for _ in range(8)])


def artist_works():
    paintings = np.sin(POINTS * np.pi) + 0.02 * np.random.randn(1, ART)
    return torch.from_numpy(paintings).float()


G = nn.Sequential(nn.Linear(N_IDEAS, 16), nn.ReLU(), nn.Linear(16, ART))
D = nn.Sequential(nn.Linear(ART, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
opt_D = torch.optim.Adam(D.parameters(), lr=1e-3)
opt_G = torch.optim.Adam(G.parameters(), lr=1e-3)

for step in range(2):
    artist_paintings = artist_works()
    G_ideas = torch.randn(8, N_IDEAS)
    G_paintings = G(G_ideas)
    prob_artist0 = D(artist_paintings)
    prob_artist1 = D(G_paintings)
    D_loss = -torch.mean(torch.log(prob_artist0) + torch.log(1.0 - prob_artist1))
    G_loss = torch.mean(torch.log(1.0 - prob_artist1))

    opt_D.zero_grad()
    D_loss.backward(retain_graph=True)
    opt_D.step()

    opt_G.zero_grad()
    G_loss.backward()
    opt_G.step()
