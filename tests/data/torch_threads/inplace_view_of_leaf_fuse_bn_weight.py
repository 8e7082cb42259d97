import torch
import torch.nn as nn

torch.manual_seed(0)

conv = nn.Conv2d(3, 4, 3, bias=False)
bn = nn.BatchNorm2d(4)
bn.eval()

# fold the batch norm into the convolution for deployment
std = (bn.running_var + bn.eps).sqrt()
W = conv.weight * (bn.weight / std).reshape(-1, 1, 1, 1)
cconv = nn.Conv2d(3, 4, 3, bias=True)
cconv.weight[:, :, :, :] = W[:, :, :, :]
cconv.bias[:] = bn.bias - bn.running_mean * bn.weight / std

x = torch.randn(1, 3, 6, 6)
loss = cconv(x).sum()
loss.backward()
