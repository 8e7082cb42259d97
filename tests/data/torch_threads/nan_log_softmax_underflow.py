import torch
from torch import nn
from torch import optim

torch.manual_seed(0)
sm = nn.Softmax(dim=1)
crit = nn.NLLLoss()
target = torch.LongTensor([1])
data = torch.FloatTensor([[0, 50, -50]]).requires_grad_()

num_loop = 1000
for i in range(num_loop):
    model = nn.Linear(3, 3, bias=False)
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    optimizer.zero_grad()
    loss_sm = crit(torch.log(sm(model(data))), target)
    loss_sm.backward()
    if torch.isnan(model.weight.grad).any():
        print("iteration", i, "loss", loss_sm.item(), "gradient is nan")
        break
    optimizer.step()
