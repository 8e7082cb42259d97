import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 1000)


class ft_net(nn.Module):
    def __init__(self, class_num=6):
        super().__init__()
        self.model = Backbone()
        self.classifier = nn.Linear(8, class_num)

    def forward(self, x):
        x = self.model.avgpool(torch.relu(self.model.conv(x)))
        x = torch.flatten(x, 1)
        return self.classifier(x)


model = ft_net()
ignored_params = list(map(id, model.model.fc.parameters())) + list(map(id, model.classifier.parameters()))
base_params = filter(lambda p: id(p) not in ignored_params, model.parameters())
optimizer_ft = optim.SGD([
    {'params': base_params, 'lr': 0.01},
    {'params': model.model.fc.parameters(), 'lr': 0.1},
    {'params': model.classifier.parameters(), 'lr': 0.1}
], weight_decay=5e-4, momentum=0.9, nesterov=True)
criterion = nn.CrossEntropyLoss()
for step in range(2):
    inputs, labels = torch.randn(4, 3, 16, 16), torch.randint(0, 6, (4,))
    optimizer_ft.zero_grad()
    loss = criterion(model(inputs), labels)
    loss.backward()
    optimizer_ft.step()
