"""CEL rules get only the top-level fields of ``object`` they read, and all of it otherwise."""

import pytest
from conftest import run_cli

from kueuelint.checks.cel_rules import object_fields


@pytest.mark.parametrize("source, fields", [
    ("has(object.metadata) && 'a' in object.metadata.labels", {"metadata"}),
    ("object.spec.parallelism > 1 || object . kind == 'Job'", {"spec", "kind"}),
    ("size(object) > 2", None),                          # passed to a function
    ("object['spec'].parallelism > 1", None),            # indexed
    ("object.exists(k, k == 'spec')", None),             # a macro over its keys
    ("object.?spec.orValue({}) == {}", None),            # optional selection
    ("object.metadata.name == 'object'", None),          # the word in a string: assume all
    ("workloads.size() == 1", set()),                    # does not read object at all
])
def test_fields_read_from_object(source, fields):
    assert object_fields(source) == (None if fields is None else frozenset(fields))


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
    ]
    for code, name, text, expression in cases:
        (rules / f"{code}-{name}.yaml").write_text(
            RULE.format(code=code, name=name, text=text, expression=expression))
    (tmp_path / "job.yaml").write_text(JOB)
    # only rules that read named fields: the object they get holds just metadata and spec
    assert _found(tmp_path, "[KQ961, KQ962]") == ["KQ961", "KQ962"]
    # with rules that read it whole, every rule gets the whole object
    assert _found(tmp_path, "[KQ96]") == ["KQ961", "KQ962", "KQ963", "KQ964"]


def _found(tmp_path, select: str) -> list[str]:
    (tmp_path / ".kueuelint.yaml").write_text(f"rule-dirs: [policies/]\nselect: {select}\n")
    proc = run_cli("check", "--no-source", "-q", "job.yaml", cwd=tmp_path)
    assert "KQ009" not in proc.stdout, proc.stdout     # no rule failed on a missing field
    return sorted(line.split()[1] for line in proc.stdout.splitlines() if ": KQ96" in line)
