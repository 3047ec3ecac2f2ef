"""Open an ONNX model for CPU inference the same way everywhere (threads, quiet logging, a
clear `ModelMissing` naming the file and the command that trains it)."""

from __future__ import annotations

from pathlib import Path

from vision.errors import ModelMissing


def open_session(path: str | Path, what: str, train_command: str, threads: int = 1):
    """``(onnxruntime.InferenceSession, custom metadata dict)`` for the model at ``path``.
    `threads` > 1: the intra-op pool's threads sleep between runs (spinning threads burn a
    shared core while the caller's Python code runs between the runs)."""
    import onnxruntime as ort

    path = Path(path)
    if not path.is_file():
        raise ModelMissing(f"{what} model not found at {path}; train it with `{train_command}`")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = ort.InferenceSession(
            str(path), sess_options=opts, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelMissing(f"cannot load {what} model {path}: {exc}") from None
    return session, dict(session.get_modelmeta().custom_metadata_map)
