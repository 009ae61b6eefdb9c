"""One rule registry: every built-in rule file's Python reference resolves to the function that
registers that very code, and every registered Python rule is named by a rule file."""

from __future__ import annotations

import importlib
import pkgutil

import kueuelint.checks.builtin as builtin
from kueuelint.checks.api import PYTHON_RULES
from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs

RULES = load_rule_dirs([builtin_rules_dir()])
PYTHON_FILES = {code: rule for code, rule in RULES.items() if rule.implementation == "python"}


def _registered() -> dict[str, object]:
    """Every ``@rule`` function of the built-in rule modules, by code."""
    for module in pkgutil.iter_modules(builtin.__path__, builtin.__name__ + "."):
        importlib.import_module(module.name)
    prefix = builtin.__name__ + "."
    return {code: func for code, func in PYTHON_RULES.items() if func.__module__.startswith(prefix)}


def test_every_python_reference_resolves_to_its_own_code():
    resolved = {code: rule.python_func() for code, rule in PYTHON_FILES.items()}   # imports them
    wrong = {code: PYTHON_FILES[code].python for code, func in resolved.items()
             if PYTHON_RULES.get(code) is not func}
    assert wrong == {}, "a rule file names a function registered for another code (or none)"


def test_every_registered_python_rule_is_named_by_a_rule_file():
    registered = _registered()
    named = {code: f"{func.__module__}:{func.__name__}" for code, func in registered.items()}
    unnamed = {code: where for code, where in named.items()
               if code not in PYTHON_FILES or PYTHON_FILES[code].python != where}
    assert unnamed == {}, "a @rule function no rule file uses: add its rule file or remove it"
    assert len(registered) >= 50


def test_the_registry_check_sees_a_rule_file_naming_another_codes_function(tmp_path):
    from kueuelint.checks.registry import load_rule_file

    path = tmp_path / "KQ990-borrowed.yaml"
    path.write_text("code: KQ990\nname: borrowed\nsummary: s\nkinds: [batch/Job]\nmessage: m\n"
                    f"implementation: python\npython: {PYTHON_FILES['KQ211'].python}\n")
    rule = load_rule_file(path)
    assert PYTHON_RULES.get("KQ990") is not rule.python_func()
