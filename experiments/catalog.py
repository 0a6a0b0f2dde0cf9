"""Every table and figure of the five papers: the command that reproduces it and where
its result is recorded (``allockit reproduce --list``).

A referee can rerun any entry: the command is the one whose output is in
``benchmarks/RESULTS.md`` at the given section (full-size runs that belong on a cluster
say so and give the quick variant recorded instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CATALOG", "Reproduction", "catalog_rows"]


@dataclass(frozen=True, slots=True)
class Reproduction:
    """One table or figure of a paper: the command and where its result is.

    Examples
    --------
    >>> r = Reproduction("DFRS", "Table 2", "allockit dfrs-experiment table2", "§6")
    >>> r.to_dict()["item"]
    'Table 2'
    """

    paper: str
    item: str
    command: str
    recorded: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "paper": self.paper,
            "item": self.item,
            "command": self.command,
            "recorded": self.recorded,
            "note": self.note,
        }


_V = "VCSched (Stillwell et al. 2009)"
_D = "DRFH (Wang, Li, Liang 2014)"
_F = "DFRS (Casanova, Stillwell, Vivien 2011)"
_M = "MEASY (seed 003)"
_R = "Cluster reserves and the bank (Li, Parker)"

#: The catalogue, paper by paper, in the papers' order.
CATALOG: tuple[Reproduction, ...] = (
    Reproduction(_V, "Sec. 4.2.2 small set: exact vs LP vs heuristics",
                 "allockit compare $(allockit generate vcsched-set small --out small/ >/dev/null;"
                 " echo small/) --methods milp,lp,mcb8,gr,sg,gb,sgb,rrnd,rrnz",
                 "RESULTS §2 (small set)"),
    Reproduction(_V, "Table 1 (MCB1-MCB8, small set), both scorings",
                 "allockit vcsched-experiment table1 --markdown table1.md", "RESULTS §2, §12"),
    Reproduction(_V, "Table 7 (MCB1-MCB8, large set) and the instances behind the maxima",
                 "allockit vcsched-experiment table7 --markdown table7.md", "RESULTS §2, §12"),
    Reproduction(_V, "Figs 15-18: large set against slack, run time against J",
                 "allockit vcsched-experiment large --every 11 --markdown large.md --plot DIR",
                 "RESULTS §12", "the full set is a cluster job (about 170 CPU-hours)"),
    Reproduction(_V, "Figs 19-22: parallel jobs",
                 "allockit vcsched-experiment parallel --every 11 --total-tasks --markdown "
                 "parallel.md --plot DIR", "RESULTS §12"),
    Reproduction(_V, "Exact methods on the small set, certification of the large set",
                 "python benchmarks/bench_exact.py; python benchmarks/bench_portfolio.py",
                 "RESULTS §1, §11"),
    Reproduction(_V, "Migration-bounded adaptation",
                 "python benchmarks/bench_adaptation.py", "RESULTS §2"),
    Reproduction(_D, "Fig. 4 (three users over time)", "python benchmarks/bench_drfh.py",
                 "RESULTS §5"),
    Reproduction(_D, "Fig. 5 and Table II (utilisation, slots)",
                 "python benchmarks/drfh_table2.py", "RESULTS §5, §12",
                 "synthetic users: the Google trace is not available offline"),
    Reproduction(_D, "Fairness properties (Props. 1-7, sharing incentive)",
                 "allockit fairness --method progressive --examples 500", "RESULTS §5"),
    Reproduction(_F, "Table 2 (degradation from bound)",
                 "allockit dfrs-experiment table2 --quick --seeds 5 --loads "
                 "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9 --markdown table2.md", "RESULTS §6",
                 "the paper's full grid: drop --quick and add --backend dask --scheduler ADDR"),
    Reproduction(_F, "Table 2 and 4, real-world column over all 181 HPC2N weeks",
                 "allockit dfrs-experiment table2 --sets real --weeks 0-180 --algorithms "
                 "'FCFS;EASY;GreedyP */per/opt=min/minvt=600;GreedyPM */per/opt=min/minvt=600'",
                 "RESULTS §11"),
    Reproduction(_F, "Table 3 (preemption and migration costs)",
                 "allockit dfrs-experiment table3 --quick --markdown table3.md; "
                 "python benchmarks/dfrs_table3_counts.py", "RESULTS §6, §12"),
    Reproduction(_F, "Table 4 (normalised underutilisation)",
                 "allockit dfrs-experiment table4 --quick --markdown table4.md", "RESULTS §6"),
    Reproduction(_F, "Table 5 (all 116 variants on HPC2N weeks)",
                 "allockit dfrs-experiment table5 --quick --markdown table5.md", "RESULTS §12",
                 "all 181 weeks (21,539 simulations, resumable): 3.6-5 h on 2 cores (§12.11.19)"),
    Reproduction(_F, "Fig. 1 (degradation vs load)",
                 "allockit dfrs-experiment fig1 --quick --plot fig1.png", "RESULTS §6"),
    Reproduction(_F, "Fig. 3 and Fig. 4 (underutilisation and degradation vs period)",
                 "allockit dfrs-experiment fig3 --quick --plot fig3.png; allockit "
                 "dfrs-experiment fig4 --quick --plot fig4.png", "RESULTS §12"),
    Reproduction(_F, "Sec. 6.2 MCB8 running time",
                 "allockit dfrs-experiment timing --markdown timing.md", "RESULTS §12",
                 "the paper's 100 unscaled traces, under a minute on 2 cores"),
    Reproduction(_F, "Sec. 6.4 whole HPC2N trace (8 % EASY, 10 % DFRS)",
                 "python benchmarks/dfrs_thrashing.py --whole --runs easy,p3600,hold3600",
                 "RESULTS §14"),
    Reproduction(_F, "The stretch lower bound (Theorem 1) and the online bounds",
                 "allockit bound w.swf; allockit workload hpc2n --weeks 120 --out "
                 "w120.swf", "RESULTS §4, §11", "the HPC2N trace: allockit data fetch hpc2n"),
    Reproduction(_M, "FWload and JWload statistics (Sec. 3.1)",
                 "python benchmarks/bench_workload_models.py --seed 1", "RESULTS §8"),
    Reproduction(_M, "Figs 6-14 (response time, slowdown, migrations, CPU information, "
                 "migration cost)", "allockit measy-experiment all --quick --markdown measy.md "
                 "--plot DIR",
                 "RESULTS §9"),
    Reproduction(_M, "Beyond the paper: the real traces", "allockit measy-experiment traces",
                 "RESULTS §9"),
    Reproduction(_R, "Fig. 3 (static vs ideal arithmetic)",
                 "allockit reserves-experiment fig3 --markdown fig3.md", "RESULTS §10"),
    Reproduction(_R, "Figs 4-7 and skewed reporting",
                 "allockit reserves-experiment fig4 (fig5, fig6, fig7, skewed) --markdown F.md",
                 "RESULTS §10"),
    Reproduction(_R, "Fig. 8 (recovery after a class stops)",
                 "allockit reserves-experiment fig8 --markdown fig8.md", "RESULTS §10"),
    Reproduction(_R, "Beyond the paper: manager failures, 10,000 and 100,000 nodes",
                 "allockit reserves-experiment failures; allockit reserves-experiment scale",
                 "RESULTS §10"),
)


def catalog_rows(paper: str | None = None) -> list[dict[str, Any]]:
    """The catalogue as JSON rows, optionally only one paper's (a substring of its name).

    Parameters
    ----------
    paper : str, optional
        Case-insensitive substring of the paper's label (``"dfrs"``, ``"MEASY"``, ...).

    Returns
    -------
    list of dict
        One ``Reproduction.to_dict()`` per entry.

    Examples
    --------
    >>> rows = catalog_rows("measy")
    >>> len(rows) >= 2, rows[0]["paper"]
    (True, 'MEASY (seed 003)')
    """
    needle = None if paper is None else paper.lower()
    return [r.to_dict() for r in CATALOG if needle is None or needle in r.paper.lower()]
