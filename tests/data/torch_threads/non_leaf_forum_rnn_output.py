import torch
import torch.nn as nn

torch.manual_seed(0)
args = {'device': torch.device('cpu'), 'dtype': torch.float}


class SingleRNN(nn.Module):
    def __init__(self, n_inputs, n_outputsize):
        super(SingleRNN, self).__init__()
        numHU = 2
        self.Wxh = nn.Linear(in_features=n_inputs, out_features=numHU, bias=False)
        self.Whh = nn.Linear(in_features=numHU + self.Wxh.out_features, out_features=numHU, bias=False)
        self.Why = nn.Linear(in_features=numHU, out_features=n_outputsize, bias=False)

    def forward(self, X0, H0):
        self.L0_X = self.Wxh(X0)
        self.L1_H = self.Whh(torch.cat((self.L0_X, H0), dim=1))
        self.L2_Y = self.Why(self.L1_H)
        return self.L2_Y


model = SingleRNN(3, 1).to(**args)
X0 = torch.randn(4, 3, **args)
H0 = torch.zeros(4, 2, **args)
target = torch.randn(4, 1, **args)
loss = ((model(X0, H0) - target) ** 2).mean()
loss.backward()
print("Why.weight.grad:", model.Why.weight.grad)
print("L2_Y.grad:", model.L2_Y.grad)
