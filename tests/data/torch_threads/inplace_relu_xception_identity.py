import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class XceptionUnit(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.identity_conv = nn.Conv2d(in_channels, out_channels, 1, bias=False)
        self.activ = nn.ReLU(inplace=True)
        self.body = nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False)

    def forward(self, x):
        identity = self.identity_conv(x)
        x = self.activ(x)
        x = self.body(x)
        return x + identity


class Xception(nn.Module):
    def __init__(self):
        super().__init__()
        self.init_block = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.unit = XceptionUnit(8, 8)
        self.output = nn.Linear(8, 10)

    def forward(self, x):
        x = self.unit(self.bn(self.init_block(x)))
        return self.output(F.adaptive_avg_pool2d(x, 1).flatten(1))


model = Xception()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(2):
    images, target = torch.randn(2, 3, 8, 8), torch.randint(0, 10, (2,))
    loss = criterion(model(images), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
