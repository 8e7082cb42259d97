import torch
import torch.nn as nn

torch.manual_seed(0)


class fMRI_LSTM(nn.Module):
    def __init__(self, hidden_dim, input_dim, batch):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers=1, batch_first=True)
        self.linear = nn.Linear(hidden_dim, 1)
        self.hidden = (torch.randn(1, batch, hidden_dim), torch.randn(1, batch, hidden_dim))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)
        return torch.sigmoid(self.linear(lstm_out[:, -1, :])).squeeze(-1)


model = fMRI_LSTM(6, 4, batch=3)
criterion = nn.BCELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(2):
    x = torch.randn(3, 5, 4)
    labels = torch.tensor([0.0, 1.0, 1.0])
    optimizer.zero_grad()
    loss = criterion(model(x), labels)
    loss.backward()
    optimizer.step()
