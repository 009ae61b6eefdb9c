"""Rules for SkyPilot config files and task YAML that submit to Kueue (KQ850-KQ899).

A config file reports what it sets itself (every workspace and context); a task reports
what its own ``resources``/``config:`` set, judged together with the config files of the run.
"""

from __future__ import annotations

from kueuelint.checks.api import RuleContext, Violation, rule
from kueuelint.checks.builtin import compute_common as common
from kueuelint.identify.objects import KObject
from kueuelint.kueue.facts import ObjectFact

CONFIG = "skypilot.co/Config"
TASK = "skypilot.co/Task"
DEFAULT_MIN_TIMEOUT = 600


def _sky():
    from kueuelint.models import skypilot

    return skypilot


def _effective(obj: KObject, ctx: RuleContext):
    return SKY_EFFECTIVE.of(obj, ctx.inventory)


# a task's settings with the run's config files applied
SKY_EFFECTIVE = ObjectFact("skypilot-effective", lambda obj, inventory: _sky().effective(obj, inventory))


def own_scopes(obj: KObject) -> list:
    """The ``kubernetes`` sections this object itself writes."""
    sky = _sky()
    if obj.key == CONFIG:
        return sky.config_scopes(obj, everything=True)
    section = obj.get("config", "kubernetes")
    return [sky.read_scope(obj, section, ("config", "kubernetes"), "task")] if isinstance(section, dict) else []


def own_queue_settings(obj: KObject) -> list:
    settings = [s for scope in own_scopes(obj) for s in (scope.queue_option, scope.queue_label) if s]
    if obj.key == TASK:
        label = _sky().task_label_queue(obj)
        settings += [label] if label else []
    return settings


@rule("KQ850")
def skypilot_schema(obj: KObject, ctx: RuleContext):
    sky = _sky()
    validate = sky.validate_sky_config if obj.key == CONFIG else sky.validate_sky_task
    for path, message in validate(obj.data):
        yield Violation(path=path, args={"detail": message})
    if obj.key == TASK:
        from kueuelint.derive.compute_configs import sky_task_requests

        for path, message in sky_task_requests(obj)[2]:
            yield Violation(path=path, at_value=True, args={"detail": message})
    for scope in own_scopes(obj):
        pod_config = scope.section.get("pod_config")
        if isinstance(pod_config, dict):
            for path, message in common.non_string_label_values(pod_config, scope.path + ("pod_config",)):
                yield Violation(path=path, at_value=True, args={"detail": message})


@rule("KQ851")
def gang_needs_queue_option(obj: KObject, ctx: RuleContext):
    nodes = _sky().num_nodes(obj)
    settings = _effective(obj, ctx)
    if nodes < 2 or settings.queue_option or settings.manual_group or not settings.queue_label:
        return
    label = settings.queue_label
    path = label.path if label.obj is obj else ("num_nodes",)
    yield Violation(path=path, args={"detail": (
        f"this {nodes}-node task names queue {label.name!r} only through {label.how}, so Kueue "
        "admits each pod as its own Workload and a partial cluster can start; set "
        "kubernetes.kueue.local_queue_name (or kubernetes.quota.queue) instead so SkyPilot "
        "submits all nodes as one pod group")})


def _short(setting, minimum: int) -> bool:
    value = setting.value
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < minimum


def _timeout_detail(value, minimum: int) -> str:
    what = f"provision_timeout is {value} s" if value is not None else (
        "no provision_timeout is set, so SkyPilot's default of 10 s applies")
    return (f"{what}, but pods wait in a Kueue queue until admitted; SkyPilot gives up and "
            f"tears the cluster down before that. Set kubernetes.provision_timeout to at least "
            f"{minimum} (or -1 to wait forever)")


@rule("KQ852")
def provision_timeout_short(obj: KObject, ctx: RuleContext):
    minimum = int(ctx.options.get("min-provision-timeout", DEFAULT_MIN_TIMEOUT))
    if obj.key == CONFIG:
        yield from _config_timeouts(obj, minimum)
        return
    settings = _effective(obj, ctx)
    queues = own_queue_settings(obj)
    timeout = settings.timeout
    sets_timeout = timeout is not None and timeout.obj is obj
    if not (queues or sets_timeout) or not (settings.queue_option or settings.queue_label):
        return
    if timeout is None and (settings.sources or ctx.inventory.require_complete):
        yield Violation(path=queues[0].path, args={"detail": _timeout_detail(None, minimum)})
    elif timeout is not None and _short(timeout, minimum) and (sets_timeout or queues):
        path = timeout.path if sets_timeout else queues[0].path
        yield Violation(path=path, args={"detail": _timeout_detail(timeout.value, minimum)})


def _config_timeouts(obj: KObject, minimum: int):
    scopes = own_scopes(obj)
    global_timeout = next((s.timeout for s in scopes if s.label == "global"), None)
    reported = set()
    for scope in scopes:
        queue = scope.queue_option or scope.queue_label
        if queue is None:
            continue
        timeout = scope.timeout or global_timeout
        if timeout is None or _short(timeout, minimum):
            path = timeout.path if timeout is not None else queue.path
            if path not in reported:
                reported.add(path)
                value = timeout.value if timeout is not None else None
                yield Violation(path=path, args={"detail": _timeout_detail(value, minimum)})


@rule("KQ853")
def pod_framework_enabled(obj: KObject, ctx: RuleContext):
    settings = own_queue_settings(obj)
    if settings:
        found = common.pod_framework_violation(ctx.inventory, settings[0].path, settings[0].name,
                                               "SkyPilot")
        yield from [found] if found else []


@rule("KQ854")
def placement_in_pod_config(obj: KObject, ctx: RuleContext):
    if obj.key == CONFIG and not own_queue_settings(obj):
        return
    if obj.key == TASK and not (_effective(obj, ctx).queue_option or _effective(obj, ctx).queue_label):
        return
    for scope in own_scopes(obj):
        pod_config = scope.section.get("pod_config")
        for path, what in common.placement_paths(pod_config, scope.path + ("pod_config",),
                                                 keys=("nodeSelector", "affinity")):
            yield Violation(path=path, args={"detail": (
                f"pod_config sets spec.{what}; with Kueue, pin nodes through a ResourceFlavor's "
                "spec.nodeLabels so the flavor Kueue picks and the nodes the pods can use agree")})


@rule("KQ855")
def resources_covered(obj: KObject, ctx: RuleContext):
    if obj.key != TASK:
        return
    from kueuelint.derive.compute_configs import derive_compute_config_workloads

    workloads = derive_compute_config_workloads(obj, ctx.inventory)
    yield from common.coverage_violations(obj, workloads, ctx.inventory)


@rule("KQ856")
def queue_exists(obj: KObject, ctx: RuleContext):
    """Config files name queues for many namespaces; only tasks know theirs."""
    if obj.key != TASK:
        return
    settings = _effective(obj, ctx)
    queue = settings.queue_option or settings.queue_label
    if queue is None:
        return
    path = queue.path if queue.obj is obj else ()
    found = common.missing_queue_violation(ctx.inventory, queue.name, settings.namespace, path)
    yield from [found] if found else []
