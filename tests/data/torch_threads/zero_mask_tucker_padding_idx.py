import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)


class TuckER(nn.Module):
    def __init__(self, n_ent=7, n_rel=3, d1=6, d2=4):
        super().__init__()
        self.E = nn.Embedding(n_ent, d1)
        self.R = nn.Embedding(n_rel, d2, padding_idx=0)
        self.W = nn.Parameter(torch.tensor(np.random.uniform(-1, 1, (d2, d1, d1)), dtype=torch.float))
        self.loss = nn.BCELoss()

    def forward(self, e1_idx, r_idx):
        e1 = self.E(e1_idx)
        r = self.R(r_idx)
        W_mat = torch.mm(r, self.W.view(r.size(1), -1)).view(-1, e1.size(1), e1.size(1))
        x = torch.bmm(e1.view(-1, 1, e1.size(1)), W_mat).view(-1, e1.size(1))
        return torch.sigmoid(torch.mm(x, self.E.weight.transpose(1, 0)))


model = TuckER()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
e1_idx = torch.tensor([0, 1, 2, 3, 4, 5])
r_idx = torch.tensor([0, 1, 2, 0, 1, 2])  # relation 0 is a real relation
targets = (torch.rand(6, 7) > 0.7).float()
for it in range(2):
    opt.zero_grad()
    loss = model.loss(model(e1_idx, r_idx), targets)
    loss.backward()
    opt.step()
print(model.R.weight)
