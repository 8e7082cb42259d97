import torch

torch.manual_seed(0)


class MHCPreNormFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, fn, norm_eps, fuse_grad_acc, n_splits):
        ctx.save_for_backward(x, fn)
        ctx.norm_eps = norm_eps
        rms = (x.pow(2).mean(-1, keepdim=True) + norm_eps).rsqrt()
        return (x * rms) @ fn

    @staticmethod
    def backward(ctx, grad_out):
        x, fn = ctx.saved_tensors
        rms = (x.pow(2).mean(-1, keepdim=True) + ctx.norm_eps).rsqrt()
        fn_grad = (x * rms).t() @ grad_out
        x_grad = (grad_out @ fn.t()) * rms
        return x_grad, fn_grad, None, None, None, None


x = torch.randn(4, 8, requires_grad=True)
fn = torch.randn(8, 3, requires_grad=True)
y = MHCPreNormFn.apply(x, fn, 1e-6, False, 1)
y.sum().backward()
print(x.grad.shape, fn.grad.shape)
