import torch
import torch.nn as nn

torch.manual_seed(0)
options = {'n_layers': 2, 'n_hid': 16, 'act': 'ReLU'}


class SNLINet(nn.Module):
    def __init__(self, options):
        super(SNLINet, self).__init__()
        self.hids = []
        for li in range(options['n_layers']):
            self.hids.append([nn.Linear(options['n_hid'], options['n_hid']), eval('nn.{}'.format(options['act']))()])
        self.classifier = nn.Linear(options['n_hid'], 3)

    def forward(self, x):
        for linear, act in self.hids:
            x = act(linear(x))
        return self.classifier(x)


model = SNLINet(options)
w_before = model.hids[0][0].weight.detach().clone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(3):
    x, y = torch.randn(8, 16), torch.randint(0, 3, (8,))
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
print(model.parameters)
