# Results follow the code, not the prose: every script rule gets the parameter `code`, a hash of
# the code (syntax tree without docstrings, comments or formatting) of its script and of every
# xaipipe module the script imports (transitively; xaipipe.report.code_version), and, for a
# figure rule, of the modules of its plot functions,
# which its script reaches through the figure catalog (xaipipe.plots.catalog.plot_modules).
# Snakemake's `params` rerun trigger then reruns a job when the code it runs changes, and its
# dependents follow (`mtime`); a clone of the same commit has the same hashes and reruns
# nothing. Included after every rule.
import xaipipe
from xaipipe.plots.catalog import plot_modules
from xaipipe.report.code_version import code_fingerprint

_PACKAGE_DIR = Path(xaipipe.__file__).resolve().parent
for _rule in workflow.rules:
    if _rule.script is not None:
        _rule.set_params(
            code=code_fingerprint(
                Path(_rule.snakefile).parent / str(_rule.script),
                _PACKAGE_DIR,
                modules=plot_modules(_rule.name),
            )
        )
