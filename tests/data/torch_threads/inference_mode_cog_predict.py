import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Predictor:
    def setup(self):
        self.model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-2)

    @torch.inference_mode()
    def predict(self, x, y, steps=3):
        for _ in range(steps):
            pred = self.model(x)
            loss = F.mse_loss(pred, y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return pred


predictor = Predictor()
predictor.setup()
x, y = torch.randn(16, 4), torch.randn(16, 1)
print(predictor.predict(x, y))
