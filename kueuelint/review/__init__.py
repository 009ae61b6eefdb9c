"""Quota changes as code review, and the queue setup as a picture.

``setup`` reads a queue setup (Cohorts, ClusterQueues, LocalQueues, flavors, admission
checks, topologies) into plain records; ``usage`` reads what a snapshot's Workloads hold and
wait for; ``compare`` runs the dry admission (``kueuelint.admission.admit``, its public entry
only) on the same workloads under two setups and works out each workload's fate and each
queue's quota and usage change. Rendering lives in ``kueuelint.report`` (``review_*``, ``map_*``).
"""
