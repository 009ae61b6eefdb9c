"""Rule metadata: what a rule is, independent of how it is evaluated (CEL or Python)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kueuelint.findings import Severity


@dataclass(frozen=True)
class RuleDocs:
    what: str = ""
    why: str = ""
    example: str = ""
    fix: str = ""

    def as_markdown(self) -> str:
        parts = []
        for title, text in (("What it does", self.what), ("Why it matters", self.why),
                            ("Example", self.example), ("How to fix", self.fix)):
            if text:
                parts.append(f"**{title}**\n\n{text.strip()}\n")
        return "\n".join(parts)


@dataclass(frozen=True)
class RuleMeta:
    code: str            # KQ + 3 digits, grouped by area (KQ1.. API, KQ2.. queue labels, ...)
    name: str            # kebab-case, stable
    severity: Severity   # default; config may override
    summary: str         # one line, used in listings and SARIF shortDescription
    kinds: tuple[str, ...] = ()   # "Kind" or "group/Kind"; empty = file-level / all objects
    docs: RuleDocs = field(default_factory=RuleDocs)
    source: str = ""     # path of the rule file that defines it
    engine: str = "python"   # "cel" or "python"
    help_uri: str = ""
