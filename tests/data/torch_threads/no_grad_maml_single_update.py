import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Meta(nn.Module):
    def __init__(self, update_step=1, update_lr=0.4):
        super().__init__()
        self.update_step, self.update_lr = update_step, update_lr
        self.vars = nn.ParameterList([nn.Parameter(torch.randn(5, 8) * 0.1), nn.Parameter(torch.zeros(5))])
        self.meta_optim = torch.optim.Adam(self.parameters(), lr=1e-3)

    def net(self, x, vars=None):
        w, b = self.vars if vars is None else vars
        return F.linear(x, w, b)

    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num = x_spt.size(0)
        losses_q = [0 for _ in range(self.update_step + 1)]
        for i in range(task_num):
            loss = F.cross_entropy(self.net(x_spt[i]), y_spt[i])
            grad = torch.autograd.grad(loss, self.vars)
            fast_weights = [p - self.update_lr * g for g, p in zip(grad, self.vars)]
            with torch.no_grad():
                losses_q[0] += F.cross_entropy(self.net(x_qry[i], self.vars), y_qry[i])
            with torch.no_grad():
                logits_q = self.net(x_qry[i], fast_weights)
                losses_q[1] += F.cross_entropy(logits_q, y_qry[i])
            for k in range(1, self.update_step):
                loss = F.cross_entropy(self.net(x_spt[i], fast_weights), y_spt[i])
                grad = torch.autograd.grad(loss, fast_weights)
                fast_weights = [p - self.update_lr * g for g, p in zip(grad, fast_weights)]
                losses_q[k + 1] += F.cross_entropy(self.net(x_qry[i], fast_weights), y_qry[i])
        loss_q = losses_q[-1] / task_num
        self.meta_optim.zero_grad()
        loss_q.backward()
        self.meta_optim.step()
        return loss_q


meta = Meta(update_step=1)
x_spt, y_spt = torch.randn(2, 5, 8), torch.randint(0, 5, (2, 5))
x_qry, y_qry = torch.randn(2, 15, 8), torch.randint(0, 5, (2, 15))
meta(x_spt, y_spt, x_qry, y_qry)
