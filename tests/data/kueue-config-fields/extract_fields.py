"""Write the JSON field paths of Kueue's Configuration type, read from Kueue's Go source.

Usage: python extract_fields.py KUEUE_SOURCE_DIR VERSION  (e.g. apis/config/v1beta2)
Only field names are taken (the `json:"..."` tags), following the structs of the same Go
package; types from other packages (metav1.LabelSelector, ...) end a path.  The output is
test data for tests/test_config_model.py.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
FIELD = re.compile(r"^\s*(?:(\w+)\s+)?([\[\]\*\w.]+(?:\[[\w.]+\][\*\w.]+)?)\s+`json:\"([^\"]*)\"")
ALIAS = re.compile(r"^type (\w+) = (\w+)$", re.MULTILINE)
INLINE_EXTERNAL = {"metav1.TypeMeta": ("apiVersion", "kind")}


def structs(folder: Path) -> dict[str, list[tuple[str, str]]]:
    """struct name -> [(json name or "" for inline, Go type)]"""
    found: dict[str, list[tuple[str, str]]] = {}
    aliases: dict[str, str] = {}
    for path in sorted(folder.glob("*.go")):
        if path.name.endswith("_test.go") or path.name.startswith("zz_"):
            continue
        for match in STRUCT.finditer(path.read_text()):
            fields = []
            for line in match.group(2).splitlines():
                if line.strip().startswith("//"):
                    continue
                field = FIELD.match(line)
                if field:
                    json_name = field.group(3).split(",")[0]
                    fields.append((json_name, field.group(2)))
            found[match.group(1)] = fields
        aliases.update(ALIAS.findall(path.read_text()))
    for alias, target in aliases.items():
        found.setdefault(alias, found.get(target, []))
    return found


def paths(name: str, table: dict, prefix: str = "") -> list[str]:
    out: list[str] = []
    for json_name, go_type in table[name]:
        if json_name == "-":
            continue
        if json_name == "":
            out += ([prefix + f for f in INLINE_EXTERNAL[go_type]] if go_type in INLINE_EXTERNAL
                    else paths(go_type.lstrip("*"), table, prefix))
            continue
        path = prefix + json_name
        out.append(path)
        inner = go_type.lstrip("*")
        if inner.startswith("[]"):
            inner, path = inner[2:].lstrip("*"), path + "[]"
        if inner in table:
            out += paths(inner, table, path + ".")
    return out


if __name__ == "__main__":
    source, version = Path(sys.argv[1]), sys.argv[2]
    print("\n".join(sorted(set(paths("Configuration", structs(source / "apis/config" / version))))))
