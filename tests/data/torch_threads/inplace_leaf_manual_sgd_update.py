import torch

torch.manual_seed(0)

W = torch.randn(6, 4)
X = torch.randn(4, 8)
s = torch.zeros(6, 4)
s_learning_rate = 0.1

for chunk in range(2):
    s_batch = s.clone().float().requires_grad_(True)
    loss_s = ((s_batch @ X - W @ X) ** 2).mean()
    loss_s.backward()
    s_batch -= s_learning_rate * s_batch.grad
    s_batch.grad.zero_()
    s = s_batch.detach()
