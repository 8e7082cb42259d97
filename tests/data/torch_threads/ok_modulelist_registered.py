import torch
import torch.nn as nn

torch.manual_seed(0)
options = {'n_layers': 2, 'n_hid': 16}


class SNLINet(nn.Module):
    def __init__(self, options):
        super(SNLINet, self).__init__()
        self.hids = nn.ModuleList([nn.Linear(options['n_hid'], options['n_hid']) for _ in range(options['n_layers'])])
        self.act = nn.ReLU()
        self.classifier = nn.Linear(options['n_hid'], 3)

    def forward(self, x):
        for linear in self.hids:
            x = self.act(linear(x))
        return self.classifier(x)


model = SNLINet(options)
w_before = model.hids[0].weight.detach().clone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(3):
    x, y = torch.randn(8, 16), torch.randint(0, 3, (8,))
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
