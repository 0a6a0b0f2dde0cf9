"""Fast algorithms: vectorised numpy, with numba kernels for the sequential loops.

VCSched heuristics (``greedy``: GR/SG/GB/SGB, ``mcb``: MCB1-MCB8, ``randomized_rounding``:
RRND/RRNZ, ``adapt``), DRFH task placement (``first_fit``, ``best_fit``, ``per_server_drf``,
``slots``), the bank algorithm of Li and Parker (``bank``, ``bank_round``). The compiled
inner loops are in ``allockit.heuristics.*_kernels`` (numba set-up in ``kernel_setup``); a placement
is scored by ``allockit.evaluation``.
"""

from allockit.heuristics.adaptation import adapt
from allockit.heuristics.bank import BankPolicy, bank, bank_round
from allockit.heuristics.drfh_tasks import best_fit, first_fit, per_server_drf, slots
from allockit.heuristics.greedy import greedy
from allockit.heuristics.mcb import MCB_VARIANTS, largest_target, mcb, mcb_fill, mcb_pack
from allockit.heuristics.rounding import randomized_rounding

__all__ = [
    "MCB_VARIANTS",
    "BankPolicy",
    "adapt",
    "bank",
    "bank_round",
    "best_fit",
    "first_fit",
    "greedy",
    "largest_target",
    "mcb",
    "mcb_fill",
    "mcb_pack",
    "per_server_drf",
    "randomized_rounding",
    "slots",
]

if __name__ != "allockit.heuristics":  # the repository's folder imported by its bare name
    raise ImportError(
        "import allockit.heuristics, not heuristics: the repository's top-level folders are the "
        "subpackages of allockit (see ARCHITECTURE.md); a bare import would load a "
        "second copy of every class"
    )
