"""The config files a run reads, checked as files: duplicate keys, invalid YAML, a later file that
silently replaces a user's dataset entry, a user's file that contributes nothing.

Snakemake reads a config file with PyYAML, which keeps the last of two equal keys: a second
top-level ``datasets:`` block drops the first without a word. It merges the files in order (the
Snakefile's ``configfile: config/config.yaml`` first, then every ``--configfile`` in the order
given, then ``--config key=value``), each later value replacing an earlier one: ``--configfile
my.yaml config/config.yaml`` gives the defaults back over the user's file (and ``--configfile my.yaml
--configfile config/config.yaml``, the option given twice, does not read my.yaml at all: the second
list replaces the first). The
workflow calls :func:`check_config_files` at start-up on every file Snakemake read
(``workflow.configfiles``): a duplicate key is an error naming the file and both lines; a dataset key
a user's file sets that a later file replaces, and a user's file of which no value survives, are
warnings.

Invalid YAML in a ``--configfile`` stops Snakemake itself before the workflow starts ("Config file is
not valid JSON or YAML"), with neither file nor line; ``python -m xaipipe.config_files FILE ...``
names both (the same check; it is also what the workflow runs on ``config/config.yaml`` before
reading it).

A config file is code: a family's ``estimators`` are import paths the jobs import, and Snakemake's
YTE templating (``__use_yte__: true``) evaluates Python while the file is read. Run only config
files you would run as scripts (docs/own_data.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

__all__ = [
    "ConfigFileError",
    "check_config_files",
    "check_workflow_config_files",
    "check_yaml_file",
    "leaf_lines",
    "main",
    "refuse_config_option",
    "repeated_configfile_option",
]


class ConfigFileError(ValueError):
    """A config file that cannot mean what it says (the message names the file and the line)."""


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses a key given twice in one mapping, and records the line of
    every key (``(file line numbers are 1-based)``)."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    seen: dict = {}
    out = _LinedDict()
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        line = key_node.start_mark.line + 1
        if key in seen and not (isinstance(key, str) and key.startswith("?")):  # YTE's ?if / ?else keys
            raise ConfigFileError(
                f"{loader.name}, line {line}: duplicate key {key!r} (first at line {seen[key]}); YAML keeps only the "
                f"last, so the block at line {seen[key]} would be dropped without a word: merge the two into one"
            )
        seen[key] = line
        out[key] = loader.construct_object(value_node, deep=deep)
        out.lines[key] = line
    return out


class _LinedDict(dict):
    """A dict that remembers the line of each key."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lines: dict = {}


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def check_yaml_file(path: str | os.PathLike) -> dict:
    """Read one config file strictly.

    Parameters
    ----------
    path : path-like
        A YAML (or JSON) config file.

    Returns
    -------
    dict
        The file's mapping, each nested mapping with a ``lines`` attribute (key -> 1-based line).

    Raises
    ------
    ConfigFileError
        Invalid YAML (``"<file>, line 3, column 5: ..."``, from PyYAML's mark), a key given twice in
        one mapping (both lines), or a file whose top level is not a mapping.
    FileNotFoundError
        The file does not exist.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    loader = _StrictLoader(text)
    loader.name = str(path)
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}, line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        problem = " ".join(p for p in (exc.context, exc.problem) if p)
        raise ConfigFileError(f"{where}: not valid YAML ({problem})") from None
    except yaml.YAMLError as exc:
        raise ConfigFileError(f"{path}: not valid YAML ({exc})") from None
    finally:
        loader.dispose()
    if data is None:
        return _LinedDict()
    if not isinstance(data, dict):
        raise ConfigFileError(
            f"{path}: a config file holds a mapping of keys at its top level, not a {type(data).__name__}"
        )
    return data


def leaf_lines(data: Mapping, prefix: tuple = ()) -> dict[tuple, tuple[object, int]]:
    """Every leaf of a nested mapping: key path -> (value, line). An empty mapping is a leaf."""
    out = {}
    lines = getattr(data, "lines", {})
    for key, value in data.items():
        path = (*prefix, key)
        if isinstance(value, Mapping) and value:
            out.update(leaf_lines(value, path))
        else:
            out[path] = (value, lines.get(key, 0))
    return out


@dataclass(frozen=True)
class _Source:
    path: Path
    leaves: dict
    user: bool  # a --configfile (the Snakefile's own configfile: is the defaults, not a user's file)


def _dotted(path: tuple) -> str:
    return ".".join(map(str, path))


def check_config_files(
    defaults: Sequence[str | os.PathLike],
    user_files: Sequence[str | os.PathLike],
    overrides: Mapping | None = None,
) -> list[str]:
    """Check the files a run reads, in Snakemake's merge order; return warnings, raise errors.

    Parameters
    ----------
    defaults : sequence of path-like
        The Snakefile's ``configfile:`` files (read first).
    user_files : sequence of path-like
        The ``--configfile`` files, in the order given (each replaces the values of those before);
        one of ``defaults`` among them (``--configfile config/config.yaml``) is read again at its
        place but is not a user's file.
    overrides : mapping, optional
        ``--config key=value`` (read last).

    Returns
    -------
    list of str
        One warning per dataset key of a user's file that a later user's file replaces with another
        value (``datasets.mine.target in my.yaml line 7 ('y') is replaced by datasets.mine.target =
        'price' from later.yaml line 3, ...``); one per user's file followed by a default file given
        again (``--configfile my.yaml --configfile config/config.yaml``), listing the keys it sets back;
        one per user's file none of whose values survive.

    Raises
    ------
    ConfigFileError
        See :func:`check_yaml_file`, for each file.
    """
    default_paths = {Path(p).absolute() for p in defaults}
    sources = [_Source(Path(p), leaf_lines(check_yaml_file(p)), False) for p in defaults]
    sources += [
        _Source(Path(p), leaf_lines(check_yaml_file(p)), Path(p).absolute() not in default_paths) for p in user_files
    ]
    if overrides:
        sources.append(_Source(Path("--config"), {k: (v, 0) for k, v in leaf_lines(overrides).items()}, False))
    warnings = []
    for i, source in enumerate(sources):
        if not source.user or not source.leaves:
            continue
        replaced = {}
        for key in source.leaves:
            for later in sources[i + 1 :]:
                hit = _replacement(later.leaves, key)
                if hit is not None:
                    replaced[key] = (later, hit)
        by_defaults: dict[Path, list[str]] = {}
        for key, (later, (new_value, new_line, new_key)) in replaced.items():
            value, line = source.leaves[key]
            if later.path.absolute() in default_paths:  # config/config.yaml given again after the user's file
                by_defaults.setdefault(later.path, []).append(f"{_dotted(key)} (line {line})")
            elif later.user and key[0] == "datasets" and new_value != value:
                warnings.append(
                    f"{_dotted(key)} in {source.path} line {line} ({value!r}) is replaced by {_dotted(new_key)} = "
                    f"{new_value!r} from {later.path} line {new_line}, read after it: give that file first, or drop "
                    "the key there"
                )
        for path, keys in by_defaults.items():
            more = "" if len(keys) <= 4 else f", ... ({len(keys)} in all)"
            warnings.append(
                f"{path}, given after {source.path}, sets back its defaults over {', '.join(keys[:4])}{more}: "
                f"give {path.name} first (or leave it out: the Snakefile reads it anyway)"
            )
        if len(replaced) == len(source.leaves):
            lasts = sorted({str(later.path) for later, _ in replaced.values()})
            warnings.append(
                f"{source.path} contributes nothing: every value it sets is replaced by a file read after it "
                f"({', '.join(lasts)}); Snakemake reads --configfile files in the order given, the last one winning: "
                f"give {source.path.name} last"
            )
    return warnings


def _replacement(leaves: Mapping, key: tuple):
    """``(value, line, key)`` of ``leaves`` that replaces ``key`` (the key itself, or a scalar /
    list given at one of its prefixes), or None."""
    if key in leaves:
        value, line = leaves[key]
        return value, line, key
    for n in range(1, len(key)):
        prefix = key[:n]
        if prefix in leaves:  # a scalar or a list where a mapping was: replaces the whole block
            value, line = leaves[prefix]
            if not isinstance(value, Mapping):
                return value, line, prefix
    return None


def _files_of(workflow) -> tuple[list[Path], list[Path]]:
    """The Snakefile's ``configfile:`` files and the ``--configfile`` files of a Snakemake workflow."""
    user = [Path(p).absolute() for p in workflow.config_settings.configfiles]
    # workflow.configfiles: the --configfile files, then each configfile: directive's file appended
    defaults = [Path(p).absolute() for p in list(workflow.configfiles)[len(user) :]]
    return defaults, user


