import torch
import torch.nn as nn

torch.manual_seed(0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.PReLU(), nn.Conv2d(4, 3, 3, padding=1))

    def forward(self, x):
        return (torch.tanh(self.body(x)) + 1) / 2


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 4, 3, stride=2), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(36, 1))

    def forward(self, x):
        return torch.sigmoid(self.net(x))


def generator_criterion(out_labels, out_images, target_images):
    adversarial_loss = torch.mean(1 - out_labels)
    image_loss = nn.functional.mse_loss(out_images, target_images)
    return image_loss + 0.001 * adversarial_loss


netG, netD = Generator(), Discriminator()
optimizerG = torch.optim.Adam(netG.parameters())
optimizerD = torch.optim.Adam(netD.parameters())

real_img = torch.rand(2, 3, 8, 8)
z = torch.rand(2, 3, 8, 8)
fake_img = netG(z)

netD.zero_grad()
real_out = netD(real_img).mean()
fake_out = netD(fake_img).mean()
d_loss = 1 - real_out + fake_out
d_loss.backward(retain_graph=True)
optimizerD.step()

netG.zero_grad()
g_loss = generator_criterion(fake_out, fake_img, real_img)
g_loss.backward()
optimizerG.step()
