"""benchmarks/cpu_profile.py: py-spy's raw stacks by activity and by script."""

import importlib.util

import pytest

from tests.conftest import REPO

_spec = importlib.util.spec_from_file_location("cpu_profile", REPO / "benchmarks" / "cpu_profile.py")
cpu_profile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cpu_profile)

ROOT = 'process 10:"/venv/bin/python /venv/bin/snakemake --cores 2"'
# Snakemake runs a script through `bash -c`, whose command line contains ';'
BASH = 'process 11:"/usr/bin/bash -c set -euo pipefail;  /venv/bin/python /w/.snakemake/scripts/tmpab_1.cv.py"'
CV = 'process 12:"/venv/bin/python /w/.snakemake/scripts/tmpab_1.cv.py"'
LOKY = 'process 13:"/venv/bin/python -m joblib.externals.loky.backend.popen_loky_posix --process-name L-1 --pipe 9"'
FIT = (
    "BaseGradientBoosting._fit_stage (sklearn/ensemble/_gb.py:500);DecisionTreeRegressor.fit "
    "(sklearn/tree/_classes.py:1399);BaseDecisionTree._fit (sklearn/tree/_classes.py:467)"
)
RAW = (
    "\n".join(
        [
            f"{ROOT};{BASH};{CV};<module> (tmpab_1.cv.py:47);main (tmpab_1.cv.py:16);{FIT} 30",
            f"{ROOT};{BASH};{CV};{LOKY};_run_module_as_main (<frozen runpy>:198);_fit_one (xaipipe/rashomon/mcr.py:90);"
            f"{FIT} 50",
            f"{ROOT};{BASH};{CV};<module> (tmpab_1.cv.py:3);_find_and_load (<frozen importlib._bootstrap>:1176);"
            "<module> (matplotlib/pyplot.py:60) 7",
            f"{ROOT};run (snakemake/cli.py:10);Condition.wait (threading.py:331) 400",
            f"{ROOT};schedule (snakemake/scheduling/job_scheduler.py:300) 5",
            # methods are written with their class: still waits
            f"{ROOT};{BASH};run (snakemake/shell.py:9);Popen._try_wait (subprocess.py:2004) 3",
            f"{ROOT};{BASH};{CV};{LOKY};loop (x.py:1);EpollSelector.select (selectors.py:468) 4",
            # a `python -c` command line with newlines, as py-spy writes it
            'process 20:"/venv/bin/python -c \nimport x\nx.run()\n";<module> (<string>:2);savefig (matplotlib/figure.py:3400);'
            "draw (matplotlib/backends/backend_agg.py:380) 2",
        ]
    )
    + "\n"
)


def _tables():
    return cpu_profile.tables(RAW.splitlines(keepends=True))


def test_activities_and_owners():
    by_activity, by_owner = _tables()
    assert by_activity["tree fit (scikit-learn)"] == 80
    assert by_owner[("cv", "tree fit (scikit-learn)")] == 30
    assert by_owner[("worker: rashomon.mcr", "tree fit (scikit-learn)")] == 50  # named after its xaipipe frame
    # an import owns what runs inside it, even matplotlib's module code
    assert by_owner[("cv", "import")] == 7
    # so does savefig, even where the innermost frame is drawing
    assert by_activity["figure: save (PDF/PNG)"] == 2
    assert by_owner[("snakemake (scheduler)", "snakemake")] == 5
    assert by_activity[cpu_profile.IDLE] == 400 + 3 + 4
    assert sum(by_activity.values()) == 30 + 50 + 7 + 400 + 5 + 2 + 3 + 4


def test_innermost_frame_decides():
    frames = ["fit (sklearn/ensemble/_gb.py:806)", "_fit (sklearn/tree/_classes.py:467)"]
    assert cpu_profile.classify(frames) == "tree fit (scikit-learn)"
    assert cpu_profile.classify(frames[:1]) == "gradient boosting besides the trees (scikit-learn)"
    assert cpu_profile.classify(["f (mine.py:1)"]) == cpu_profile.OTHER


def test_main_prints_shares_without_idle(tmp_path, capsys):
    raw = tmp_path / "run.spy"
    raw.write_text(RAW)
    cpu_profile.main([str(raw), "--rate", "1"])
    out = capsys.readouterr().out
    assert out.startswith("94 samples = 94 CPU-s at 1 Hz (and 407 samples of waiting threads")
    assert "| tree fit (scikit-learn) | 80 | 85.1 % | worker: rashomon.mcr 50, cv 30 |" in out
    assert cpu_profile.IDLE not in out


def test_truncated_file_is_an_error():
    with pytest.raises(ValueError, match="incomplete last record"):
        list(cpu_profile.records([f"{ROOT};<module> (x.py:1)"]))


def test_subpackage_modules_name_the_worker_and_the_engine():
    engine = (
        "engine_sums (xaipipe/explain/reliance/_engine.py:300);"
        "_kernel_sums (xaipipe/explain/reliance/_engine.py:340);accumulate (xaipipe/explain/reliance/_kernels.py:800)"
    )
    raw = (
        f"{ROOT};{BASH};{CV};{LOKY};_run_module_as_main (<frozen runpy>:198);"
        f"fit_group (xaipipe/models/fitting.py:95);{FIT} 6\n"
        f"{ROOT};{BASH};{CV};{LOKY};group_reliance (xaipipe/rashomon/refit.py:200);{engine} 4\n"
    )
    by_activity, by_owner = cpu_profile.tables(raw.splitlines(keepends=True))
    assert by_owner[("worker: models.fitting", "tree fit (scikit-learn)")] == 6
    assert by_owner[("worker: rashomon.refit", "MR engine (numba kernels)")] == 4
    assert cpu_profile.classify(["f (xaipipe/rashomon/_kernels.py:1)"]) == "MR engine (numba kernels)"
