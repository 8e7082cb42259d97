import torch
import torch.nn as nn
from torch.autograd import Function

torch.manual_seed(0)


class SignFunction(Function):
    @staticmethod
    def forward(ctx, input, is_training=True):
        if is_training:
            prob = input.new(input.size()).uniform_()
            x = input.clone()
            x[(1 - input) / 2 <= prob] = 1
            x[(1 - input) / 2 > prob] = -1
            return x
        return input.sign()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class Sign(nn.Module):
    def forward(self, x):
        return SignFunction.apply(x, self.training)


encoder = nn.Linear(16, 8)
binarizer = Sign()
decoder = nn.Linear(8, 16)
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=5e-4)
for batch in range(2):
    patches = torch.rand(4, 16)
    codes = binarizer(torch.tanh(encoder(patches)))
    loss = (decoder(codes) - patches).abs().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
