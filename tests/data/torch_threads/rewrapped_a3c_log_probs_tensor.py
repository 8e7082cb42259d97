import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

torch.manual_seed(0)


class ActorCritic(nn.Module):
    def __init__(self, n_states, n_actions):
        super().__init__()
        self.actor = nn.Linear(n_states, n_actions)
        self.critic = nn.Linear(n_states, 1)

    def forward(self, s):
        return F.softmax(self.actor(s), dim=-1), self.critic(s)


net = ActorCritic(4, 2)
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
memory = []
for t in range(5):
    state = torch.randn(4)
    probs, value = net(state)
    dist = Categorical(probs)
    action = dist.sample()
    memory.append((value, dist.log_prob(action), 1.0))

values = torch.cat([m[0] for m in memory])
log_probs = torch.tensor([t[1] for t in memory], dtype=torch.float)
rewards = torch.tensor([m[2] for m in memory])
advantages = rewards - values.detach()

actor_loss = -(log_probs * advantages).mean()
critic_loss = (rewards - values).pow(2).mean()
loss = actor_loss + critic_loss
optimizer.zero_grad()
loss.backward()
optimizer.step()
print("actor grad:", net.actor.weight.grad)
