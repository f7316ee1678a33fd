"""Every path, module and section named in the current documentation exists.

Pages checked (``PAGES``): ``README.md``, ``config/README.md``, ``results/README.md``,
``docs/*.md`` and ``docs/history/README.md``. The dated pages ``docs/history/20*.md`` are exempt:
they describe the code as it was on their date, and what they name may since have moved or gone
(``docs/layout.md`` says where things are now).

What counts as named, and how it is checked:

1. **Links** ``[text](target)``: a target that is not a URL (``scheme:``) must exist relative to the
   page's folder, as GitHub resolves it; its ``#anchor`` must be the slug of a heading of the target
   page (GitHub's rule: lower case, punctuation dropped, spaces to hyphens; ``-1``, ``-2`` for
   repeated headings).
2. **Paths in code** (inline code spans and fenced blocks, split into words) and in prose (words
   that start with a top-level folder of the repository, such as ``docs/cluster.md``). A word,
   stripped of the quotes and punctuation around it, is a path when it contains ``/`` and its first
   segment is a folder of the repository root, of ``src/xaipipe``, of the page's folder or of a
   result version (``data``, ``models``, ``explain``, ... from the path catalog); or when it has no
   ``/`` and a source extension (``SOURCE_EXTENSIONS``): a file name. Not paths: URLs, absolute
   paths and words starting with ``~`` or ``$`` (a user's or a machine's), ``key=value`` words,
   flags, words with ``:`` other than a test id ``file.py::test`` (``"module:function"``), paths
   that leave the repository (``../shared/data/uci``, the mirror beside the checkout), and the files
   a reader makes in the docs' examples (``USER_FILES``: ``my.yaml``, ``data/my.csv``, ...).
   Brace lists expand (``test_{a,b}.py``); ``<placeholder>``, ``{wildcard}``, ``*`` and ``...`` match
   any name within one segment.

   A path exists when it names a tracked file or folder (``git ls-files``, new files included) relative to the
   repository root, the page's folder or ``src/xaipipe`` (module paths such as
   ``rashomon/mcr.py``); a file name when a tracked file has that name; ``tests/x.py::test_y`` also
   needs ``def test_y`` (or ``class test_y``) in the file.
3. **Results.** The files under a version folder ``results/<version>/`` are written by a run, not
   tracked. A path under ``results/`` (except the tracked ``results/README.md``), or one relative to
   a version folder (``explain/<dataset>/large_data.csv``) that names no tracked file, must match a
   template of the path catalog ``xaipipe.paths.PATHS`` (a folder: the folder of a template, or of
   one of its parents). Paths under ``logs/`` and ``.snakemake/`` are run output with no catalog:
   not checked.
4. **Modules**: ``xaipipe.a.b`` (and ``xaipipe.a.b.name``, ``xaipipe.a.B.attr``) must name a module of
   the package and, past the module, attributes it has (imported, front doors included); a module
   run as ``python -m benchmarks.x`` must be a file of ``benchmarks/``. Not modules: the keys of
   ``manifest.json``'s ``xaipipe`` record (``NOT_MODULES``: ``xaipipe.path``, ...).
5. **Sections**: a section quoted after a page (`` `docs/performance.md`, "Peak RSS" `` or
   `` `docs/performance.md` ("Peak RSS") ``) must begin a heading or a bold lead (``**Peak RSS.**``) of
   that page. This is checked in every tracked text file, code comments and the configuration
   included, since they cite the docs the same way; the dated history pages are exempt here too.

Beside these: ``docs/layout.md``'s tree names every folder and top-level module of the package and
the other top-level folders, and ``docs/README.md`` lists every page of ``docs/``.
"""

from __future__ import annotations

import fnmatch
import functools
import importlib
import posixpath
import re
import subprocess
from pathlib import Path, PurePosixPath

import pytest

from xaipipe.paths import PATHS

REPO = Path(__file__).resolve().parents[1]

