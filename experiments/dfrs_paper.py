"""The DFRS paper's published numbers and the grid of each of its tables and figures.

Casanova, Stillwell, Vivien (2011), Dynamic fractional resource scheduling vs. batch
scheduling, Sec. 6 and the appendix. The numbers are printed beside ours
(``allockit.experiments.dfrs_markdown``); ``EXPERIMENTS`` names each experiment's
algorithms and trace sets (``allockit.experiments.dfrs.experiment_tasks`` turns them
into runner tasks).
"""

from __future__ import annotations

__all__ = [
    "BEST",
    "COST_KEYS",
    "EXPERIMENTS",
    "FIG1_ALGORITHMS",
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "PAPER_TABLE4",
    "PAPER_TABLE5",
    "PERIODS",
    "PERIOD_SWEEPS",
]

#: Table 3's columns, as ``SimulationResult.costs()`` names them.
COST_KEYS = (
    "preemption_bandwidth_bytes_per_s",
    "migration_bandwidth_bytes_per_s",
    "preemptions_per_hour",
    "migrations_per_hour",
    "preemptions_per_job",
    "migrations_per_job",
)
#: The two best algorithms of the paper (Tables 2-4, Figs 3 and 4).
BEST = ("GreedyP */per/opt=min/minvt=600", "GreedyPM */per/opt=min/minvt=600")


def _parse_table(text: str) -> dict[str, tuple[float, ...]]:
    table = {}
    for line in text.strip().splitlines():
        name, numbers = line.split("|")
        table[name.strip()] = tuple(float(x) for x in numbers.split())
    return table


#: Table 2: degradation from bound, (avg, std, max) on real, unscaled, scaled traces.
PAPER_TABLE2: dict[str, tuple[float, ...]] = _parse_table(
    """
FCFS | 3578.5 3727.8 21718.4 5457.2 2958.5 15102.7 5869.3 2789.1 17403.3
EASY | 3041.9 3438.0 21317.4 4955.4 2730.6 14036.8 5262.0 2588.9 14534.1
Greedy */opt=min | 949.8 1828.5 11778.4 2435.0 2285.6 11229.9 3204.3 2517.5 19129.2
GreedyP */opt=min | 13.5 68.0 819.2 37.5 156.0 1204.9 115.7 644.0 10354.2
GreedyPM */opt=min | 13.8 68.2 819.2 33.8 154.0 1321.7 124.0 673.5 9598.8
Greedy/per/opt=min | 28.3 24.9 163.7 30.1 10.2 58.1 29.3 14.3 153.2
GreedyP/per/opt=min | 18.5 18.6 152.4 20.1 7.3 38.1 17.8 9.6 84.6
GreedyPM/per/opt=min | 18.4 18.8 158.7 20.2 7.3 38.1 17.9 9.8 93.0
Greedy */per/opt=min | 24.3 15.9 81.6 30.4 9.7 65.7 29.1 12.3 101.4
GreedyP */per/opt=min | 17.9 19.6 213.5 20.3 6.8 32.0 17.9 8.6 89.9
GreedyPM */per/opt=min | 17.9 19.3 198.6 20.3 6.9 32.0 17.9 8.6 89.9
GreedyP/per/opt=min/minvt=600 | 8.9 18.9 152.4 5.9 4.5 38.1 7.3 8.5 96.8
GreedyPM/per/opt=min/minvt=600 | 8.8 18.9 158.7 5.9 4.5 38.1 7.3 8.1 96.8
GreedyP */per/opt=min/minvt=600 | 6.9 14.2 149.3 4.9 2.9 19.2 6.1 6.3 103.5
GreedyPM */per/opt=min/minvt=600 | 6.9 14.4 149.6 4.8 2.4 13.6 6.1 5.4 90.2
MCB8 */opt=min/minvt=600 | 12.0 32.8 370.0 6.9 5.4 44.4 13.2 21.6 270.9
MCB8/per/opt=min/minvt=600 | 10.8 25.3 287.6 8.1 6.6 53.3 11.0 12.6 127.5
MCB8 */per/opt=min/minvt=600 | 13.6 30.2 318.9 7.8 3.9 21.9 12.2 15.3 195.7
/per/opt=min/minvt=600 | 105.0 445.6 5011.9 43.0 19.7 134.7 40.4 25.0 238.3
/stretch-per/opt=max/minvt=600 | 105.0 445.6 5011.9 43.0 19.6 134.7 40.2 24.8 236.9
"""
)

