import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class CustomizedLinear(nn.Module):
    def __init__(self, mask, bias=None):
        super(CustomizedLinear, self).__init__()
        self.input_features, self.output_features = mask.shape
        self.mask = nn.Parameter(mask.t().float(), requires_grad=False)
        self.weight = nn.Parameter(torch.randn(self.output_features, self.input_features) * 0.1)
        self.bias = nn.Parameter(torch.zeros(self.output_features)) if bias else None

    def forward(self, input):
        return F.linear(input, self.weight * self.mask, self.bias)


mask = torch.tensor([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 1]])
model = nn.Sequential(CustomizedLinear(mask, bias=None), nn.ReLU(), nn.Linear(3, 2))
x, y = torch.randn(16, 4), torch.randn(16, 2)
loss_fn = nn.MSELoss(reduction='sum')
learning_rate = 1e-4
for t in range(3):
    y_pred = model(x)
    loss = loss_fn(y_pred, y)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
