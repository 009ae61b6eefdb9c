"""The front door (kueuelint/run.py): what a Run holds for a set of paths and a Config."""

from __future__ import annotations

from kueuelint.config import Config
from kueuelint.run import open_run

QUEUE = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q}\nspec: {clusterQueue: cq}\n"
FLAVOR = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n"


def test_checked_and_context_objects_share_one_scope(tmp_path):
    (tmp_path / "q.yaml").write_text(QUEUE)
    (tmp_path / "ctx.yaml").write_text(FLAVOR)
    run = open_run([str(tmp_path / "q.yaml")], Config(), extra_context=(str(tmp_path / "ctx.yaml"),))
    assert [o.kind for o in run.objects] == ["LocalQueue"]
    assert [o.kind for o in run.context_objects] == ["ResourceFlavor"]
    (scope,) = run.scopes
    assert scope.inventory is run.inventory
    assert [f.loaded.source.path for f in scope.files] == [str(tmp_path / "q.yaml"), str(tmp_path / "ctx.yaml")]
    assert run.internal_error is None


def test_a_context_file_that_is_also_checked_is_read_once(tmp_path):
    (tmp_path / "q.yaml").write_text(QUEUE)
    run = open_run([str(tmp_path)], Config(), extra_context=(str(tmp_path),))
    assert len(run.files) == 1 and run.context == []


def test_configuration_shapes_what_is_read(tmp_path):
    (tmp_path / "q.yaml").write_text(QUEUE)
    (tmp_path / "skip.yaml").write_text(FLAVOR)
    config = Config(exclude=("skip.yaml",), default_namespace="team")
    run = open_run([str(tmp_path)], config)
    assert [(o.kind, o.namespace) for o in run.objects] == [("LocalQueue", "team")]


def test_unmatched_paths_stay_on_their_side(tmp_path):
    run = open_run([str(tmp_path / "nope.yaml")], Config(), extra_context=(str(tmp_path / "gone"),))
    assert [p.kind for f in run.files for p in f.loaded.problems] == ["missing-path"]
    assert [p.kind for f in run.context for p in f.loaded.problems] == ["missing-path"]
    assert run.problem_lines() == [f"{tmp_path / 'gone'}: no such file or directory",
                                   f"{tmp_path / 'nope.yaml'}: no such file or directory"]


def test_an_error_while_identifying_is_kept_and_the_run_goes_on(tmp_path, monkeypatch):
    import kueuelint.run as front_door

    (tmp_path / "a.yaml").write_text(QUEUE + "---\n" + FLAVOR)
    real = front_door.identify

    def flaky(doc, *args):
        if doc.index == 0:
            raise RuntimeError("boom")
        return real(doc, *args)

    monkeypatch.setattr(front_door, "identify", flaky)
    run = open_run([str(tmp_path / "a.yaml")], Config())
    assert [o.kind for o in run.objects] == ["ResourceFlavor"]
    assert run.internal_error.startswith("internal error, please report: RuntimeError: boom")
