import torch

torch.manual_seed(0)

embedding = torch.nn.Embedding(10, 3)
indices = torch.LongTensor([0]).requires_grad_()
out = embedding(indices)
out[0, 0].backward()
print(embedding.weight.grad)
