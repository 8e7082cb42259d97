import torch
import torch.nn as nn

torch.manual_seed(0)


class BiFPNFuse(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.w1 = nn.Parameter(torch.ones(2))
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, p_a, p_b):
        w = torch.relu(self.w1)
        w = w / (w.sum() + 1e-4)
        return self.bn(self.conv(w[0] * p_a + w[1] * p_b))


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3, padding=1)
        self.neck = BiFPNFuse()
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        f = self.backbone(x)
        return self.head(self.neck(f, torch.relu(f)))


model = Detector()
w1_before = model.neck.w1.detach().clone()
pg0, pg1, pg2 = [], [], []
for k, v in model.named_modules():
    if hasattr(v, "bias") and isinstance(v.bias, nn.Parameter):
        pg2.append(v.bias)
    if isinstance(v, nn.BatchNorm2d) or "bn" in k:
        pg0.append(v.weight)
    elif hasattr(v, "weight") and isinstance(v.weight, nn.Parameter):
        pg1.append(v.weight)
optimizer = torch.optim.Adam(pg0, lr=1e-2)
optimizer.add_param_group({"params": pg1, "weight_decay": 5e-4})
optimizer.add_param_group({"params": pg2})
for step in range(2):
    img, target = torch.randn(2, 3, 8, 8), torch.randn(2, 4, 8, 8)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(img), target)
    loss.backward()
    optimizer.step()
print(model.neck.w1)
