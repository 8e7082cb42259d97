import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Fbank(nn.Module):
    def __init__(self, n_fft=64, n_mels=8):
        super().__init__()
        self.n_fft = n_fft
        self.register_buffer("mel", torch.rand(n_fft // 2 + 1, n_mels))

    def forward(self, wav):
        frames = wav.unfold(-1, self.n_fft, self.n_fft // 2)
        spec = torch.fft.rfft(frames).abs() ** 2
        return torch.log(spec @ self.mel + 1e-6)


class Brain(nn.Module):
    def __init__(self):
        super().__init__()
        self.compute_features = Fbank()
        self.enc = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))

    def compute_forward(self, wavs):
        feats = self.compute_features(wavs)
        # Running the encoder (prevent propagation to feature extraction)
        x = self.enc(feats.detach())
        return x.mean(dim=1)


brain = Brain()
wavs = torch.randn(2, 512, requires_grad=True)
target = torch.tensor([1, 3])

logits = brain.compute_forward(wavs)
loss = F.cross_entropy(logits, target)
loss.backward()
print("gradient w.r.t. input:", wavs.grad)
