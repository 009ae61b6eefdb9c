"""Values that are one whole template placeholder: ``${VAR}``, ``$(VAR)``, ``__VAR__``, ``<name>``,
``"{{ .Values.x }}"``.

Repositories keep manifests that envsubst, sed or a script fill in before apply. A finding on
such a value judges the placeholder, not what the cluster will get, so the checker drops it and
says once per file, as info, that the file holds unrendered values (KQ012); a placeholder
namespace is no namespace at all (the object goes wherever it is applied).
"""

from __future__ import annotations

import re

UNRENDERED_TEMPLATE = "KQ012"
_PLACEHOLDER = re.compile(
    r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^{}]*)?\}"   # ${VAR}, ${VAR:-default}
    r"|\$\([A-Za-z_][A-Za-z0-9_]*\)"                     # $(VAR)
    r"|__[A-Za-z0-9][A-Za-z0-9_]*__"                     # __VAR__
    r"|<[A-Za-z0-9][A-Za-z0-9 _.:/-]*>"                  # <your-queue>, <PROJECT_ID>
    r"|\{\{[^{}]+\}\}")                                   # "{{ .Values.queue }}" (Helm, quoted)


def is_placeholder(value: object) -> bool:
    """Whether ``value`` is a string that is a single placeholder and nothing else."""
    return isinstance(value, str) and len(value) < 256 and _PLACEHOLDER.fullmatch(value.strip()) is not None


def note_text(count: int, example: str, where: str) -> str:
    more = f" and {count - 1} more" if count > 1 else ""
    return (f"unrendered template value {example} at {where}{more}: it is filled in before apply "
            "(envsubst, sed, a script), so it was not judged; lint the rendered manifests to check it")
