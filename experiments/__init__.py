"""Reproductions of the papers' tables and figures, as task kinds for the runner.

One module per family: ``vcsched`` (Tables 1 and 7, the comparison), ``dfrs``
(Tables 2-4, Fig. 1), ``drfh`` (Fig. 4, Fig. 5, Table II). Each registers the task kinds
its sweeps need with ``allockit.tasks`` when imported; the runner imports none of them.
"""

__all__: list[str] = []

if __name__ != "allockit.experiments":  # the repository's folder imported by its bare name
    raise ImportError(
        "import allockit.experiments, not experiments: the repository's top-level folders are the "
        "subpackages of allockit (see ARCHITECTURE.md); a bare import would load a "
        "second copy of every class"
    )
