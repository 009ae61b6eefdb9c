"""Flavor matching is Kueue semantics the lint rules share: it lives in kueuelint.kueue.flavor_matching."""

from kueuelint.kueue.flavor_matching import (  # noqa: F401  (the simulator's modules import them from here)
    BLOCKING_EFFECTS, _expression_matches, _tolerates, matches_node_labels, taint_text, untolerated_taint)
