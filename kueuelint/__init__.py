"""kueuelint: lint Kueue manifests, the jobs that use them, and predict admission."""

try:
    # written by the build from the git tag (hatch-vcs); see pyproject.toml
    from kueuelint._version import __version__
except ImportError:  # a source tree that was never built or installed
    __version__ = "0.0.0+unknown"
