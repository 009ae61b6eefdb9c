"""KQ501–KQ513: references between Kueue objects that leave queues inactive or workloads pending.

A missing target is reported only when the run could have held it (``inventory.has_kind``), and
the message says how many objects of that kind the run had, so a pre-commit run on one file
stays quiet. When several files define an object of the same name (a folder of examples), the
one in the same file as the reference wins.
"""

from __future__ import annotations

import difflib

from kueuelint.index.selectors import NAME_LABEL, selects_namespace
from kueuelint.checks.api import RuleContext, Violation, incomplete_note, rule, unless_complete
from kueuelint.findings import Severity
from kueuelint.identify.kinds import KUEUE_GROUP
from kueuelint.kueue.label_syntax import selector_problems
from kueuelint.kueue.quota_tree import cohort_of, flavor_names, group_path, parent_of, resource_groups
from kueuelint.identify.objects import KObject
from kueuelint.kueue.facts import Fact
from kueuelint.index.inventory import explicit_namespace

PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"
_PARAMETER_KINDS = {PROVISIONING_CONTROLLER: "ProvisioningRequestConfig",
                    MULTIKUEUE_CONTROLLER: "MultiKueueConfig"}
_PLURALS = {"ClusterQueue": "ClusterQueues", "ResourceFlavor": "ResourceFlavors",
            "AdmissionCheck": "AdmissionChecks", "Topology": "Topologies",
            "LocalQueue": "LocalQueues", "WorkloadPriorityClass": "WorkloadPriorityClasses",
            "ProvisioningRequestConfig": "ProvisioningRequestConfigs",
            "MultiKueueConfig": "MultiKueueConfigs", "PriorityClass": "PriorityClasses",
            "MultiKueueCluster": "MultiKueueClusters"}


# --- lookups -----------------------------------------------------------------------------------

def find(ctx: RuleContext, near: KObject, key: str, name: str, namespace: str | None = None):
    """The ``key`` object called ``name``, preferring one from ``near``'s own file."""
    found = ctx.inventory.get(key, name, namespace)
    if found is not None and found.path != near.path:
        for other in ctx.inventory.of_kind(key):
            if other.name == name and other.namespace == namespace and other.path == near.path:
                return other
    return found


