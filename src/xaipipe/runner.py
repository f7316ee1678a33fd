"""Glue between Snakemake ``script:`` rules and the package.

Each script in ``workflow/scripts/`` is a few lines::

    from xaipipe.runner import run

    def main(smk):
        ...

    run(snakemake, main)

:func:`run` sends logging, warnings and tracebacks to the rule's ``log:`` file,
limits BLAS/OpenMP threads to the rule's ``threads:``, registers the model
families declared in the ``families`` config section, and re-raises errors so
that Snakemake marks the job failed (and removes its outputs).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable
from typing import Any

__all__ = ["run", "get_logger"]

LOGGER_NAME = "xaipipe"


def get_logger() -> logging.Logger:
    return logging.getLogger(LOGGER_NAME)


def run(smk: Any, main: Callable[[Any], None]) -> None:
    """Run ``main(smk)`` with logging to ``smk.log[0]`` and thread limits.

    Parameters
    ----------
    smk : snakemake.script.Snakemake
        The ``snakemake`` object Snakemake injects into scripts.
    main : callable
        The script body.
    """
    log_path = smk.log[0] if len(smk.log) else None
    handlers: list[logging.Handler] = []
    stream = None
    if log_path:
        os.makedirs(os.path.dirname(log_path) or ".", exist_ok=True)
        stream = open(log_path, "a", encoding="utf-8", buffering=1)
        handlers.append(logging.StreamHandler(stream))
    else:
        handlers.append(logging.StreamHandler(sys.stderr))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)
    # matplotlib's PDF backend subsets fonts through fontTools, which logs every
    # glyph table at INFO (hundreds of lines per figure)
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    log = get_logger()
    config = getattr(smk, "config", None) or {}
    if config.get("families"):
        from .models.families import register_config_families

        register_config_families(config["families"])  # families declared in config, in this job's process
    threads = int(getattr(smk, "threads", 1) or 1)
    log.info("rule %s, wildcards %s, threads %d", smk.rule, dict(smk.wildcards), threads)
    t0 = time.perf_counter()
    try:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=threads):
            main(smk)
    except BaseException:
        log.exception("rule %s failed", smk.rule)
        raise
    finally:
        log.info("rule %s finished in %.2f s", smk.rule, time.perf_counter() - t0)
        if stream is not None:
            stream.flush()
