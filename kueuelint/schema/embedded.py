"""The Kueue Configuration as it usually ships: YAML text inside the ``kueue-manager-config``
ConfigMap (``data.controller_manager_config.yaml``). Kueue decodes it strictly at start-up, so
its mistakes are validated like any other object and reported on the ConfigMap's key, with the
line inside the embedded file in the message."""

from __future__ import annotations

from typing import Any

from kueuelint.schema.issues import SchemaIssue

CONFIG_KEY = "controller_manager_config.yaml"
CONFIG_GROUP = "config.kueue.x-k8s.io"


def configuration_issues(configmap: Any) -> list[SchemaIssue]:
    data = configmap.get("data") if isinstance(configmap, dict) else None
    text = data.get(CONFIG_KEY) if isinstance(data, dict) else None
    if not isinstance(text, str):
        return []
    parsed, root = _parse(text)
    if not isinstance(parsed, dict) or not str(parsed.get("apiVersion", "")).startswith(
            f"{CONFIG_GROUP}/"):
        return []
    from kueuelint.schema import builtin

    version = str(parsed["apiVersion"]).rpartition("/")[2]
    issues = builtin.validate(CONFIG_GROUP, version, str(parsed.get("kind")), parsed) or []
    return [_rehome(issue, root) for issue in issues]


def _parse(text: str):
    import yaml

    from kueuelint.load.yamlnodes import compose_documents

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        parsed = yaml.load(text, Loader=loader)
        root = next(iter(compose_documents(text)), None)
    except yaml.YAMLError:
        return None, None
    return parsed, root


def _rehome(issue: SchemaIssue, root) -> SchemaIssue:
    """Point at the ConfigMap key; say where inside the embedded file the problem is."""
    where = ""
    if root is not None:
        from kueuelint.load.yamlnodes import locate

        node, key_node, _ = locate(root, issue.path)
        mark = (key_node if key_node is not None and not issue.at_value else node).start_mark
        where = f" (line {mark.line + 1} of the embedded {CONFIG_KEY})"
    return SchemaIssue(issue.code, ("data", CONFIG_KEY), f"{issue.message}{where}", issue.judge)
