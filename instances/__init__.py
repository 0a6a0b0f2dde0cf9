"""Instance types, JSON I/O, generators and small bundled data."""

from allockit.instances.generators import SETS, generate_vcsched, iter_vcsched_set
from allockit.instances.io import (
    instance_from_json,
    instance_to_json,
    read_instance,
    write_instance,
)
from allockit.instances.lublin_sizes import SizeModel, sample_sizes
from allockit.instances.vcsched import VCInstance

__all__ = [
    "SETS",
    "SizeModel",
    "VCInstance",
    "example_path",
    "generate_vcsched",
    "instance_from_json",
    "instance_to_json",
    "iter_vcsched_set",
    "read_instance",
    "sample_dir",
    "sample_sizes",
    "write_instance",
]


def sample_dir() -> str:
    """Directory of the bundled sample of the paper's small set (36 instances).

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

    Examples
    --------
    >>> read_instance(example_path()).hosts
    4
    """
    from importlib.resources import files

    return str(files("allockit.instances").joinpath("data", name))
