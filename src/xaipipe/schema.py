"""JSON Schema checks of the configuration and the dataset registry, one line per problem.

``workflow/schemas/config.schema.yaml`` and ``workflow/schemas/datasets.schema.yaml``
(JSON Schema draft 2020-12) describe every key. :func:`validate_config` checks a
document against one of them with :class:`jsonschema.Draft202012Validator` and, like
``snakemake.utils.validate(config, schema)``, fills in the schema's ``default``
values (the same "extend with default" validator of the jsonschema FAQ that Snakemake
uses, so the resolved configuration is the same). Instead of the first error and a
dump of the schema it raises one :class:`SchemaError` whose message has one line per
problem, each naming the key path and the fix::

    datasets.mine: unknown key 'targte' (did you mean 'target'?)
    split.cv_folds: 1 is less than the minimum of 2
    datasets.mine.source: give 'path' or 'url' and 'sha256'

The full jsonschema report of each problem is appended only with ``verbose=True``
(``snakemake --verbose``).
"""

from __future__ import annotations

import copy
import difflib
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

__all__ = ["SchemaError", "did_you_mean", "load_schema", "schema_problems", "validate_config"]


class SchemaError(ValueError):
    """A document violates its JSON Schema; ``problems`` holds one line per violation."""

    def __init__(self, problems: list[str], details: str = ""):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems) + (f"\n{details}" if details else ""))


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices`` (:func:`difflib.get_close_matches`,
    cutoff 0.6), or ``""``."""
    match = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


def load_schema(path: str | os.PathLike) -> dict:
    """Read a YAML/JSON schema file and check it against the draft 2020-12 meta-schema.

    Raises
    ------
    FileNotFoundError
        The file does not exist. ``jsonschema.SchemaError``: not a valid schema.
    """
    from jsonschema import Draft202012Validator

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"schema {path} does not exist")
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(doc)
    return doc


def _key_path(root: str, path: Iterable) -> str:
    text = root
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "config"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


_SIZES = {
    "minItems": ("item(s)", "at least"),
    "maxItems": ("item(s)", "at most"),
    "minProperties": ("key(s)", "at least"),
    "maxProperties": ("key(s)", "at most"),
    "minLength": ("character(s)", "at least"),
    "maxLength": ("character(s)", "at most"),
}


def _required_names(schema: Any) -> list[str]:
    """Keys named by ``required`` in a (``not`` / ``anyOf``) schema fragment."""
    if not isinstance(schema, Mapping):
        return []
    names = list(schema.get("required", []))
    for sub in schema.get("anyOf", []) + schema.get("oneOf", []):
        names += _required_names(sub)
    return names


def _alternatives(branches: list) -> str | None:
    """``'path' or 'url' and 'sha256'`` when every branch of a oneOf / anyOf names its required keys."""
    if not branches or not all(isinstance(b, Mapping) and b.get("required") for b in branches):
        return None
    return " or ".join(" and ".join(repr(k) for k in b["required"]) for b in branches)


def _unknown_keys(inst: Mapping, schema: Mapping) -> str:
    """``unknown key 'x' (did you mean ...)`` for each key of ``inst`` that neither ``properties``
    nor ``patternProperties`` of ``schema`` allows (empty when there is none)."""
    known = list(schema.get("properties") or {})
    patterns = list(schema.get("patternProperties") or {})
    extra = [k for k in inst if k not in known and not any(re.search(p, str(k)) for p in patterns)]
    return "; ".join(f"unknown key {k!r}{did_you_mean(k, known)}" for k in extra)


def _describe_branches(error) -> str:
    """One line for a failed ``oneOf`` / ``anyOf``: the alternatives' required keys, else the best
    matching branch's error."""
    alternatives = _alternatives(error.validator_value)
    if alternatives:
        return f"give {alternatives} (one alternative only)"
    if error.context:
        from jsonschema.exceptions import best_match

        # the alternative of the instance's own type says most: drop the others' type errors
        context = [e for e in error.context if e.validator != "type"] or error.context
        return _describe(best_match(context))
    return f"{_short(error.instance)} matches more than one alternative of the schema"


