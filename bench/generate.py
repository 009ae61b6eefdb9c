"""Write a realistic, deterministic GitOps tree of Kueue manifests for benchmarking.

Workloads are templated at run time from the real manifests in ``tests/data/corpus`` (test
data), so their shapes and sizes follow what people actually write; queue infrastructure
(ResourceFlavors, ClusterQueues in cohorts, a Namespace and LocalQueues per team) follows
the corpus's queue setups. A few percent of the objects carry a real mistake, and the
summary says which, so a run can also be checked for what it should find.

Usage: python bench/generate.py OUT --manifests 1000 [--seed 1] [--mistakes 0.04] [--crds]

``--manifests`` counts YAML documents (resources), not files: some files hold several.
The same arguments always produce the same bytes.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import shutil
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent / "tests" / "data" / "corpus"
DEFAULT_CRDS = HERE.parent / "tests" / "data" / "kueue-crds"
KUEUE = "kueue.x-k8s.io/v1beta2"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
MARKER = ".kueuelint-bench-tree"   # only a folder holding this file is ever wiped

# Relative frequency of each workload kind in a team's folder (pod groups add 2-4 Pods).
WORKLOAD_WEIGHTS = {
    "Job": 24, "RayJob": 9, "JobSet": 10, "PyTorchJob": 10, "Deployment": 8, "Pod": 4,
    "PodGroup": 6, "LeaderWorkerSet": 7, "InferenceService": 10, "StatefulSet": 3,
    "RayCluster": 3, "CronJob": 2,
}
SERVING_KINDS = {"Deployment", "LeaderWorkerSet", "InferenceService", "StatefulSet"}
COMPANION_KINDS = ("ConfigMap", "Service")
COMPANION_RATE = 0.12          # share of workload files that also carry a ConfigMap/Service
# Per-pod requests: (cpu, memory, gpus); kept well inside each queue's quota so a clean
# object stays clean however many replicas its template asks for.
SHAPES = (("500m", "1Gi", 0), ("1", "2Gi", 0), ("2", "4Gi", 0), ("4", "16Gi", 0),
          ("4", "16Gi", 1), ("8", "32Gi", 1))
SIDECAR = ("100m", "128Mi", 0)
PLACEMENT_KEYS = ("nodeSelector", "affinity", "tolerations", "schedulerName")
CPU_FLAVORS = ("on-demand", "spot")
GPU_FLAVORS = ("gpu-a100", "gpu-h100")
MISTAKES = ("queue-annotation", "uncovered-resource", "missing-local-queue",
            "node-selector", "ray-shutdown-false", "v1beta1")


@dataclass
class Templates:
    """Corpus documents by kind, in a stable order."""

    by_kind: dict[str, list[dict]] = field(default_factory=dict)

    def pick(self, rng: random.Random, kind: str) -> dict:
        return copy.deepcopy(rng.choice(self.by_kind[kind]))


@dataclass
class Tree:
    """What was written, for the benchmark's report and for checking findings."""

    root: Path
    files: int = 0
    documents: int = 0
    bytes: int = 0
    kinds: Counter = field(default_factory=Counter)
    mistakes: list[tuple[str, str]] = field(default_factory=list)   # (file, mistake)
    crd_files: int = 0

    def summary(self) -> dict:
        return {"root": str(self.root), "files": self.files, "documents": self.documents,
                "bytes": self.bytes, "crd_files": self.crd_files,
                "kinds": dict(sorted(self.kinds.items())),
                "mistakes": dict(sorted(Counter(m for _, m in self.mistakes).items())),
                "mistake_files": [{"file": f, "mistake": m} for f, m in self.mistakes]}


# ---------------------------------------------------------------- corpus templates

