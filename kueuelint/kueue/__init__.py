"""Kueue's semantics, below every layer that judges objects: the kinds kueuelint knows, how
Kueue manages each kind of job (``kinds.KindSpec``) and the kind groups rule files name
(``groups``).  Facts here are read from Kueue's source (v0.19.2, ``pkg/controller/jobs``).
"""
