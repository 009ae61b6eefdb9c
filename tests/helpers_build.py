"""Which build of the admission simulator the tests run on: pure Python, or the optional one
compiled with mypyc (HATCH_BUILD_HOOK_ENABLE_MYPYC=1 pip install .)."""

from __future__ import annotations

import pytest

from kueuelint.admission import compiled

COMPILED = compiled()

# Compiled code calls its own methods directly, so replacing one on the class changes nothing
# there: a test that compares a patched run with a plain one would compare a run with itself.
patches_simulator = pytest.mark.skipif(COMPILED, reason="patches a method of a compiled class")
