"""The real data files under tests/data are accounted for: each is listed in its folder's
SOURCES.md (with its size, so an edited copy is caught), and nothing listed is missing.
Where the team's shared folder is beside the checkout, the copies must equal it byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS, DATA, KUEUE_CRDS, SARIF_SCHEMA, SHARED

LISTED_FOLDERS = [CORPUS, DATA / "realrepos"]
NOT_DATA = {"SOURCES.md", "SOURCE.md", "REVIEW.md", "reviewed-findings.txt"}


def data_files(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_size
            for p in folder.rglob("*") if p.is_file() and p.name not in NOT_DATA}


def listed_files(folder: Path) -> dict[str, int]:
    """The `| `local` | `source` | `commit` | licence | bytes |` rows of SOURCES.md."""
    rows = {}
    for line in (folder / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`") and cells[4].isdigit():
            rows[cells[0].strip("`")] = int(cells[4])
    return rows


@pytest.mark.parametrize("folder", LISTED_FOLDERS, ids=lambda folder: folder.name)
def test_every_data_file_is_listed_with_its_size(folder):
    assert data_files(folder) == listed_files(folder)


@pytest.mark.parametrize("folder", LISTED_FOLDERS, ids=lambda folder: folder.name)
def test_every_listed_source_names_a_commit_and_a_licence(folder):
    text = (folder / "SOURCES.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert len(cells[2].strip("`")) == 40, row
        assert cells[3] == "Apache-2.0", row


def test_licence_texts_are_kept():
    assert (DATA / "LICENSES" / "Apache-2.0.txt").read_text().startswith(" " * 33 + "Apache License")
    assert (DATA / "LICENSES" / "oasis-tcs-sarif-spec-LICENSE.md").is_file()


@pytest.mark.skipif(not (SHARED / "corpus").is_dir(), reason="no shared folder beside the checkout")
@pytest.mark.parametrize("copy,original", [(CORPUS, "corpus"), (KUEUE_CRDS, "kueue-crds"),
                                           (SARIF_SCHEMA.parent, "schemas")])
def test_copies_equal_the_shared_folder(copy, original):
    source = SHARED / original
    names = sorted(str(p.relative_to(source)) for p in source.rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file())
    assert all((copy / name).read_bytes() == (source / name).read_bytes() for name in names)
