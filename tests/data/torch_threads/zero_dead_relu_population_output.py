import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1), nn.ReLU())
features = torch.rand(30, 5)  # per-pixel building features
region = torch.arange(30) // 10  # 3 census regions
census = torch.tensor([120.0, 80.0, 200.0])
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
for epoch in range(2):
    optimizer.zero_grad()
    scale = net(features).squeeze(1)
    pred = torch.zeros(3).index_add(0, region, scale)
    loss = (torch.log1p(pred) - torch.log1p(census)).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(epoch, loss.item(), pred)
