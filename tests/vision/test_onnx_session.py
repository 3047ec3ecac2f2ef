"""vision.onnx_session.open_session: one way to open a model, threads that do not spin."""

from pathlib import Path

import pytest

from vision.errors import ModelMissing
from vision.onnx_session import open_session

MODEL = Path(__file__).resolve().parents[2] / "models" / "cards.onnx"


@pytest.mark.parametrize("threads", [
    1,  # one thread: nothing to spin, set alike
    2,  # the pool sleeps between runs (a spinning one burnt a shared core)
])
def test_no_spinning(threads):
    session, meta = open_session(MODEL, "classifier", "train it", threads)
    opts = session.get_session_options()
    assert opts.intra_op_num_threads == threads
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert "classes" in meta


def test_missing_model_names_file_and_command(tmp_path):
    with pytest.raises(ModelMissing, match="nothing.onnx.*python -m train"):
        open_session(tmp_path / "nothing.onnx", "detector", "python -m train")
