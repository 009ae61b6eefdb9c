"""Turning kueuelint's rules into objects other tools run (``kueuelint export``)."""
