import torch
import torch.nn as nn

torch.manual_seed(0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 3, 3, padding=1)

    def forward(self, z):
        return torch.tanh(self.conv2(torch.relu(self.conv1(z))))


netG = Generator()
netD = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 3, padding=1))
optimizerD = torch.optim.Adam(netD.parameters(), lr=5e-4, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=5e-4, betas=(0.5, 0.999))
real = torch.randn(1, 3, 16, 16)
Dsteps, Gsteps = 1, 2

for epoch in range(2):
    for j in range(Dsteps):
        netD.zero_grad()
        errD_real = -netD(real).mean()
        errD_real.backward(retain_graph=True)
        noise = torch.randn(1, 3, 16, 16)
        fake = netG(noise)
        errD_fake = netD(fake.detach()).mean()
        errD_fake.backward(retain_graph=True)
        optimizerD.step()
    for j in range(Gsteps):
        netG.zero_grad()
        output = netD(fake)
        errG = -output.mean()
        errG.backward(retain_graph=True)
        optimizerG.step()
