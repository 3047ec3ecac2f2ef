import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    "args, code, err",
    [
        ([], 2, "bad_option"),  # no subcommand
        (["score", "--game", "chess", "--facts", "x.json"], 2, "unknown_game"),
        (["score", "--game", "simsala-hopp"], 2, "bad_option"),  # neither photo nor facts
        (["score", "--game", "simsala-hopp", "--facts", "/nonexistent.json"], 2, "bad_input"),
        (["frobnicate"], 2, "bad_option"),  # unknown subcommand
    ],
)
def test_bad_invocations_give_error_json(run_cli, args, code, err):
    got_code, out = run_cli(*args)
    assert got_code == code
    assert out["error"]["code"] == err
    assert out["error"]["message"]


def test_malformed_facts_json(run_cli, write_json):
    path = write_json("{not json")
    code, out = run_cli("score", "--game", "troetofanten", "--facts", path, "--json")
    assert code == 2 and out["error"]["code"] == "bad_input"
    assert "not valid JSON" in out["error"]["message"]


def test_option_the_game_does_not_take(run_cli, write_json):
    path = write_json({"zones": {}})
    code, out = run_cli(
        "score", "--game", "troetofanten", "--facts", path, "--variant", "pile", "--json"
    )
    assert code == 2 and out["error"]["code"] == "bad_option"


@pytest.mark.parametrize(
    "folder, name, hint",
    [
        ("my photos", None, True),  # a folder name with a space: say how to name the profile
        ("photos", "../x", False),  # a bad --name given: the hint would not help
    ],
)
def test_teach_profile_name_from_folder_says_use_name(run_cli, tmp_path, folder, name, hint):
    (tmp_path / folder).mkdir()
    args = ["teach", "--game", "simsala-hopp", tmp_path / folder, "--data", tmp_path / "d"]
    code, out = run_cli(*args, *(["--name", name] if name else []))
    assert code == 2 and out["error"]["code"] == "bad_option"
    assert ("--name" in out["error"]["message"]) == hint


@pytest.mark.parametrize("owner, code", [
    ("troetofanten", "bad_input"),  # another game's profile of that name: not replaced
    ("simsala-hopp", "bad_teach_input"),  # the same game's: on to reading the (empty) folder
])
def test_teach_does_not_replace_another_games_profile(run_cli, tmp_path, owner, code):
    meta = tmp_path / "d" / "teach" / "kitchen" / "profile.json"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"game": owner, "labels": [], "counts": {}}))
    (tmp_path / "kitchen").mkdir()
    code_, out = run_cli("teach", "--game", "simsala-hopp", tmp_path / "kitchen",
                         "--data", tmp_path / "d")
    assert code_ == 2 and out["error"]["code"] == code, out


@pytest.mark.parametrize("command", ["score", "dice"])
@pytest.mark.parametrize(
    "name, code",
    [
        ("seen.txt", "bad_option"),  # no image writer for it: was cv2.error, a traceback
        ("seen", "bad_option"),  # no extension at all
    ],
)
def test_annotate_file_opencv_cannot_write(run_cli, tmp_path, command, name, code):
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(b"not read: the option is checked first")
    game = ["--game", "simsala-hopp", "--magician", "blue"] if command == "score" else []
    got, out = run_cli(command, photo, *game, "--annotate", tmp_path / name, "--json")
    assert got == 2 and out["error"]["code"] == code
    assert "--annotate" in out["error"]["message"]


@pytest.mark.parametrize("command", ["score", "dice"])
@pytest.mark.parametrize("name", ["seen.webp", "seen.bmp", "seen.tif", "SEEN.JPG"])
def test_annotate_any_format_opencv_writes(run_cli, tmp_path, command, name):
    # A hard-coded .jpg/.png list refused .webp, .bmp and .tif, which OpenCV writes: the
    # option passes and the (unreadable) photo is what is refused.
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(b"not a photo")
    game = ["--game", "simsala-hopp", "--magician", "blue"] if command == "score" else []
    got, out = run_cli(command, photo, *game, "--annotate", tmp_path / name, "--json")
    assert got == 2 and out["error"]["code"] != "bad_option", out
    assert "--annotate" not in out["error"]["message"]


