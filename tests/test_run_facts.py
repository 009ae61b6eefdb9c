"""Typed run facts (kueuelint.kueue.facts): declared once, computed per inventory, and an
object seen by two scopes is judged against each scope's own objects."""

from __future__ import annotations

import json
import pickle
import textwrap
from pathlib import Path

import pytest

from kueuelint.checks.registry import load_rules
from kueuelint.checks.runner import Checker
from kueuelint.config import Config, load_config
from kueuelint.derive import workloads_of
from kueuelint.identify.objects import KObject
from kueuelint.index.inventory import LOCAL_QUEUES_BY_NAME, Inventory
from kueuelint.kueue.facts import FACTS, Fact, FactStore, ObjectMemo
from kueuelint.run import open_run

REPO = Path(__file__).parent.parent

QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: default}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: {cq}}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {{name: cpu, nominalQuota: 8}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: team, namespace: ml}}
spec: {{clusterQueue: {cq}}}
"""

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: team}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "1"%s}
"""


def _two_scopes_sharing_a_job(root: Path, job_requests: str = ", memory: 1Gi") -> Path:
    for scope in ("a", "b"):
        (root / scope).mkdir()
        (root / scope / "queues.yaml").write_text(QUEUES.format(cq=f"cq-{scope}"))
    (root / "shared").mkdir()
    (root / "shared" / "job.yaml").write_text(JOB % job_requests)
    (root / ".kueuelint.yaml").write_text(textwrap.dedent("""\
        scopes:
          a: {paths: [a/], context: [shared/]}
          b: {paths: [b/], context: [shared/]}
        """))
    return root


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_job_in_the_context_of_two_scopes_is_judged_against_each(cli, tmp_path, jobs):
    # The shared Job is queued to cq-a in scope a and to cq-b in scope b: both miss memory.
    # Its uncovered requests were once kept on the object, so scope b reused scope a's answer
    # (naming cq-a) and cq-b went unreported.
    root = _two_scopes_sharing_a_job(tmp_path)
    proc = cli("check", "--format", "json", "-j", jobs, "--config", str(root / ".kueuelint.yaml"),
               str(root / "a"), str(root / "b"))
    assert proc.returncode in (0, 1), proc.stderr
    missed = sorted(Path(f["file"]).parent.name for f in json.loads(proc.stdout)["findings"]
                    if f["code"] == "KQ311")
    assert missed == ["a", "b"]


def test_the_shared_job_is_not_reported_where_its_requests_are_covered(cli, tmp_path):
    root = _two_scopes_sharing_a_job(tmp_path, job_requests="")
    proc = cli("check", "--format", "json", "--config", str(root / ".kueuelint.yaml"),
               str(root / "a"), str(root / "b"))
    assert [f for f in json.loads(proc.stdout)["findings"] if f["code"] == "KQ311"] == []


def _objects(tmp_path: Path, name: str, text: str) -> list[KObject]:
    path = tmp_path / name
    path.write_text(text)
    return open_run([str(path)], Config()).objects


LIMIT_RANGE = """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: ml}
spec:
  limits:
  - type: Container
    defaultRequest: {memory: 2Gi}
"""


def test_derived_workloads_follow_the_inventory_they_are_asked_for(tmp_path):
    job = _objects(tmp_path, "job.yaml", JOB % "")[0]
    with_defaults = Inventory([job] + _objects(tmp_path, "limits.yaml", LIMIT_RANGE))
    without = Inventory([job])
    assert "memory" in workloads_of(job, with_defaults)[0].pod_sets[0].requests
    assert "memory" not in workloads_of(job, without)[0].pod_sets[0].requests
    assert "memory" in workloads_of(job, with_defaults)[0].pod_sets[0].requests


def test_adding_an_object_drops_the_facts_computed_without_it(tmp_path):
    objects = _objects(tmp_path, "queues.yaml", QUEUES.format(cq="cq"))
    inventory = Inventory(objects[:2])
    assert LOCAL_QUEUES_BY_NAME.of(inventory).get("team", []) == []
    inventory.add(objects[2])
    assert LOCAL_QUEUES_BY_NAME.of(inventory)["team"] == [objects[2]]


def test_a_fact_name_is_declared_once():
    with pytest.raises(ValueError, match="declared twice"):
        Fact(LOCAL_QUEUES_BY_NAME.name, lambda inventory: {})


def test_a_fact_pickles_as_its_declaration():
    assert pickle.loads(pickle.dumps(LOCAL_QUEUES_BY_NAME)) is LOCAL_QUEUES_BY_NAME


def test_a_run_stores_only_declared_facts():
    config = load_config(None)
    run = open_run([str(REPO / "tests" / "data" / "corpus"), str(REPO / "fixtures")], config)
    Checker(load_rules(config), config).run(run)
    declared = set(FACTS.values())
    stores = [scope.inventory.facts for scope in run.scopes]
    assert all(isinstance(store, FactStore) for store in stores)
    stored = {key for store in stores for key in store.declared_keys()}
    assert stored and stored <= declared
    memos = {key for obj in run.objects for key in obj.memos}
    assert memos and memos <= declared
    assert all(isinstance(memo, ObjectMemo) for memo in memos)
    assert not hasattr(run.inventory, "cache") and not hasattr(run.objects[0], "cache")