#: Table 3 (scaled traces, load >= 0.7): average and maximum of the preemption and the
#: migration bandwidth (GB/s), occurrences per hour and per job, in that order. The
#: paper's "/per/opt=min" and "stretch-per/opt=max" rows are run with minvt=600, which
#: does not matter for them (Sec. 6.1).
PAPER_TABLE3: dict[str, tuple[float, ...]] = _parse_table(
    """
GreedyP */opt=min | 0.06 0.17 0.00 0.00 5.67 18.00 0.00 0.00 0.57 2.04 0.00 0.00
GreedyPM */opt=min | 0.03 0.07 0.02 0.05 2.25 10.08 3.69 13.32 0.23 1.19 0.36 1.22
Greedy/per/opt=min | 0.48 1.08 0.21 0.60 32.58 83.52 38.79 110.52 5.41 21.76 4.81 16.17
GreedyP */per/opt=min | 0.58 1.37 0.28 0.65 39.67 97.92 58.56 127.08 5.87 24.87 7.09 17.91
GreedyPM */per/opt=min | 0.56 1.37 0.29 0.66 35.78 96.48 62.95 135.72 5.42 24.00 7.59 18.32
GreedyP */per/opt=min/minvt=600 | 0.56 1.36 0.24 0.63 37.70 97.20 52.14 119.16 5.56 23.88 6.34 16.48
GreedyPM */per/opt=min/minvt=600|0.54 1.34 0.26 0.62 33.80 94.32 56.45 127.08 5.11 23.23 6.84 16.94
MCB8 */opt=min | 0.42 1.26 1.17 2.36 61.66 230.40 490.48 1005.48 6.67 18.83 57.46 90.29
MCB8 */per/opt=min/minvt=600 |0.54 1.11 0.56 1.53 37.94 85.32 194.57 836.28 6.57 26.52 22.55 50.29
/per/opt=min/minvt=600 | 0.49 1.07 0.21 0.62 33.83 84.24 38.69 111.24 5.65 23.23 4.90 16.58
/stretch-per/opt=max/minvt=600 | 0.28 0.65 0.39 0.81 20.41 45.36 67.26 159.48 3.79 16.71 10.41 26.96
"""
)

