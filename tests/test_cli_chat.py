"""What the CLI prints on stderr."""

from __future__ import annotations

import pytest

from ebbtide import open_memory
from ebbtide.cli import main


@pytest.mark.parametrize(
    "args",
    [
        ["ingest", "{tmp}/x.py"],
        ["review", "approve", "nosuchid"],
    ],
)
def test_an_error_is_the_first_line_on_stderr_not_after_a_blank_one(tmp_path, capsys, args):
    (tmp_path / "x.py").write_text("x = 1\n")
    store = str(tmp_path / "x.db")
    with open_memory(store) as m:
        m.remember("a note, so the store exists")
    argv = [a.format(tmp=tmp_path) for a in args]
    assert main([*argv, "--store", store]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error "), repr(err)
    assert "\n\n" not in err
