import torch
import torch.nn as nn

torch.manual_seed(0)


def gdpp_loss(phiFake, phiReal):
    def eig(phi):
        phi = nn.functional.normalize(phi, dim=1)
        return torch.linalg.eigh(phi.t() @ phi)
    fake_val, fake_vec = eig(phiFake)
    real_val, real_vec = eig(phiReal)
    val_loss = ((real_val - fake_val) ** 2).mean()
    vec_loss = -(torch.abs((fake_vec * real_vec).sum(0)) * real_val / real_val.sum()).sum()
    return val_loss + vec_loss


class Disc(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(8, 6), nn.LeakyReLU(0.2))
        self.decision = nn.Linear(6, 1)

    def forward(self, x, getFeature=False):
        phi = self.features(x)
        return (self.decision(phi), phi) if getFeature else self.decision(phi)


netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
netD = Disc()
optimizerG = torch.optim.Adam(netG.parameters(), lr=1e-3)
for it in range(2):
    input_real = torch.randn(16, 8)
    optimizerG.zero_grad()
    predFakeG = netG(torch.randn(16, 4))
    predFakeD, phiGFake = netD(predFakeG, True)
    lossGFake = -predFakeD.mean()
    lossGFake.backward()
    _, phiDReal = netD(input_real, True)
    lossG_GDPP = gdpp_loss(phiGFake, phiDReal.detach())
    lossG_GDPP.backward()
    optimizerG.step()