#: the reader's pages whose every path is checked (docs/history/20*.md: dated, exempt)
PAGES = ("README.md", "config/README.md", "results/README.md", "docs/*.md", "docs/history/README.md")
#: a word without "/" is a file name when it has one of these extensions
SOURCE_EXTENSIONS = (".py", ".smk", ".md", ".yaml", ".yml", ".toml", ".rst", ".sh", ".tsv", ".jsonl", ".mplstyle")
#: folders that hold what a run writes and that no catalog describes
RUN_OUTPUT = ("logs", ".snakemake")
#: files a reader makes, named in the docs' examples (``--configfile my.yaml``, ``{path: data/my.csv}``)
USER_FILES = frozenset(
    {
        "my.yaml",
        "my_overrides.yaml",
        "more.yaml",
        "later.yaml",
        "v.yaml",
        "only_simulated.yaml",
        "scale_n64000.yaml",
        "data/my.csv",
        "data/mine.csv",
        "data/grades.csv",
        "x.rst",
        "workflow/report/x.rst",
    }
)
#: dotted words that are keys of ``manifest.json``'s ``xaipipe`` record, not modules
NOT_MODULES = frozenset({"xaipipe.path", "xaipipe.from_checkout"})
#: text files scanned for quoted sections of a page (rule 5)
TEXT_SUFFIXES = (".md", ".py", ".smk", ".yaml", ".yml", ".toml", ".sh", ".rst", ".cfg")

FENCE = re.compile(r"^ {0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
MODULE = re.compile(r"(?<![\w.])(xaipipe(?:\.[A-Za-z_]\w*)+)")
PY_M = re.compile(r"python3?\s+-m\s+(benchmarks(?:\.\w+)+)")
SECTION = re.compile(
    r"(?P<page>[\w./-]+\.md)`?(?:\]\([^)\s]*\))?(?:,\s*|\s*\(\s*|\s+)\"(?P<section>[^\"]{3,160})\"",
)
WORD_LEAD = "`'\"(["  # a leading "." stays: .ci/run, .gitignore
WORD_TRAIL = "`'\"()[],;.:!?"


@functools.cache
def tracked() -> frozenset[str]:
    """Tracked (and new, not ignored) files and their folders, repository-relative (folders end in '/')."""
    cmd = ["git", "ls-files", "--cached", "--others", "--exclude-standard"]  # new files count before a commit
    run = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if run.returncode != 0:
        pytest.skip(f"not a git checkout ({run.stderr.strip()}): the tracked files are unknown")
    out = run.stdout
    entries = set()
    for line in out.splitlines():
        if not (REPO / line).exists():  # deleted in the work tree, not yet committed
            continue
        entries.add(line)
        for parent in PurePosixPath(line).parents:
            if str(parent) != ".":
                entries.add(f"{parent}/")
    return frozenset(entries)


@functools.cache
def tracked_names() -> frozenset[str]:
    return frozenset(PurePosixPath(p).name for p in tracked() if not p.endswith("/"))


def page_files() -> list[str]:
    pages = []
    for pattern in PAGES:
        pages += sorted(str(p.relative_to(REPO)) for p in REPO.glob(pattern))
    return pages


def split_code(text: str) -> tuple[str, list[str]]:
    """The page's prose (fenced blocks and code spans blanked) and its pieces of code."""
    prose, code, block, fence = [], [], [], None
    for line in text.splitlines():
        match = FENCE.match(line)
        if fence is None and match:
            fence, block = match.group(1), []
        elif fence is not None and line.strip().startswith(fence):
            code.append("\n".join(block))
            fence = None
        elif fence is not None:
            block.append(line)
        else:
            prose.append(line)
            continue
        prose.append("")
    prose_text = "\n".join(prose)
    code += [m.group(2) for m in CODE_SPAN.finditer(prose_text)]
    return CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), prose_text), code


def expand_braces(word: str) -> list[str]:
    """``a{b,c}d`` -> ``abd``, ``acd`` (a brace without a comma is a wildcard and stays);
    ``x.pdf/.png`` -> ``x.pdf``, ``x.png``."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", word)
    if match:
        head, tail = word[: match.start()], word[match.end() :]
        return [w for part in match.group(1).split(",") for w in expand_braces(head + part + tail)]
    match = re.fullmatch(r"(.*/[^/]+?)(\.\w+)((?:/\.\w+)+)", word)
    if match:
        return [match.group(1) + ext for ext in [match.group(2), *match.group(3).split("/")[1:]]]
    return [word]


def as_pattern(path: str) -> str:
    """A documented path as an fnmatch pattern: placeholders match within one segment."""
    path = re.sub(r"<[^<>/]*>|\{[^{}/]*\}|\.\.\.|…", "\x00", path)
    return path.replace("[", "[[]").replace("\x00", "*")


@functools.cache
def result_folders() -> frozenset[str]:
    return frozenset(t.split("/")[0] for t in PATHS.values() if "/" in t)


@functools.cache
def catalog_patterns() -> tuple[str, ...]:
    """The catalog's templates as fnmatch patterns, and the folders of each (ending in '/')."""
    patterns = set()
    for template in PATHS.values():
        pattern = re.sub(r"\{[^{}]*\}", "*", template)
        patterns.add(pattern)
        parts = pattern.split("/")
        for i in range(1, len(parts)):
            patterns.add("/".join(parts[:i]) + "/")
    return tuple(sorted(patterns))


