"""CEL rules get only the parts of ``object`` they read, and all of it otherwise."""

import pytest
from conftest import run_cli

from kueuelint.cel.text import object_paths
from kueuelint.checks.cel_rules import merged_paths, pruned

# A tree of the fields read: None is a whole value, {} only whether the field is there (and
# its type), and an object_paths of None the whole object.
@pytest.mark.parametrize("source, paths", [
    ("has(object.metadata) && 'a' in object.metadata.labels", {"metadata": {"labels": None}}),
    ("object.spec.parallelism > 1 || object . kind == 'Job'", {"spec": {"parallelism": None}, "kind": None}),
    ("type(object.spec) == map && object.spec.template.spec.containers.all(c, has(c.image))",
     {"spec": {"template": {"spec": {"containers": None}}}}),   # a macro reads the list whole
    ("object.apiVersion.startsWith('batch/')", {"apiVersion": None}),   # a method reads it whole
    ("dyn(object.spec).x == 1", {"spec": None}),         # passed to a function: whole
    ("object.spec.x.?y.orValue(1) == 1", {"spec": {"x": None}}),
    ("has(object.spec.x) && object.spec == {}", {"spec": None}),
    ("object.metadata.name == 'object.spec'", {"metadata": {"name": None}}),   # a string is no read
    ("size(object) > 2", None),                          # passed to a function
    ("object['spec'].parallelism > 1", None),            # indexed
    ("object.exists(k, k == 'spec')", None),             # a macro over its keys
    ("object.?spec.orValue({}) == {}", None),            # optional selection
    ("workloads.map(object, object.name) == []", None),  # a variable of its own
    ("workloads.size() == 1", {}),                       # does not read object at all
    ("object.spec.x == 1 // isn't it 'object.metadata.y'\n|| object.metadata.y", None),  # a comment
])
def test_parts_read_from_object(source, paths):
    assert object_paths(source) == paths


def test_the_parts_of_several_rules_are_merged():
    labels = object_paths("has(object.metadata.labels) && has(object.spec.a)")
    spec = object_paths("object.spec.a.b == 1 && object.spec.c == 2")
    assert merged_paths(labels, spec) == {"metadata": {"labels": {}}, "spec": {"a": {"b": None}, "c": None}}
    assert merged_paths(spec, object_paths("object.spec == {}")) == {"spec": None}
    assert merged_paths(labels, None) is None


def test_pruning_keeps_what_is_read_and_what_is_no_mapping():
    job = {"kind": "Job", "metadata": {"name": "a", "labels": {"x": "1"}, "annotations": {"y": "2"}},
           "spec": {"template": [1, 2], "parallelism": 3}}
    paths = {"metadata": {"labels": None, "uid": None}, "spec": {"template": {"spec": None}}}
    assert pruned(job, paths) == {"metadata": {"labels": {"x": "1"}}, "spec": {"template": [1, 2]}}
    assert pruned(job, {"metadata": {}}) == {"metadata": {}}
    assert pruned(job, None) is job


RULE = """code: {code}
name: {name}
severity: error
summary: test rule
kinds: [batch/Job]
message: "{{object}} {text}"
implementation: cel
cel:
  validations:
    - expression: "{expression}"
docs: {{what: test}}
"""

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: a
  labels: {team: ml}
spec:
  parallelism: 3
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""


def test_rules_reading_parts_and_the_whole_object_both_see_what_they_read(tmp_path):
    rules = tmp_path / "policies"
    rules.mkdir()
    cases = [  # each rule fails on the Job only if it sees the fields it reads
        ("KQ961", "labels-only", "labelled", "!('team' in object.metadata.labels)"),
        ("KQ962", "spec-only", "parallel", "object.spec.parallelism < 2"),
        ("KQ963", "whole", "has four fields", "size(object) != 4"),
        ("KQ964", "indexed", "indexed", "object['spec']['parallelism'] != 3"),
        ("KQ965", "presence", "untitled", "!(has(object.spec.template) && "
                                          "type(object.spec.template) == map && !has(object.spec.template.metadata))"),
    ]
    for code, name, text, expression in cases:
        (rules / f"{code}-{name}.yaml").write_text(
            RULE.format(code=code, name=name, text=text, expression=expression))
    (tmp_path / "job.yaml").write_text(JOB)
    # only rules that read named fields: the object they get holds just the parts they read
    assert _found(tmp_path, "[KQ961, KQ962, KQ965]") == ["KQ961", "KQ962", "KQ965"]
    # with rules that read it whole, every rule gets the whole object
    assert _found(tmp_path, "[KQ96]") == ["KQ961", "KQ962", "KQ963", "KQ964", "KQ965"]


def _found(tmp_path, select: str) -> list[str]:
    (tmp_path / ".kueuelint.yaml").write_text(f"rule-dirs: [policies/]\nselect: {select}\n")
    proc = run_cli("check", "--no-source", "-q", "job.yaml", cwd=tmp_path)
    assert "KQ009" not in proc.stdout, proc.stdout     # no rule failed on a missing field
    return sorted(line.split()[1] for line in proc.stdout.splitlines() if ": KQ96" in line)


def test_a_rule_file_carries_the_parts_its_expressions_read():
    from kueuelint.checks.registry import builtin_rules_dir, load_rule_dirs, load_rule_file

    path = next(builtin_rules_dir().glob("queue/KQ204-*.yaml"))
    parsed = load_rule_file(path).cel_object_paths
    assert parsed["metadata"] == {"labels": None}       # not the annotations, not the name
    assert parsed["spec"]["predictor"] == {"labels": None}
    # the same tree when the parsed file comes back from the rule cache
    assert load_rule_dirs([builtin_rules_dir()])["KQ204"].cel_object_paths == parsed
    assert load_rule_dirs([builtin_rules_dir()])["KQ101"].cel_object_paths is None   # Python
