import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class StackAugmentedRNN(nn.Module):
    def __init__(self, n_chars=12, hidden=16):
        super().__init__()
        self.hidden_size = hidden
        self.encoder = nn.Embedding(n_chars, hidden)
        self.rnn = nn.GRUCell(hidden, hidden)
        self.decoder = nn.Linear(hidden, n_chars)
        self.optimizer = torch.optim.Adadelta(self.parameters(), lr=0.01)

    def init_hidden(self):
        return torch.zeros(1, self.hidden_size)

    def forward(self, inp, hidden):
        hidden = self.rnn(self.encoder(inp.view(1)), hidden)
        return self.decoder(hidden), hidden


generator = StackAugmentedRNN()
trajectory_input = torch.tensor([0, 3, 5, 7, 2, 1])
reward, gamma, n_batch = 5.0, 0.97, 2

rl_loss = 0
generator.optimizer.zero_grad()
for _ in range(n_batch):
    discounted_reward = reward
    hidden = generator.init_hidden()
    for p in range(len(trajectory_input) - 1):
        output, hidden = generator(trajectory_input[p], hidden)
        log_probs = F.log_softmax(output, dim=1)
        top_i = trajectory_input[p + 1]
        rl_loss -= (log_probs[0, top_i].item() * discounted_reward)
        discounted_reward = discounted_reward * gamma

rl_loss = rl_loss / n_batch
rl_loss.backward()
generator.optimizer.step()
