import torch
import torch.nn as nn

torch.manual_seed(0)


class ParsingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.cls = nn.Sequential(nn.Flatten(), nn.Linear(8 * 16, 10))

    def forward(self, x):
        return self.cls(self.model(x))


net = ParsingNet()
state_all = {k: v.clone() for k, v in net.state_dict().items()}  # stands in for torch.load(cfg.finetune)['model']
state_clip = {k: v for k, v in state_all.items() if 'model' in k}  # only use backbone parameters
net.load_state_dict(state_clip, strict=False)
model = net
for param in model.parameters():
    param.requires_grad = False

optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
for i in range(2):
    img, label = torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))
    loss = criterion(net(img), label)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
