"""The key-point detector network (torch; only training and export import this module).

A small fully convolutional encoder-decoder in the spirit of CenterNet: input (N, 3, H, W)
float32 RGB normalised like the crops, H and W multiples of 8; output `maps`
(N, 7, H/2, W/2): 2 key-point heat logits (piece key point, dove), the key point's sub-cell
offset (dx, dy in cells), the piece's orientation (cos, sin of the u axis) and log(width/50).
Inference: `vision.cards.detect` (onnxruntime).
"""

from __future__ import annotations

import torch
from torch import nn

from vision.classify.area_net import conv_bn_relu

N_OUT = 7


class KeyNet(nn.Module):
    def __init__(self, w=(8, 16, 32)):
        super().__init__()
        a, b, c = w
        self.e1 = conv_bn_relu(3, a, stride=2)  # 1/2
        self.e2 = nn.Sequential(conv_bn_relu(a, b, stride=2), conv_bn_relu(b, b))  # 1/4
        self.e3 = nn.Sequential(conv_bn_relu(b, c, stride=2), conv_bn_relu(c, c, dil=2),
                                conv_bn_relu(c, c, dil=4))
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.d2 = conv_bn_relu(c + b, b)
        self.d1 = conv_bn_relu(b + a, 12)
        self.head = nn.Conv2d(12, N_OUT, 1)
        with torch.no_grad():
            self.head.bias[:2].fill_(-2.2)  # heat starts near 0.1 (focal-loss practice)

    def forward(self, x):
        f1 = self.e1(x)
        f2 = self.e2(f1)
        f3 = self.e3(f2)
        g2 = self.d2(torch.cat([self.up(f3), f2], 1))
        g1 = self.d1(torch.cat([self.up(g2), f1], 1))
        return self.head(g1)


def export_onnx(net: KeyNet, path, metadata: dict[str, str]) -> None:
    import onnx

    net = net.eval()
    dummy = torch.zeros(1, 3, 96, 128)
    torch.onnx.export(net, dummy, str(path), input_names=["input"], output_names=["maps"],
                      dynamic_axes={"input": {0: "n", 2: "h", 3: "w"},
                                    "maps": {0: "n", 2: "h2", 3: "w2"}},
                      opset_version=17, dynamo=False)
    model = onnx.load(str(path))
    for k, v in metadata.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(path))


def load_onnx_weights(net: KeyNet, path) -> KeyNet:
    """Continue training from an exported model: the export folded each batch norm into its
    convolution, so each convolution takes the folded weights and its batch norm becomes the
    folded bias alone (weight 1, running mean 0, running variance 1 - eps). Those batch norms
    must stay in eval mode while training (`freeze_batch_norms`)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    with torch.no_grad():
        for node in (n for n in model.graph.node if n.op_type == "Conv"):
            name = "head" if node.output[0] == "maps" else node.output[0].split("/")[-2]
            conv = net.get_submodule(name)
            w, b = (torch.from_numpy(init[k].copy()) for k in node.input[1:3])
            if tuple(conv.weight.shape) != tuple(w.shape):
                raise ValueError(f"{path}: {name} has shape {tuple(w.shape)}, the network "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            if conv.bias is not None:
                conv.bias.copy_(b)
                continue
            parent, idx = name.rsplit(".", 1)
            bn = net.get_submodule(f"{parent}.{int(idx) + 1}")
            bn.weight.fill_(1.0)
            bn.bias.copy_(b)
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
    return net


def freeze_batch_norms(net: nn.Module) -> None:
    """Batch norms use (and keep) their running statistics, as after `load_onnx_weights`."""
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
