"""The CEL rules of a kind are evaluated as one program per object (checks.cel_rules.CelRuleGroup):
the findings must be those of each rule evaluated alone, errors included."""

import pytest

from kueuelint import pipeline
from kueuelint.checks import cel_rules
from kueuelint.config import from_mapping

RULE = """code: {code}
name: {name}
severity: error
summary: test rule
kinds: [batch/Job]
message: "{{object}} {name}"
implementation: cel
cel:
{cel}
docs: {{what: test}}
"""

RULES = {  # code -> (name, the cel: block)
    "KQ971": ("no-team", "  validations:\n    - expression: \"'team' in object.metadata.labels\"\n"
                         "      fieldPath: metadata.labels"),
    "KQ972": ("missing-field", "  validations:\n    - expression: \"object.spec.nothere == 1\""),
    "KQ973": ("not-a-bool", "  validations:\n    - expression: \"object.spec.parallelism\""),
    "KQ974": ("only-parallel", "  match: \"object.spec.parallelism > 1\"\n"
                               "  validations:\n    - expression: \"object.spec.nothere == 1\""),
    "KQ975": ("listed", "  violations: >-\n"
                        "    object.spec.parallelism > 2 ? [{'path': 'spec.parallelism', 'severity': 'warning',\n"
                        "      'message': 'too many: ' + string(object.spec.parallelism)}] : []"),
    "KQ976": ("not-a-list", "  violations: \"object.metadata.name == 'b' ? 'oops' : []\""),
    "KQ977": ("said-why", "  validations:\n    - expression: \"object.metadata.name != 'c'\"\n"
                          "      messageExpression: \"'named ' + object.metadata.name\""),
}

JOBS = """apiVersion: batch/v1
kind: Job
metadata: {name: a, labels: {team: ml}}
spec: {parallelism: 1, template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: b, labels: {}}
spec: {parallelism: 3, template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: c, labels: {}}
spec: {parallelism: 2, nothere: 1, template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}}
"""


@pytest.fixture
def policies(tmp_path):
    folder = tmp_path / "policies"
    folder.mkdir()
    for code, (name, cel) in RULES.items():
        (folder / f"{code}-{name}.yaml").write_text(RULE.format(code=code, name=name, cel=cel))
    (tmp_path / "jobs.yaml").write_text(JOBS)
    return tmp_path


def _findings(folder, codes):
    config = from_mapping({"rule-dirs": [str(folder / "policies")], "select": list(codes)})
    result = pipeline.check(pipeline.load_inputs([str(folder / "jobs.yaml")], config), config)
    return [(f.code, f.location.line, f.field_path, f.severity.value, f.message) for f in result.findings]


def test_rules_together_find_what_each_finds_alone(policies):
    alone = sorted(finding for code in RULES for finding in _findings(policies, [code]))
    together = _findings(policies, list(RULES))
    assert sorted(together) == alone
    codes = {code for code, *_ in together}
    assert {"KQ971", "KQ975", "KQ977", "KQ009"} <= codes
    errors = " ".join(message for code, _, _, _, message in together if code == "KQ009")
    # each failing rule reports its own error, on the objects it fails on
    assert "KQ972" in errors and "KQ973" in errors and "KQ976" in errors
    assert "KQ974" in errors and errors.count("rule KQ974 (") == 1   # job a does not match, c has the field


def test_one_program_answers_unless_a_rule_fails(policies, monkeypatch):
    alone = []
    evaluate = cel_rules.CelRule.evaluate

    def spy(self, activation, values=None):
        alone.append((self.rule.meta.code, activation))
        return evaluate(self, activation, values)

    monkeypatch.setattr(cel_rules.CelRule, "evaluate", spy)
    _findings(policies, ["KQ971", "KQ975", "KQ977"])
    assert alone == []   # three rules, three objects: the group answered for all of them
    _findings(policies, ["KQ971", "KQ972"])
    # KQ972 fails on jobs a and b (no spec.nothere); then both rules are evaluated alone
    assert sorted(code for code, _ in alone) == ["KQ971", "KQ971", "KQ972", "KQ972"]


def test_a_rule_with_options_is_evaluated_alone():
    from kueuelint.cel.engine import get_engine
    from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs

    rules = load_rule_dirs([builtin_rules_dir()])
    engine = get_engine()
    with_options = cel_rules.CelRule(rules["KQ803"], engine, {"kueue-clouds": ["x"]})
    plain = [cel_rules.CelRule(rules[code], engine) for code in ("KQ201", "KQ204")]
    assert with_options.part_source() is None
    group = cel_rules.CelRuleGroup([with_options, *plain], engine)
    assert group.rules == plain and group.program is not None
    assert cel_rules.CelRuleGroup([with_options, plain[0]], engine).program is None
