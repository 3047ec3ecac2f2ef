"""Session 27's shortcuts in the Mauerhuepfer board stage give the answers of the plain
computations they replaced (each reference below is the former code)."""

import numpy as np
import pytest

from vision import mauer as M


def _old_sharing(member):
    m = member.astype(np.float32)
    return (m @ m.T) > 0


@pytest.mark.parametrize("seed,runs,blobs,p", [
    (0, 80, 175, 0.04),  # committed 0019's size: many runs over a cloth's blobs
    (1, 12, 60, 0.1),  # an ordinary photo's
    (2, 30, 400, 0.01),  # sparse: few blobs in two runs
    (3, 5, 20, 0.0),  # no blob in any run (each run still shares with itself)
])
def test_sharing_without_blas_is_the_float_product(seed, runs, blobs, p):
    member = np.random.default_rng(seed).random((runs, blobs)) < p
    member[0, :3] = True  # (the first run never empty)
    got = M._sharing(member)
    assert got.dtype == bool
    want = _old_sharing(member)
    np.fill_diagonal(want, True)  # (an empty run shared nothing with itself before; the
    # diagonal is cleared by `_run_hypotheses`' `cand` either way)
    assert np.array_equal(got, want)
