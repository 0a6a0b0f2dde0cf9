"""The documentation's Python examples run, and what their pages say they give is true.

Each ``code-block:: python`` of ``docs/*.rst`` and ``docs/user_guide/*.rst`` (the
installation page and the user guide) is run as it stands, in a
fresh namespace and a temporary working directory; a page's block that a user would
copy into a session must not fail there. Where the page states a result (a comment
beside a line, or the prose around the block), the matching check below holds the page
to it.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.glob("*.rst")) + sorted((DOCS / "user_guide").glob("*.rst"))

#: Traces a page's example reads: such a block is skipped where the trace is missing.
NEEDS_TRACE = {"data.rst": "hpc2n"}


def python_blocks(text: str) -> list[str]:
    """The ``code-block:: python`` blocks of an RST page, dedented.

    Examples
    --------
    >>> python_blocks(".. code-block:: python\\n\\n   x = 1\\n\\n   y = x\\n\\nText.\\n")
    ['x = 1\\n\\ny = x\\n']
    """
    found = re.finditer(
        r"\.\. code-block:: python\n\n((?:[ \t]+.*\n|[ \t]*\n)+)", text
    )
    return [textwrap.dedent(m.group(1)).strip("\n") + "\n" for m in found]


EXAMPLES = [
    pytest.param(path.name, index, code, id=f"{path.stem}-{index}")
    for path in PAGES
    for index, code in enumerate(python_blocks(path.read_text()))
]


def _run(page: str, code: str) -> dict:
    if page in NEEDS_TRACE:
        from tests.traces import real_trace

        real_trace(NEEDS_TRACE[page])
    namespace: dict = {"__name__": "user_guide_example"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, f"docs/{page}", "exec"), namespace)
    namespace["_printed"] = printed.getvalue()
    return namespace


def _vcsched(ns: dict) -> None:  # result.status, result.min_yield  # ('optimal', 0.833...)
    assert ns["result"].status == "optimal"
    assert f"{ns['result'].min_yield:.3f}" == "0.833"


def _install(ns: dict) -> None:  # "It prints ``optimal 0.8333333333333334``"
    _vcsched(ns)
    assert ns["_printed"] == "optimal 0.8333333333333334\n"


def _dfrs(ns: dict) -> None:  # the ratio shown is a degradation from a lower bound: >= 1
    ratio = ns["result"].stretch.max() / ns["bound"]
    assert ratio >= 1.0 - 1e-9 and math.isfinite(ratio)


def _reserves(ns: dict) -> None:  # result.mean: each class's share of the cluster, in %
    mean = np.asarray(ns["result"].mean, dtype=float)
    assert mean.shape == (3,) and np.all(mean >= 0) and mean.sum() <= 100 + 1e-6


def _drfh(ns: dict) -> None:  # one user alone gets the whole server's dominant resource
    assert ns["result"].status == "optimal"
    assert ns["result"].dominant_share[0] == pytest.approx(1.0)


def _measy(ns: dict) -> None:  # every job of the 2,000 ran
    assert len(ns["result"].ids) == 2000 and np.all(np.isfinite(ns["result"].end))


def _data(ns: dict) -> None:  # the HPC2N log as the archive has it: 202,871 jobs, 240 nodes
    assert ns["trace"].n_jobs == 202_871 and ns["trace"].header_int("MaxNodes") == 240


def _own_methods(ns: dict) -> None:  # feasible 0.556 0.444; mcb8 solved, prover error
    assert ns["result"].status == "feasible"
    printed = ns["_printed"].splitlines()
    assert printed[:2] == ["feasible 0.556 0.444", "['solved', 'error']"]
    assert printed[2].startswith("contradicted: its bound 0.5 is below the min yield "
                                 "0.833333 another method's")


CLAIMS = {"install.rst": _install, "vcsched.rst": _vcsched, "dfrs.rst": _dfrs,
          "own_methods.rst": _own_methods, "reserves.rst": _reserves, "drfh.rst": _drfh,
          "measy.rst": _measy, "data.rst": _data}


@pytest.mark.parametrize("page, index, code", EXAMPLES)
def test_the_user_guide_example_runs_and_gives_what_it_says(page, index, code, tmp_path,
                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = _run(page, code)
    CLAIMS[page](namespace)


def test_every_page_with_an_example_has_its_claims_checked():
    pages = {page for page, _, _ in (p.values for p in EXAMPLES)}
    assert pages and pages <= set(CLAIMS), sorted(pages - set(CLAIMS))


def test_a_failing_example_fails_the_test():
    with pytest.raises(ZeroDivisionError):
        _run("x.rst", "1 / 0\n")
    with pytest.raises(AssertionError):
        _vcsched({"result": type("R", (), {"status": "optimal", "min_yield": 0.8})()})
