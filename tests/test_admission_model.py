"""The simulator's vocabularies: every preemption reason has its words."""

from __future__ import annotations

import os
import re

import pytest

from kueuelint.admission.model import PREEMPTION_REASONS, PreemptionReason

KUEUE_PREEMPTION = "/work/ref/kueue-v0.19.2/pkg/scheduler/preemption/preemption.go"


def test_every_preemption_reason_has_kueue_words_and_a_gloss():
    assert set(PREEMPTION_REASONS) == set(PreemptionReason)
    for words in PREEMPTION_REASONS.values():
        assert words.kueue and words.gloss and words.kueue != words.gloss


@pytest.mark.skipif(not os.path.exists(KUEUE_PREEMPTION), reason="Kueue's source is not beside the checkout")
def test_kueue_words_are_kueues_own():
    with open(KUEUE_PREEMPTION) as handle:
        source = handle.read()
    table = source[source.index("HumanReadablePreemptionReasons = map"):]
    found = dict(re.findall(r"kueue\.(\w+)Reason:\s*\"([^\"]+)\"", table[:table.index("}")]))
    assert {reason.value: words.kueue for reason, words in PREEMPTION_REASONS.items()} == found
