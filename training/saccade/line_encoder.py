"""PyTorch reference of the pretrained text-line encoder (PaddleOCR PP-OCRv4 recogniser, SVTR_LCNet).

Input: a line image [B, 3, 48, W] (BGR, (x/255 - 0.5) / 0.5, W a multiple of 8). Output per column of 8
pixels (T = W / 8): the backbone's features [B, T, 480] (after the [3, 2] average pool), the SVTR neck's
features [B, T, 120], and the CTC head's logits [B, T, 6625] (blank first, space last).

The structure is the re-parameterised inference form that PaddleOCR exports: every backbone layer is one
convolution with its batch norm folded in, then a learnable affine, hardswish and a second affine; two
blocks carry squeeze-excite. `config` (written by convert_line_encoder.py from the ONNX graph) gives each
block's kernel, stride and channels, so nothing here assumes PaddleOCR's class defaults.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

HEIGHT = 48
COLUMN = 8  # pixels of input width per output step


class Affine(nn.Module):
    """PaddleOCR's learnable affine block: one scalar scale and one scalar bias."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return x * self.scale + self.bias


class RepConv(nn.Module):
    """conv (batch norm folded) -> affine -> hardswish -> affine."""

    def __init__(self, c_in, c_out, kernel, stride, groups):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, kernel, stride, kernel // 2, groups=groups)
        self.lab = Affine()
        self.act_lab = Affine()

    def forward(self, x):
        return self.act_lab(F.hardswish(self.lab(self.conv(x))))


class SqueezeExcite(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.reduce = nn.Conv2d(channels, channels // 4, 1)
        self.expand = nn.Conv2d(channels // 4, channels, 1)

    def forward(self, x):
        s = F.relu(self.reduce(x.mean((2, 3), keepdim=True)))
        # Paddle's hardsigmoid: clip(x / 6 + 0.5, 0, 1), which is torch's hardsigmoid.
        return x * F.hardsigmoid(self.expand(s))


class Block(nn.Module):
    """Depthwise RepConv, optional squeeze-excite, pointwise RepConv."""

    def __init__(self, c_in, c_out, kernel, stride, se):
        super().__init__()
        self.dw = RepConv(c_in, c_in, kernel, tuple(stride), c_in)
        self.se = SqueezeExcite(c_in) if se else None
        self.pw = RepConv(c_in, c_out, 1, 1, 1)

    def forward(self, x):
        x = self.dw(x)
        if self.se is not None:
            x = self.se(x)
        return self.pw(x)


class ConvSwish(nn.Module):
    """conv (batch norm folded, no bias of its own) -> swish; kernels 1x1 or 1x3 along the line."""

    def __init__(self, c_in, c_out, width):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, (1, width), padding=(0, width // 2))

    def forward(self, x):
        return F.silu(self.conv(x))


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):  # x [B, T, C]
        B, T, C = x.shape
        q, k, v = self.qkv(x).reshape(B, T, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax((q * (C // self.heads) ** -0.5) @ k.transpose(-1, -2), dim=-1)
        return self.proj((att @ v).transpose(1, 2).reshape(B, T, C))


class MixerBlock(nn.Module):
    def __init__(self, dim, heads, mlp_ratio):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-5)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim, eps=1e-5)
        self.fc1 = nn.Linear(dim, dim * mlp_ratio)
        self.fc2 = nn.Linear(dim * mlp_ratio, dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(F.silu(self.fc1(self.norm2(x))))


class LineEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        stem = config["stem_channels"]
        self.stem = nn.Conv2d(3, stem, 3, 2, 1)
        self.blocks = nn.ModuleList(Block(b["in"], b["out"], b["kernel"], b["stride"], b["se"])
                                    for b in config["blocks"])
        c = config["blocks"][-1]["out"]
        n = config["neck"]
        self.pool = tuple(config["pool"])
        self.neck_in = ConvSwish(c, n["reduce"], 3)
        self.neck_up = ConvSwish(n["reduce"], n["dim"], 1)
        self.mixer = nn.ModuleList(MixerBlock(n["dim"], n["heads"], n["mlp_ratio"]) for _ in range(n["depth"]))
        self.neck_norm = nn.LayerNorm(n["dim"], eps=1e-6)
        self.neck_back = ConvSwish(n["dim"], c, 1)
        self.neck_fuse = ConvSwish(2 * c, n["reduce"], 3)
        self.neck_out = ConvSwish(n["reduce"], n["dim"], 1)
        self.ctc = nn.Linear(n["dim"], config["num_classes"])

    def forward(self, pixels):
        """pixels [B, 3, 48, W] -> dict of backbone [B, T, 480], neck [B, T, 120], ctc_logits [B, T, K]."""
        x = self.stem(pixels)
        for block in self.blocks:
            x = block(x)
        z = F.avg_pool2d(x, self.pool, self.pool)                    # [B, 480, 1, T]
        h = self.neck_up(self.neck_in(z))                            # [B, 120, 1, T]
        B, C, _, T = h.shape
        h = h.flatten(2).transpose(1, 2)                             # [B, T, 120]
        for block in self.mixer:
            h = block(h)
        h = self.neck_norm(h).transpose(1, 2).reshape(B, C, 1, T)
        h = self.neck_out(self.neck_fuse(torch.cat([z, self.neck_back(h)], dim=1)))
        neck = h.squeeze(2).transpose(1, 2)                          # [B, T, 120]
        return {"backbone": z.squeeze(2).transpose(1, 2), "neck": neck, "ctc_logits": self.ctc(neck)}


def line_width(h, w, max_width):
    """The encoder's input width for a crop of h x w pixels scaled to 48 high: a multiple of 8, at least 16."""
    width = int(math.ceil(w * HEIGHT / max(1, h) / COLUMN)) * COLUMN
    return max(2 * COLUMN, min(max_width, width))


def line_pixels(gray, max_width=1600):
    """An 8-bit grayscale crop -> the encoder's input [1, 3, 48, W]: scaled to 48 high with its aspect kept
    (bilinear, half-pixel centres), grey replicated to BGR, normalised to [-1, 1]. Wider crops are squeezed
    to `max_width`."""
    h, w = gray.shape
    W = line_width(h, w, max_width)
    x = torch.as_tensor(gray, dtype=torch.float32)[None, None]
    x = F.interpolate(x, size=(HEIGHT, W), mode="bilinear", align_corners=False)
    return ((x / 255.0 - 0.5) / 0.5).expand(1, 3, HEIGHT, W).contiguous()


def ctc_greedy(logits, charset):
    """Greedy CTC: argmax per column, repeats collapsed, blanks (class 0) dropped."""
    best = logits.argmax(-1).tolist()
    out, last = [], 0
    for k in best:
        if k != last and k != 0:
            out.append(charset[k])
        last = k
    return "".join(out)
