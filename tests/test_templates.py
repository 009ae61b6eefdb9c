"""Template placeholders are not judged as values: one KQ012 note per file instead."""

from __future__ import annotations

import json

import pytest

from kueuelint.identify.placeholders import is_placeholder

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: {queue}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: trainer
          resources: {{requests: {{cpu: "{cpu}"}}}}
"""


@pytest.mark.parametrize("value", ["${QUEUE}", "${QUEUE:-user-queue}", "$(QUEUE)", "__QUEUE__",
                                   "<your-local-queue>", " ${X} ", "{{ .Values.queue }}"])
def test_whole_placeholders(value):
    assert is_placeholder(value)


@pytest.mark.parametrize("value", ["user-queue", "${A}-${B}", "gcr.io/${PROJECT}/img", "$QUEUE",
                                   "__init__x", "a<b>", "<>", 3, None, "${}", "{{}}", "q-{{ .Values.x }}"])
def test_not_whole_placeholders(value):
    assert not is_placeholder(value)


def _findings(cli, tmp_path, **values):
    path = tmp_path / "job.yaml"
    path.write_text(JOB.format(**values))
    proc = cli("check", "--format", "json", str(path))
    return proc.returncode, [(f["code"], f["severity"], f["line"]) for f in json.loads(proc.stdout)["findings"]]


def test_placeholders_give_one_info_note_per_file(cli, tmp_path):
    code, findings = _findings(cli, tmp_path, queue="${LOCAL_QUEUE}", cpu="<cpus>")
    assert findings == [("KQ012", "info", 7)]
    assert code == 0


def test_a_real_bad_value_is_still_an_error(cli, tmp_path):
    code, findings = _findings(cli, tmp_path, queue="Team_Queue", cpu="lots")
    assert {(c, s) for c, s, _ in findings} == {("KQ204", "error"), ("KQ301", "error")}
    assert code == 1
