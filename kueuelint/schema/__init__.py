"""Schema validation of Kubernetes objects.

Two judges: the built-in pydantic models of Kueue's API (``builtin``), and any
CustomResourceDefinition the run carries (``crd``), which wins when both exist for a kind
because it is what the cluster actually runs. Both return ``SchemaIssue`` values.
Nothing heavy is imported here so that importing the package stays free.
"""

from __future__ import annotations

from kueuelint.schema.issues import SchemaIssue

__all__ = ["SchemaIssue"]
