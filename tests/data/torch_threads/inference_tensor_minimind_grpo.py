import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyLM(nn.Module):
    def __init__(self, vocab=20, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        return self.head(torch.tanh(self.emb(ids)))


def generate(model, prompt, max_new_tokens):
    ids = prompt
    for _ in range(max_new_tokens):
        probs = F.softmax(model(ids)[:, -1], dim=-1)
        ids = torch.cat([ids, torch.multinomial(probs, 1)], dim=1)
    return ids


model = TinyLM()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
prompt = torch.randint(0, 20, (4, 3))
for step in range(2):
    with torch.inference_mode():
        outputs = generate(model, prompt, max_new_tokens=4)
        rewards = (outputs[:, -4:] % 2 == 0).float().mean(1)
        advantages = (rewards - rewards.mean()).unsqueeze(1)
    res = model(outputs)
    per_token_logps = F.log_softmax(res[:, :-1, :], dim=-1).gather(2, outputs[:, 1:].unsqueeze(-1)).squeeze(-1)
    loss = -(per_token_logps * advantages).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
