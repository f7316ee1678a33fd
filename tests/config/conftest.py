"""The default configuration (config/config.yaml, validated: the schema's defaults filled in) and a
fresh copy of it per test."""

from __future__ import annotations

import copy

import pytest
import yaml

from tests.conftest import REPO
from xaipipe.schema import validate_config

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


@pytest.fixture(scope="session")
def default_config():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    return validate_config(config, SCHEMA) or config


@pytest.fixture
def config(default_config):
    return copy.deepcopy(default_config)
