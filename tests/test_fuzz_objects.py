"""Property-based fuzzing: generated Kueue objects and jobs, valid and mutated, through the whole
pipeline.  No exception escapes, no internal error, every finding points at a line of a file of
the run, and the JSON and SARIF outputs validate against their schemas."""

from __future__ import annotations

import copy
import io
import json
import os
import sys
import tempfile

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO, SARIF_SCHEMA
from kueuelint.config import Config
from kueuelint.pipeline import load_rules, run_check
from kueuelint.report import get_reporter
from kueuelint.report.options import ReportOptions

sys.path.insert(0, str(REPO / "bench"))
import fuzz  # noqa: E402  (bench/ is not a package)

CONFIG = Config()
RULES = load_rules(CONFIG)
JSON_VALIDATOR = jsonschema.Draft202012Validator(
    json.loads((REPO / "docs" / "output-json-schema.json").read_text()))
SARIF_VALIDATOR = jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text()))

KUEUE = "kueue.x-k8s.io/v1beta1"
names = st.sampled_from(["default", "team-a", "gpu", "cq", "lq", "main", "x" * 64, "A_b", ""])
quantities = st.one_of(st.sampled_from(["1", "0", "500m", "2Gi", "1e3", "-1", "1Ei", "9" * 30, "abc", "1.5Gi"]),
                       st.integers(-3, 2**63), st.floats(allow_nan=True, allow_infinity=True))
resources = st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "pods", "ephemeral-storage"])
EDGES = [None, "", 0, -1, 2**63, 1e308, float("nan"), True, "NO", [], {}, [None], {"": None},
         "x" * 300, "0755", "1:30", {"a": {"b": {"c": [1, [2, [3]]]}}}]


@st.composite
def flavor_quotas(draw):
    return {"name": draw(names), "resources": draw(st.lists(
        st.fixed_dictionaries({"name": resources, "nominalQuota": quantities},
                              optional={"borrowingLimit": quantities, "lendingLimit": quantities}),
        max_size=3))}


@st.composite
def cluster_queue(draw):
    spec = {"namespaceSelector": {}, "resourceGroups": draw(st.lists(st.fixed_dictionaries({
        "coveredResources": st.lists(resources, max_size=3),
        "flavors": st.lists(flavor_quotas(), max_size=3)}), max_size=2))}
    if draw(st.booleans()):
        spec["cohort"] = draw(names)
    if draw(st.booleans()):
        spec["preemption"] = {"withinClusterQueue": draw(st.sampled_from(["Never", "LowerPriority", "Bad"]))}
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": draw(names)}, "spec": spec}


@st.composite
def small_kueue_object(draw):
    kind = draw(st.sampled_from(["ResourceFlavor", "LocalQueue", "Cohort", "WorkloadPriorityClass"]))
    meta = {"name": draw(names), "namespace": draw(names)}
    body = {"ResourceFlavor": {"spec": {"nodeLabels": {"pool": draw(names)}}},
            "LocalQueue": {"spec": {"clusterQueue": draw(names)}},
            "Cohort": {"spec": {"parentName": draw(names)}},
            "WorkloadPriorityClass": {"value": draw(st.integers(-2**40, 2**40))}}[kind]
    return {"apiVersion": draw(st.sampled_from([KUEUE, "kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v9"])),
            "kind": kind, "metadata": meta, **body}


@st.composite
def pod_template(draw):
    container = {"name": "main", "image": "busybox",
                 "resources": {"requests": draw(st.dictionaries(resources, quantities, max_size=3)),
                               "limits": draw(st.dictionaries(resources, quantities, max_size=2))}}
    spec = {"containers": [container], "restartPolicy": "Never"}
    if draw(st.booleans()):
        spec["nodeSelector"] = {"pool": draw(names)}
    if draw(st.booleans()):
        spec["tolerations"] = [{"key": draw(names), "operator": "Exists"}]
    return {"spec": spec}


@st.composite
def job(draw):
    labels = {"kueue.x-k8s.io/queue-name": draw(names)} if draw(st.booleans()) else {}
    template = draw(pod_template())
    kind = draw(st.sampled_from(["Job", "JobSet", "RayJob", "Pod"]))
    meta = {"name": draw(names), "namespace": draw(names), "labels": labels}
    if kind == "Job":
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
                "spec": {"parallelism": draw(quantities), "completions": draw(quantities),
                         "suspend": True, "template": template}}
    if kind == "JobSet":
        return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta,
                "spec": {"replicatedJobs": [{"name": "w", "replicas": draw(quantities),
                                             "template": {"spec": {"template": template}}}]}}
    if kind == "RayJob":
        return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": meta,
                "spec": {"rayClusterSpec": {"headGroupSpec": {"template": template}, "workerGroupSpecs": [
                    {"groupName": "g", "replicas": draw(quantities), "template": template}]}}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, **template}


