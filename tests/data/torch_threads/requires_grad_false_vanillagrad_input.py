import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class VanillaGrad(object):
    def __init__(self, pretrained_model):
        self.pretrained_model = pretrained_model

    def __call__(self, x, index=None):
        output = self.pretrained_model(x)
        if index is None:
            index = np.argmax(output.data.cpu().numpy())
        one_hot = np.zeros((1, output.size()[-1]), dtype=np.float32)
        one_hot[0][index] = 1
        one_hot = torch.sum(torch.from_numpy(one_hot) * output)
        one_hot.backward(retain_graph=True)
        grad = x.grad.data.cpu().numpy()
        x.grad.data.zero_()  # Reset the gradient to zero
        return grad[0]


model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
model.add_module("classifier", nn.Linear(4, 10))
img = np.random.RandomState(0).rand(1, 3, 32, 32).astype(np.float32)
x = torch.from_numpy(img)
vanilla_grad = VanillaGrad(pretrained_model=model)
vanilla_saliency = vanilla_grad(x, index=None)
