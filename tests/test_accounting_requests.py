from __future__ import annotations

from decimal import Decimal

import pytest

from helpers_load import corpus_path, load_objects, only
from kueuelint.accounting.requests import ResourcesConfig, container_defaults, pod_requests

GI = 2**30
MI = 2**20


def container(name, requests=None, limits=None, **extra):
    resources = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": name, "resources": resources, **extra}


def sidecar(name, requests):
    return container(name, requests, restartPolicy="Always")


def limit_range(name, **item):
    return {"kind": "LimitRange", "metadata": {"name": name},
            "spec": {"limits": [{"type": "Container", **item}]}}


# --- containers and init containers -----------------------------------------------------------

def test_sum_of_containers_against_largest_init_container():
    spec = {
        "containers": [container("a", {"cpu": "1", "memory": "1Gi"}),
                       container("b", {"cpu": "500m", "memory": "512Mi"})],
        "initContainers": [container("setup", {"cpu": "2", "memory": "256Mi"})],
    }
    requests, paths, problems = pod_requests(spec)
    # cpu: max(1 + 0.5, 2) = 2; memory: max(1Gi + 512Mi, 256Mi) = 1.5Gi
    assert requests == {"cpu": Decimal(2), "memory": Decimal(GI + 512 * MI)}
    assert paths["cpu"] == ("containers", 0, "resources", "requests", "cpu")
    assert problems == []


def test_sidecar_counts_with_the_app_and_with_later_init_containers():
    spec = {
        "initContainers": [sidecar("proxy", {"cpu": "1"}),
                           container("migrate", {"cpu": "2"})],
        "containers": [container("app", {"cpu": "1"})],
    }
    # running: app 1 + sidecar 1 = 2; init peak: migrate 2 + sidecar before it 1 = 3
    assert pod_requests(spec).requests == {"cpu": Decimal(3)}


def test_sidecar_declared_after_an_init_container_does_not_add_to_it():
    spec = {
        "initContainers": [container("migrate", {"cpu": "2"}),
                           sidecar("proxy", {"cpu": "1"})],
        "containers": [container("app", {"cpu": "1"})],
    }
    # running: 1 + 1 = 2; init peak: max(migrate 2, sidecar 1) = 2
    assert pod_requests(spec).requests == {"cpu": Decimal(2)}


def test_resource_only_in_an_init_container_is_still_requested():
    spec = {"initContainers": [container("fetch", {"ephemeral-storage": "5Gi"})],
            "containers": [container("app", {"cpu": "1"})]}
    assert pod_requests(spec).requests == {"cpu": Decimal(1), "ephemeral-storage": Decimal(5 * GI)}


def test_limits_stand_in_for_missing_requests():
    spec = {"containers": [container("app", {"memory": "512Mi"}, {"cpu": "2", "memory": "1Gi"})]}
    result = pod_requests(spec)
    assert result.requests == {"cpu": Decimal(2), "memory": Decimal(512 * MI)}
    assert result.paths["cpu"] == ("containers", 0, "resources", "limits", "cpu")
    assert result.origins == {"memory": "requests", "cpu": "limits"}


# --- LimitRange defaults ---------------------------------------------------------------------

def test_limit_range_defaults_fill_missing_values_in_all_containers():
    defaults = limit_range("team-defaults", default={"cpu": "1", "memory": "1Gi"},
                           defaultRequest={"cpu": "250m"})
    spec = {"containers": [container("app", {"memory": "2Gi"}), {"name": "bare"}],
            "initContainers": [{"name": "init"}]}
    result = pod_requests(spec, limit_ranges=[defaults])
    # app: cpu 250m (defaultRequest), memory 2Gi (own); bare: cpu 250m, memory 1Gi (the
    # default limit becomes the request); init: cpu 250m, memory 1Gi.
    # cpu = max(250m + 250m, 250m) = 500m; memory = max(2Gi + 1Gi, 1Gi) = 3Gi
    assert result.requests == {"cpu": Decimal("0.5"), "memory": Decimal(3 * GI)}
    assert result.origins == {"memory": "requests", "cpu": "limit-range:team-defaults"}
    assert result.paths["cpu"] == ("containers", 0, "resources", "requests", "cpu")