def segment_matches(doc: str, template: str) -> bool:
    """One segment of a documented path against one of a catalog pattern."""
    pattern = as_pattern(doc)
    if "*" in pattern and "*" in template:  # a placeholder against a wildcard: the rest must agree
        return fnmatch.fnmatchcase(template.replace("*", "x"), pattern) or fnmatch.fnmatchcase(
            pattern.replace("*", "x"), template
        )
    if template.endswith(".*") and "." not in doc:  # a figure named without its extension
        doc += ".pdf"
    return fnmatch.fnmatchcase(doc, template) or fnmatch.fnmatchcase(template, pattern)


def in_catalog(path: str) -> bool:
    """Whether a path relative to a version folder matches the catalog (a folder with or without '/')."""
    candidates = [path] if path.endswith("/") or "." in path.rsplit("/", 1)[-1] else [path, path + "/"]
    for candidate in candidates:
        parts = candidate.split("/")
        for pattern in catalog_patterns():
            pparts = pattern.split("/")
            if len(pparts) == len(parts) and all(segment_matches(a, b) for a, b in zip(parts, pparts)):
                return True
    return False


def clean_word(word: str) -> str | None:
    """The path a word names, or None when the word is not a path by the module's rule."""
    word = word.lstrip(WORD_LEAD).rstrip(WORD_TRAIL)
    word = re.sub(r"\[[^\]/]*\]$", "", word)  # a test's parameter id
    if word.count("{") != word.count("}"):  # a YAML flow mapping around the path: {path: data/my.csv}
        word = word.strip("{}")
    if not word or "://" in word or word[0] in "/~$-" or "=" in word or "|" in word:
        return None
    if ":" in word.replace("::", ""):
        return None
    return word


def is_path(word: str, page_dir: str) -> bool:
    path = word.split("::")[0]
    if "/" not in path:
        return path.endswith(SOURCE_EXTENSIONS) and not path.startswith(".")
    first = path.split("/")[0]
    if first == "..":
        return False
    roots = {p.rstrip("/") for p in tracked() if p.endswith("/") and "/" not in p.rstrip("/")}
    package = {p[len("src/xaipipe/") :].rstrip("/") for p in tracked() if re.fullmatch(r"src/xaipipe/[^/]+/", p)}
    here = {
        p[len(page_dir) :].rstrip("/") for p in tracked() if page_dir and p.startswith(page_dir) and p.endswith("/")
    }
    return first in roots | package | here | result_folders() | {"results"} | set(RUN_OUTPUT)


def exists(path: str, page_dir: str) -> bool:
    """Whether ``path`` names something tracked (module rule 2) or a result (rule 3)."""
    if path in USER_FILES or path.split("/")[0] in RUN_OUTPUT:
        return True
    if path.startswith("results/") and path != "results/README.md":
        rest = path.split("/", 2)
        return len(rest) < 3 or not rest[2] or in_catalog(rest[2])
    pattern = as_pattern(path)
    if "/" not in path.rstrip("/"):
        names = tracked_names() | {PurePosixPath(p).name + "/" for p in tracked() if p.endswith("/")}
        if any(fnmatch.fnmatchcase(n, pattern) for n in names):
            return True
    for root in ("", page_dir, "src/xaipipe/"):
        full = posixpath.normpath(root + pattern) + ("/" if pattern.endswith("/") else "")
        if full.startswith(".."):
            continue
        if any(fnmatch.fnmatchcase(p, full) or fnmatch.fnmatchcase(p, full.rstrip("/") + "/") for p in tracked()):
            return True
    return in_catalog(path)


