import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3)
        self.conv2 = nn.Conv2d(16, 16, 3)

    def forward(self, x):
        x = torch.sigmoid(self.conv1(x))
        return torch.sigmoid(self.conv2(x))


def compute_RF_numerical(net, img_np):
    def weights_init(m):
        if isinstance(m, nn.Conv2d):
            m.weight.data.fill_(1)
            m.bias.data.fill_(0)
    net.apply(weights_init)
    global img_
    img_ = torch.from_numpy(img_np).float().requires_grad_()
    out_cnn = net(img_)
    out_shape = out_cnn.size()
    grad = torch.zeros(out_shape)
    grad[tuple(s // 2 for s in out_shape)] = 1
    out_cnn.backward(gradient=grad)
    grad_np = img_.grad[0, 0].data.numpy()
    idx_nonzeros = np.where(grad_np != 0)
    return [np.max(idx) - np.min(idx) + 1 for idx in idx_nonzeros]


img_np = np.ones((1, 1, 15, 15))
print(compute_RF_numerical(CNN(), img_np))
