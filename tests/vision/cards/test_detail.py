"""The photo's detail image (`Photo.detail`) and Troetofanten index crops cut from it
(`vision.cards.detail`), session 17 H1."""

import cv2
import numpy as np
import pytest

from vision.cards.detail import Detail, detail_of, index_crops, keeping_detail, part_detail
from vision.cards.geometry import INDEX_SPEC, CardCropSettings, crop_cards, frame_from_pose
from vision.cards.read import from_enlarged
from vision.image_io import ImageSettings, load_photo


def photo_bytes(w: int, h: int, ext: str = ".jpg", seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 255, (max(4, h // 32), max(4, w // 32), 3), dtype=np.uint8)
    img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.imencode(ext, img)[1].tobytes()


@pytest.mark.parametrize("w,h,ext,side,want", [
    (2560, 1920, ".jpg", 2560, (2560, 1920)),  # whole
    (1920, 2560, ".jpg", 2560, (1920, 2560)),  # portrait
    (4032, 3024, ".jpg", 2560, (2016, 1512)),  # the DCT's 1/2
    (4032, 3024, ".jpg", 4096, (4032, 3024)),
    (2560, 1920, ".jpg", 0, None),  # not asked
    (2560, 1920, ".jpg", 1000, None),  # under the work size: none
    (1280, 960, ".jpg", 2560, None),  # no larger than the work image
    (800, 600, ".jpg", 2560, None),
    (3000, 2000, ".png", 2560, (2560, 1707)),  # a PNG area-resized
    (2000, 1500, ".png", 2560, (2000, 1500)),
])
def test_detail_image_sizes(w, h, ext, side, want):
    ph = load_photo(photo_bytes(w, h, ext), ImageSettings(detail_long_side=side))
    assert max(ph.image.shape[:2]) == min(1280, max(w, h))
    assert (ph.width, ph.height) == (w, h)
    if want is None:
        assert ph.detail is None and ph.detail_factor == 1.0
    else:
        assert ph.detail.shape == (want[1], want[0], 3) and ph.detail.dtype == np.uint8
        assert ph.detail_factor == pytest.approx(want[0] / ph.image.shape[1])
        small = cv2.resize(ph.detail, ph.image.shape[1::-1], interpolation=cv2.INTER_AREA)
        assert np.abs(small.astype(int) - ph.image.astype(int)).mean() < 3  # the same photo


def test_work_image_unchanged_without_detail():
    data = photo_bytes(2560, 1920)
    a = load_photo(data)
    b = load_photo(data, ImageSettings(detail_long_side=0))
    assert np.array_equal(a.image, b.image) and a.scale == b.scale == 2.0


@pytest.mark.parametrize("g,off", [(2.0, (0, 0)), (2.0, (37, 11)), (0.5, (0, 0)),
                                   (0.25, (0, 0))])
@pytest.mark.parametrize("k", [1.575, 2.0])
def test_part_mapping_composes_with_from_enlarged(g, off, k):
    d = Detail(np.zeros((8, 8, 3), np.uint8), k)
    pts = np.random.default_rng(1).uniform(0, 300, (20, 2))
    want = d.to_detail(from_enlarged(pts, g, np.asarray(off, float)))
    assert np.allclose(d.part(g, off).to_detail(pts), want)


@pytest.mark.parametrize("width", [24.0, 40.0, 70.0, 200.0])
def test_index_crops_from_the_detail(width):
    rng = np.random.default_rng(int(width))
    big = cv2.resize(rng.integers(0, 255, (60, 80, 3), dtype=np.uint8), (1600, 1200),
                     interpolation=cv2.INTER_CUBIC)
    work = cv2.resize(big, (800, 600), interpolation=cv2.INTER_AREA)
    cs = CardCropSettings()
    frames = [frame_from_pose((300.0, 250.0), 17.0, width, INDEX_SPEC),
              frame_from_pose((500.0, 300.0), -40.0, width * 0.9, INDEX_SPEC)]
    plain = crop_cards(work, frames, INDEX_SPEC, cs)
    assert np.array_equal(index_crops(work, frames, INDEX_SPEC, cs, 64.0), plain)  # no detail
    d = Detail(big, 2.0)
    with keeping_detail(work, d):
        assert detail_of(work) is d and detail_of(work.copy()) is None
        got = index_crops(work, frames, INDEX_SPEC, cs, 64.0)
        off = index_crops(work, frames, INDEX_SPEC, cs, 0.0)
    assert detail_of(work) is None
    assert np.array_equal(off, plain)
    if width * 0.42 >= 64:  # a large box: the work image's crop
        assert np.array_equal(got, plain)
    else:  # the same picture, from the detail
        assert not np.array_equal(got, plain)
        assert np.abs(got.astype(int) - plain.astype(int)).mean() < 6
        ref = crop_cards(big, d.to_detail(frames), INDEX_SPEC,
                         CardCropSettings(oversample=cs.oversample * 2))
        if width * 0.42 * 2 <= 64 * 2:
            assert np.abs(got.astype(int) - ref.astype(int)).max() <= 1


def test_balanced_detail_applies_gains_to_its_crops():
    big = np.full((400, 400, 3), 100, np.uint8)
    work = np.full((200, 200, 3), 100, np.uint8)
    frames = [frame_from_pose((100.0, 100.0), 0.0, 30.0, INDEX_SPEC)]
    with keeping_detail(work, Detail(big, 2.0)):
        bal = work.copy()
        with keeping_detail(bal, detail_of(work).balanced((1.2, 1.0, 0.5))):
            crop = index_crops(bal, frames, INDEX_SPEC, CardCropSettings(), 64.0)
        assert part_detail(work, 2.0).k == 1.0
    assert tuple(crop[0, 5, 5]) == (120, 100, 50)
