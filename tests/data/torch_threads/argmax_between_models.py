import torch
import torch.nn as nn

torch.manual_seed(0)

first_model = nn.Linear(6, 4)
second_model = nn.Linear(1, 3)
criterion = nn.CrossEntropyLoss()

x = torch.randn(5, 6)
target = torch.randint(0, 3, (5,))
y_p = first_model(x)
y_p = torch.max(y_p, 1)[1]
out = second_model(y_p.float().unsqueeze(1))
loss = criterion(out, target)

first_model.zero_grad()
second_model.zero_grad()
loss.backward()

for param in second_model.parameters():
    print('data: ', param.data)
    print('grad data: ', param.grad.data)
for param in first_model.parameters():
    print('data: ', param.data)
    print('grad data: ', param.grad.data)
