import torch
import torch.nn as nn

torch.manual_seed(0)
args = {'psuedo_batch_loop': 2, 'batch_size': 4}


class HeadPose(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(10, 16)
        self.yaw = nn.Linear(16, 1)
        self.pitch = nn.Linear(16, 1)
        self.roll = nn.Linear(16, 1)

    def forward(self, x):
        h = torch.relu(self.trunk(x))
        return self.yaw(h), self.pitch(h), self.roll(h)


model = HeadPose()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
optimizer.zero_grad()
for loop in range(args['psuedo_batch_loop']):
    x, yaw_gt = torch.randn(args['batch_size'], 10), torch.randn(args['batch_size'], 1)
    yaw, pitch, roll = model(x)
    loss = nn.functional.mse_loss(yaw, yaw_gt)
    loss.backward()
for param in model.parameters():
    param.grad *= 1. / float(args['psuedo_batch_loop'] * args['batch_size'])
optimizer.step()
