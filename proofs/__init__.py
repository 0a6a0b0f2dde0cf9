"""Executable checks of the papers' theorems (see proofs/README.md)."""

__all__: list[str] = []