def test_limit_range_injects_resources_the_manifest_never_mentions():
    # The classic surprise (kueue #4848): ephemeral-storage appears from a namespace default.
    defaults = limit_range("storage", defaultRequest={"ephemeral-storage": "1Gi"})
    spec = {"containers": [container("app", {"cpu": "1"})]}
    result = pod_requests(spec, limit_ranges=[defaults])
    assert result.requests == {"cpu": Decimal(1), "ephemeral-storage": Decimal(GI)}
    assert result.origins["ephemeral-storage"] == "limit-range:storage"


def test_limit_range_completion_max_becomes_default_and_min_becomes_default_request():
    # Stored LimitRanges are completed by the API server: default <- max,
    # defaultRequest <- default, then defaultRequest <- min.
    defaults = limit_range("bounds", max={"cpu": "800m"}, min={"memory": "64Mi"})
    spec = {"containers": [{"name": "app"}]}
    assert pod_requests(spec, limit_ranges=[defaults]).requests == {
        "cpu": Decimal("0.8"), "memory": Decimal(64 * MI)}


def test_existing_requests_and_limits_win_over_limit_range_defaults():
    defaults = limit_range("d", default={"cpu": "4"}, defaultRequest={"cpu": "2"})
    spec = {"containers": [container("app", {"cpu": "100m"}),
                           container("capped", None, {"cpu": "300m"})]}
    # app keeps 100m. capped has a limit but no request: defaultRequest applies first (2),
    # exactly as Kueue orders the steps. Total 2.1.
    assert pod_requests(spec, limit_ranges=[defaults]).requests == {"cpu": Decimal("2.1")}


def test_only_container_type_limit_range_items_apply_and_first_limit_range_wins():
    pod_type = {"metadata": {"name": "pods"},
                "spec": {"limits": [{"type": "Pod", "max": {"cpu": "8"}}]}}
    first = limit_range("first", defaultRequest={"cpu": "1"})
    second = limit_range("second", defaultRequest={"cpu": "3", "memory": "1Gi"})
    defaults = container_defaults([pod_type, first, second])
    assert {name: (amount, source) for name, (amount, source) in defaults.requests.items()} == {
        "cpu": (Decimal(1), "first"), "memory": (Decimal(GI), "second")}


# --- overhead and pod-level resources --------------------------------------------------------

