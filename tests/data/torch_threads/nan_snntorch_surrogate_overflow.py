import torch
import torch.nn as nn

torch.manual_seed(0)


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input_, slope=25):
        ctx.save_for_backward(input_)
        ctx.slope = slope
        return (input_ > 0).float()

    @staticmethod
    def backward(ctx, grad_output):
        (input_,) = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad = grad_input * ctx.slope * torch.exp(-ctx.slope * input_) / ((torch.exp(-ctx.slope * input_) + 1) ** 2)
        return grad, None


fc1 = nn.Linear(4, 3)
beta, threshold = 0.9, 1.0
optimizer = torch.optim.Adam(fc1.parameters(), lr=1e-3)
x = torch.randn(5, 8, 4) * 3
mem = torch.zeros(8, 3)
spk_rec = []
for step in range(x.size(0)):
    mem = beta * mem + fc1(x[step])
    spk = Sigmoid.apply(mem - threshold)
    mem = mem - spk * threshold
    spk_rec.append(spk)
loss = (torch.stack(spk_rec).mean(0) - 0.5).pow(2).mean()
optimizer.zero_grad()
loss.backward()
print(fc1.weight.grad)
optimizer.step()
