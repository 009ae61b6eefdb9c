"""Pod sets of the Spark operator's SparkApplication, sized the way spark-submit sizes its pods."""

from __future__ import annotations

import re
from decimal import Decimal

from kueuelint.derive.derivation import _Derivation, _dict, _Draft, _Rewrite, _with_container
from kueuelint.derive.model import Workload

SPARK_MIN_OVERHEAD_MIB = 384
SPARK_JVM_OVERHEAD_FACTOR = Decimal("0.1")
SPARK_NON_JVM_OVERHEAD_FACTOR = Decimal("0.4")
_SPARK_UNITS_MIB = {"b": Decimal(1) / 2**20, "k": Decimal(1) / 1024, "kb": Decimal(1) / 1024,
                    "m": 1, "mb": 1, "g": 1024, "gb": 1024, "t": 2**20, "tb": 2**20,
                    "p": 2**30, "pb": 2**30}


def _derive_sparkapplication(d: _Derivation) -> list[Workload]:
    d.mapping(("spec",), required=True)
    executors = d.integer(("spec", "executor", "instances"), 0)
    drafts = [_spark_draft(d, "driver", 1), _spark_draft(d, "executor", executors)]
    return [d.workload(drafts)]


def _spark_draft(d: _Derivation, role: str, count: int) -> _Draft:
    """The pod spark-submit would create for ``role``, sized the way Spark sizes it:
    cpu = coreRequest or cores (default 1); memory = memory (default 1g) + overhead, where
    overhead = memoryOverhead or max(factor x memory, 384Mi)."""
    path = ("spec", role)
    role_spec = d.mapping(path)
    cpu, cpu_field = _spark_cpu(d, role, role_spec)
    memory_mib = _spark_memory_mib(d, role, role_spec)
    resources = {"requests": {"cpu": cpu, "memory": f"{memory_mib}Mi"}, "limits": {}}
    gpu = _dict(role_spec.get("gpu"))
    if isinstance(gpu.get("name"), str) and isinstance(gpu.get("quantity"), int) and gpu["quantity"] > 0:
        resources["limits"][gpu["name"]] = gpu["quantity"]
    template = {"spec": {"containers": [], "initContainers": role_spec.get("initContainers") or []}}
    draft = _Draft(role, count, template, path, path,
                   rewrites=[_Rewrite(("initContainers",), path + ("initContainers",))])
    container_path = ("containers", 0, "resources")
    _with_container(draft, {"name": f"spark-kubernetes-{role}", "resources": resources},
                    path, keep_rest=False, origin="default:spark-sizing")
    draft.rewrites += [_Rewrite(container_path + ("requests", "cpu"), path + (cpu_field,), False),
                       _Rewrite(container_path + ("requests", "memory"), path + ("memory",), False),
                       _Rewrite(container_path + ("limits",), path + ("gpu",), False)]
    _add_spark_sidecars(d, draft, role_spec, path)
    return draft


def _add_spark_sidecars(d: _Derivation, draft: _Draft, role_spec: dict, path: tuple) -> None:
    for index, sidecar in enumerate(d.sequence(path + ("sidecars",))):
        if isinstance(sidecar, dict):
            _with_container(draft, sidecar, path + ("sidecars", index, "resources"), keep_rest=True)


def _spark_conf(d: _Derivation, key: str) -> str | None:
    value = _dict(d.subject.get("spec", "sparkConf")).get(key)
    return str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None


def _spark_cpu(d: _Derivation, role: str, role_spec: dict) -> tuple[str, str]:
    request = role_spec.get("coreRequest")
    if request is None:
        request = _spark_conf(d, f"spark.kubernetes.{role}.request.cores")
    if request is not None:
        return request, "coreRequest"
    cores = d.integer(("spec", role, "cores"), None, minimum=1)
    if cores is None:
        conf = _spark_conf(d, f"spark.{role}.cores")
        cores = int(conf) if conf is not None and conf.isdigit() else 1
    return str(cores), "cores"


def _spark_memory_mib(d: _Derivation, role: str, role_spec: dict) -> int:
    memory = _spark_mib(d, role_spec.get("memory") or _spark_conf(d, f"spark.{role}.memory"),
                        ("spec", role, "memory"), default=Decimal(1024))
    overhead_text = role_spec.get("memoryOverhead") or _spark_conf(d, f"spark.{role}.memoryOverhead")
    if overhead_text is not None:
        overhead = _spark_mib(d, overhead_text, ("spec", role, "memoryOverhead"), default=Decimal(0))
    else:
        product = int(_spark_overhead_factor(d, role) * memory)   # Spark truncates
        overhead = max(Decimal(product), Decimal(SPARK_MIN_OVERHEAD_MIB))
    extra = Decimal(0)
    if role == "executor" and d.subject.get("spec", "type") == "Python":
        extra = _spark_mib(d, _spark_conf(d, "spark.executor.pyspark.memory"), ("spec", "sparkConf"),
                           default=Decimal(0))
    return int(memory + overhead + extra)


def _spark_overhead_factor(d: _Derivation, role: str) -> Decimal:
    for text in (_spark_conf(d, f"spark.{role}.memoryOverheadFactor"),
                 _spark_conf(d, "spark.kubernetes.memoryOverheadFactor"),
                 d.subject.get("spec", "memoryOverheadFactor")):
        if text is None or text == "":
            continue
        try:
            factor = Decimal(str(text))
        except ArithmeticError:
            factor = Decimal(-1)
        if factor.is_finite() and factor >= 0:
            return factor
        d.problems.append((("spec", "memoryOverheadFactor"), f"invalid memory overhead factor {text!r}"))
    non_jvm = d.subject.get("spec", "type") in ("Python", "R")
    return SPARK_NON_JVM_OVERHEAD_FACTOR if non_jvm else SPARK_JVM_OVERHEAD_FACTOR


def _spark_mib(d: _Derivation, text: object, path: tuple, *, default: Decimal) -> Decimal:
    """A Java-style memory size ("512m", "2g", bare number = MiB) in whole MiB."""
    if text is None:
        return default
    match = re.fullmatch(r"(\d{1,15})([a-z]*)", str(text).strip().lower())
    unit = _SPARK_UNITS_MIB.get(match.group(2) or "m") if match else None
    if unit is None:
        d.problems.append((path, f"invalid Spark memory size {text!r}; expected e.g. '512m' or '2g'"))
        return default
    return Decimal(int(Decimal(match.group(1)) * unit))
