"""Run a command (a Snakemake run) and report its wall time, the CPU of the command's own
process (Snakemake's scheduler loop, not its jobs) and the CPU of the whole process tree.

    python benchmarks/snakemake_cpu.py snakemake --cores 2 --configfile config/config.yaml \\
        tests/configs/small.yaml --config uci_mirror=../shared/data/uci
    python benchmarks/snakemake_cpu.py --tiny    # wraps `python -c pass` (log in a temporary folder)

The command's own CPU is read from ``/proc/<pid>/stat`` (utime, stime) every 0.2 s until it
exits (Linux only); the tree's from ``getrusage(RUSAGE_CHILDREN)`` after it exits. The
command's stderr goes to ``--log`` (default ``logs/snakemake_cpu.log``, git-ignored). See
docs/history/2026-11_performance.md, "Snakemake's own scheduler loop".
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", default="logs/snakemake_cpu.log", help="file for the command's stderr")
    parser.add_argument("--tiny", action="store_true", help="wrap `python -c pass`, the log in a temporary folder")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run")
    args = parser.parse_args(argv)
    if args.tiny:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="snakemake_cpu_tiny_") as folder:
            return main(["--log", os.path.join(folder, "tiny.log"), sys.executable, "-c", "pass"])
    if not args.command:
        parser.error("give the command to run")
    if not os.path.isdir("/proc"):
        parser.error("needs /proc (Linux)")
    tick = os.sysconf("SC_CLK_TCK")
    os.makedirs(os.path.dirname(args.log) or ".", exist_ok=True)
    t0 = time.perf_counter()
    with open(args.log, "w") as log:
        proc = subprocess.Popen(args.command, stdout=subprocess.DEVNULL, stderr=log)
        own = (0.0, 0.0)
        while proc.poll() is None:
            try:
                with open(f"/proc/{proc.pid}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                own = (int(fields[11]) / tick, int(fields[12]) / tick)
            except FileNotFoundError:  # the process has been reaped
                pass
            time.sleep(0.2)
    wall = time.perf_counter() - t0
    tree = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"rc={proc.returncode} wall_s={wall:.1f} own_user_s={own[0]:.1f} own_sys_s={own[1]:.1f} "
        f"tree_user_s={tree.ru_utime:.1f} tree_sys_s={tree.ru_stime:.1f}"
    )
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
