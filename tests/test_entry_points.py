"""Every ``python -m xaipipe...`` entry (issue 52, item 4): ``--help`` works, ``--config key=value`` is
taken as Snakemake takes it or refused with a message that says why, and no option is matched by
an abbreviation (``--config`` was read as ``--configfile`` by argparse's prefix matching)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from xaipipe.report import cost_model

SRC = Path(__file__).resolve().parents[1] / "src"


def entry_modules() -> list[str]:
    """Modules of the package with a ``__main__`` block (what ``python -m`` runs)."""
    out = []
    for path in sorted((SRC / "xaipipe").rglob("*.py")):
        if re.search(r"^if __name__ == .__main__.:", path.read_text(encoding="utf-8"), re.M):
            out.append(".".join(path.relative_to(SRC).with_suffix("").parts))
    return out


def test_the_entries_are_found():
    assert set(entry_modules()) >= {
        "xaipipe._lazy",
        "xaipipe.config_files",
        "xaipipe.report.cost_model",
        "xaipipe.report.diff",
        "xaipipe.report.profiling",
    }


@pytest.mark.parametrize("module", entry_modules())
def test_help_config_and_no_abbreviations(module):
    def run(*args):
        return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=120)

    helped = run("--help")
    assert helped.returncode == 0 and f"python -m {module}" in helped.stdout, helped.stderr
    assert re.search(r"--config \[?KEY=VALUE", helped.stdout), helped.stdout
    source = (SRC / Path(*module.split("."))).with_suffix(".py").read_text(encoding="utf-8")
    assert "allow_abbrev=False" in source
    if module == "xaipipe.report.cost_model":
        return  # takes --config (test below)
    refused = run("--config", "uci_mirror=../shared/data/uci")
    assert refused.returncode == 2
    assert (
        refused.stderr.strip().splitlines()[-1].startswith(f"python -m {module}: error: --config is not taken here: ")
    )


def test_cost_model_takes_config_as_snakemake_does(monkeypatch):
    seen = {}

    def dry_run(args, cores):
        seen["args"] = list(args)
        return ""  # no job: the entry stops after the dry run

    monkeypatch.setattr(cost_model, "_dry_run", dry_run)
    with pytest.raises(SystemExit) as info:
        cost_model.main(
            ["--configfile", "config/config.yaml", "--config", "uci_mirror=../shared/data/uci", "--cores", "2"]
        )
    assert info.value.code == 2
    assert seen["args"] == ["--config", "uci_mirror=../shared/data/uci", "--configfile", "config/config.yaml"]
    with pytest.raises(SystemExit):  # an abbreviation is not an option
        cost_model.main(["--configf", "config/config.yaml"])
    with pytest.raises(SystemExit):  # KEY=VALUE, as Snakemake's
        cost_model.main(["--config", "uci_mirror"])
