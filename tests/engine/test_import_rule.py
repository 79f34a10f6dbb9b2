"""The engine is a library: nothing under planner/engine may import the web stack or the apps.
(import-linter holds the same rule and the engine's layers: `make lint`.) And no module anywhere
imports another module's underscored names."""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENGINE_DIR = REPO / "planner" / "engine"
FIRST_PARTY = ("planner", "catalog", "accounts", "config", "tests", "bench")
FORBIDDEN_ROOTS = {"django", "rest_framework", "celery", "catalog", "kombu", "django_filters"}


def forbidden_imports(source: str) -> list[str]:
    """Names of modules imported by `source` that the engine must not depend on."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            root = name.split(".")[0]
            if root in FORBIDDEN_ROOTS or (
                root == "planner" and not name.startswith("planner.engine")
            ):
                found.append(name)
    return found


def test_checker_flags_each_kind_of_forbidden_import():
    source = (
        "import django\nfrom rest_framework import serializers\nimport celery.app\n"
        "from catalog.models import Accelerator\nfrom planner import services\n"
        "from planner.engine import memory\nimport numpy\nfrom . import specs\n"
    )
    assert forbidden_imports(source) == [
        "django",
        "rest_framework",
        "celery.app",
        "catalog.models",
        "planner",
    ]


def test_engine_package_exists_and_has_modules():
    assert (ENGINE_DIR / "__init__.py").is_file()


def test_nothing_under_engine_imports_django_drf_celery_or_the_apps():
    offenders = {
        str(path.relative_to(ENGINE_DIR)): bad
        for path in ENGINE_DIR.rglob("*.py")
        if (bad := forbidden_imports(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


def test_engine_exposes_a_model_version():
    from planner.engine import MODEL_VERSION

    assert MODEL_VERSION.count(".") == 2


def underscored_imports(source: str) -> list[tuple[str, str]]:
    """(module, name) for every underscored name `source` imports from another module (dunder
    names such as __future__'s aside)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [
                (node.module, alias.name)
                for alias in node.names
                if alias.name.startswith("_") and not alias.name.startswith("__")
            ]
    return found


def test_checker_flags_underscored_names_but_not_dunders():
    source = (
        "from __future__ import annotations\nfrom a.b import _hidden, shown\n"
        "from a import __version__\n"
    )
    assert underscored_imports(source) == [("a.b", "_hidden")]


def test_no_module_imports_another_modules_underscored_names():
    offenders = {
        (str(path.relative_to(REPO)), module)
        for root in FIRST_PARTY
        for path in (REPO / root).rglob("*.py")
        for module, _name in underscored_imports(path.read_text(encoding="utf-8"))
    }
    assert not offenders, sorted(offenders)
