"""PyTorch reference of PaddleOCR's PP-OCRv6 small line recogniser (the encoder RapidOCR 3.10 ships).

Input: a line image [B, 3, 48, W] (BGR, (x/255 - 0.5) / 0.5, W a multiple of 8), as for PP-OCRv4. Output per
column of 8 pixels (T = W / 8): the backbone's features [B, T, 384] (after the [3, 2] average pool), the neck's
features [B, T, 120], and the CTC head's logits [B, T, 18710] (blank first, space last).

The structure is the exported inference form (ppocr_v6_onnx.py reads it from the ONNX graph):
- stem: conv 3x3/2 -> relu; a 2x2 conv pair (same padding, bottom/right) beside a 2x2 max pool, concatenated;
  conv 3x3/2 -> relu; conv 1x1 -> relu (every batch norm folded into its convolution);
- MetaFormer blocks: a depthwise kxk convolution as the token mixer (stride (2, 1) where the height halves),
  squeeze-excite in some, then a channel MLP (1x1 up, GELU, 1x1 down) added to the mixer's output where the
  channels stay the same;
- neck (EncoderWithLightSVTR): from the pooled features a shortcut (1x1 conv, swish) and a branch (1x1 conv,
  swish, then a 1x7 depthwise conv, swish, added to itself), two attention blocks over the line (as v4's), a
  layer norm, the shortcut added; the CTC head is one linear layer.
`config` gives every block's kernel, stride and channels, so nothing here assumes PaddleOCR's class defaults.
"""
import torch
import torch.nn.functional as F
from torch import nn

from .line_encoder import MixerBlock


class Stem(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(3, c["mid"], 3, 2, 1)
        self.conv2a = nn.Conv2d(c["mid"], c["mid"] // 2, 2)
        self.conv2b = nn.Conv2d(c["mid"] // 2, c["mid"], 2)
        self.conv3 = nn.Conv2d(2 * c["mid"], c["mid"], 3, 2, 1)
        self.conv4 = nn.Conv2d(c["mid"], c["out"], 1)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        # ONNX's SAME_UPPER for a 2x2 window at stride 1: one row and column of padding, at the bottom and right.
        a = F.relu(self.conv2b(F.pad(F.relu(self.conv2a(F.pad(x, (0, 1, 0, 1)))), (0, 1, 0, 1))))
        # The input is a relu's output (>= 0), so zero padding gives the same maxima as -inf padding.
        pooled = F.max_pool2d(F.pad(x, (0, 1, 0, 1)), 2, 1)
        x = F.relu(self.conv3(torch.cat([pooled, a], dim=1)))
        return F.relu(self.conv4(x))


class SqueezeExcite(nn.Module):
    def __init__(self, channels, mid):
        super().__init__()
        self.reduce = nn.Conv2d(channels, mid, 1)
        self.expand = nn.Conv2d(mid, channels, 1)

    def forward(self, x):
        s = F.relu(self.reduce(x.mean((2, 3), keepdim=True)))
        return x * F.hardsigmoid(self.expand(s))


class Block(nn.Module):
    """Depthwise token mixer, optional squeeze-excite, channel MLP (residual where the channels stay)."""

    def __init__(self, b):
        super().__init__()
        c, k = b["in"], b["kernel"]
        self.dw = nn.Conv2d(c, c, k, tuple(b["stride"]), k // 2, groups=c)
        self.se = SqueezeExcite(c, b["se"]) if b["se"] else None
        self.fc1 = nn.Conv2d(c, b["hidden"], 1)
        self.fc2 = nn.Conv2d(b["hidden"], b["out"], 1)
        self.residual = b["residual"]

    def forward(self, x):
        x = self.dw(x)
        if self.se is not None:
            x = self.se(x)
        y = self.fc2(F.gelu(self.fc1(x)))
        return x + y if self.residual else y


class LineEncoderV6(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.stem = Stem(config["stem"])
        self.blocks = nn.ModuleList(Block(b) for b in config["blocks"])
        c = config["blocks"][-1]["out"]
        n = config["neck"]
        self.pool = tuple(config["pool"])
        self.neck_shortcut = nn.Conv2d(c, n["dim"], 1)
        self.neck_in = nn.Conv2d(c, n["dim"], 1)
        self.neck_dw = nn.Conv2d(n["dim"], n["dim"], (1, n["kernel"]), padding=(0, n["kernel"] // 2), groups=n["dim"])
        self.mixer = nn.ModuleList(MixerBlock(n["dim"], n["heads"], n["mlp_ratio"]) for _ in range(n["depth"]))
        self.neck_norm = nn.LayerNorm(n["dim"], eps=1e-6)
        self.ctc = nn.Linear(n["dim"], config["num_classes"])

    def forward(self, pixels):
        """pixels [B, 3, 48, W] -> dict of backbone [B, T, 384], neck [B, T, 120], ctc_logits [B, T, K]."""
        x = self.stem(pixels)
        for block in self.blocks:
            x = block(x)
        z = F.avg_pool2d(x, self.pool, self.pool)                    # [B, 384, 1, T]
        shortcut = F.silu(self.neck_shortcut(z))
        a = F.silu(self.neck_in(z))
        h = a + F.silu(self.neck_dw(a))                              # [B, 120, 1, T]
        h = h.squeeze(2).transpose(1, 2)                             # [B, T, 120]
        for block in self.mixer:
            h = block(h)
        neck = self.neck_norm(h) + shortcut.squeeze(2).transpose(1, 2)
        return {"backbone": z.squeeze(2).transpose(1, 2), "neck": neck, "ctc_logits": self.ctc(neck)}
