import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class Net2(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.hidden(x)))


net1 = Net()  # 1st network
optimizer = optim.Adam(net1.parameters(), lr=3e-2)
print("================================================")
net1 = Net2()
w_before = net1.fc.weight.detach().clone()
for step in range(3):
    x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(net1(x), y)
    loss.backward()
    optimizer.step()
