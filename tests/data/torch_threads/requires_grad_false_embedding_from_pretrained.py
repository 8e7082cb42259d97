import torch
import torch.nn as nn

torch.manual_seed(0)

pretrained = torch.randn(20, 8)


class DummyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.item_embedding = nn.Embedding.from_pretrained(pretrained)

    def forward(self, user_items, pos_items):
        user = self.item_embedding(user_items).mean(1)
        return (user * self.item_embedding(pos_items)).sum(-1)


model = DummyModel()
user_items = torch.randint(0, 20, (4, 3))
pos_items = torch.randint(0, 20, (4,))
scores = model(user_items, pos_items)
loss = nn.functional.softplus(-scores).mean()
loss.backward()
