"""Rule metadata: what a rule is, independent of how it is evaluated (CEL or Python)."""

from __future__ import annotations

from typing import NamedTuple

from kueuelint.findings import Severity

# NamedTuples, not frozen dataclasses: every run defines them, and a dataclass compiles its
# methods then (9 million instructions of a one-file run for these two).


class RuleDocs(NamedTuple):
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


class RuleMeta(NamedTuple):
    code: str            # KQ + 3 digits, grouped by area (KQ1.. API, KQ2.. queue labels, ...)
    name: str            # kebab-case, stable
    severity: Severity   # default; config may override
    summary: str         # one line, used in listings and SARIF shortDescription
    kinds: tuple[str, ...] = ()   # "Kind" or "group/Kind"; empty = file-level / all objects
    docs: RuleDocs = RuleDocs()
    source: str = ""     # path of the rule file that defines it
    engine: str = "python"   # "cel" or "python"
    help_uri: str = ""
