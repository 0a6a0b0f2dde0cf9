"""Instance types, JSON I/O, generators and small bundled data."""

from allockit.instances.feitelson96 import (
    Feitelson96Model,
    calibrate_feitelson96,
    feitelson96_workload,
)
from allockit.instances.generators import SETS, generate_vcsched, iter_vcsched_set
from allockit.instances.hyper_erlang import (
    HyperErlang,
    fit_hyper_erlang,
    fit_hyper_erlang_sample,
    sample_moments,
)
from allockit.instances.io import (
    instance_from_json,
    instance_to_json,
    read_instance,
    write_instance,
)
from allockit.instances.jann97 import (
    JannModel,
    JannRange,
    fit_ctc_jann97,
    fit_jann97,
    jann97_workload,
    load_jann_model,
    parse_ranges,
    power_of_two_ranges,
    save_jann_model,
    select_period,
)
from allockit.instances.lublin_sizes import SizeModel, sample_sizes
from allockit.instances.measy import apply_measy_rules, measy_cpu_usage, measy_load_factor
from allockit.instances.vcsched import VCInstance
from allockit.instances.workload_stats import workload_statistics

__all__ = [
    "SETS",
    "Feitelson96Model",
    "HyperErlang",
    "JannModel",
    "JannRange",
    "SizeModel",
    "VCInstance",
    "apply_measy_rules",
    "calibrate_feitelson96",
    "example_path",
    "feitelson96_workload",
    "fit_ctc_jann97",
    "fit_hyper_erlang",
    "fit_hyper_erlang_sample",
    "fit_jann97",
    "generate_vcsched",
    "instance_from_json",
    "instance_to_json",
    "iter_vcsched_set",
    "jann97_workload",
    "load_jann_model",
    "measy_cpu_usage",
    "measy_load_factor",
    "parse_ranges",
    "power_of_two_ranges",
    "read_instance",
    "sample_dir",
    "sample_moments",
    "sample_sizes",
    "save_jann_model",
    "select_period",
    "workload_statistics",
    "write_instance",
]


def sample_dir() -> str:
    """Directory of the bundled sample of the paper's small set (36 instances).

    Returns
    -------
    str
        The folder of the sample's JSON files (installed with the package).

    Examples
    --------
    >>> import os
    >>> len([f for f in os.listdir(sample_dir()) if f.endswith(".json")])
    36
    """
    from importlib.resources import files

    return str(files("allockit.instances").joinpath("data", "small_sample"))


def example_path(name: str = "example_vcsched.json") -> str:
    """Path of a bundled example instance.

    Parameters
    ----------
    name : str, default "example_vcsched.json"
        File name in the package's ``instances/data`` folder.

    Returns
    -------
    str
        The file's path (it exists for the bundled names).

    Examples
    --------
    >>> read_instance(example_path()).hosts
    4
    """
    from importlib.resources import files

    return str(files("allockit.instances").joinpath("data", name))

if __name__ != "allockit.instances":  # the repository's folder imported by its bare name
    raise ImportError(
        "import allockit.instances, not instances: the repository's top-level folders are the "
        "subpackages of allockit (see ARCHITECTURE.md); a bare import would load a "
        "second copy of every class"
    )
