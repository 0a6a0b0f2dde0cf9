"""The exact VCSched models as files for any solver (LP or MPS), named by jobs and hosts.

``build_model(instance, method)`` is the Pyomo model ``solve`` runs for ``milp``,
``milp-paper`` or ``lp``; ``write_model`` writes it as an LP or MPS file whose variable
names say which job and host they are about; ``read_solution`` turns the values another
solver found for those names back into a placement.

Variable names (``JOB`` is the job's name with every character other than a letter,
digit or ``_`` replaced by ``_``; when two jobs would get the same name, or a name would
be empty, every job is named ``j<index>`` instead, index 0-based in input order):

- ``milp``: ``n_JOB_h<j>``, the number of tasks of job ``JOB`` on host ``j`` (0-based),
  and ``L``, the largest host load (minimised; the yield is ``1 / max(1, L)``);
- ``milp-paper`` and ``lp``: ``e_JOB_t<k>_h<j>``, 1 when task ``k`` of job ``JOB``
  runs on host ``j`` (a fraction for ``lp``), ``alpha_JOB_t<k>_h<j>``, its CPU share,
  and ``Y``, the minimum yield (maximised).

Other variables and the constraints keep Pyomo's symbolic names (``host_mem(0)``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance

__all__ = ["MODEL_METHODS", "build_model", "job_labels", "read_solution", "write_model"]

#: The methods whose model can be built and written.
MODEL_METHODS = ("milp", "milp-paper", "lp")
_FORMATS = {".lp": "lp", ".mps": "mps"}


def build_model(
    instance: VCInstance, method: str = "milp", *, symmetry_breaking: bool = True
) -> Any:
    """The Pyomo model ``solve(instance, method)`` runs (without its warm start).

    Parameters
    ----------
    instance : VCInstance
        The instance.
    method : {"milp", "milp-paper", "lp"}
        ``milp``: ``build_load_milp``; ``milp-paper``: ``build_paper_milp``; ``lp``: its
        relaxation (phase 1).
    symmetry_breaking : bool, default True
        ``milp`` only: the identical-host symmetry-breaking rows.

    Returns
    -------
    pyomo.environ.ConcreteModel

    Raises
    ------
    InvalidInputError
        For another method.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> build_model(inst, "milp").name, build_model(inst, "lp").name
    ('vcsched_load_milp', 'vcsched_paper_milp')
    """
    if method == "milp":
        from allockit.models.vcsched_load import build_load_milp

        return build_load_milp(instance, symmetry_breaking=symmetry_breaking)
    if method in ("milp-paper", "lp"):
        from allockit.models.vcsched_milp import build_paper_milp

        return build_paper_milp(instance, relax=method == "lp")
    raise InvalidInputError(f"method must be one of {', '.join(MODEL_METHODS)}; got {method!r}")


def job_labels(instance: VCInstance) -> list[str]:
    """The jobs' names as they appear in variable names (see the module docstring).

    Parameters
    ----------
    instance : VCInstance
        The instance.

    Returns
    -------
    list of str
        One label per job, in input order.

    Examples
    --------
    >>> job_labels(VCInstance.from_lists(hosts=1, cpu=[0.5, 0.5], mem=[0, 0]))
    ['j0', 'j1']
    >>> inst = VCInstance.from_dict({"problem": "vcsched", "hosts": 1, "jobs": [
    ...     {"name": "web-1", "cpu": 0.5, "mem": 0}, {"name": "web_1", "cpu": 0.5, "mem": 0}]})
    >>> job_labels(inst)
    ['j0', 'j1']
    """
    labels = [re.sub(r"[^A-Za-z0-9_]", "_", str(name)) for name in instance.job_names]
    if len(set(labels)) < len(labels) or not all(labels):
        return [f"j{i}" for i in range(instance.n_jobs)]
    return labels


def _names(instance: VCInstance, model: Any) -> dict[int, str]:
    """id(variable) -> its name in the file."""
    jobs = job_labels(instance)
    out: dict[int, str] = {}
    if hasattr(model, "n"):
        for (i, j), var in model.n.items():
            out[id(var)] = f"n_{jobs[i]}_h{j}"
        out[id(model.L)] = "L"
        return out
    first = np.concatenate(([0], np.cumsum(instance.tasks)[:-1]))
    job = instance.task_job
    for (t, j), var in model.e.items():
        i = int(job[t])
        k = int(t - first[i])
        out[id(var)] = f"e_{jobs[i]}_t{k}_h{j}"
        out[id(model.alpha[t, j])] = f"alpha_{jobs[i]}_t{k}_h{j}"
    out[id(model.Y)] = "Y"
    return out


def write_model(model: Any, instance: VCInstance, path: str | Path) -> dict[str, Any]:
    """Write a model of ``build_model(instance, ...)`` as an LP or MPS file.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
        From ``build_model(instance, ...)``.
    instance : VCInstance
        Its instance (for the variable names).
    path : str or Path
        Ends in ``.lp`` or ``.mps``.

    Returns
    -------
    dict
        ``file``, ``format``, ``variables`` and ``constraints`` (counts).

    Raises
    ------
    InvalidInputError
        For another file ending.

    Examples
    --------
    >>> import tempfile
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> out = Path(tempfile.mkdtemp()) / "m.lp"
    >>> info = write_model(build_model(inst, "milp"), inst, out)
    >>> info["format"], "n_j2_h1" in out.read_text()
    ('lp', True)
    """
    import pyomo.environ as pyo
    from pyomo.core.base.label import LPFileLabeler

    path = Path(path)
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InvalidInputError(f"--write must end in .lp or .mps; got {str(path)!r}")
    names = _names(instance, model)
    fallback = LPFileLabeler()

    def label(component: Any) -> str:
        return names.get(id(component)) or fallback(component)

    model.write(str(path), io_options={"labeler": label})  # the format from the ending
    return {
        "file": str(path),
        "format": fmt,
        "variables": sum(1 for _ in model.component_data_objects(pyo.Var, active=True)),
        "constraints": sum(1 for _ in model.component_data_objects(pyo.Constraint, active=True)),
    }


def read_solution(
    instance: VCInstance, method: str, values: Mapping[str, float]
) -> np.ndarray:
    """The placement (host per task) in another solver's values of the named variables.

    Parameters
    ----------
    instance : VCInstance
        The instance the model was written for.
    method : {"milp", "milp-paper"}
        The model that was written.
    values : Mapping[str, float]
        Variable name -> value (missing names count as 0).

    Returns
    -------
    numpy.ndarray of int64, shape (n_tasks,)
        The placement; check it with ``allockit.evaluation.result_from_placement``.

    Raises
    ------
    InvalidInputError
        For another method, or values that do not place every task exactly once.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> read_solution(inst, "milp", {"n_j0_h0": 1, "n_j1_h0": 1, "n_j2_h1": 1}).tolist()
    [0, 0, 1]
    """
    from allockit.evaluation.placement import counts_to_task_hosts

    jobs = job_labels(instance)
    counts = np.zeros((instance.n_jobs, instance.hosts), dtype=np.int64)
    if method == "milp":
        for i, name in enumerate(jobs):
            for j in range(instance.hosts):
                counts[i, j] = round(float(values.get(f"n_{name}_h{j}", 0.0)))
    elif method == "milp-paper":
        for i, name in enumerate(jobs):
            for k in range(int(instance.tasks[i])):
                for j in range(instance.hosts):
                    counts[i, j] += round(float(values.get(f"e_{name}_t{k}_h{j}", 0.0)))
    else:
        raise InvalidInputError(f"method must be milp or milp-paper; got {method!r}")
    if not np.array_equal(counts.sum(axis=1), instance.tasks) or (counts < 0).any():
        raise InvalidInputError("the values do not place every task of every job exactly once")
    return counts_to_task_hosts(instance, counts)
