import numpy as np
import torch

torch.manual_seed(0)

dtype = torch.DoubleTensor  # torch.cuda.FloatTensor in the thread
input_size, hidden_size, output_size = 10, 16, 4
lr = 0.01

trX = np.random.RandomState(0).rand(32, input_size)
trY = np.eye(output_size)[np.random.RandomState(1).randint(0, output_size, 32)]
x = torch.from_numpy(trX).type(dtype)
y = torch.from_numpy(trY).type(dtype)

w1 = torch.randn(input_size, hidden_size, requires_grad=True).type(dtype)
b1 = torch.zeros(1, hidden_size, requires_grad=True).type(dtype)
w2 = torch.randn(hidden_size, output_size, requires_grad=True).type(dtype)
b2 = torch.zeros(1, output_size, requires_grad=True).type(dtype)

for epoch in range(2):
    a2 = x.matmul(w1).add(b1)
    h2 = a2.sigmoid()
    a3 = h2.matmul(w2).add(b2)
    hyp = a3.sigmoid()
    error = hyp - y
    output = error.pow(2).sum() / 2.0
    output.backward()
    w1.data -= lr * w1.grad.data
    w2.data -= lr * w2.grad.data
    b1.data -= lr * b1.grad.data
    b2.data -= lr * b2.grad.data
