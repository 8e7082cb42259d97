import torch
import torch.nn as nn

torch.manual_seed(0)


class SiameseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def contrastive_loss(e1, e2, same, margin=1.0):
    dist = (e1 - e2).pow(2).sum(1).sqrt()
    return (same * dist.pow(2) + (1 - same) * torch.clamp(margin - dist, min=0).pow(2)).mean()


net = SiameseNet()
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
x1 = torch.randn(6, 10)
x2 = torch.randn(6, 10)
x2[0] = x1[0]  # the same image sampled twice as a positive pair
same = torch.tensor([1.0, 0, 1, 0, 1, 0])
optimizer.zero_grad()
loss = contrastive_loss(net(x1), net(x2), same)
loss.backward()
print(loss.item(), net.fc1.weight.grad.isnan().all())
optimizer.step()
