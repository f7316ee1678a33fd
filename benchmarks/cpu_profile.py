"""Where the CPU of a whole Snakemake run goes, by activity and by script, from py-spy samples.

The ``benchmark:`` files say which *jobs* are slow; this says which *kind of work* the
CPU did across all jobs, their joblib workers and the ``snakemake`` process itself:
scikit-learn's tree builder, TreeSHAP, the MR engine's numba kernels, imports, figure
drawing, and so on. It reads the collapsed stacks that py-spy writes with
``--format raw`` (one line per distinct stack: ``frame;frame;... count``; with
``--subprocesses`` the stack starts with one ``process PID:"command line"`` frame per
process from the root down to the sampled one).

Record a run (20 samples per second and process, without pausing the processes)::

    py-spy record --subprocesses --nonblocking --rate 20 --format raw -o run.spy -- \\
        snakemake --cores 2 --config uci_mirror=../shared/data/uci version=full
    python benchmarks/cpu_profile.py run.spy [--rate 20] [--top 12]
    python benchmarks/cpu_profile.py --tiny     # the tables of a self-made record (TINY_RAW)

``samples / rate`` approximates CPU seconds, but not exactly: py-spy samples a thread
while it is *runnable*, so on a loaded machine (2 cores, 3 runnable processes) the
seconds exceed the CPU seconds, and with ``--nonblocking`` it cannot always tell that a
thread is waiting. Stacks whose innermost frame is a known wait (:data:`IDLE_FRAMES`) are
therefore left out, and the tables are best read as shares. Time in C threads that no
Python thread owns (OpenMP / numba workers) is seen once, as the Python frame waiting
for them.

A stack that passes through an import, a numba compilation or a ``savefig`` belongs to
that (:data:`ENCLOSING`); any other to the activity of :data:`ACTIVITIES` that matches
its innermost frame, searched outwards, so a tree fit inside a bootstrap resample counts
as ``tree fit``. The script a job runs is taken from its command line (Snakemake writes
it as ``.snakemake/scripts/tmpXXXX.<script>.py``); joblib workers (``loky``) are named
after the ``xaipipe`` module their stack runs, if any.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys

# Activities that own every stack passing through them, whatever runs further in:
# checked first, in this order, anywhere in the stack.
ENCLOSING = [
    ("import", ("_find_and_load (<frozen importlib._bootstrap>",)),
    ("numba compile / cache load", ("_compile_for_args (numba/", "numba/core/compiler.py", "numba/core/caching.py")),
    ("figure: save (PDF/PNG)", ("savefig (matplotlib/",)),
]
# The others: the innermost frame that matches one of them decides.
ACTIVITIES = [
    ("tree fit (scikit-learn)", ("_fit (sklearn/tree/_classes.py", "_build_tree (sklearn/ensemble/_forest.py")),
    ("gradient boosting besides the trees (scikit-learn)", ("sklearn/ensemble/_gb.py",)),
    ("random forest besides the trees (scikit-learn)", ("sklearn/ensemble/_forest.py",)),
    ("xgboost training", ("train (xgboost/training.py",)),
    ("TreeSHAP (shap)", ("shap/explainers/_tree.py",)),
    (
        "model-agnostic SHAP (shap)",
        ("shap/explainers/_permutation.py", "shap/explainers/_exact.py", "shap/explainers/_kernel.py"),
    ),
    (
        "MR engine (numba kernels)",
        (
            "xaipipe/explain/reliance/_kernels.py",
            "xaipipe/explain/reliance/_engine.py",
            # before the issue-22 refactor
            "xaipipe/rashomon/_kernels.py",
            "xaipipe/rashomon/engine.py",
        ),
    ),
    ("prediction (xgboost)", ("predict (xgboost/core.py", "inplace_predict (xgboost/core.py")),
    (
        "prediction (scikit-learn)",
        (
            "predict (sklearn/",
            "predict_proba (sklearn/",
            "staged_",
            "_raw_predict (sklearn/",
            "decision_function (sklearn/",
            "_accumulate_prediction (sklearn/",
        ),
    ),
    ("figure: draw", ("matplotlib/", "shap/plots/")),
    ("metrics (scikit-learn)", ("sklearn/metrics/",)),
    ("CSV / joblib I/O", ("to_csv (pandas/", "read_csv (pandas/", "joblib/numpy_pickle.py")),
    ("joblib workers: transfer", ("joblib/externals/loky/", "joblib/parallel.py")),
    ("snakemake", ("snakemake/",)),
]
# Innermost frames of threads that wait rather than compute, as "function (file": py-spy
# writes a method as "Class.function (file:line)", and the class is left out before matching
# (``Popen._try_wait``, ``EpollSelector.select``). py-spy's --nonblocking mode cannot always
# tell such a thread is idle and samples it; these samples are not CPU.
IDLE = "idle (waiting)"
IDLE_FRAMES = (
    "wait (threading.py",
    "join (threading.py",
    "_wait_for_tstate_lock (threading.py",
    "_try_wait (subprocess.py",
    "select (selectors.py",
    "get (queue.py",
    "_poll (multiprocessing/connection.py",
    "_recv (multiprocessing/connection.py",
    "wait (multiprocessing/connection.py",
)
OTHER = "other"

# --tiny: a self-made record in py-spy's raw format (Snakemake, a cv script through `bash -c`, one
# of its joblib workers, an import, a wait, a savefig in a `python -c` with newlines)
_ROOT = 'process 10:"/venv/bin/python /venv/bin/snakemake --cores 2"'
_BASH = 'process 11:"/usr/bin/bash -c set -euo pipefail;  /venv/bin/python /w/.snakemake/scripts/tmpab_1.cv.py"'
_CV = 'process 12:"/venv/bin/python /w/.snakemake/scripts/tmpab_1.cv.py"'
_LOKY = 'process 13:"/venv/bin/python -m joblib.externals.loky.backend.popen_loky_posix --pipe 9"'
_FIT = (
    "_fit_stage (sklearn/ensemble/_gb.py:500);fit (sklearn/tree/_classes.py:1399);_fit (sklearn/tree/_classes.py:467)"
)
TINY_RAW = "".join(
    line + "\n"
    for line in (
        f"{_ROOT};{_BASH};{_CV};<module> (tmpab_1.cv.py:47);main (tmpab_1.cv.py:16);{_FIT} 30",
        f"{_ROOT};{_BASH};{_CV};{_LOKY};_fit_one (xaipipe/models/fitting.py:90);{_FIT} 50",
        f"{_ROOT};{_BASH};{_CV};<module> (tmpab_1.cv.py:3);_find_and_load (<frozen importlib._bootstrap>:1176) 7",
        f"{_ROOT};{_BASH};{_CV};{_LOKY};accumulate (xaipipe/explain/reliance/_kernels.py:800) 12",
        f"{_ROOT};run (snakemake/cli.py:10);Condition.wait (threading.py:331) 400",
        f"{_ROOT};schedule (snakemake/scheduling/job_scheduler.py:300) 5",
        'process 20:"/venv/bin/python -c \nimport x\n";<module> (<string>:2);savefig (matplotlib/figure.py:3400) 2',
    )
)
_PROCESS = re.compile(r'process (\d+):"(.*?)";', re.S)
_SCRIPT = re.compile(r"tmp[\w-]*\.(\w+)\.py")
_COUNT = re.compile(r" \d+$")
_XAIPIPE = re.compile(r"xaipipe/((?:\w+/)+\w+)\.py")


def classify(frames):
    """Activity of one stack (list of frame strings, outermost first)."""
    if frames:
        name, _, where = frames[-1].partition(" (")
        if f"{name.rsplit('.', 1)[-1]} ({where}".startswith(IDLE_FRAMES):
            return IDLE
    for name, patterns in ENCLOSING:
        if any(p in frame for frame in frames for p in patterns):
            return name
    for frame in reversed(frames):
        for name, patterns in ACTIVITIES:
            if any(p in frame for p in patterns):
                return name
    return OTHER


def owner(command: str, frames) -> str:
    """Which part of the run a process is: a workflow script, a joblib worker, or snakemake."""
    m = _SCRIPT.search(command)
    if m:
        return m.group(1)
    if "loky" in command or "joblib" in command:
        for frame in frames:
            m = _XAIPIPE.search(frame)
            if m:
                return "worker: " + m.group(1).replace("/", ".")
        return "worker: other"
    if "snakemake" in command:
        return "snakemake (scheduler)"
    return "other"


def records(lines):
    """py-spy's raw lines, with command lines that contain newlines (``python -c``) joined."""
    buffer = ""
    for line in lines:
        buffer += line
        text = buffer.rstrip("\n")
        closed = not text.startswith("process ") or '";' in text
        if text and closed and _COUNT.search(text):
            yield text
            buffer = ""
        elif not text:
            buffer = ""
    if buffer.strip():
        raise ValueError(f"incomplete last record: {buffer[:200]!r}")


