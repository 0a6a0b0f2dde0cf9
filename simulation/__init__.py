"""Discrete-event simulation of online schedulers (see the simulator issue)."""

__all__: list[str] = []

if __name__ != "allockit.simulation":  # the repository's folder imported by its bare name
    raise ImportError(
        "import allockit.simulation, not simulation: the repository's top-level folders are the "
        "subpackages of allockit (see ARCHITECTURE.md); a bare import would load a "
        "second copy of every class"
    )