def _describe(error) -> str:
    """One line (without the key path) for a :class:`jsonschema.ValidationError`."""
    kind, value, inst, schema = error.validator, error.validator_value, error.instance, error.schema
    if kind in ("additionalProperties", "unevaluatedProperties") and isinstance(inst, Mapping):
        unknown = _unknown_keys(inst, schema)
        if unknown:
            return unknown
    if kind == "required":
        missing = [k for k in value if isinstance(inst, Mapping) and k not in inst]
        return f"missing required key(s) {missing}" if len(missing) != 1 else f"missing required key {missing[0]!r}"
    if kind == "type":
        types = [value] if isinstance(value, str) else list(value)
        wanted = " or ".join(_TYPE_NAMES.get(t, t) for t in types)
        return f"expected {wanted}, got {_short(inst)}"
    if kind == "enum":
        return f"{_short(inst)} is not one of {list(value)}{did_you_mean(inst, map(str, value))}"
    if kind == "const":
        return f"must be {value!r}, got {_short(inst)}"
    if kind == "not":
        names = [n for n in _required_names(value) if isinstance(inst, Mapping) and n in inst]
        if names:
            return f"key(s) {names} not allowed together with the other keys given here"
        return "a value that is not allowed here"
    if kind in ("oneOf", "anyOf"):
        return _describe_branches(error)
    if kind == "dependentRequired":
        return error.message.replace("is a dependency of", "is needed with")
    if kind == "propertyNames":
        return f"invalid key {_short(inst)}"
    if kind == "uniqueItems":
        return f"has repeated items: {_short(inst)}"
    if kind in _SIZES:
        what, bound = _SIZES[kind]
        return f"must have {bound} {value} {what}, got {_short(inst)}"
    # minimum, maximum, exclusive*, pattern, format: jsonschema's message is one short line
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."


def _extend_with_default(validator_class):
    """The validator of the jsonschema FAQ that ``snakemake.utils.validate`` uses: every
    ``properties`` keyword first sets missing properties to their schema ``default``."""
    from jsonschema import validators

    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        for prop, subschema in properties.items():
            if "default" in subschema:
                instance.setdefault(prop, subschema["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return validators.extend(validator_class, {"properties": set_defaults})


def schema_problems(
    instance: Any, schema: Mapping[str, Any], *, root: str = "", set_default: bool = False
) -> tuple[list[str], list]:
    """Every violation of ``schema`` by ``instance``, as one line each.

    Parameters
    ----------
    instance : object
        The document (a configuration mapping; a registry ``{dataset: entry}``).
    schema : mapping
        A draft 2020-12 schema (:func:`load_schema`); only document-internal ``$ref`` s.
    root : str
        Key path of ``instance`` in messages (``""``: paths start at its keys; ``"datasets"``
        for a registry document).
    set_default : bool
        Fill in ``default`` values while checking (in place), as ``snakemake.utils.validate``.

    Returns
    -------
    (lines, errors)
        ``"<key path>: <problem>"`` lines sorted by key path, and the
        :class:`jsonschema.ValidationError` objects they describe.
    """
    from jsonschema import Draft202012Validator

    cls = _extend_with_default(Draft202012Validator) if set_default else Draft202012Validator
    errors = list(cls(schema).iter_errors(instance))
    out = sorted(((_key_path(root, e.absolute_path), _describe(e), e) for e in errors), key=lambda t: t[:2])
    lines = list(dict.fromkeys(f"{path}: {text}" for path, text, _ in out))
    return lines, [e for _, _, e in out]


def validate_config(
    config: dict,
    schema: str | os.PathLike | Mapping[str, Any],
    *,
    set_default: bool = True,
    root: str = "",
    verbose: bool = False,
) -> dict:
    """Check ``config`` against a schema file, fill in its defaults, raise one concise error.

    Parameters
    ----------
    config : dict
        The document; with ``set_default`` its missing keys get the schema's defaults
        in place (exactly as ``snakemake.utils.validate(config, schema)``).
    schema : path or mapping
        ``workflow/schemas/config.schema.yaml`` (or ``datasets.schema.yaml``), or the
        loaded schema (copied: defaults are never shared between calls).
    set_default : bool, default True
    root : str
        Key path prefix in messages.
    verbose : bool
        Append jsonschema's full report of every problem (schema fragment and
        instance) to the message.

    Returns
    -------
    dict
        ``config`` (the same object).

    Raises
    ------
    SchemaError
        One line per problem, e.g. ``datasets.mine: unknown key 'targte' (did you mean 'target'?)``.
    """
    doc = load_schema(schema) if not isinstance(schema, Mapping) else copy.deepcopy(dict(schema))
    lines, errors = schema_problems(config, doc, root=root, set_default=set_default)
    if lines:
        details = "\n\n".join(str(e) for e in errors) if verbose else ""
        raise SchemaError(lines, details)
    return config
