import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Memory:
    def __init__(self, dim):
        self.bank = F.normalize(torch.randn(10, dim), dim=1)
        self.labels = torch.arange(10) % 5

    def memory_loss(self, feats, labels):
        sim = F.normalize(feats, dim=1) @ self.bank.t()
        pos = (labels[:, None] == self.labels[None, :]).float()
        return ((sim * pos).sum(1) / pos.sum(1)).mean()


class CSEResnet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(16, 32)
        self.cls = nn.Linear(32, 5)
        self.feat = nn.Linear(32, 8)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.cls(h), self.feat(h)


model = CSEResnet()
memory = Memory(8)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for i in range(2):
    image = torch.randn(6, 16)
    label_i = torch.randint(0, 5, (6,))
    output, features = model(image)
    loss_memory = 1.0 - memory.memory_loss(features.detach(), label_i.detach())
    loss = criterion(output, label_i)

    optimizer.zero_grad()
    loss_total = loss + 0.5 * loss_memory
    loss_total.backward()
    optimizer.step()

print("feat head grad:", model.feat.weight.grad)
