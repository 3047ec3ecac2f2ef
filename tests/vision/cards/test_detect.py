"""`KeyDetector.detect` on a session of more intra-op threads: the same key points."""

from pathlib import Path

import numpy as np

from vision.cards.detect import KeyDetector
from vision.image_io import load_photo

PHOTO = Path(__file__).resolve().parents[3] / "datasets" / "scenes" / "troetofanten" / \
    "troetofanten-e1-s1-0000.jpg"


def test_the_detector_on_two_threads_finds_the_same_key_points():
    det = KeyDetector(threads=1)
    assert det.threads == 1
    img = load_photo(PHOTO).image
    one = det.detect(img, 0.15)
    two = det.detect(img, 0.15, threads=2)
    assert len(one) > 5
    for f in ("xy", "kind", "score", "angle", "width"):
        assert np.array_equal(getattr(one, f), getattr(two, f)), f
    assert det._session(2) is det._session(2) is not det.session  # (made once, kept)
    assert det._session(None) is det._session(1) is det.session
