"""The crop classifier network (torch; only training and export import this module).

Input (N, 3, S, S) float32 RGB normalised by `vision.preprocess.crops_to_input`.
Outputs: `probs` (N, C) softmax class probabilities and `embedding` (N, D) L2-normalised
feature vectors (teach mode compares these to a copy's example crops).
"""

from __future__ import annotations

import torch
from torch import nn


def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class PieceNet(nn.Module):
    def __init__(self, n_classes: int, widths=(16, 32, 64), embedding_dim: int = 64):
        super().__init__()
        a, b, c = widths
        self.features = nn.Sequential(
            _block(3, a), nn.MaxPool2d(2), _block(a, b), nn.MaxPool2d(2), _block(b, c),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.embed = nn.Linear(c, embedding_dim)
        self.head = nn.Sequential(nn.ReLU(), nn.Dropout(0.1), nn.Linear(embedding_dim, n_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Class logits (N, C) (training)."""
        return self.head(self.embed(self.features(x)))

    def infer(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(probs, embedding) as exported to ONNX."""
        e = self.embed(self.features(x))
        probs = torch.softmax(self.head(e), dim=1)
        return probs, nn.functional.normalize(e, dim=1)


class _Export(nn.Module):
    def __init__(self, net: PieceNet):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net.infer(x)


def export_onnx(net: PieceNet, path, size: int, metadata: dict[str, str]) -> None:
    """Write `net` to ONNX with a dynamic batch axis and string metadata."""
    import onnx

    net = net.eval()
    dummy = torch.zeros(2, 3, size, size)
    torch.onnx.export(
        _Export(net), dummy, str(path), input_names=["input"],
        output_names=["probs", "embedding"],
        dynamic_axes={"input": {0: "n"}, "probs": {0: "n"}, "embedding": {0: "n"}},
        opset_version=17, dynamo=False,
    )
    model = onnx.load(str(path))
    for k, v in metadata.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(path))