RUNTIME_CLASSES = {"kata": {"kind": "RuntimeClass", "metadata": {"name": "kata"},
                            "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}}}}


def test_runtime_class_overhead_is_added():
    spec = {"runtimeClassName": "kata", "containers": [container("app", {"cpu": "1", "memory": "1Gi"})]}
    result = pod_requests(spec, runtime_classes=RUNTIME_CLASSES)
    assert result.requests == {"cpu": Decimal("1.25"), "memory": Decimal(GI + 120 * MI)}
    # A lookup function works as well as a mapping.
    assert pod_requests(spec, runtime_classes=RUNTIME_CLASSES.get).requests == result.requests


def test_explicit_overhead_wins_over_the_runtime_class():
    spec = {"runtimeClassName": "kata", "overhead": {"cpu": "100m"},
            "containers": [container("app", {"cpu": "1"})]}
    result = pod_requests(spec, runtime_classes=RUNTIME_CLASSES)
    assert result.requests == {"cpu": Decimal("1.1")}


def test_overhead_alone_names_where_it_came_from():
    spec = {"runtimeClassName": "kata", "containers": [{"name": "app"}]}
    result = pod_requests(spec, runtime_classes=RUNTIME_CLASSES)
    assert result.paths["memory"] == ("runtimeClassName",)
    assert result.origins["memory"] == "runtime-class:kata"


def test_unknown_runtime_class_adds_nothing():
    spec = {"runtimeClassName": "gvisor", "containers": [container("app", {"cpu": "1"})]}
    assert pod_requests(spec, runtime_classes=RUNTIME_CLASSES).requests == {"cpu": Decimal(1)}


def test_pod_level_resources_replace_the_aggregate_for_what_they_name():
    spec = {
        "resources": {"requests": {"cpu": "4"}, "limits": {"memory": "8Gi"}},
        "overhead": {"cpu": "100m"},
        "containers": [container("a", {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}),
                       container("b", {"cpu": "1", "memory": "1Gi"})],
    }
    result = pod_requests(spec)
    # cpu: pod-level 4 (not 2) + overhead 0.1; memory: pod-level limit 8Gi stands in for the
    # request; gpu: pod level cannot name it, so the container sum stays.
    assert result.requests == {"cpu": Decimal("4.1"), "memory": Decimal(8 * GI), "nvidia.com/gpu": 1}
    assert result.paths["cpu"] == ("resources", "requests", "cpu")
    assert result.paths["memory"] == ("resources", "limits", "memory")
    assert result.origins["cpu"] == "pod-resources"


def test_pod_level_resources_reject_extended_resources():
    spec = {"resources": {"requests": {"nvidia.com/gpu": "1"}}, "containers": [{"name": "a"}]}
    result = pod_requests(spec)
    assert result.requests == {}
    assert result.problems[0][0] == ("resources", "requests", "nvidia.com/gpu")


# --- bad input -------------------------------------------------------------------------------

def test_invalid_quantities_are_reported_and_skipped():
    spec = {"containers": [container("app", {"cpu": "1.2.3", "memory": "10Gb"}, {"cpu": "2"})]}
    result = pod_requests(spec)
    # The broken cpu request is skipped, so the limit stands in for it.
    assert result.requests == {"cpu": Decimal(2)}
    problem_paths = [path for path, _ in result.problems]
    assert problem_paths == [("containers", 0, "resources", "requests", "cpu"),
                             ("containers", 0, "resources", "requests", "memory")]
    assert "'10Gb'" in result.problems[1][1] and "Gi or G" in result.problems[1][1]


@pytest.mark.parametrize("spec, path", [
    ({"containers": "app"}, ("containers",)),
    ({"containers": ["app"]}, ("containers", 0)),
    ({"containers": [{"name": "a", "resources": ["cpu"]}]}, ("containers", 0, "resources")),
    ({"containers": [{"name": "a", "resources": {"requests": "1"}}]},
     ("containers", 0, "resources", "requests")),
    ({"containers": [], "resources": 4}, ("resources",)),
    ({"containers": [], "overhead": {"cpu": []}}, ("overhead", "cpu")),
])
def test_wrong_types_become_problems_not_exceptions(spec, path):
    result = pod_requests(spec)
    assert [problem_path for problem_path, _ in result.problems] == [path]


def test_non_mapping_pod_spec():
    assert pod_requests(None).problems == []
    assert pod_requests("x").problems == [((), "pod spec is not a mapping")]


def test_pods_resource_is_not_per_pod():
    spec = {"containers": [container("app", {"cpu": "1", "pods": "1"})]}
    result = pod_requests(spec)
    assert result.requests == {"cpu": Decimal(1)}
    assert result.problems[0][0] == ("containers", 0, "resources", "requests", "pods")


# --- Kueue's resources configuration ---------------------------------------------------------

HAMI_CONFIGURATION = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
    "resources": {"transformations": [
        {"input": "nvidia.com/gpucores", "strategy": "Replace", "multiplyBy": "nvidia.com/gpu",
         "outputs": {"nvidia.com/total-gpucores": "1"}},
        {"input": "nvidia.com/gpumem", "strategy": "Replace", "multiplyBy": "nvidia.com/gpu",
         "outputs": {"nvidia.com/total-gpumem": "1"}},
    ]},
}


def test_hami_sample_deployment_with_its_transformations():
    objects = load_objects(corpus_path("kueue/site/static/examples/serving-workloads/sample-hami.yaml"))
    deployment = only(objects, "apps/Deployment", "gpu-burn")
    per_pod = pod_requests(deployment.get("spec", "template", "spec"))
    # The sample sets only limits: 2 vGPUs, 30 cores and 1024 MiB per vGPU.
    assert per_pod.requests == {"nvidia.com/gpu": 2, "nvidia.com/gpucores": 30, "nvidia.com/gpumem": 1024}
    config = ResourcesConfig.from_configuration(HAMI_CONFIGURATION)
    units, paths = config.apply_with_paths(per_pod.requests, per_pod.paths)
    # total = per-vGPU amount x number of vGPUs; the inputs are replaced.
    assert units == {"nvidia.com/gpu": 2, "nvidia.com/total-gpucores": 60, "nvidia.com/total-gpumem": 2048}
    assert paths["nvidia.com/total-gpucores"] == ("containers", 0, "resources", "limits", "nvidia.com/gpucores")


def test_retain_keeps_the_input_and_outputs_from_several_inputs_add_up():
    config = ResourcesConfig.from_configuration({"resources": {"transformations": [
        {"input": "example.com/small-gpu", "outputs": {"example.com/gpu-units": "1"}},
        {"input": "example.com/big-gpu", "outputs": {"example.com/gpu-units": "4", "memory": "1Gi"}},
    ]}})
    units = config.apply({"example.com/small-gpu": Decimal(2), "example.com/big-gpu": Decimal(1),
                          "memory": Decimal(GI)})
    # units = 2*1 + 1*4 = 6; memory = direct 1Gi + generated 1*1Gi = 2Gi
    assert units == {"example.com/small-gpu": 2, "example.com/big-gpu": 1,
                     "example.com/gpu-units": 6, "memory": 2 * GI}


def test_negative_generated_totals_are_floored_before_adding():
    config = ResourcesConfig.from_configuration({"resources": {"transformations": [
        {"input": "example.com/allowance", "strategy": "Replace", "outputs": {"cpu": "-1"}},
    ]}})
    # generated cpu = 3 * -1 = -3 -> floored to 0, so the direct 2 cpu stay
    assert config.apply({"cpu": Decimal(2), "example.com/allowance": Decimal(3)}) == {"cpu": 2000}


def test_replace_with_no_outputs_makes_kueue_ignore_the_resource():
    config = ResourcesConfig.from_configuration({"resources": {"transformations": [
        {"input": "example.com/license", "strategy": "Replace"}]}})
    assert config.apply({"cpu": Decimal("0.1"), "example.com/license": Decimal(1)}) == {"cpu": 100}


def test_excluded_prefixes_are_dropped_before_transformations():
    config = ResourcesConfig.from_configuration({"resources": {
        "excludeResourcePrefixes": ["ephemeral-", "example.com/"],
        "transformations": [{"input": "example.com/x", "outputs": {"cpu": "1"}}]}})
    assert config.is_excluded("ephemeral-storage")
    assert config.apply({"cpu": Decimal(1), "ephemeral-storage": Decimal(GI),
                         "example.com/x": Decimal(5)}) == {"cpu": 1000}


def test_no_configuration_only_converts_units():
    config = ResourcesConfig.from_configuration(None)
    assert config.apply({"cpu": Decimal("0.1"), "memory": Decimal("1.5")}) == {"cpu": 100, "memory": 2}
    assert not config.quota_check_ignores_undeclared


def test_quota_check_strategy():
    config = ResourcesConfig.from_configuration({"resources": {"quotaCheckStrategy": "IgnoreUndeclared"}})
    assert config.quota_check_ignores_undeclared
    blocking = ResourcesConfig.from_configuration({"resources": {"quotaCheckStrategy": "BlockUndeclared"}})
    assert not blocking.quota_check_ignores_undeclared


def test_configuration_problems_are_collected():
    config = ResourcesConfig.from_configuration({"resources": {
        "excludeResourcePrefixes": ["ok", 3],
        "transformations": [
            {"input": "a", "strategy": "Swap", "outputs": {"b": "1x"}},
            {"outputs": {"c": "1"}},
        ]}})
    assert [path for path, _ in config.problems] == [
        ("resources", "excludeResourcePrefixes", 1),
        ("resources", "transformations", 0, "strategy"),
        ("resources", "transformations", 0, "outputs", "b"),
        ("resources", "transformations", 1),
    ]
    assert config.exclude_prefixes == ("ok",)
    assert config.transformations["a"].strategy == "Retain"
    assert config.transformations["a"].outputs == {}


def test_negative_amounts_are_reported_and_skipped():
    spec = {"containers": [container("app", {"cpu": "-1", "memory": "1Gi"})], "overhead": {"memory": "-1"}}
    result = pod_requests(spec)
    assert result.requests == {"memory": Decimal(2**30)}
    assert [path for path, _ in result.problems] == [("containers", 0, "resources", "requests", "cpu"),
                                                     ("overhead", "memory")]
    assert result.problems[0][1].startswith("invalid quantity '-1' for cpu")


def test_fractional_extended_resources_are_reported_but_counted():
    spec = {"containers": [container("app", {}, {"nvidia.com/gpu": "0.5", "hugepages-2Mi": "1.5"})]}
    result = pod_requests(spec)
    assert result.requests["nvidia.com/gpu"] == Decimal("0.5")
    assert [path for path, _ in result.problems] == [("containers", 0, "resources", "limits", "nvidia.com/gpu")]
    assert "whole number" in result.problems[0][1]
