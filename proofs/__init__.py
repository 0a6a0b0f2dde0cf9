"""Executable checks of the papers' theorems (see proofs/README.md)."""

__all__: list[str] = []

if __name__ != "allockit.proofs":  # the repository's folder imported by its bare name
    raise ImportError(
        "import allockit.proofs, not proofs: the repository's top-level folders are the "
        "subpackages of allockit (see ARCHITECTURE.md); a bare import would load a "
        "second copy of every class"
    )