def repeated_configfile_option(argv: Sequence[str]) -> str | None:
    """A warning when ``--configfile`` is given more than once on a Snakemake command line, or None.

    Snakemake's ``--configfile`` takes a list (``nargs="+"``) and a second ``--configfile`` replaces
    the first list: ``--configfile my.yaml --configfile config/config.yaml`` never reads my.yaml.
    """
    groups: list[list[str]] = []
    current = None
    for token in argv:
        name, eq, value = token.partition("=")
        if name in ("--configfile", "--configfiles"):
            current = [value] if eq else []
            groups.append(current)
        elif token.startswith("-"):
            current = None
        elif current is not None:
            current.append(token)
    if len(groups) < 2:
        return None
    dropped = [f for group in groups[:-1] for f in group if f not in groups[-1]]
    if not dropped:
        return None
    files = list(dict.fromkeys(f for group in groups for f in group))
    files.sort(key=lambda f: not f.replace("\\", "/").endswith("config/config.yaml"))  # the defaults first
    return (
        f"--configfile is given {len(groups)} times: Snakemake reads only the files of the last one "
        f"({' '.join(groups[-1])}), so {', '.join(dropped)} {'is' if len(dropped) == 1 else 'are'} not read at all; "
        f"give every file after one --configfile: --configfile {' '.join(files)}"
    )


