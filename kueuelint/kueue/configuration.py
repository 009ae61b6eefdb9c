"""What a Kueue Configuration turns on, with Kueue's defaults for what it leaves out."""

from __future__ import annotations

DEFAULT_FRAMEWORKS = ("batch/job",)


def enabled_frameworks(config: dict) -> list[str]:
    """The ``integrations.frameworks`` a Configuration enables (Kueue's default when unset)."""
    integrations = config.get("integrations")
    listed = integrations.get("frameworks") if isinstance(integrations, dict) else None
    names = [name for name in listed if isinstance(name, str)] if isinstance(listed, list) else []
    return names or list(DEFAULT_FRAMEWORKS)
