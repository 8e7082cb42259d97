import torch
import torch.nn as nn

torch.manual_seed(0)


class MultiTaskLoss(nn.Module):
    def forward(self, pointmap, target, rays, rays_target):
        depth = ((pointmap - target) ** 2).mean()
        raymap = (1 - nn.functional.cosine_similarity(rays, rays_target, dim=-1)).mean()
        return depth + 1e-7 * raymap


model = nn.ModuleDict({"head": nn.Linear(4, 3), "rays": nn.Linear(4, 3)})
criterion = MultiTaskLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

images = torch.randn(8, 4)
target, rays_target = torch.randn(8, 3), torch.randn(8, 3)
with torch.autocast(device_type="cpu", dtype=torch.float16):
    pointmap = model["head"](images)
    rays = model["rays"](images)
loss = criterion(pointmap.float(), target, rays, rays_target)
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(model["rays"].weight.grad)
