import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
n_seg = 6
spatial_A_trans = torch.where(torch.rand(n_seg, n_seg) > 0.5, torch.tensor(1.0), torch.tensor(1e-10))


class DiffRNTraj(nn.Module):
    def __init__(self):
        super().__init__()
        self.denoiser = nn.Linear(8, 8)
        self.x0_head = nn.Linear(8, 8)
        self.id_head = nn.Linear(8, n_seg)

    def diff_forward_x0_constraint(self, x_t, x0):
        h = torch.tanh(self.denoiser(x_t))
        x0_pred = self.x0_head(h)
        x0_loss = F.mse_loss(x0_pred, x0)
        id_sim = self.id_head(h).argmax(-1)
        mask = spatial_A_trans[id_sim[:, :-1], id_sim[:, 1:]] == 1e-10
        loss = torch.sum(mask).float()
        return x0_loss, loss


model = DiffRNTraj()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(2):
    x0 = torch.randn(4, 10, 8)
    x_t = x0 + 0.3 * torch.randn_like(x0)
    x0_loss, loss = model.diff_forward_x0_constraint(x_t, x0)
    print('loss.grad_fn:', loss.grad_fn, 'can backward:', loss.requires_grad)
    optimizer.zero_grad()
    (x0_loss + 0.1 * loss).backward()
    optimizer.step()
