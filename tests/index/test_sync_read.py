"""The sync reads each file whole, whatever its size now against the scan's."""

import os

import pytest

from brainwork.index.scan import read_bytes as _read


@pytest.mark.parametrize("scanned", [0, 5, 11, 12, 13, 100])
def test_read_returns_the_whole_file_whatever_the_scanned_size(tmp_path, scanned):
    path = tmp_path / "a.md"
    path.write_bytes(b"hello world\n")  # 12 bytes
    assert _read(os.fspath(path), scanned) == b"hello world\n"


def test_read_of_a_file_larger_than_one_chunk(tmp_path):
    data = bytes(range(256)) * 10_000  # 2.5 MB, over the 1 MiB chunk
    path = tmp_path / "big.md"
    path.write_bytes(data)
    assert _read(os.fspath(path), 10) == data


def test_read_of_a_missing_file_raises_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        _read(os.fspath(tmp_path / "gone.md"), 3)
