"""porter/util: the one atomic write and the one content hash every part of tileport uses."""

from __future__ import annotations

import os

import pytest

from porter.util.files import replaced_atomically, write_atomically
from porter.util.hashing import content_hash, file_hash, value_hash


def test_atomic_write_replaces_whole_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    write_atomically(target, "new text")
    assert target.read_text() == "new text"
    write_atomically(target, b"\x00bytes")
    assert target.read_bytes() == b"\x00bytes"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_a_failed_write_keeps_the_old_file_and_removes_its_temp_file(tmp_path):
    target = tmp_path / "lib.so"
    target.write_text("the old build")
    with pytest.raises(RuntimeError), replaced_atomically(target) as tmp:
        tmp.write_text("half a build")
        raise RuntimeError("the compiler failed")
    assert target.read_text() == "the old build"
    assert os.listdir(tmp_path) == ["lib.so"]


def test_outputs_get_an_ordinary_mode_and_private_files_keep_theirs(tmp_path):
    umask = os.umask(0o022)
    try:
        write_atomically(tmp_path / "port.py", "x = 1\n", ordinary_mode=True)
        write_atomically(tmp_path / "entry.json", "{}")
    finally:
        os.umask(umask)
    assert (tmp_path / "port.py").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "entry.json").stat().st_mode & 0o777 == 0o600


def test_content_hash_tells_how_parts_are_split(tmp_path):
    assert content_hash("ab", "c") != content_hash("a", "bc")
    assert content_hash("text") == content_hash(b"text")
    assert value_hash({"b": 1, "a": [2]}) == value_hash({"a": [2], "b": 1}) != value_hash({"a": [2], "b": 2})
    path = tmp_path / "f"
    path.write_bytes(b"text")
    assert file_hash(path) == content_hash("text")
    assert file_hash(tmp_path / "missing") is None


def test_fresh_names_in_both_styles_and_reserved_words():
    from porter.util.names import PORT_MODULE_NAMES, PYTHON_RESERVED, fresh_name

    taken = {"acc", "acc_1"}
    assert fresh_name("acc", taken) == "acc_2" and "acc_2" in taken
    assert fresh_name("acc", taken, numbered=False, claim=False) == "acc_" and "acc_" not in taken
    assert fresh_name("new", taken) == "new"
    assert {"lambda", "None", "async", "print"} <= PYTHON_RESERVED and {"T", "tx", "bz"} <= PORT_MODULE_NAMES


def test_next_power_of_2_is_tritons():
    from porter.util.numbers import next_power_of_2

    assert [next_power_of_2(n) for n in (-3, 0, 1, 2, 3, 64, 65, 1000)] == [1, 1, 1, 2, 4, 64, 128, 1024]
