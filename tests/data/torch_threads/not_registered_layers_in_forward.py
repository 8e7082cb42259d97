import torch

torch.manual_seed(0)


class ThreeLayerNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        super(ThreeLayerNet, self).__init__()

    def forward(self, x):
        h_relu = torch.nn.Linear(D_in, H)(x).clamp(min=0)
        h_relu = torch.nn.Linear(H, H)(h_relu).clamp(min=0)
        y_pred = torch.nn.Linear(H, D_out)(h_relu)
        return y_pred


D_in, H, D_out = 100, 10, 5
model = ThreeLayerNet(D_in, H, D_out)
print(list(model.parameters()))
x, y = torch.randn(8, D_in), torch.randn(8, D_out)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
for t in range(2):
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