def check_workflow_config_files(workflow, logger, argv: Sequence[str] | None = None) -> None:
    """:func:`check_config_files` on what a running Snakemake workflow read, and
    :func:`repeated_configfile_option` on its command line (``argv``; the main process's
    ``sys.argv`` when None); warnings to ``logger``. In the main process only: a job re-reads the
    files the main process checked before any job started."""
    if not getattr(workflow, "is_main_process", True):
        return
    defaults, user = _files_of(workflow)
    overrides = dict(getattr(workflow.config_settings, "config", None) or {})
    warnings = check_config_files(defaults, user, overrides)
    repeated = repeated_configfile_option(sys.argv[1:] if argv is None else argv)
    for line in ([repeated] if repeated else []) + warnings:
        logger.warning(f"config: {line}")


def refuse_config_option(parser: argparse.ArgumentParser, reason: str) -> None:
    """Give a ``python -m xaipipe...`` command line a ``--config`` option that stops with ``reason``.

    Snakemake users type ``--config key=value`` everywhere; an entry that reads no config says so
    instead of argparse's "unrecognized arguments" (or, with abbreviations on, taking it for
    ``--configfile``). Build the parser with ``allow_abbrev=False``.
    """

    class _Refuse(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            parser.error(f"--config is not taken here: {reason}")

    parser.add_argument("--config", nargs="*", action=_Refuse, metavar="KEY=VALUE", help=f"not taken: {reason}")


def main(argv: Iterable[str] | None = None) -> int:
    """``python -m xaipipe.config_files FILE ...``: the checks of :func:`check_config_files`, the
    files taken as ``--configfile`` files in the order given (after ``config/config.yaml`` when it
    exists and is not among them). Exit status 1 on an error."""
    parser = argparse.ArgumentParser(
        prog="python -m xaipipe.config_files",
        description="Check config files as a run reads them: YAML errors and duplicate keys with file and line; "
        "dataset keys a later file replaces; a file that contributes nothing.",
        allow_abbrev=False,
    )
    parser.add_argument("files", nargs="+", help="the --configfile files, in the order Snakemake gets them")
    refuse_config_option(parser, "--config key=value overrides are checked by the schema when Snakemake starts")
    parser.add_argument(
        "--defaults",
        default="config/config.yaml",
        help="the Snakefile's configfile (read first; default: config/config.yaml; '' for none)",
    )
    args = parser.parse_args(None if argv is None else list(argv))
    defaults = [args.defaults] if args.defaults and Path(args.defaults).exists() else []
    try:
        warnings = check_config_files(defaults, args.files)
    except (ConfigFileError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for line in warnings:
        print(f"warning: {line}")
    print(f"{len(args.files)} file(s) checked, {len(warnings)} warning(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
