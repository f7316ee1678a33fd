"""workflow/scripts/_src.py: the scripts import the package of this checkout."""

import runpy
import sys

from tests.conftest import REPO

SRC = str(REPO / "src")


def test_src_moves_to_the_front_when_already_on_the_path(monkeypatch, tmp_path):
    # what Snakemake's preamble gives a job: another xaipipe (site-packages, an editable install of
    # another checkout) first, this checkout's src appended behind it
    other = tmp_path / "other"
    (other / "xaipipe").mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [str(other)] + [p for p in sys.path if p != SRC] + [SRC])
    runpy.run_path(str(REPO / "workflow" / "scripts" / "_src.py"))
    assert sys.path[0] == SRC
    assert sys.path.count(SRC) == 1
    assert str(other) in sys.path  # nothing else removed


def test_src_added_when_missing(monkeypatch):
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != SRC])
    runpy.run_path(str(REPO / "workflow" / "scripts" / "_src.py"))
    assert sys.path[0] == SRC
