"""A tiny fully convolutional network that marks the play area (arena, cloth) in a small
copy of the photo; training and export only (torch). Inference: `vision.area_model`.

Input (N, 3, H, W) float32 RGB normalised like the crops (`crops_to_input`), H x W =
`AREA_INPUT` (landscape; portrait photos are transposed first). Output `logits`
(N, G, H/2, W/2): one channel per game in `AREA_GAMES` order.
"""

from __future__ import annotations

import torch
from torch import nn


def conv_bn_relu(cin, cout, stride=1, dil=1):
    """3 x 3 convolution (no bias), batch norm, ReLU: the block of the fully convolutional
    networks (this one and the card key-point detector)."""
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride=stride, padding=dil, dilation=dil, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class AreaNet(nn.Module):
    def __init__(self, n_games: int, w=(16, 32, 48)):
        super().__init__()
        a, b, c = w
        self.enc1 = conv_bn_relu(3, a, stride=2)  # 1/2
        self.enc2 = nn.Sequential(conv_bn_relu(a, b, stride=2), conv_bn_relu(b, c, stride=2))  # 1/8
        self.ctx = nn.Sequential(conv_bn_relu(c, c, dil=2), conv_bn_relu(c, c, dil=4),
                                 conv_bn_relu(c, c, dil=8))
        self.up = nn.Upsample(scale_factor=4, mode="bilinear", align_corners=False)
        self.dec = nn.Sequential(conv_bn_relu(c + a, a), nn.Conv2d(a, n_games, 1))

    def forward(self, x):
        f1 = self.enc1(x)
        f = self.ctx(self.enc2(f1))
        return self.dec(torch.cat([self.up(f), f1], dim=1))