def parse(lines):
    """Yield (owner, activity, samples) for every stack of py-spy's raw output."""
    for line in records(lines):
        stack, _, count = line.rpartition(" ")
        command = ""
        # root process, then its descendants (a `bash -c` command line may contain ';')
        while m := _PROCESS.match(stack):
            command = m.group(2)
            stack = stack[m.end() :]
        frames = stack.split(";")
        yield owner(command, frames), classify(frames), int(count)


def tables(lines):
    """Samples per activity and per (owner, activity): two Counters."""
    by_activity, by_owner = collections.Counter(), collections.Counter()
    for who, what, n in parse(lines):
        by_activity[what] += n
        by_owner[(who, what)] += n
    return by_activity, by_owner


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("raw", nargs="?", help="py-spy record --format raw output")
    ap.add_argument("--tiny", action="store_true", help="read a self-made record (TINY_RAW) instead")
    ap.add_argument("--rate", type=float, default=20.0, help="py-spy's --rate (samples per second)")
    ap.add_argument("--top", type=int, default=12, help="owners listed per activity")
    args = ap.parse_args(argv)
    if args.tiny:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="cpu_profile_tiny_") as folder:
            raw = os.path.join(folder, "tiny.spy")
            with open(raw, "w", encoding="utf-8") as fh:
                fh.write(TINY_RAW)
            return main([raw, "--rate", "1", "--top", str(args.top)])
    if not args.raw:
        ap.error("give py-spy's raw output (or --tiny)")
    with open(args.raw, encoding="utf-8", errors="replace") as fh:
        by_activity, by_owner = tables(fh)
    idle = by_activity.pop(IDLE, 0)
    for key in [k for k in by_owner if k[1] == IDLE]:
        del by_owner[key]
    total = sum(by_activity.values())
    if not total:
        sys.exit(f"{args.raw}: no samples")
    print(
        f"{total} samples = {total / args.rate:.0f} CPU-s at {args.rate:g} Hz "
        f"(and {idle} samples of waiting threads, {idle / args.rate:.0f} s, left out)\n"
    )
    print("| activity | CPU-s | share | largest parts (script or worker: CPU-s) |")
    print("|---|---|---|---|")
    for what, n in by_activity.most_common():
        parts = sorted(((c, who) for (who, w), c in by_owner.items() if w == what), reverse=True)[: args.top]
        listed = ", ".join(f"{who} {c / args.rate:.0f}" for c, who in parts if c / args.rate >= 1)
        print(f"| {what} | {n / args.rate:.0f} | {100 * n / total:.1f} % | {listed} |")
    per_owner = collections.Counter()
    for (who, _), n in by_owner.items():
        per_owner[who] += n
    print("\n| script or worker | CPU-s | share |")
    print("|---|---|---|")
    for who, n in per_owner.most_common():
        print(f"| {who} | {n / args.rate:.0f} | {100 * n / total:.1f} % |")


if __name__ == "__main__":
    main()
