"""Labels within the game's counts (`vision.pipeline.within_counts`, `beyond_counts`)."""

import numpy as np
import pytest

from vision.pipeline import within_counts

# labels: 0 yellow, 1 orange, 2 blue; probabilities per piece
YE, OR, BL = 0, 1, 2


@pytest.mark.parametrize("p, limits, want, n_moves", [
    # two yellows, one orange: within the counts, nothing moves
    ([[0.9, 0.1, 0.0], [0.8, 0.2, 0.0], [0.1, 0.9, 0.0]], (2, 2, 2), [YE, YE, OR], 0),
    # three yellows: the one that loses least by turning orange does
    ([[0.9, 0.1, 0.0], [0.6, 0.4, 0.0], [0.95, 0.05, 0.0]], (2, 2, 2), [YE, OR, YE], 1),
    # its next likeliest label is too unlikely (under 0.02 of its first): it stays
    ([[0.99, 0.005, 0.005]] * 3, (2, 2, 2), [YE, YE, YE], 0),
    # orange is full already: the third yellow goes to blue, the next label with room
    ([[0.9, 0.05, 0.05], [0.6, 0.3, 0.1], [0.95, 0.03, 0.02], [0.1, 0.9, 0.0],
      [0.1, 0.9, 0.0]], (2, 2, 2), [YE, BL, YE, OR, OR], 1),
    # two over: two move, each the cheapest at its turn
    ([[0.5, 0.5, 0.0], [0.6, 0.4, 0.0], [0.7, 0.3, 0.0], [0.8, 0.2, 0.0]], (2, 2, 2),
     [OR, OR, YE, YE], 2),
    # no pieces
    (np.zeros((0, 3)), (2, 2, 2), [], 0),
])
def test_within_counts(p, limits, want, n_moves):
    best, moves = within_counts(np.array(p, float), limits, 0.02)
    assert list(best) == want
    assert len(moves) == n_moves
    for i, a, b in moves:
        assert want[i] == b and a != b


@pytest.mark.parametrize("zone, confidence, counted", [
    ("outside", 0.35, False),  # an unsure piece outside: a warning, not counted
    ("outside", 0.45, True),  # sure enough
    ("arena", 0.35, True),  # in the arena every piece counts (the low-confidence warning)
    ("north", 0.1, True),  # Hop la bille's zones have no `outside`
])
def test_sure_outside(zone, confidence, counted):
    from vision.detections import Detections
    from vision.pipeline import sure_outside

    det = Detections(labels=np.array(["frog", "cat"], object),
                     zones=np.array(["arena", zone], object),
                     confidence=np.array([0.9, confidence], np.float32),
                     centers=np.array([[10.0, 20.0], [300.0, 400.0]]), polygons=(None, None))
    keep, doubts = sure_outside(det, 0.4)
    assert list(keep) == [True, counted]
    assert len(doubts) == (0 if counted else 1)
    if doubts:
        assert "(300, 400)" in doubts[0] and "cat" in doubts[0]


@pytest.mark.parametrize("labels, confidence, total, kept, warned", [
    # within both counts: all counted
    (["frog", "cat", "cat"], [0.9, 0.8, 0.7], 3, [1, 1, 1], ""),
    # one piece too many in all: the least sure one, whatever its label, is dropped
    (["frog", "cat", "frog"], [0.9, 0.5, 0.8], 2, [1, 0, 1], "3 pieces seen"),
    # a third cat (the game has 2): the least sure cat goes, not the less sure frog
    (["cat", "cat", "frog", "cat"], [0.9, 0.6, 0.3, 0.8], 0, [1, 0, 1, 1], "3 cat seen"),
    # over in both ways: a cat for the label, then the least sure of the rest for the total
    (["cat", "cat", "frog", "cat"], [0.9, 0.6, 0.7, 0.8], 2, [1, 0, 0, 1], "pieces seen"),
    # a label the limits do not name has no limit of its own
    (["dove", "dove", "dove"], [0.9, 0.6, 0.7], 0, [1, 1, 1], ""),
])
def test_beyond_counts(labels, confidence, total, kept, warned):
    from vision.detections import Detections
    from vision.pipeline import beyond_counts

    n = len(labels)
    det = Detections(labels=np.array(labels, object), zones=np.array(["arena"] * n, object),
                     confidence=np.array(confidence, np.float32),
                     centers=np.arange(2.0 * n).reshape(n, 2), polygons=(None,) * n)
    keep, doubts = beyond_counts(det, ("frog", "cat"), (5, 2), total)
    assert list(keep) == [bool(k) for k in kept]
    assert len(doubts) == kept.count(0)
    assert all("not counted" in d for d in doubts)
    if warned:
        assert warned in doubts[-1]


def test_beyond_counts_outside_first():
    """One piece too many: a surer piece outside goes before a less sure one in the arena."""
    from vision.detections import Detections
    from vision.pipeline import beyond_counts

    det = Detections(labels=np.array(["frog", "frog", "cat"], object),
                     zones=np.array(["arena", "outside", "arena"], object),
                     confidence=np.array([0.5, 0.9, 0.95], np.float32),
                     centers=np.zeros((3, 2)), polygons=(None,) * 3)
    keep, doubts = beyond_counts(det, ("frog", "cat"), (5, 2), 2)
    assert list(keep) == [True, False, True]
    assert "a frog at (0, 0) (confidence 0.90)" in doubts[0]
