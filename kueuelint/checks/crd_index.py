"""The run's CRDs, indexed once: the schema rules validate against them, and other rules ask
whether a CRD in the run already judges an object."""

from __future__ import annotations

from kueuelint.checks.api import RuleContext
from kueuelint.kueue.facts import Fact

# spelled out (not imported from kueuelint.schema) so runs without CRDs never load the schema code
CRD_KEY = "apiextensions.k8s.io/CustomResourceDefinition"


def setting(ctx: RuleContext, attribute: str, option: str):
    """A run setting, from the context if the runner passes it, else from the rule options
    (``[rules.KQ111] crds = [...]`` in the config)."""
    value = getattr(ctx, attribute, None)
    return value if value else ctx.options.get(option) or ctx.options.get(attribute)


def crd_index_for(ctx: RuleContext):
    """The run's CRD index (inventory CRDs + configured ``crds`` paths), built once per run;
    None when the run has no CRD at all, so the common case costs one dictionary lookup."""
    return CRD_INDEX.of(ctx)


def _crd_index(ctx: RuleContext):
    paths = tuple(setting(ctx, "crds", "crds") or ())
    if not paths and not ctx.inventory.of_kind(CRD_KEY):
        return None
    from kueuelint.schema.sources import crd_index

    return crd_index(ctx.inventory, paths) or None


CRD_INDEX = Fact("crd-index", _crd_index)
