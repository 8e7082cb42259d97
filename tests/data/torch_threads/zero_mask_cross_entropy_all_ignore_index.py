import torch
import torch.nn as nn

torch.manual_seed(0)


class TinyCausalLM(nn.Module):
    def __init__(self, vocab=10, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids, labels):
        logits = self.lm_head(self.embed(input_ids))
        loss_fct = nn.CrossEntropyLoss()
        loss = loss_fct(logits.view(-1, logits.size(-1)), labels.view(-1))
        return loss, logits


model = TinyCausalLM()
input_ids = torch.tensor([[1, 2, 3, 4, 5]])
# the prompt is masked with -100 and the answer was truncated away: every label is ignored
labels = torch.tensor([[-100, -100, -100, -100, -100]])
loss, logits = model(input_ids, labels)
print(loss)
loss.backward()
print(model.lm_head.weight.grad[0])
