import torch
import torch.nn as nn

torch.manual_seed(0)


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        for group in self.param_groups:
            norm = torch.norm(torch.stack([p.grad.norm(2) for p in group["params"] if p.grad is not None]))
            for p in group["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * group["rho"] / (norm + 1e-12)
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if "e_w" in self.state[p]:
                    p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()


model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
criterion = nn.CrossEntropyLoss()
optimizer = SAM(model.parameters(), torch.optim.SGD, lr=0.1)

images, target = torch.randn(4, 8), torch.tensor([0, 1, 2, 0])
output = model(images)
loss = criterion(output, target)
loss.backward()
optimizer.first_step(zero_grad=True)

criterion(output, target).backward()
optimizer.second_step(zero_grad=True)
