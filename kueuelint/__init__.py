"""kueuelint: lint Kueue manifests, the jobs that use them, and predict admission."""

__version__ = "0.1.0"