#: Table 5 (appendix): degradation from bound on the HPC2N weeks, (avg, std, max), for
#: the 116 algorithm variants (5-minute penalty).
PAPER_TABLE5: dict[str, tuple[float, ...]] = _parse_table(
    """
FCFS | 3578.5 3727.8 21718.4
EASY | 3041.9 3438.0 21317.4
Greedy */opt=avg | 1012.2 2229.5 19799.1
Greedy */opt=min | 949.8 1828.5 11778.4
Greedy/per/opt=avg | 28.9 27.0 212.9
Greedy/per/opt=avg/minft=300 | 23.3 26.9 182.3
Greedy/per/opt=avg/minft=600 | 23.5 27.6 212.2
Greedy/per/opt=avg/minvt=300 | 23.9 26.9 182.3
Greedy/per/opt=avg/minvt=600 | 23.8 27.8 182.3
Greedy/per/opt=min | 28.3 24.9 163.7
Greedy/per/opt=min/minft=300 | 23.4 26.0 152.0
Greedy/per/opt=min/minft=600 | 23.1 24.8 152.5
Greedy/per/opt=min/minvt=300 | 23.5 26.9 182.8
Greedy/per/opt=min/minvt=600 | 23.0 25.9 152.0
Greedy */per/opt=avg | 24.5 15.9 81.6
Greedy */per/opt=avg/minft=300 | 19.8 17.8 85.6
Greedy */per/opt=avg/minft=600 | 19.3 17.6 85.6
Greedy */per/opt=avg/minvt=300 | 19.2 17.5 85.6
Greedy */per/opt=avg/minvt=600 | 18.9 17.3 74.9
Greedy */per/opt=min | 24.3 15.9 81.6
Greedy */per/opt=min/minft=300 | 19.5 17.7 85.6
Greedy */per/opt=min/minft=600 | 19.1 17.5 85.6
Greedy */per/opt=min/minvt=300 | 18.9 17.2 85.6
Greedy */per/opt=min/minvt=600 | 19.0 17.4 66.1
GreedyP */opt=avg | 20.4 116.7 1254.2
GreedyP */opt=min | 13.5 68.0 819.2
GreedyP/per/opt=avg | 18.4 18.6 152.4
GreedyP/per/opt=avg/minft=300 | 9.1 18.8 152.4
GreedyP/per/opt=avg/minft=600 | 9.0 18.7 152.4
GreedyP/per/opt=avg/minvt=300 | 9.0 18.8 152.4
GreedyP/per/opt=avg/minvt=600 | 8.9 18.9 152.4
GreedyP/per/opt=min | 18.5 18.6 152.4
GreedyP/per/opt=min/minft=300 | 9.1 18.8 152.4
GreedyP/per/opt=min/minft=600 | 9.0 18.9 152.4
GreedyP/per/opt=min/minvt=300 | 9.0 18.9 152.4
GreedyP/per/opt=min/minvt=600 | 8.9 18.9 152.4
GreedyP */per/opt=avg | 17.9 19.7 213.5
GreedyP */per/opt=avg/minft=300 | 8.2 19.4 213.5
GreedyP */per/opt=avg/minft=600 | 7.7 18.5 198.8
GreedyP */per/opt=avg/minvt=300 | 7.0 14.0 149.3
GreedyP */per/opt=avg/minvt=600 | 6.9 14.0 149.3
GreedyP */per/opt=min | 17.9 19.6 213.5
GreedyP */per/opt=min/minft=300 | 7.9 19.0 213.5
GreedyP */per/opt=min/minft=600 | 7.5 18.0 198.8
GreedyP */per/opt=min/minvt=300 | 6.9 14.0 149.3
GreedyP */per/opt=min/minvt=600 | 6.9 14.2 149.3
GreedyPM */opt=avg | 14.1 72.7 880.1
GreedyPM */opt=min | 13.8 68.2 819.2
GreedyPM/per/opt=avg | 18.5 19.2 158.7
GreedyPM/per/opt=avg/minft=300 | 9.1 19.4 158.7
GreedyPM/per/opt=avg/minft=600 | 9.0 19.3 158.7
GreedyPM/per/opt=avg/minvt=300 | 9.1 19.4 158.7
GreedyPM/per/opt=avg/minvt=600 | 8.9 19.5 158.7
GreedyPM/per/opt=min | 18.4 18.8 158.7
GreedyPM/per/opt=min/minft=300 | 9.2 19.2 158.7
GreedyPM/per/opt=min/minft=600 | 9.1 19.3 158.7
GreedyPM/per/opt=min/minvt=300 | 8.9 18.8 158.7
GreedyPM/per/opt=min/minvt=600 | 8.8 18.9 158.7
GreedyPM */per/opt=avg | 17.8 19.3 198.6
GreedyPM */per/opt=avg/minft=300 | 8.2 19.1 198.6
GreedyPM */per/opt=avg/minft=600 | 7.8 19.0 198.8
GreedyPM */per/opt=avg/minvt=300 | 7.0 14.1 149.6
GreedyPM */per/opt=avg/minvt=600 | 6.9 14.2 149.6
GreedyPM */per/opt=min | 17.9 19.3 198.6
GreedyPM */per/opt=min/minft=300 | 8.1 19.2 198.6
GreedyPM */per/opt=min/minft=600 | 7.9 19.1 198.8
GreedyPM */per/opt=min/minvt=300 | 6.9 14.3 149.6
GreedyPM */per/opt=min/minvt=600 | 6.9 14.4 149.6
MCB8 */opt=avg | 346.3 1223.1 13399.7
MCB8 */opt=avg/minft=300 | 44.7 144.2 1082.8
MCB8 */opt=avg/minft=600 | 20.6 63.9 672.0
MCB8 */opt=avg/minvt=300 | 14.1 33.2 370.0
MCB8 */opt=avg/minvt=600 | 12.1 32.8 370.0
MCB8 */opt=min | 345.6 1241.5 13668.8
MCB8 */opt=min/minft=300 | 44.7 138.4 1126.3
MCB8 */opt=min/minft=600 | 19.1 59.2 672.0
MCB8 */opt=min/minvt=300 | 14.0 33.2 370.0
MCB8 */opt=min/minvt=600 | 12.0 32.8 370.0
MCB8/per/opt=avg | 171.4 702.4 8383.0
MCB8/per/opt=avg/minft=300 | 15.0 33.5 279.3
MCB8/per/opt=avg/minft=600 | 12.1 26.9 292.4
MCB8/per/opt=avg/minvt=300 | 11.5 25.3 287.6
MCB8/per/opt=avg/minvt=600 | 10.7 25.2 287.6
MCB8/per/opt=min | 169.1 691.4 8362.3
MCB8/per/opt=min/minft=300 | 15.1 34.5 309.3
MCB8/per/opt=min/minft=600 | 12.1 26.9 292.4
MCB8/per/opt=min/minvt=300 | 11.5 25.3 287.6
MCB8/per/opt=min/minvt=600 | 10.8 25.3 287.6
MCB8 */per/opt=avg | 394.5 1562.9 17862.0
MCB8 */per/opt=avg/minft=300 | 56.1 197.4 1849.6
MCB8 */per/opt=avg/minft=600 | 23.6 71.3 799.3
MCB8 */per/opt=avg/minvt=300 | 15.5 30.6 318.9
MCB8 */per/opt=avg/minvt=600 | 13.7 30.3 318.9
MCB8 */per/opt=min | 389.1 1522.1 17313.6
MCB8 */per/opt=min/minft=300 | 56.8 198.7 1738.4
MCB8 */per/opt=min/minft=600 | 25.1 81.4 799.3
MCB8 */per/opt=min/minvt=300 | 15.4 30.6 318.9
MCB8 */per/opt=min/minvt=600 | 13.6 30.2 318.9
/per/opt=avg | 105.0 445.6 5011.9
/per/opt=avg/minft=300 | 105.0 445.6 5011.9
/per/opt=avg/minft=600 | 105.0 445.6 5011.9
/per/opt=avg/minvt=300 | 105.0 445.6 5011.9
/per/opt=avg/minvt=600 | 105.0 445.6 5011.9
/per/opt=min | 105.0 445.6 5011.9
/per/opt=min/minft=300 | 105.0 445.6 5011.9
/per/opt=min/minft=600 | 105.0 445.6 5011.9
/per/opt=min/minvt=300 | 105.0 445.6 5011.9
/per/opt=min/minvt=600 | 105.0 445.6 5011.9
/stretch-per/opt=avg | 105.0 445.6 5011.9
/stretch-per/opt=avg/minft=300 | 105.0 445.6 5011.9
/stretch-per/opt=avg/minft=600 | 105.0 445.6 5011.9
/stretch-per/opt=avg/minvt=300 | 105.0 445.6 5011.9
/stretch-per/opt=avg/minvt=600 | 105.0 445.6 5011.9
/stretch-per/opt=max | 105.0 445.6 5011.9
/stretch-per/opt=max/minft=300 | 105.0 445.6 5011.9
/stretch-per/opt=max/minft=600 | 105.0 445.6 5011.9
/stretch-per/opt=max/minvt=300 | 105.0 445.6 5011.9
/stretch-per/opt=max/minvt=600 | 105.0 445.6 5011.9
"""
)

