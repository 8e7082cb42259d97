import torch

torch.manual_seed(0)


class Feedforward(torch.nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.fc1 = torch.nn.Linear(input_size, hidden_size)
        self.relu = torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(hidden_size, 1)

    def forward(self, x):
        hidden = self.fc1(x)
        relu = self.relu(hidden)
        output = self.fc2(relu).sum()
        (grad_x,) = torch.autograd.grad(outputs=output, inputs=x, retain_graph=True, create_graph=True)
        return grad_x


def fit(model, train_batch, val_batch, optimizer):
    """A Lightning-like loop: one training step, then validation with grad disabled."""
    x, y = train_batch
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    torch.set_grad_enabled(False)
    x, y = val_batch
    val_loss = torch.nn.functional.mse_loss(model(x), y)
    torch.set_grad_enabled(True)
    return val_loss


model = Feedforward(3, 8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batch = (torch.rand(10, 3, requires_grad=True), torch.rand(10, 3))
val = (torch.rand(10, 3, requires_grad=True), torch.rand(10, 3))
print(fit(model, batch, val, optimizer))
