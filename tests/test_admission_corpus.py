"""End to end: the Kueue documentation's queue setups with its sample jobs."""

from __future__ import annotations

import contextlib
import copy
import glob
import io
import json
import os

import pytest
import yaml

from conftest import CORPUS
from kueuelint.cli import main

EXAMPLES = str(CORPUS / "kueue" / "site" / "static" / "examples")
SINGLE = os.path.join(EXAMPLES, "admin", "single-clusterqueue-setup.yaml")
RESULTS = {"admitted", "preempting", "pending", "inadmissible"}


def admit(*argv) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["admit", *argv, "--format", "json"])
    return code, json.loads(out.getvalue())


def jobs() -> list[str]:
    return sorted(glob.glob(os.path.join(EXAMPLES, "jobs", "*.yaml")))


@pytest.mark.parametrize("job", jobs(), ids=os.path.basename)
def test_every_sample_job_against_single_queue(job):
    code, data = admit(job, "--snapshot", SINGLE)
    assert code in (0, 1)
    assert data["version"] == 1
    for entry in data["workloads"]:
        assert entry["result"] in RESULTS
        assert entry["clusterQueue"] == "cluster-queue"
        if entry["result"] == "admitted":
            assert all(flavor == "default-flavor" for ps in entry["podSets"] for flavor in ps["flavors"].values())


def test_sample_job_usage():
    code, data = admit(os.path.join(EXAMPLES, "jobs", "sample-job.yaml"), "--snapshot", SINGLE)
    assert code == 0
    [entry] = data["workloads"]
    assert entry["podSets"] == [{"name": "main", "count": 3, "flavors": {"cpu": "default-flavor", "memory": "default-flavor"},
                                 "usage": {"cpu": "3", "memory": "600Mi"}}]


def test_partial_admission_sample_shrinks_to_the_queue():
    code, data = admit(os.path.join(EXAMPLES, "jobs", "sample-job-partial-admission.yaml"), "--snapshot", SINGLE)
    assert code == 0
    assert data["workloads"][0]["podSets"][0]["count"] == 9     # 9 cpu nominal, 1 cpu per pod, min 5


def test_all_samples_together_never_exceed_quota():
    code, data = admit(*jobs(), "--snapshot", SINGLE)
    assert code == 1
    used = sum(_cpu(ps["usage"].get("cpu", "0")) for e in data["workloads"] if e["result"] == "admitted"
               for ps in e["podSets"])
    assert 0 < used <= 9
    assert any(e["result"] == "pending" for e in data["workloads"])


def _cpu(text: str) -> float:
    return float(text[:-1]) / 1000 if text.endswith("m") else float(text)


def test_shared_quota_credits(tmp_path):
    """Five 3-cpu jobs: cpu fits in on-demand + spot, but the 14 credits stop the fifth."""
    with open(os.path.join(EXAMPLES, "admin", "shared-quota-sample-job.yaml")) as handle:
        job = next(doc for doc in yaml.safe_load_all(handle) if doc)
    copies = []
    for index in range(5):
        item = copy.deepcopy(job)
        item["metadata"].pop("generateName", None)
        item["metadata"]["name"] = f"job-{index}"
        copies.append(item)
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
              "resources": {"transformations": [{"input": "cpu", "strategy": "Retain", "outputs": {"cpu_credits": "1"}}]}}
    (tmp_path / "jobs.yaml").write_text(yaml.safe_dump_all(copies))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    code, data = admit(str(tmp_path / "jobs.yaml"), "--snapshot", os.path.join(EXAMPLES, "admin", "shared-quota-setup.yaml"),
                       "--snapshot", str(tmp_path / "config.yaml"))
    results = [e["result"] for e in data["workloads"]]
    assert results == ["admitted"] * 4 + ["pending"]
    flavors = [e["podSets"][0]["flavors"]["cpu"] for e in data["workloads"][:4]]
    assert flavors == ["on-demand"] * 3 + ["spot"]
    # Reasons of every flavor tried, in all resource groups of the pod set, sorted (§7).
    assert data["workloads"][4]["message"] == (
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor on-demand, "
        "3 more needed, insufficient unused quota for cpu_credits in flavor credits, 1 more needed")


def test_queue_with_missing_admission_checks_is_inactive(tmp_path):
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "j", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
           "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}}
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "default"},
          "spec": {"clusterQueue": "cluster-queue-2"}}
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    (tmp_path / "lq.yaml").write_text(yaml.safe_dump(lq))
    code, data = admit(str(tmp_path / "job.yaml"), "--snapshot", os.path.join(EXAMPLES, "admin", "minimal-cq.yaml"),
                       "--snapshot", os.path.join(EXAMPLES, "admin", "resource-flavor-empty.yaml"),
                       "--snapshot", str(tmp_path / "lq.yaml"))
    assert code == 1
    entry = data["workloads"][0]
    assert (entry["result"], entry["message"]) == ("inadmissible", "ClusterQueue cluster-queue-2 is inactive")
    assert "sample-prov" in entry["clusterQueueStatus"]


