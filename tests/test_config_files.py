"""Config files checked as files (issue 52, item 3): duplicate keys and invalid YAML name the file and
the line; a user's dataset key that a later file replaces, a default file given again after a user's
file, and a user's file that contributes nothing are warnings. Through Snakemake in
tests/workflow/test_own_data_intake.py::test_configs_that_mean_what_they_say."""

from __future__ import annotations

import pytest
import yaml

from xaipipe.config_files import ConfigFileError, check_config_files, check_yaml_file, leaf_lines, main

MY = """version: mine
datasets:
  airfoil: {enabled: false}
  mine:
    source: {kind: file, path: data/mine.csv}
    task: regression
    target: y
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_duplicate_key_names_the_file_and_both_lines(tmp_path):
    path = write(tmp_path, "dup.yaml", MY + "datasets:\n  concrete: {enabled: false}\n")
    assert yaml.safe_load(path.read_text())["datasets"] == {"concrete": {"enabled": False}}  # what PyYAML does
    with pytest.raises(ConfigFileError) as info:
        check_yaml_file(path)
    assert str(info.value) == (
        f"{path}, line 8: duplicate key 'datasets' (first at line 2); YAML keeps only the last, so the block at "
        "line 2 would be dropped without a word: merge the two into one"
    )
    # nested as well
    nested = write(tmp_path, "nested.yaml", "datasets:\n  mine:\n    target: y\n    task: regression\n    target: z\n")
    with pytest.raises(ConfigFileError, match=r"nested.yaml, line 5: duplicate key 'target' \(first at line 3\)"):
        check_yaml_file(nested)


def test_invalid_yaml_names_the_file_line_and_column(tmp_path):
    path = write(tmp_path, "bad.yaml", "version: x\ndatasets:\n  airfoil: {enabled: false\n")
    with pytest.raises(ConfigFileError) as info:
        check_yaml_file(path)
    assert str(info.value) == (
        f"{path}, line 4, column 1: not valid YAML (while parsing a flow mapping expected ',' or '}}', but got "
        "'<stream end>')"
    )
    tabs = write(tmp_path, "tabs.yaml", "datasets:\n\tmine: {}\n")
    with pytest.raises(ConfigFileError, match=r"tabs.yaml, line 2, column 1: not valid YAML"):
        check_yaml_file(tabs)
    with pytest.raises(ConfigFileError, match=r"list.yaml: a config file holds a mapping of keys at its top level"):
        check_yaml_file(write(tmp_path, "list.yaml", "- a\n- b\n"))
    assert check_yaml_file(write(tmp_path, "empty.yaml", "")) == {}


def test_the_repository_configs_pass_and_lines_are_recorded():
    data = check_yaml_file("config/config.yaml")
    leaves = leaf_lines(data)
    value, line = leaves[("version",)]
    assert open("config/config.yaml").read().splitlines()[line - 1].startswith("version:")
    assert check_config_files(["config/config.yaml"], ["tests/configs/small.yaml", "tests/configs/tiny.yaml"]) == []


def test_a_later_file_that_replaces_a_users_dataset_key_is_a_warning(tmp_path):
    my = write(tmp_path, "my.yaml", MY)
    later = write(tmp_path, "later.yaml", "datasets:\n  mine:\n    target: price\n")
    assert check_config_files(["config/config.yaml"], [my, later]) == [
        f"datasets.mine.target in {my} line 7 ('y') is replaced by datasets.mine.target = 'price' from {later} "
        "line 3, read after it: give that file first, or drop the key there"
    ]
    # the same value again, or a key of another dataset: nothing to say
    same = write(tmp_path, "same.yaml", "datasets:\n  mine:\n    target: y\n  other: {enabled: false}\n")
    assert check_config_files(["config/config.yaml"], [my, same]) == []
    # a scalar where the user's block was replaces the whole block
    flat = write(tmp_path, "flat.yaml", "datasets:\n  mine: null\n")
    warnings = check_config_files([], [my, flat])
    assert len(warnings) == 4 and all("is replaced by datasets.mine = None" in w for w in warnings)


def test_the_defaults_given_after_a_users_file_and_a_file_that_contributes_nothing(tmp_path):
    my = write(tmp_path, "my.yaml", MY)
    assert check_config_files(["config/config.yaml"], [my, "config/config.yaml"]) == [
        f"config/config.yaml, given after {my}, sets back its defaults over version (line 1): give config.yaml "
        "first (or leave it out: the Snakefile reads it anyway)"
    ]
    v = write(tmp_path, "v.yaml", "version: v\n")
    assert check_config_files(["config/config.yaml"], [v, "config/config.yaml"]) == [
        f"config/config.yaml, given after {v}, sets back its defaults over version (line 1): give config.yaml first "
        "(or leave it out: the Snakefile reads it anyway)",
        f"{v} contributes nothing: every value it sets is replaced by a file read after it (config/config.yaml); "
        "Snakemake reads --configfile files in the order given, the last one winning: give v.yaml last",
    ]
    # --config key=value replaces deliberately: no warning of its own, but it can leave a file with nothing
    assert check_config_files(["config/config.yaml"], [v], {"version": "w"})[0].startswith(f"{v} contributes nothing")


def test_the_command_line(tmp_path, capsys):
    my = write(tmp_path, "my.yaml", MY)
    assert main([str(my), "config/config.yaml"]) == 0
    out = capsys.readouterr().out
    assert "warning: config/config.yaml, given after" in out and out.endswith("2 file(s) checked, 1 warning(s)\n")
    dup = write(tmp_path, "dup.yaml", "a: 1\na: 2\n")
    assert main([str(dup)]) == 1
    assert capsys.readouterr().err == (
        f"error: {dup}, line 2: duplicate key 'a' (first at line 1); YAML keeps only the last, so the block at line "
        "1 would be dropped without a word: merge the two into one\n"
    )
    with pytest.raises(SystemExit):  # no abbreviations: --def is not --defaults
        main(["--def", "x", str(my)])


def test_configfile_given_twice_is_a_warning_with_the_command_that_reads_both():
    from xaipipe.config_files import repeated_configfile_option

    assert repeated_configfile_option(["-n", "--configfile", "config/config.yaml", "my.yaml", "--cores", "2"]) is None
    assert repeated_configfile_option(["--configfile", "my.yaml", "--configfile", "config/config.yaml"]) == (
        "--configfile is given 2 times: Snakemake reads only the files of the last one (config/config.yaml), so "
        "my.yaml is not read at all; give every file after one --configfile: --configfile config/config.yaml my.yaml"
    )
    assert repeated_configfile_option(["--configfile=a.yaml", "-n", "--configfiles", "b.yaml", "c.yaml"]) == (
        "--configfile is given 2 times: Snakemake reads only the files of the last one (b.yaml c.yaml), so a.yaml is "
        "not read at all; give every file after one --configfile: --configfile a.yaml b.yaml c.yaml"
    )
    # the same file twice drops nothing
    assert repeated_configfile_option(["--configfile", "a.yaml", "--configfile", "a.yaml"]) is None