def has_test(path: str) -> bool:
    file, _, name = path.partition("::")
    name = name.split("::")[-1]
    text = (REPO / file).read_text()
    return re.search(rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b", text, re.M) is not None


def module_exists(name: str) -> str | None:
    """None when ``xaipipe.a.b[.attr...]`` resolves; else what is missing."""
    parts = name.split(".")
    i = len(parts)
    while i > 1:
        base = REPO / "src" / "/".join(parts[:i])
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            break
        i -= 1
    if i == 1 and not (REPO / "src/xaipipe/__init__.py").is_file():
        return "no package xaipipe"
    obj = importlib.import_module(".".join(parts[:i]))
    for attr in parts[i:]:
        fields = getattr(obj, "__dataclass_fields__", {}) | getattr(obj, "__annotations__", {})
        if hasattr(obj, attr) or attr in fields:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None  # a field without a class attribute: nothing further to follow
        else:
            return f"{'.'.join(parts[: parts.index(attr)])} has no {attr!r}"
    return None


def named_in(page: str) -> list[tuple[str, str]]:
    """(kind, word) of every path and module the page names (rules 2-4)."""
    text = (REPO / page).read_text()
    prose, code = split_code(text)
    prose = LINK.sub(lambda m: m.group(0).split("](")[0] + "]", prose)
    found = []
    words = [w for piece in code for w in piece.split()]
    words += [w for w in prose.split() if re.match(r"\(?`?(docs|src|workflow|benchmarks|tests|config|results)/", w)]
    for word in words:
        found += [("module", m) for m in MODULE.findall(word)]
        clean = clean_word(word)
        if clean and not clean.startswith("xaipipe."):
            found += [("path", w) for w in expand_braces(clean)]
    for piece in code:
        found += [("benchmark", m) for m in PY_M.findall(piece)]
    return found


@pytest.mark.parametrize("page", page_files())
def test_named_paths_and_modules_exist(page):
    page_dir = str(PurePosixPath(page).parent) + "/" if "/" in page else ""
    missing = []
    for kind, word in named_in(page):
        if kind == "module":
            problem = None if word in NOT_MODULES else module_exists(word)
            if problem:
                missing.append(f"{word} ({problem})")
        elif kind == "benchmark":
            if not (REPO / (word.replace(".", "/") + ".py")).is_file():
                missing.append(f"python -m {word}")
        elif is_path(word, page_dir):
            path = word.split("::")[0]
            if not exists(path, page_dir):
                missing.append(word)
            elif "::" in word and not has_test(word):
                missing.append(f"{word} (no such test)")
    assert not missing, f"{page} names what does not exist: {sorted(set(missing))}"


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def headings(path: Path) -> list[str]:
    prose, _ = split_code(path.read_text())
    text = path.read_text()
    # split_code blanks code spans in the prose; take heading lines from the original at the same lines
    lines, originals = prose.splitlines(), text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if re.match(r"^#{1,6}\s", line) and i < len(originals):
            out.append(re.sub(r"^#{1,6}\s+|\s+#*$", "", originals[i]))
    return out


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in headings(path):
        base = slug(heading)
        n = seen.get(base, 0)
        out.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return out


@pytest.mark.parametrize("page", page_files())
def test_links_and_their_anchors_exist(page):
    text = (REPO / page).read_text()
    prose, _ = split_code(text)
    here = (REPO / page).parent
    missing = []
    for target in LINK.findall(prose):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # a URL (https:, mailto:)
        file, _, anchor = target.partition("#")
        path = (here / file).resolve() if file else REPO / page
        if not path.exists() or REPO not in path.parents and path != REPO:
            missing.append(target)
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            missing.append(f"{target} (no heading #{anchor})")
    assert not missing, f"{page} links to what does not exist: {missing}"


def section_leads(path: Path) -> list[str]:
    """What a quoted section may begin: the page's headings and its bold runs."""
    prose, _ = split_code(path.read_text())
    bold = [re.sub(r"\s+", " ", b) for b in re.findall(r"\*\*(.+?)\*\*", prose, re.S)]
    return [h.replace("`", "") for h in headings(path)] + [b.replace("`", "") for b in bold]


def normal(text: str) -> str:
    text = re.sub(r"\s*\n\s*(?:#\s*)?", " ", text)
    return re.sub(r"\s+", " ", text.replace("`", "")).strip().rstrip(".,;:").lower()


def quoted_sections() -> list[tuple[str, str, str]]:
    """(file, page, section) of every section quoted after a page in a tracked text file."""
    out = []
    for file in sorted(tracked()):
        if file.endswith("/") or not file.endswith(TEXT_SUFFIXES) or re.match(r"docs/history/20", file):
            continue
        if file == "tests/test_docs.py":
            continue
        text = (REPO / file).read_text(errors="replace")
        for m in SECTION.finditer(text):
            out.append((file, m.group("page"), m.group("section")))
    return out


def test_quoted_sections_exist():
    missing = []
    for file, page, section in quoted_sections():
        base = (REPO / file).parent
        candidates = [base / page, REPO / page, REPO / "docs" / page]
        target = next((c for c in candidates if c.is_file()), None)
        if target is None:
            missing.append(f"{file}: {page} (no such page)")
            continue
        want = normal(section)
        if not any(normal(lead).startswith(want) for lead in section_leads(target)):
            missing.append(f'{file}: {page}, "{normal(section)}"')
    assert not missing, "sections quoted after a page that begin no heading or bold lead of it:\n" + "\n".join(missing)


def test_the_rules_find_what_they_should():
    """The extraction itself: stale words are caught, placeholders and URLs are not paths."""
    assert exists("docs/layout.md", "") and not exists("docs/no_such_page.md", "")
    assert exists("rashomon/mcr.py", "docs/") and not exists("rashomon/engine.py", "docs/")
    assert exists("history/README.md", "docs/")
    assert exists("results/<version>/explain/<dataset>/large_data.csv", "")
    assert exists("explain/<dataset>/<family>/model_reliance.csv", "")
    assert not exists("results/v1/explain/airfoil/no_such_table.csv", "")
    assert expand_braces("tests/plots/test_{shap_force,lime}.py") == [
        "tests/plots/test_shap_force.py",
        "tests/plots/test_lime.py",
    ]
    assert exists("workflow/report/<kind>.rst", "") and exists("envs/*.post-deploy.sh", "")
    assert exists("config.yaml", "") and not exists("no_such_script.py", "")
    for word in ("https://x.org/a.py", "/usr/bin/chromium", "uci_mirror=../x", "--cores", "a.b:plot_x", "$HOME/x"):
        assert clean_word(word) is None, word
    assert not is_path("../shared/data/uci", "") and not is_path("e_switch/e_divide", "")
    assert module_exists("xaipipe.paths.result_path") is None
    assert module_exists("xaipipe.rashomon.mcr_study") is None  # a front door
    assert module_exists("xaipipe.rashomon.engine") is not None
    assert slug("Whole study as the rows grow") == "whole-study-as-the-rows-grow"
    assert slug("Versions, provenance and interrupted runs") == "versions-provenance-and-interrupted-runs"
    assert has_test("tests/test_paths.py::test_fills_given_wildcards_and_keeps_others")
    assert not has_test("tests/test_paths.py::test_no_such_test")


def test_layout_tree_is_complete():
    """docs/layout.md's tree names every folder and top-level module of the package, every folder of
    workflow/, tests/ and profiles/, and every file of config/ (a folder by its name and '/')."""
    text = (REPO / "docs/layout.md").read_text()
    tree = text[text.index("```") : text.index("```", text.index("```") + 3)]
    files = [p for p in tracked() if not p.endswith("/")]
    folders = {p for p in tracked() if p.endswith("/")}
    wanted = {p for p in folders if p.startswith(("src/xaipipe/", "workflow/", "tests/", "profiles/"))}
    wanted = {p for p in wanted if "__pycache__" not in p and ".egg-info" not in p}
    names = {PurePosixPath(p).name + "/" for p in wanted}
    names |= {PurePosixPath(p).name for p in files if re.fullmatch(r"src/xaipipe/[^/]+\.py", p)} - {"__init__.py"}
    names |= {PurePosixPath(p).name for p in files if p.startswith("config/")}
    names |= {"Snakefile", "benchmarks/", "envs/", "config/", "docs/", ".ci/"}
    missing = sorted(n for n in names if not re.search(rf"(?<![\w.]){re.escape(n)}", tree))
    assert not missing, f"docs/layout.md's tree does not name {missing}"


def test_front_page_lists_every_page():
    """docs/README.md links every page of docs/ and the history's index; README.md links docs/README.md."""
    front = (REPO / "docs/README.md").read_text()
    targets = {t.partition("#")[0] for t in LINK.findall(split_code(front)[0])}
    pages = {p.name for p in (REPO / "docs").glob("*.md") if p.name != "README.md"} | {"history/README.md"}
    assert not pages - targets, f"docs/README.md does not list {sorted(pages - targets)}"
    readme = {t.partition("#")[0] for t in LINK.findall(split_code((REPO / "README.md").read_text())[0])}
    assert "docs/README.md" in readme
