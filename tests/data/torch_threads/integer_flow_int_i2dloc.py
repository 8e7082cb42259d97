import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class FlowNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 3, padding=1)

    def forward(self, x):
        return 4.0 * torch.tanh(self.conv(x))


flow_net = FlowNet()
optimizer = torch.optim.Adam(flow_net.parameters(), lr=1e-3)
for it in range(2):
    sample = torch.randn(1, 2, 8, 8)
    pts2d_gt = torch.rand(1, 8 * 8, 2) * 8
    flow_up = flow_net(sample)
    flow_up = flow_up.int()
    output = flow_up.cpu().permute(0, 2, 3, 1).numpy().reshape(1, -1, 2)
    pts2d = torch.tensor(output.astype(np.float32))
    pts2d.requires_grad = True
    loss = torch.mean((pts2d - pts2d_gt) ** 2)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