def paths_of(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths_of(child, prefix + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from paths_of(child, prefix + (index,))


@st.composite
def mutated(draw, objects):
    """Drop fields, swap types and put values at their limits, at random places."""
    obj = copy.deepcopy(draw(objects))    # drawn values are shared: never change them in place
    for _ in range(draw(st.integers(0, 4))):
        paths = [p for p in paths_of(obj) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = obj
        for step in path[:-1]:
            parent = parent[step]
        if draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(EDGES)))
    return obj


@st.composite
def kueue_configuration(draw):
    """The controller's Configuration, embedded in a ConfigMap as Kueue ships it; the embedded
    text is sometimes not YAML at all."""
    config = {"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration",
              "manageJobsWithoutQueueName": draw(st.sampled_from([True, False, "yes", None])),
              "integrations": {"frameworks": draw(st.lists(st.sampled_from(
                  ["batch/job", "jobset.x-k8s.io/jobset", "ray.io/rayjob", "pod", "nope"]), max_size=4))},
              "waitForPodsReady": {"enable": draw(st.booleans()), "timeout": draw(st.sampled_from(["5m", "x", 5]))}}
    text = draw(st.one_of(st.just(yaml.safe_dump(config)), st.text(max_size=200),
                          st.just("a: [\n"), st.just("- - - x\n" * 3)))
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
            "data": {"controller_manager_config.yaml": text}}


any_object = st.one_of(cluster_queue(), small_kueue_object(), job(), kueue_configuration())
documents = st.lists(st.one_of(any_object, mutated(any_object)), min_size=1, max_size=6)


def dump(objects) -> bytes:
    return yaml.safe_dump_all(objects, sort_keys=False, allow_unicode=True).encode("utf-8")


def run_and_check(files: dict[str, bytes], jobs: int = 1):
    result = run_check(sorted(files), CONFIG, RULES, jobs=jobs)
    assert result.internal_error is None, result.internal_error
    assert fuzz.location_problems(result, files) == []
    options = ReportOptions(cwd_for_uris=os.getcwd())
    rendered = {}
    for name in ("json", "sarif"):
        stream = io.StringIO()
        get_reporter(name)(result, stream, options)
        rendered[name] = json.loads(stream.getvalue())
    JSON_VALIDATOR.validate(rendered["json"])
    SARIF_VALIDATOR.validate(rendered["sarif"])
    return result


FUZZ = settings(max_examples=int(os.environ.get("KUEUELINT_FUZZ_EXAMPLES", "40")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(first=documents, second=documents)
def test_generated_objects_never_break_the_pipeline(first, second):
    with tempfile.TemporaryDirectory() as folder:
        files = {os.path.join(folder, "queues.yaml"): dump(first),
                 os.path.join(folder, "jobs.yaml"): dump(second)}
        for path, data in files.items():
            with open(path, "wb") as handle:
                handle.write(data)
        run_and_check(files)


@FUZZ
@given(objects=documents, cut=st.integers(0, 10_000), junk=st.binary(max_size=8))
def test_truncated_and_damaged_text_never_breaks_the_pipeline(objects, cut, junk):
    data = dump(objects)
    data = data[: cut % (len(data) + 1)] + junk
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "damaged.yaml")
        with open(path, "wb") as handle:
            handle.write(data)
        run_and_check({path: data})


def test_the_sarif_validator_really_checks():
    with pytest.raises(jsonschema.ValidationError):
        SARIF_VALIDATOR.validate({"version": "2.1.0", "runs": [{"tool": {}}]})


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(objects=st.lists(any_object, min_size=2, max_size=8), seed=st.integers(0, 1000))
def test_findings_do_not_depend_on_the_order_of_the_files(objects, seed):
    import random

    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for index, obj in enumerate(objects):
            path = os.path.join(folder, f"f{index}.yaml")
            with open(path, "wb") as handle:
                handle.write(dump([obj]))
            paths.append(path)
        shuffled = paths[:]
        random.Random(seed).shuffle(shuffled)
        keys = [[(f.location.path, f.location.line, f.location.column, f.code, f.message)
                 for f in run_check(order, CONFIG, RULES).findings] for order in (paths, shuffled)]
        assert keys[0] == keys[1]
