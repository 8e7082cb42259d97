import torch
import torch.nn as nn

torch.manual_seed(0)


class PointerGate(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, 1)

    def forward(self, h):
        gate_score = torch.sigmoid(self.gate(h)).squeeze(-1)
        log_gate_score_1 = gate_score.log()
        log_gate_score_2 = (1 - gate_score).log()
        return log_gate_score_1, log_gate_score_2


model = PointerGate(4)
with torch.no_grad():
    model.gate.weight.fill_(10.0)
h = torch.ones(3, 4) * 2.0
copy_mask = torch.tensor([1.0, 0.0, 1.0])

lp1, lp2 = model(h)
loss = -(copy_mask * lp1 + (1 - copy_mask) * lp2).mean()
loss.backward()
print(loss, model.gate.weight.grad)