def test_text_output_and_quota_table(capsys):
    code = main(["admit", os.path.join(EXAMPLES, "jobs", "sample-job.yaml"), "--snapshot", SINGLE, "--show-quota"])
    out = capsys.readouterr().out
    assert code == 0
    assert "admitted to ClusterQueue cluster-queue" in out
    assert "cq/cluster-queue" in out and "default-flavor" in out


def test_bad_input_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "bad.yaml").write_text("kind: Job\nmetadata: [unclosed\n")
    code = main(["admit", str(tmp_path / "bad.yaml"), "--snapshot", SINGLE])
    err = capsys.readouterr().err
    assert code == 2
    assert "bad.yaml:" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_snapshot_over_the_size_limit_can_be_read_with_a_configured_limit(tmp_path, capsys):
    """A large cluster's `kubectl get` dump can pass the default size limit; the message says
    to raise max-file-bytes, and admit reads it from the configuration."""
    with open(SINGLE, encoding="utf-8") as handle:
        setup = handle.read()
    big = tmp_path / "snapshot.yaml"
    big.write_text(setup + "\n# padding\n" + "#" * 2000 + "\n")
    job = os.path.join(EXAMPLES, "jobs", "sample-job.yaml")
    (tmp_path / "small.yaml").write_text("max-file-bytes: 1000\n")
    code = main(["admit", job, "--snapshot", str(big), "--config", str(tmp_path / "small.yaml")])
    err = capsys.readouterr().err
    assert code == 2 and "over the limit of 1,000" in err and "max-file-bytes" in err
    (tmp_path / "large.yaml").write_text(f"max-file-bytes: {big.stat().st_size}\n")
    code, data = admit(job, "--snapshot", str(big), "--config", str(tmp_path / "large.yaml"))
    assert code == 0 and data["workloads"][0]["result"] == "admitted"


def test_kubectl_json_snapshot_gives_what_the_yaml_snapshot_gives(tmp_path):
    with open(SINGLE, encoding="utf-8") as handle:
        objects = [doc for doc in yaml.safe_load_all(handle) if doc]
    as_list = {"apiVersion": "v1", "kind": "List", "items": objects, "metadata": {"resourceVersion": ""}}
    (tmp_path / "snapshot.json").write_text(json.dumps(as_list, indent=4))
    (tmp_path / "snapshot.yaml").write_text(yaml.safe_dump(as_list))
    job = os.path.join(EXAMPLES, "jobs", "sample-job.yaml")
    from_json = admit(job, "--snapshot", str(tmp_path / "snapshot.json"))
    from_yaml = admit(job, "--snapshot", str(tmp_path / "snapshot.yaml"))
    assert from_json == from_yaml and from_json[1]["workloads"][0]["result"] == "admitted"


def test_unreadable_quantity_in_a_job_is_a_located_error(tmp_path, capsys):
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: default, labels: "
           "{kueue.x-k8s.io/queue-name: user-queue}}\nspec:\n  template:\n    spec:\n      containers:\n"
           "      - {name: c, image: x, resources: {requests: {cpu: lots}}}\n")
    (tmp_path / "job.yaml").write_text(job)
    code = main(["admit", str(tmp_path / "job.yaml"), "--snapshot", SINGLE])
    err = capsys.readouterr().err
    assert code == 2
    assert "job.yaml:8:" in err and "invalid quantity 'lots'" in err


MALFORMED = [
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
     "spec": {"resourceGroups": "nope", "namespaceSelector": {}}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
     "spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": ["x", {"name": "f", "resources": [
         {"name": "cpu", "nominalQuota": "bad"}, "junk"]}]}], "preemption": "x", "flavorFungibility": [1]}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w", "namespace": "default"},
     "spec": {"podSets": "x"}, "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": ["x", {
         "flavors": "f", "resourceUsage": {"cpu": "zz"}}]}, "conditions": "bad"}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": "c"}, "spec": {"parentName": ["x"]}},
]


@pytest.mark.parametrize("index", range(len(MALFORMED)))
def test_malformed_snapshot_objects_do_not_crash(tmp_path, index):
    objects = [MALFORMED[index],
               {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                "metadata": {"name": "user-queue", "namespace": "default"}, "spec": {"clusterQueue": "cq"}}]
    (tmp_path / "snap.yaml").write_text(yaml.safe_dump_all(objects))
    code, data = admit(os.path.join(EXAMPLES, "jobs", "sample-job.yaml"), "--snapshot", str(tmp_path / "snap.yaml"))
    assert code in (0, 1)
    assert data["workloads"][0]["result"] in RESULTS