def load_templates(corpus: Path) -> Templates:
    wanted = set(WORKLOAD_WEIGHTS) | set(COMPANION_KINDS)
    templates = Templates()
    for path in sorted(corpus.rglob("*.y*ml")):
        for doc in _documents(path):
            if isinstance(doc, dict) and doc.get("kind") in wanted and _usable(doc):
                templates.by_kind.setdefault(doc["kind"], []).append(doc)
    templates.by_kind["PodGroup"] = templates.by_kind.get("Pod", [])
    missing = [kind for kind in wanted if not templates.by_kind.get(kind)]
    if missing:
        raise SystemExit(f"generate: no corpus template for {', '.join(sorted(missing))} in {corpus}")
    return templates


def _documents(path: Path) -> list:
    try:
        return list(yaml.load_all(path.read_bytes(), Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        return []


def _usable(doc: dict) -> bool:
    """Skip samples with nothing to queue: a stub with an empty spec, or a RayJob that
    attaches to an existing cluster. KServe predictors may name a model, not containers."""
    if doc["kind"] in COMPANION_KINDS:
        return True
    if doc["kind"] == "InferenceService":
        return isinstance(doc.get("spec"), dict)
    if doc["kind"] == "RayJob" and "rayClusterSpec" not in doc.get("spec", {}):
        return False
    return _first_pod_spec(doc) is not None


# ---------------------------------------------------------------- queue infrastructure

@dataclass
class Layout:
    namespaces: list[str]
    batch_queue_of: dict[str, str]            # namespace -> ClusterQueue of its "batch" LocalQueue
    cohorts: dict[str, list[str]]             # cohort -> batch ClusterQueues

    def serving_queue_of(self, namespace: str) -> str:
        """Serving workloads go to their cohort's ClusterQueue that never preempts, because
        Kueue cannot suspend a Deployment or an InferenceService to make room."""
        batch = self.batch_queue_of[namespace]
        cohort = next(c for c, queues in self.cohorts.items() if batch in queues)
        return f"{cohort}-serving"


def plan_layout(manifests: int) -> Layout:
    """About one team per 100 resources, two teams per ClusterQueue, four queues per cohort."""
    namespaces = [f"team-{i:03d}" for i in range(max(3, manifests // 100))]
    queue_count = max(2, len(namespaces) // 2)
    cluster_queues = [f"cq-{i:03d}" for i in range(queue_count)]
    cohorts: dict[str, list[str]] = {}
    for index, name in enumerate(cluster_queues):
        cohorts.setdefault(f"cohort-{index // 4:02d}", []).append(name)
    owner = {ns: cluster_queues[i % queue_count] for i, ns in enumerate(namespaces)}
    return Layout(namespaces, owner, cohorts)


def flavor_docs() -> list[dict]:
    # Shapes of the corpus's shared-quota and HAMi setups: node labels, one flavor per pool.
    docs = [{"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name},
             "spec": {"nodeLabels": {"node-type": name}}} for name in CPU_FLAVORS + GPU_FLAVORS]
    docs.append({"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "default-flavor"}})
    return docs


def cluster_queue_doc(name: str, cohort: str, preempts: bool) -> dict:
    cpu_group = {"coveredResources": ["cpu", "memory", "ephemeral-storage"],
                 "flavors": [_flavor_quota(f, {"cpu": 2000, "memory": "8000Gi", "ephemeral-storage": "20Ti"})
                             for f in CPU_FLAVORS]}
    gpu_group = {"coveredResources": ["nvidia.com/gpu"],
                 "flavors": [_flavor_quota(f, {"nvidia.com/gpu": 128}) for f in GPU_FLAVORS]}
    spec = {"cohortName": cohort, "namespaceSelector": {}, "resourceGroups": [cpu_group, gpu_group]}
    if preempts:
        spec["preemption"] = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def _flavor_quota(flavor: str, quota: dict) -> dict:
    return {"name": flavor, "resources": [{"name": r, "nominalQuota": q} for r, q in quota.items()]}


def namespace_docs(namespace: str, layout: Layout) -> list[dict]:
    docs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace,
                                                                   "labels": {"team": namespace}}}]
    targets = {"batch": layout.batch_queue_of[namespace], "serving": layout.serving_queue_of(namespace)}
    for queue, cluster_queue in targets.items():
        docs.append({"apiVersion": KUEUE, "kind": "LocalQueue",
                     "metadata": {"name": queue, "namespace": namespace},
                     "spec": {"clusterQueue": cluster_queue}})
    return docs


# ---------------------------------------------------------------- workloads

def workload_docs(kind: str, name: str, namespace: str, queue: str,
                  templates: Templates, rng: random.Random) -> list[dict]:
    if kind == "PodGroup":
        return _pod_group(name, namespace, queue, templates, rng)
    doc = templates.pick(rng, kind)
    _retarget(doc, name, namespace, queue, rng)
    if kind == "RayJob":
        doc["spec"]["shutdownAfterJobFinishes"] = True   # Kueue requires it of queued RayJobs
    return [doc]


def _pod_group(name: str, namespace: str, queue: str, templates: Templates, rng: random.Random) -> list[dict]:
    size = rng.randint(2, 4)
    pods = []
    for index in range(size):
        pod = templates.pick(rng, "Pod")
        _retarget(pod, f"{name}-{index}", namespace, queue, rng)
        pod["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] = name
        pod["metadata"].setdefault("annotations", {})["kueue.x-k8s.io/pod-group-total-count"] = str(size)
        pods.append(pod)
    return pods


def _retarget(doc: dict, name: str, namespace: str, queue: str, rng: random.Random) -> None:
    """Give a corpus object our name, namespace and queue, and clean what would make it
    wrong for this tree (other schedulers, TAS, foreign resources), so only injected
    mistakes are mistakes."""
    _normalise_pods(doc, rng.choice(SHAPES))     # also strips Kueue keys: label after it
    metadata = doc.setdefault("metadata", {})
    metadata.pop("generateName", None)
    metadata["name"] = name
    metadata["namespace"] = namespace
    queue_metadata(doc).setdefault("labels", {})[QUEUE_LABEL] = queue
    if isinstance(doc.get("spec"), dict):
        doc["spec"].pop("suspend", None)         # Kueue suspends queued jobs itself


def queue_metadata(doc: dict) -> dict:
    """The metadata Kueue reads the queue label from: a CronJob's is its job template's."""
    if doc.get("kind") == "CronJob":
        template = doc["spec"].setdefault("jobTemplate", {})
        return template.setdefault("metadata", {})
    return doc["metadata"]


def _strip_foreign_metadata(metadata: dict) -> None:
    for key in ("labels", "annotations"):
        values = metadata.get(key)
        if not isinstance(values, dict):
            continue
        for label in [k for k in values if "kueue.x-k8s.io" in k or "volcano" in k]:
            del values[label]
        if not values:
            del metadata[key]


def _normalise_pods(node, shape: tuple) -> None:
    """Walk the object: every pod spec gets our requests and loses placement and schedulers."""
    if isinstance(node, list):
        for item in node:
            _normalise_pods(item, shape)
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("metadata"), dict):
        _strip_foreign_metadata(node["metadata"])
    for key in PLACEMENT_KEYS:      # also on KServe predictors, which are not pod specs
        node.pop(key, None)
    if node.get("enableInTreeAutoscaling") is True:   # Ray autoscaling needs an elastic job
        node["enableInTreeAutoscaling"] = False
    if isinstance(node.get("containers"), list):
        _normalise_pod_spec(node, shape)
    for value in node.values():
        _normalise_pods(value, shape)


def _normalise_pod_spec(spec: dict, shape: tuple) -> None:
    for key in ("priorityClassName", "resourceClaims"):
        spec.pop(key, None)
    for index, container in enumerate(spec["containers"]):
        if isinstance(container, dict):
            container["resources"] = _resources(shape if index == 0 else SIDECAR)
    for container in spec.get("initContainers") or []:
        if isinstance(container, dict):
            container["resources"] = _resources(SIDECAR)


def _resources(shape: tuple) -> dict:
    cpu, memory, gpus = shape
    resources = {"requests": {"cpu": cpu, "memory": memory}, "limits": {"memory": memory}}
    if gpus:
        resources["requests"]["nvidia.com/gpu"] = gpus
        resources["limits"]["nvidia.com/gpu"] = gpus
    return resources


def companion_doc(workload: dict, templates: Templates, rng: random.Random) -> dict:
    doc = templates.pick(rng, rng.choice(COMPANION_KINDS))
    metadata = doc.setdefault("metadata", {})
    metadata["name"] = f"{workload['metadata']['name']}-{doc['kind'].lower()}"
    metadata["namespace"] = workload["metadata"]["namespace"]
    return doc


# ---------------------------------------------------------------- mistakes

def inject_mistake(docs: list[dict], rng: random.Random) -> str | None:
    """Break the first document the way people do; None when no mistake fits the kind."""
    doc = docs[0]
    choices = [m for m in MISTAKES if _applies(m, doc)]
    if not choices:
        return None
    mistake = rng.choice(choices)
    if mistake == "queue-annotation":
        for each in _queued(docs):   # a pod group moves the label on every member, as people do
            metadata = queue_metadata(each)
            metadata.setdefault("annotations", {})[QUEUE_LABEL] = metadata["labels"].pop(QUEUE_LABEL)
    elif mistake == "missing-local-queue":
        for each in _queued(docs):
            queue_metadata(each)["labels"][QUEUE_LABEL] = "batch-gpu"
    elif mistake == "uncovered-resource":
        _first_container(doc)["resources"]["requests"]["amd.com/gpu"] = 1
    elif mistake == "node-selector":
        _first_pod_spec(doc)["nodeSelector"] = {"node-type": "reserved"}
    elif mistake == "ray-shutdown-false":
        doc["spec"]["shutdownAfterJobFinishes"] = False
    elif mistake == "v1beta1":
        doc["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    return mistake


def _queued(docs: list[dict]) -> list[dict]:
    return [doc for doc in docs if QUEUE_LABEL in queue_metadata(doc).get("labels", {})]


def _applies(mistake: str, doc: dict) -> bool:
    kind = doc["kind"]
    if mistake == "v1beta1":
        return kind == "LocalQueue"
    if kind == "LocalQueue":
        return False
    if mistake == "ray-shutdown-false":
        return kind == "RayJob"
    if mistake in ("uncovered-resource", "node-selector"):
        return _first_pod_spec(doc) is not None
    return True


def _first_pod_spec(node):
    if isinstance(node, dict):
        if isinstance(node.get("containers"), list) and node["containers"]:
            return node
        children = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = _first_pod_spec(child)
        if found is not None:
            return found
    return None


def _first_container(doc: dict) -> dict:
    return _first_pod_spec(doc)["containers"][0]


# ---------------------------------------------------------------- writing

def write_file(tree: Tree, relative: str, docs: list[dict], comment: str) -> None:
    body = yaml.dump_all(docs, Dumper=yaml.CSafeDumper, sort_keys=False, explicit_start=len(docs) > 1)
    text = f"# {comment}\n{body}"
    path = tree.root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    tree.files += 1
    tree.documents += len(docs)
    tree.bytes += len(text.encode("utf-8"))
    tree.kinds.update(doc["kind"] for doc in docs)


def prepare_root(root: Path) -> None:
    """Start from an empty folder, refusing to wipe anything this script did not write."""
    if root.exists() and any(root.iterdir()):
        if not (root / MARKER).exists():
            raise SystemExit(f"generate: {root} is not empty and was not written by generate.py")
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    (root / MARKER).write_text("written by bench/generate.py; safe to delete\n", encoding="utf-8")


def generate(root: Path, manifests: int, seed: int = 1, mistake_rate: float = 0.04,
             crds: bool = False, corpus: Path = DEFAULT_CORPUS, crd_dir: Path = DEFAULT_CRDS) -> dict:
    rng = random.Random(seed)
    templates = load_templates(corpus)
    layout = plan_layout(manifests)
    prepare_root(root)
    tree = Tree(root)
    _write_infrastructure(tree, layout, rng, mistake_rate)
    _write_workloads(tree, layout, templates, rng, manifests, mistake_rate)
    if crds:
        tree.crd_files = _copy_crds(root, crd_dir)
    return tree.summary()


def _write_infrastructure(tree: Tree, layout: Layout, rng: random.Random, mistake_rate: float) -> None:
    write_file(tree, "platform/resource-flavors.yaml", flavor_docs(), "ResourceFlavors of the cluster")
    for cohort, queues in layout.cohorts.items():
        docs = [cluster_queue_doc(name, cohort, preempts=rng.random() < 0.5) for name in queues]
        docs.append(cluster_queue_doc(f"{cohort}-serving", cohort, preempts=False))
        write_file(tree, f"platform/cluster-queues/{cohort}.yaml", docs, f"ClusterQueues of {cohort}")
    for namespace in layout.namespaces:
        docs = namespace_docs(namespace, layout)
        relative = f"teams/{namespace}/queues.yaml"
        if rng.random() < mistake_rate and (mistake := inject_mistake(docs[1:], rng)):
            tree.mistakes.append((relative, mistake))
        write_file(tree, relative, docs, f"namespace and queues of {namespace}")


def _write_workloads(tree: Tree, layout: Layout, templates: Templates, rng: random.Random,
                     manifests: int, mistake_rate: float) -> None:
    kinds, weights = list(WORKLOAD_WEIGHTS), list(WORKLOAD_WEIGHTS.values())
    index = 0
    while tree.documents < manifests:
        kind = rng.choices(kinds, weights)[0]
        namespace = rng.choice(layout.namespaces)
        queue = "serving" if kind in SERVING_KINDS else "batch"
        name = f"{kind.lower()}-{index:05d}"
        docs = workload_docs(kind, name, namespace, queue, templates, rng)
        if rng.random() < COMPANION_RATE:
            docs.append(companion_doc(docs[0], templates, rng))
        docs = docs[:max(1, manifests - tree.documents)]   # land exactly on the requested count
        relative = f"teams/{namespace}/{kind.lower()}/{name}.yaml"
        if rng.random() < mistake_rate and (mistake := inject_mistake(docs, rng)):
            tree.mistakes.append((relative, mistake))
        write_file(tree, relative, docs, f"{kind} {name} of {namespace}")
        index += 1


def _copy_crds(root: Path, crd_dir: Path) -> int:
    target = root / "crds"
    target.mkdir(exist_ok=True)
    files = sorted(crd_dir.glob("*.yaml"))
    for path in files:
        shutil.copyfile(path, target / path.name)
    return len(files)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write (created; wiped only if generate.py wrote it)")
    parser.add_argument("--manifests", "-n", type=int, default=1000, help="resources (YAML documents) to write")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mistakes", type=float, default=0.04, help="share of objects with a mistake")
    parser.add_argument("--crds", action="store_true", help="also copy the Kueue CRDs into OUT/crds/")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--summary", type=Path, help="write the summary JSON here (default: stdout)")
    args = parser.parse_args(argv)
    summary = generate(args.out, args.manifests, args.seed, args.mistakes, args.crds, args.corpus)
    text = json.dumps(summary, indent=2)
    if args.summary:
        args.summary.write_text(text + "\n", encoding="utf-8")
    else:
        sys.stdout.write(text + "\n")


if __name__ == "__main__":
    main()
