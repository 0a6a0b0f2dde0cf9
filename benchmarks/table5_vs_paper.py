"""Compare a Table 5 markdown (``allockit dfrs-experiment table5 --markdown F``) with the paper.

    python benchmarks/table5_vs_paper.py t5.md

Reads the rows ``| algorithm | ours avg | std | max | paper avg | std | max | n |`` and
prints: the number of rows, the median of ours / paper over the rows' averages, how many
rows are below the paper's and within a factor of 2 of it, and the Spearman rank
correlation of the two columns of averages (ranks by numpy's argsort; ties broken by
order, not averaged).
"""

from __future__ import annotations

import argparse
import re

import numpy as np

NUM = r"[\d,.]+"
ROW = re.compile(
    rf"\| (.+?) \| ({NUM}) \| {NUM} \| {NUM} \| ({NUM}) \| {NUM} \| {NUM} \| (\d+) \|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("markdown")
    args = parser.parse_args()
    ours, paper = [], []
    with open(args.markdown, encoding="utf-8") as fh:
        for line in fh:
            m = ROW.match(line)
            if m:
                ours.append(float(m.group(2).replace(",", "")))
                paper.append(float(m.group(3).replace(",", "")))
    ours_a, paper_a = np.array(ours), np.array(paper)
    ratio = ours_a / paper_a
    rank = np.corrcoef(ours_a.argsort().argsort(), paper_a.argsort().argsort())[0, 1]
    within = ((ratio >= 0.5) & (ratio <= 2)).sum()
    print(f"rows {ratio.size}  median ours/paper {np.median(ratio):.2f}  "
          f"below the paper {(ratio < 1).sum()}  within x0.5-2 {within}  Spearman {rank:.3f}")


if __name__ == "__main__":
    main()