def missing(ctx: RuleContext, key: str, name: str, namespace: str | None = None) -> str | None:
    """A "not found among ..." phrase when the run could have held the target, else None."""
    if not ctx.inventory.has_kind(key):
        return None
    kind = key.rpartition("/")[2]
    pool = [o for o in ctx.inventory.of_kind(key) if namespace is None or o.namespace == namespace]
    where = f" in namespace {namespace!r}" if namespace else ""
    plural = _PLURALS.get(kind, kind + "s")
    if not pool:
        return f"{kind} {name!r} not found: the run has no {plural}{where} (require-complete is set)" \
            if ctx.inventory.require_complete else f"{kind} {name!r} not found: no {plural}{where} in this run"
    close = difflib.get_close_matches(name, sorted({o.name for o in pool}), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{kind} {name!r} not found among the {len(pool)} {plural}{where} in this run{hint}" \
        + incomplete_note(ctx.inventory, plural)


def not_found(ctx: RuleContext, path: tuple, detail: str) -> Violation:
    return Violation(path=path, at_value=True, severity=unless_complete(ctx.inventory), args={"detail": detail})


def _kueue(kind: str) -> str:
    return f"{KUEUE_GROUP}/{kind}"


def check_names(obj: KObject) -> list[tuple[tuple, str, dict]]:
    """(path, name, entry) of every admission check a ClusterQueue lists (v1beta2 and v1beta1)."""
    found = []
    strategy = obj.spec.get("admissionChecksStrategy")
    items = strategy.get("admissionChecks") if isinstance(strategy, dict) else None
    for index, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            found.append((("spec", "admissionChecksStrategy", "admissionChecks", index, "name"),
                          item["name"], item))
    plain = obj.spec.get("admissionChecks")
    for index, name in enumerate(plain if isinstance(plain, list) else []):
        if isinstance(name, str):
            found.append((("spec", "admissionChecks", index), name, {"name": name}))
    return found


# --- KQ501: LocalQueue -> ClusterQueue ----------------------------------------------------------

@rule("KQ501")
def local_queue_cluster_queue(obj: KObject, ctx: RuleContext):
    target = obj.spec.get("clusterQueue")
    if not isinstance(target, str) or not target:
        path = ("spec",) if "spec" in obj.data else ("metadata", "name")
        yield Violation(path=path, args={"detail": (
            "spec.clusterQueue is not set, so the LocalQueue is inactive and every workload sent "
            "to it stays pending; name the ClusterQueue that should admit its workloads")})
        return
    if find(ctx, obj, _kueue("ClusterQueue"), target) is None:
        why = missing(ctx, _kueue("ClusterQueue"), target)
        if why:
            yield not_found(ctx, ("spec", "clusterQueue"), (
                f"{why}; workloads in this LocalQueue stay pending (\"ClusterQueue {target} "
                "doesn't exist\")"))


# --- KQ502 / KQ503 / KQ504: ClusterQueue -> flavors and admission checks ----------------------

@rule("KQ502")
def cluster_queue_flavor(obj: KObject, ctx: RuleContext):
    for gi, _, flavors in resource_groups(obj):
        for fi, flavor in enumerate(flavors):
            name = flavor.get("name")
            if isinstance(name, str) and find(ctx, obj, _kueue("ResourceFlavor"), name) is None:
                why = missing(ctx, _kueue("ResourceFlavor"), name)
                if why:
                    yield not_found(ctx, group_path(gi) + ("flavors", fi, "name"), (
                        f"{why}; Kueue keeps the ClusterQueue inactive (FlavorNotFound) and "
                        "admits nothing through it"))


@rule("KQ503")
def cluster_queue_admission_check(obj: KObject, ctx: RuleContext):
    for path, name, _ in check_names(obj):
        if find(ctx, obj, _kueue("AdmissionCheck"), name) is None:
            why = missing(ctx, _kueue("AdmissionCheck"), name)
            if why:
                yield not_found(ctx, path, (
                    f"{why}; Kueue keeps the ClusterQueue inactive (AdmissionCheckNotFound)"))


@rule("KQ504")
def on_flavors_unknown(obj: KObject, ctx: RuleContext):
    known = flavor_names(obj)
    for path, name, entry in check_names(obj):
        listed = entry.get("onFlavors")
        for index, flavor in enumerate(listed if isinstance(listed, list) else []):
            if isinstance(flavor, str) and flavor not in known:
                offer = f"its flavors are {', '.join(known)}" if known else \
                    "it has no resourceGroups, hence no flavors at all"
                yield Violation(path=path[:-1] + ("onFlavors", index), at_value=True, args={
                    "detail": (f"admission check {name!r} is limited to flavor {flavor!r}, which "
                               f"this ClusterQueue does not use ({offer}); Kueue rejects the "
                               "ClusterQueue with \"Unsupported value\" (kueue#7259)")})


# --- KQ505: AdmissionCheck -> parameters ---------------------------------------------------------

@rule("KQ505")
def admission_check_parameters(obj: KObject, ctx: RuleContext):
    controller = obj.spec.get("controllerName")
    params = obj.spec.get("parameters")
    params = params if isinstance(params, dict) else None
    # A controllerName that is not a string is the schema check's finding (KQ110), not ours.
    wanted = _PARAMETER_KINDS.get(controller) if isinstance(controller, str) else None
    if wanted is not None:
        yield from _built_in_controller(obj, ctx, controller, wanted, params)
    elif params and params.get("apiGroup") == KUEUE_GROUP and params.get("kind") in \
            _PARAMETER_KINDS.values() and isinstance(controller, str):
        meant = next(c for c, k in _PARAMETER_KINDS.items() if k == params.get("kind"))
        yield Violation(path=("spec", "controllerName"), at_value=True, severity=Severity.WARNING,
                        args={"detail": (
                            f"parameters point at a {params['kind']}, which only Kueue's "
                            f"{meant!r} controller reads, but controllerName is {controller!r}; "
                            "unless a controller of that name runs, the check never becomes "
                            f"Active: did you mean controllerName: {meant}?")})


def _built_in_controller(obj, ctx, controller: str, wanted: str, params: dict | None):
    if params is None or params.get("apiGroup") != KUEUE_GROUP or params.get("kind") != wanted:
        path = ("spec", "parameters") if params is not None else ("spec", "controllerName")
        yield Violation(path=path, args={"detail": (
            f"the {controller} controller needs parameters {{apiGroup: {KUEUE_GROUP}, kind: "
            f"{wanted}, name: ...}}; without them the check stays inactive (BadParametersRef) and "
            "every ClusterQueue using it admits nothing")})
        return
    name = params.get("name")
    if isinstance(name, str) and find(ctx, obj, _kueue(wanted), name) is None:
        why = missing(ctx, _kueue(wanted), name)
        if why:
            yield not_found(ctx, ("spec", "parameters", "name"), (
                f"{why}; the admission check stays inactive and every ClusterQueue using it "
                "admits nothing"))


# --- KQ506: admission-check combinations that deactivate a ClusterQueue ----------------------

@rule("KQ506")
def admission_check_combination(obj: KObject, ctx: RuleContext):
    multikueue, provisioning = [], []
    for path, name, entry in check_names(obj):
        check = find(ctx, obj, _kueue("AdmissionCheck"), name)
        controller = check.spec.get("controllerName") if check is not None else None
        if controller == MULTIKUEUE_CONTROLLER:
            multikueue.append((path, name))
            if entry.get("onFlavors"):
                yield Violation(path=path[:-1] + ("onFlavors",), args={"detail": (
                    f"MultiKueue admission check {name!r} is limited to some flavors; Kueue "
                    "keeps the ClusterQueue inactive (MultiKueueAdmissionCheckAppliedPerFlavor): "
                    "a MultiKueue check must apply to all flavors")})
        elif controller == PROVISIONING_CONTROLLER:
            provisioning.append(name)
    if len(multikueue) > 1:
        yield Violation(path=multikueue[1][0], at_value=True, args={"detail": (
            f"the ClusterQueue uses {len(multikueue)} MultiKueue admission checks "
            f"({', '.join(n for _, n in multikueue)}); Kueue allows one and keeps the queue "
            "inactive (MultipleMultiKueueAdmissionChecks)")})
    if multikueue and provisioning:
        yield Violation(path=multikueue[0][0], at_value=True, args={"detail": (
            f"MultiKueue check {multikueue[0][1]!r} is combined with provisioning check "
            f"{provisioning[0]!r}; Kueue keeps the queue inactive (MultiKueueWithProvisioningRequest)"
            ": put the provisioning check on the worker clusters' queues")})


# --- KQ507: ResourceFlavor -> Topology --------------------------------------------------------

@rule("KQ507")
def flavor_topology(obj: KObject, ctx: RuleContext):
    name = obj.spec.get("topologyName")
    if isinstance(name, str) and name and find(ctx, obj, _kueue("Topology"), name) is None:
        why = missing(ctx, _kueue("Topology"), name)
        if why:
            yield not_found(ctx, ("spec", "topologyName"), (
                f"{why}; every ClusterQueue using this flavor stays inactive (TopologyNotFound)"))


# --- KQ508: Cohort parent cycles -------------------------------------------------------------

@rule("KQ508")
def cohort_cycle(obj: KObject, ctx: RuleContext):
    chain, name = [obj.name], parent_of(obj)
    while name and name not in chain:
        chain.append(name)
        parent = find(ctx, obj, _kueue("Cohort"), name)
        name = parent_of(parent) if parent is not None else None
    if name == obj.name and obj.name == min(chain):  # one finding per cycle
        field = "parentName" if "parentName" in obj.spec else "parent"
        loop = " -> ".join(chain + [obj.name])
        yield Violation(path=("spec", field), at_value=True, args={"detail": (
            f"the cohort hierarchy loops ({loop}); Kueue marks every ClusterQueue under it "
            "inactive (HasCycle, \"cohort has a cycle\"): remove one parentName")})


# --- KQ509 / KQ510: namespaceSelector -------------------------------------------------------------

@rule("KQ509")
def namespace_selector_missing(obj: KObject, ctx: RuleContext):
    if obj.spec.get("namespaceSelector") is not None:
        return
    path = ("spec", "namespaceSelector") if "namespaceSelector" in obj.spec else \
        ("spec",) if "spec" in obj.data else ("metadata", "name")
    users = sorted({lq.display() for lq in ctx.inventory.kueue_of_kind("LocalQueue")
                    if lq.spec.get("clusterQueue") == obj.name})
    if not users and cohort_of(obj) is not None:
        return  # admits nothing itself but lends its quota to the cohort: a lending-only queue
    via = f" (used by {', '.join(users[:3])}{', ...' if len(users) > 3 else ''})" if users else ""
    yield Violation(path=path, args={"detail": (
        f"no namespaceSelector: a missing or null selector matches no namespace, so this queue"
        f"{via} admits nothing (\"workload namespace doesn't match ClusterQueue selector\"); "
        "set namespaceSelector: {} for all namespaces, or a selector for the teams it serves")})


@rule("KQ510")
def namespace_selector_mismatch(obj: KObject, ctx: RuleContext):
    target = obj.spec.get("clusterQueue")
    cq = find(ctx, obj, _kueue("ClusterQueue"), target) if isinstance(target, str) else None
    selector = cq.spec.get("namespaceSelector") if cq is not None else None
    if not isinstance(selector, dict) or explicit_namespace(obj) is None:
        return  # no selector is KQ509's finding; without a namespace we cannot tell where it lands
    if selector_problems(selector, ()):
        return  # Kueue rejects the ClusterQueue: KQ411's finding
    namespace = ctx.inventory.get("Namespace", obj.namespace)
    if namespace is None and not _only_name_label(selector):
        return  # the namespace's labels are unknown
    labels = {obj.namespace: namespace.labels} if namespace is not None else {}
    if not selects_namespace(selector, obj.namespace, labels):
        known = "its labels" if namespace is not None else f"its {NAME_LABEL} label"
        yield Violation(path=("spec", "clusterQueue"), at_value=True, args={"detail": (
            f"ClusterQueue {cq.name!r} has a namespaceSelector that does not select namespace "
            f"{obj.namespace!r} (judged by {known}); its workloads stay pending with \"workload "
            "namespace doesn't match ClusterQueue selector\": label the namespace or widen the "
            "selector")})


def _only_name_label(selector: dict) -> bool:
    keys = set((selector.get("matchLabels") or {}).keys()) if isinstance(
        selector.get("matchLabels"), dict) else set()
    expressions = selector.get("matchExpressions")
    keys |= {e.get("key") for e in expressions if isinstance(e, dict)} \
        if isinstance(expressions, list) else set()
    return bool(keys) and keys <= {NAME_LABEL}


# --- KQ511: a cohort name nobody else uses ----------------------------------------------------

@rule("KQ511")
def cohort_name_typo(obj: KObject, ctx: RuleContext):
    own = cohort_of(obj) if obj.kind == "ClusterQueue" else parent_of(obj)
    if not own:
        return
    users = _cohort_users(ctx)
    if len(users.get(own, ())) > 1 or ctx.inventory.kueue("Cohort", own) is not None:
        return
    close = difflib.get_close_matches(own, sorted(n for n in users if n != own), n=1, cutoff=0.8)
    if close:
        field = next(f for f in ("cohortName", "cohort", "parentName", "parent") if f in obj.spec)
        shared = ", ".join(sorted(users[close[0]])[:3])
        yield Violation(path=("spec", field), at_value=True, args={"detail": (
            f"cohort {own!r} is used by nothing else in this run, so there is nobody to borrow "
            f"from or lend to; did you mean {close[0]!r} (used by {shared})?")})


def _cohort_users(ctx: RuleContext) -> dict[str, set[str]]:
    return COHORT_USERS.of(ctx.inventory)


def _find_cohort_users(inventory) -> dict[str, set[str]]:
    """Cohort name -> the ClusterQueues and Cohorts that name it (or are it)."""
    users: dict[str, set[str]] = {}
    for cq in inventory.kueue_of_kind("ClusterQueue"):
        if cohort_of(cq):
            users.setdefault(cohort_of(cq), set()).add(cq.display())
    for cohort in inventory.kueue_of_kind("Cohort"):
        users.setdefault(cohort.name, set()).add(cohort.display())
        if parent_of(cohort):
            users.setdefault(parent_of(cohort), set()).add(cohort.display())
    return users


COHORT_USERS = Fact("cohort-users", _find_cohort_users)


# --- KQ512: Workload -> LocalQueue, priority class -------------------------------------------

@rule("KQ512")
def workload_references(obj: KObject, ctx: RuleContext):
    queue = obj.spec.get("queueName")
    if isinstance(queue, str) and find(ctx, obj, _kueue("LocalQueue"), queue,
                                       obj.namespace) is None:
        why = missing(ctx, _kueue("LocalQueue"), queue, obj.namespace)
        if why:
            yield not_found(ctx, ("spec", "queueName"), (
                f"{why}; the Workload stays pending (\"LocalQueue {queue} doesn't exist\")"))
    reference = _priority_reference(obj)
    if reference is not None:
        key, name, path = reference
        if find(ctx, obj, key, name) is None:
            why = missing(ctx, key, name)
            if why:
                yield not_found(ctx, path, (
                    f"{why}; the Workload's priority cannot be resolved"))


def _priority_reference(obj: KObject) -> tuple[str, str, tuple] | None:
    """(kind key, name, path) of the priority class a Workload names (v1beta2 or v1beta1)."""
    ref = obj.spec.get("priorityClassRef")
    if isinstance(ref, dict) and isinstance(ref.get("name"), str):
        kueue = ref.get("group") == KUEUE_GROUP
        return (_kueue("WorkloadPriorityClass") if kueue else "scheduling.k8s.io/PriorityClass",
                ref["name"], ("spec", "priorityClassRef", "name"))
    name, source = obj.spec.get("priorityClassName"), obj.spec.get("priorityClassSource")
    if isinstance(name, str) and source in ("kueue.x-k8s.io/workloadpriorityclass",
                                            "scheduling.k8s.io/priorityclass"):
        kueue = source.startswith(KUEUE_GROUP)
        return (_kueue("WorkloadPriorityClass") if kueue else "scheduling.k8s.io/PriorityClass",
                name, ("spec", "priorityClassName"))
    return None


# --- KQ513: MultiKueueConfig -> MultiKueueCluster --------------------------------------------

@rule("KQ513")
def multikueue_cluster(obj: KObject, ctx: RuleContext):
    clusters = obj.spec.get("clusters")
    for index, name in enumerate(clusters if isinstance(clusters, list) else []):
        if isinstance(name, str) and find(ctx, obj, _kueue("MultiKueueCluster"), name) is None:
            why = missing(ctx, _kueue("MultiKueueCluster"), name)
            if why:
                yield not_found(ctx, ("spec", "clusters", index), (
                    f"{why}; MultiKueue cannot dispatch workloads to that worker, and if no listed "
                    "cluster is active the admission check stays inactive"))
