import numpy as np
import pytest

from vision.detections import Detections


def make(n=3):
    return Detections(
        labels=["frog", "cat", "frog"][:n],
        zones=["arena", "outside", "arena"][:n],
        confidence=[0.9, 0.5, 0.7][:n],
        centers=np.arange(2 * n).reshape(n, 2),
        polygons=[np.zeros((4, 2)), None, np.ones((4, 2))][:n],
    )


def test_mask_indexing_returns_new_object():
    d = make()
    sub = d[d.labels == "frog"]
    assert isinstance(sub, Detections) and len(sub) == 2
    assert list(sub.zones) == ["arena", "arena"]
    assert sub.polygons[1][0, 0] == 1


def test_frozen():
    with pytest.raises(AttributeError):
        make().labels = np.array([])


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        (dict(zones=["arena"]), "disagree"),  # zones shorter than labels
        (dict(confidence=[0.1, 2.0, 0.3]), r"\[0, 1\]"),  # confidence out of range
        (dict(centers=np.zeros((3, 3))), r"\(N, 2\)"),  # wrong centre shape
    ],
)
def test_validation(kwargs, msg):
    base = dict(labels=["a", "b", "c"], zones=["x"] * 3, confidence=[0.5] * 3,
                centers=np.zeros((3, 2)))
    base.update(kwargs)
    with pytest.raises(ValueError, match=msg):
        Detections(**base)


def test_counts_and_json():
    d = make()
    assert d.counts() == {"arena": {"frog": 2}, "outside": {"cat": 1}}
    js = d.to_json()
    assert js[1]["polygon"] is None and len(js[0]["polygon"]) == 4
    assert len(Detections.empty()) == 0