#: Table 4: average normalised underutilisation on real, unscaled, scaled traces.
PAPER_TABLE4: dict[str, tuple[float, float, float]] = {
    "EASY": (0.064, 0.349, 0.384),
    BEST[0]: (0.344, 0.497, 0.607),
    BEST[1]: (0.344, 0.497, 0.608),
}

#: Fig. 1's algorithms (opt=min, minvt=600 where the figure uses it).
FIG1_ALGORITHMS = (
    "EASY",
    "Greedy */opt=min",
    "GreedyPM */opt=min",
    "Greedy/per/opt=min",
    "GreedyPM/per/opt=min",
    "Greedy */per/opt=min",
    "GreedyPM */per/opt=min",
    "GreedyPM */per/opt=min/minvt=600",
    "MCB8 */per/opt=min/minvt=600",
    "/per/opt=min/minvt=600",
    "/stretch-per/opt=max/minvt=600",
)

#: The periods of Figs 3 and 4 (the paper: 600 to 12,000 s, 2x to 20x the penalty).
PERIODS = (600.0, 900.0, 1200.0, 1800.0, 2400.0, 3600.0, 6000.0, 9000.0, 12000.0)

EXPERIMENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # experiment -> (algorithms, trace sets)
    "table2": (tuple(PAPER_TABLE2), ("real", "unscaled", "scaled")),
    "table3": (tuple(PAPER_TABLE3), ("scaled",)),
    "table4": (tuple(PAPER_TABLE4), ("real", "unscaled", "scaled")),
    "table5": (tuple(PAPER_TABLE5), ("real",)),
    "fig1": (FIG1_ALGORITHMS, ("scaled",)),
    # Figs 3 and 4: EASY once, the best algorithm at every period of PERIODS
    "fig3": (("EASY", BEST[1]), ("real", "unscaled", "scaled")),
    "fig4": ((BEST[1],), ("real", "unscaled", "scaled")),
    # Sec. 6.2: MCB8 applied at every submission and completion, every call timed
    "timing": (("MCB8 */opt=min",), ("unscaled",)),
}
#: Experiments whose DFRS algorithms run at every period of ``PERIODS``.
PERIOD_SWEEPS = ("fig3", "fig4")