@pytest.mark.parametrize("command", ["score", "dice"])
@pytest.mark.parametrize("way", [
    "same",  # --annotate names the photo itself: was overwritten with the drawing, exit 0
    "link",  # a link to the photo: the same
])
def test_annotate_does_not_overwrite_the_photo(run_cli, tmp_path, command, way):
    photo = tmp_path / "photo.jpg"
    photo.write_bytes((Path(__file__).parents[1] / "data" / "simsala-hopp-scene.jpg").read_bytes())
    before = photo.read_bytes()
    target = photo
    if way == "link":
        target = tmp_path / "seen.jpg"
        target.symlink_to(photo)
    game = ["--game", "simsala-hopp", "--magician", "blue"] if command == "score" else []
    got, out = run_cli(command, photo, *game, "--annotate", target, "--json")
    assert got == 2 and out["error"]["code"] == "bad_option", out
    assert "the photo itself" in out["error"]["message"]
    assert photo.read_bytes() == before


@pytest.fixture
def busy_port():
    """A localhost port another program listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--port", "{busy}"], "in use"),  # was waitress' OSError traceback
        (["--port", "{busy}", "--https"], "in use"),  # Werkzeug printed its own text, exit 1
        (["--port", "99999"], "0-65535"),  # was a ValueError traceback
        (["--host", "no-such-host.invalid", "--port", "0"], "no-such-host.invalid"),  # (not 8:
        # a privileged port refused the bind whatever the host)
    ],
)
def test_serve_where_it_cannot_listen(run_cli, tmp_path, busy_port, extra, words):
    extra = [a.replace("{busy}", str(busy_port)) for a in extra]
    code, out = run_cli("serve", *extra, "--data", tmp_path / "d")
    assert code == 2 and out["error"]["code"] == "bad_option"
    assert words in out["error"]["message"]


def test_serve_on_every_interface_passes_the_port_check():
    # --host "" (every interface, as webapp.serve takes it) was refused: getaddrinfo("")
    # knows no such name.
    from tablescore.cli import check_listen

    check_listen("", 0)
    check_listen("0.0.0.0", 0)


def test_port_check_without_reuseaddr_on_windows(monkeypatch):
    # On Windows SO_REUSEADDR lets a second socket bind a busy port: the check must not set it.
    from tablescore.cli import check_listen

    options = []

    class Recorder(socket.socket):
        def setsockopt(self, *args):
            options.append(args)
            return super().setsockopt(*args)

    monkeypatch.setattr(socket, "socket", Recorder)
    check_listen("127.0.0.1", 0)
    assert (socket.SOL_SOCKET, socket.SO_REUSEADDR, 1) in options  # as the servers do
    options.clear()
    with monkeypatch.context() as m:  # (only around the call: pathlib reads os.name too)
        m.setattr(os, "name", "nt")
        check_listen("127.0.0.1", 0)
    assert not options


DEEP = "[" * 100_000 + "]" * 100_000  # json's parser recurses per level


@pytest.mark.parametrize(
    "text, code, words",
    [
        ("\ufeff" + '{"zones": {}}', 0, None),  # a byte-order mark (Notepad): was "not JSON"
        (DEEP, 2, "nested too deeply"),  # was a RecursionError traceback
    ],
)
def test_facts_file_encodings_and_depth(run_cli, tmp_path, text, code, words):
    path = tmp_path / "facts.json"
    path.write_text(text, encoding="utf-8")
    got, out = run_cli("score", "--game", "troetofanten", "--facts", path, "--json")
    assert got == code
    if words:
        assert out["error"]["code"] == "bad_input" and words in out["error"]["message"]
    else:
        assert out["facts"] == {"zones": {}}


@pytest.mark.parametrize(
    "args, code",
    [
        (["score", "{dir}/nöpe.jpg", "--game", "simsala-hopp", "--json"], 2),  # photo path
        (["score", "--game", "troetofanten", "--facts", "{dir}/fäcts-bad.json"], 2),  # facts
        (["score", "--game", "troetofanten", "--facts", "{dir}/fäcts.json", "--json"], 0),
    ],
)
def test_output_on_a_stdout_that_cannot_hold_the_text(tmp_path, args, code):
    # An error naming a path with 'ö' on an ASCII stdout was a UnicodeEncodeError traceback;
    # now the same JSON with \u escapes.
    (tmp_path / "fäcts.json").write_text('{"zones": {"north": {"elephant-3": 1}}}')
    (tmp_path / "fäcts-bad.json").write_text("{not json")
    args = [a.replace("{dir}", str(tmp_path)) for a in args]
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    run = subprocess.run([sys.executable, "-m", "tablescore", *args], capture_output=True,
                         env=env, timeout=120)
    assert b"Traceback" not in run.stderr, run.stderr[-400:]
    assert run.returncode == code
    out = json.loads(run.stdout)
    if code:
        assert str(tmp_path) in out["error"]["message"]  # the path, read back from \u escapes
    else:
        assert out["score"]["points"]


def test_every_option_of_every_command_says_what_it_is():
    # `serve --host` (whose default, 127.0.0.1, no phone can reach), `--port`, `teach --game`,
    # `synth --game / --seed`, `evaluate --game`, `bench --json` and `train --epochs` had no
    # help line (acceptance pass, session 17 H5).
    import argparse

    from tablescore.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    bare = [f"{name} {a.option_strings or a.dest}" for name, p in sub.choices.items()
            for a in p._actions if not a.help and not isinstance(a, argparse._HelpAction)]
    assert bare == []
    serve = sub.choices["serve"].format_help()
    assert "0.0.0.0" in serve and "default 127.0.0.1" in serve


@pytest.mark.parametrize("command", ["score", "dice"])
def test_annotate_into_a_missing_folder_is_named_before_the_work(run_cli, tmp_path, monkeypatch,
                                                                 command):
    # Was "cannot write the annotated photo to ..." after the whole reading (session 17, H5);
    # the photo is never read now: a missing photo file is not what is reported.
    import vision.image_io

    monkeypatch.setattr(vision.image_io, "load_photo", lambda *a, **k: pytest.fail("read"))
    out_path = tmp_path / "no-such-folder" / "seen.jpg"
    game = ["--game", "troetofanten"] if command == "score" else []
    code, out = run_cli(command, tmp_path / "photo.jpg", *game, "--annotate", out_path,
                        "--json")
    assert code == 2 and out["error"]["code"] == "bad_option"
    assert "no folder" in out["error"]["message"] and "no-such-folder" in out["error"]["message"]


@pytest.mark.parametrize("option", ["--annotate", "--teach"])
def test_photo_options_with_facts_are_refused(run_cli, write_json, tmp_path, option):
    # They were ignored without a word: no annotated file was written (session 17, H5).
    code, out = run_cli("score", "--game", "troetofanten", "--facts", write_json({"zones": {}}),
                        option, tmp_path / "x.jpg", "--json")
    assert code == 2 and out["error"]["code"] == "bad_option"
    assert f"{option} needs a photo" in out["error"]["message"]


HEAVY_MODULES = ("numpy", "cv2", "onnxruntime", "flask")


@pytest.mark.parametrize("args", [
    ["--help"],
    ["score", "--help"],
    ["frobnicate"],  # a bad subcommand: the error JSON
    ["score", "--game", "troetofanten", "--facts", "{facts}", "--json"],
])
def test_cheap_commands_do_not_import_the_vision_stack(tmp_path, args):
    # `vision.commands` imported numpy at module level, so every command, `--help` and
    # scoring a facts file too, paid ~150 ms for it (session 18, H7). A fresh interpreter:
    # this test process has them all loaded already.
    facts = tmp_path / "facts.json"
    facts.write_text('{"zones": {"north": {"elephant-3": 1}}}')
    args = [a.replace("{facts}", str(facts)) for a in args]
    code = (f"import sys\nfrom tablescore.cli import main\n"
            f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
            f"print(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-400:]
    assert run.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("blocked", [
    "d",  # --data is a file: was a traceback (NotADirectoryError) after every photo was read
    "d/teach",  # DATA/teach is a file
    "d/teach/kitchen",  # the profile's own folder is a file
])
def test_teach_says_before_the_work_that_data_cannot_hold_the_profile(run_cli, tmp_path,
                                                                      blocked):
    (tmp_path / blocked).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / blocked).write_text("not a folder")
    (tmp_path / "kitchen").mkdir()  # (empty: the photos' reading would say "no label folders")
    code, out = run_cli("teach", "--game", "simsala-hopp", tmp_path / "kitchen",
                        "--data", tmp_path / "d")
    assert code == 2 and out["error"]["code"] == "bad_option", out
    assert "is a file" in out["error"]["message"]


def test_teach_profile_that_cannot_be_saved_is_error_json(run_cli, tmp_path, monkeypatch):
    # (the disk full while saving: was an OSError traceback, exit 1, the work lost unsaid)
    class Unsavable:
        def save(self, folder):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr("vision.teach.build_profile", lambda folder, game: Unsavable())
    code, out = run_cli("teach", "--game", "simsala-hopp", tmp_path, "--name", "k",
                        "--data", tmp_path / "d")
    assert code == 2 and out["error"]["code"] == "bad_input", out
    assert "No space left on device" in out["error"]["message"]
