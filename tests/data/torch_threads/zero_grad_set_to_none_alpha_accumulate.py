import torch
import torch.nn as nn

torch.manual_seed(0)


class IWU:
    def __init__(self, alpha=0.5):
        self.alpha = torch.tensor(alpha, requires_grad=True)
        self.net0, self.net1 = nn.Linear(6, 3), nn.Linear(6, 3)
        self.x = torch.normal(0, 1, size=(4, 6), requires_grad=True)
        self.y = torch.randint(0, 3, (4,))

    def reconstruction(self, iters=2, eta=0.1, beta=0.01):
        self.alpha.grad = torch.tensor(0.)
        optimizer = torch.optim.Adam(params=[self.x], lr=eta)
        alpha_opti = torch.optim.Adam(params=[self.alpha], lr=beta)
        _net = nn.Linear(6, 3)
        for i in range(iters):
            optimizer.zero_grad()
            alpha_opti.zero_grad()
            _net.zero_grad()
            with torch.no_grad():
                for p, q, z in zip(self.net0.parameters(), self.net1.parameters(), _net.parameters()):
                    z.data = (1 - self.alpha) * p + self.alpha * q
            loss = nn.functional.cross_entropy(_net(self.x), self.y)
            loss.backward()
            with torch.no_grad():
                for p, q, z in zip(self.net0.parameters(), self.net1.parameters(), _net.parameters()):
                    self.alpha.grad += z.grad.mul(q.data - p.data).sum()
            optimizer.step()
            alpha_opti.step()


iwu = IWU()
iwu.reconstruction()
