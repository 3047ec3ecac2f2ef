"""Class list and training settings of the crop classifier.

The class list is the union of the labels of the games that have vision, plus `background`
(a candidate that is no piece). Adding a game (issue 6) means adding its labels to
`GAME_CLASSES`, regenerating the dataset and retraining; inference reads the class list from
the ONNX model's metadata, so old and new models both work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from scoring.labels import MARBLE_LABELS, SIMSALA_LABELS

BACKGROUND = "background"

# Labels the classifier must tell apart, per game with vision (order is kept in the model).
GAME_CLASSES: dict[str, tuple[str, ...]] = {
    "simsala-hopp": SIMSALA_LABELS,
    "hop-la-bille": MARBLE_LABELS,
}

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
MODEL_PATH = MODELS_DIR / "pieces.onnx"
CARD_PATH = MODELS_DIR / "pieces.md"


def all_classes(games=tuple(GAME_CLASSES)) -> tuple[str, ...]:
    out = [BACKGROUND]
    for g in games:
        out += [c for c in GAME_CLASSES[g] if c not in out]
    return tuple(out)


@dataclass(frozen=True)
class NetTraining:
    """What every crop classifier's training shares (`PieceNet`, AdamW, batches)."""

    batch_size: int = 128
    lr: float = 3e-3
    weight_decay: float = 1e-4
    embedding_dim: int = 64
    widths: tuple[int, int, int] = (12, 24, 48)
    seed: int = 0
    threads: int = 2


@dataclass(frozen=True)
class TrainSettings(NetTraining):
    classes: tuple[str, ...] = field(default_factory=all_classes)
    epochs: int = 5
    per_class: int = 3500  # crops per class at most (balances frogs and background)
