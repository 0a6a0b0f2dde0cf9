"""VCInstance, DRFHInstance and the workload generators refuse bad input by name.

Fractions are refused where integers are needed (never truncated), NaN and strings get
an ``InvalidInputError`` naming the argument, and numpy scalars are taken wherever
Python numbers of the same value are.
"""

import math
import time

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.instances.drfh import DRFHInstance, google_servers, random_users
from allockit.instances.feitelson96 import calibrate_feitelson96, feitelson96_workload
from allockit.instances.generators import SetSpec, generate_vcsched
from allockit.instances.hyper_erlang import HyperErlang
from allockit.instances.jann97 import JannRange, fit_jann97, jann97_workload
from allockit.instances.lublin import LublinModel, dfrs_synthetic, generate_lublin
from allockit.instances.lublin_sizes import SizeModel, sample_sizes
from allockit.instances.measy import measy_cpu_usage, measy_load_factor
from allockit.instances.schemas import plain_values
from allockit.instances.tsafrir import estimate_histogram, tsafrir_estimates
from allockit.instances.vcsched import VCInstance
from allockit.instances.workload import Platform, Workload

NAN, INF = math.nan, math.inf


# ---------------------------------------------------------------------- VCInstance
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tasks": [2.5]}, r"tasks\[0\] must be an integer; got 2.5"),
        ({"tasks": [NAN]}, r"tasks\[0\] must be an integer; got nan"),
        ({"tasks": [INF]}, r"tasks\[0\] must be an integer; got inf"),
        ({"tasks": ["2"]}, r"tasks\[0\] must be an integer; got '2'"),
        ({"tasks": [None]}, r"tasks\[0\] must be an integer; got None"),
        ({"tasks": [1, 1]}, r"tasks must have one entry per job \(1\); got 2"),
        ({"previous": [2.5]}, "previous of job 'j0' must be an integer >= 0; got 2.5"),
        ({"previous": [NAN]}, "previous of job 'j0' must be an integer >= 0; got nan"),
        ({"previous": [INF]}, "previous of job 'j0' must be an integer >= 0; got inf"),
        ({"previous": ["1"]}, "previous of job 'j0' must be an integer >= 0; got '1'"),
        ({"previous": 1}, "previous must be a list with one entry per job; got 1"),
        ({"cpu": "abc"}, "cpu must be an array of numbers; got 'abc'"),
        ({"cpu": ["abc"]}, r"cpu\[0\] must be a number; got 'abc'"),
        ({"names": ["a", "b"]}, r"names must have one entry per job \(1\); got 2"),
        ({"names": "a"}, "names must be a list with one entry per job; got 'a'"),
        ({"hosts": 2.5}, r"VCInstance.hosts must be an integer in \[1, 1000000\]; got 2.5"),
        ({"max_migrations": 1.5}, "max_migrations must be an integer >= 0; got 1.5"),
        ({"migration_budget": NAN}, "migration_budget must be a finite number >= 0; got nan"),
    ],
)
def test_from_lists_refuses_what_it_used_to_truncate(kwargs, message):
    args = dict(hosts=2, cpu=[0.5], mem=[0.1]) | kwargs
    with pytest.raises(InvalidInputError, match=message):
        VCInstance.from_lists(**args)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tasks": [2.5]}, r"tasks\[0\] must be an integer; got 2.5"),
        ({"tasks": [NAN]}, r"tasks\[0\] must be an integer; got nan"),
        ({"tasks": ["x"]}, r"tasks\[0\] must be an integer; got 'x'"),
        ({"previous": [0.5]}, r"previous\[0\] must be an integer; got 0.5"),
        ({"previous": [None]}, r"previous\[0\] must be an integer; got None"),
        ({"previous": [10**30]}, r"previous\[0\] must be an integer; got 1e\+30"),
        ({"cpu": [[0.5]]}, r"cpu must be one-dimensional; got shape \(1, 1\)"),
    ],
)
def test_constructor_refuses_fractions_and_non_numbers(kwargs, message):
    args = dict(hosts=2, job_names=("a",), cpu=[0.5], mem=[0.1]) | kwargs
    with pytest.raises(InvalidInputError, match=message):
        VCInstance(**args)


def test_integer_floats_and_numpy_scalars_give_the_same_instance():
    plain = VCInstance.from_lists(
        hosts=2, cpu=[0.5, 0.25], mem=[0.1, 0.2], tasks=[2, 1], previous=[[0, 1], 1],
        max_migrations=1,
    )
    numpy = VCInstance.from_lists(
        hosts=np.float32(2), cpu=np.array([0.5, 0.25]), mem=[0.1, 0.2],
        tasks=[2.0, np.int64(1)], previous=[np.array([0.0, 1.0]), np.int32(1)],
        max_migrations=np.int64(1),
    )
    assert numpy == plain and numpy.tasks.dtype == plain.tasks.dtype == np.int64
    assert isinstance(numpy.hosts, int) and isinstance(numpy.max_migrations, int)


def test_from_dict_takes_numpy_integers():
    doc = {
        "problem": "vcsched",
        "hosts": np.int64(2),
        "jobs": [{"name": "a", "cpu": np.float32(0.5), "mem": 0, "tasks": np.int64(2),
                  "previous": np.array([0, 1])}],
        "max_migrations": np.int32(1),
    }
    inst = VCInstance.from_dict(doc)
    assert inst.hosts == 2 and inst.tasks.tolist() == [2] and inst.previous.tolist() == [0, 1]
    doc["jobs"][0]["tasks"] = np.float64(2.5)
    with pytest.raises(InvalidInputError, match=r"jobs\[0\]\.tasks must be an integer .*2.5"):
        VCInstance.from_dict(doc)


def test_drfh_from_dict_takes_numpy_integers():
    doc = {"resources": ["cpu"], "servers": [{"capacity": [1], "count": np.int64(2)}],
           "users": [{"demand": [np.float32(0.5)], "tasks": np.int32(3)}]}
    inst = DRFHInstance.from_dict(doc)
    assert inst.count.tolist() == [2] and inst.tasks.tolist() == [3.0]
    doc["servers"][0]["count"] = np.int64(0)
    with pytest.raises(InvalidInputError, match=r"servers\[0\]\.count must be an integer"):
        DRFHInstance.from_dict(doc)


@pytest.mark.parametrize(("count", "message"), [([2.5], "got 2.5"), ([NAN], "got nan")])
def test_drfh_constructor_refuses_fractional_server_counts(count, message):
    args = dict(resources=("cpu",), server_names=("s",), capacity=[[1.0]], user_names=("u",),
                demand=[[0.5]], weight=[1.0], tasks=[INF])
    with pytest.raises(InvalidInputError, match=rf"count\[0\] must be an integer; {message}"):
        DRFHInstance(count=count, **args)
    assert DRFHInstance(count=[2.0], **args).count.tolist() == [2]


def test_plain_values_leaves_python_data_alone():
    data = {"a": [1, 2.0, "x", None]}
    assert plain_values(data) is data
    assert plain_values((np.int8(1),)) == (1,)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: google_servers(2.5), "n must be an integer >= 1; got 2.5"),
        (lambda: random_users(NAN), "n must be an integer >= 0; got nan"),
        (lambda: random_users(2, min_share="a"), "min_share must be a finite number > 0"),
        (lambda: random_users(2, tasks=(0, 10)), r"tasks\[0\] must be a finite number >= 1"),
        (lambda: random_users(2, weights=(2, 1)), r"weights\[1\] must be a finite number >= 2"),
    ],
)
def test_drfh_generators_refuse_bad_counts(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


# ---------------------------------------------------------------------- sizes, sets, Lublin
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_size": -1}, "max_size must be an integer >= 1; got -1"),
        ({"max_size": 0}, "max_size must be an integer >= 1; got 0"),
        ({"max_size": 2.5}, "max_size must be an integer >= 1; got 2.5"),
        ({"max_size": NAN}, "max_size must be an integer >= 1; got nan"),
        ({"n": NAN}, "n must be an integer >= 0; got nan"),
        ({"n": 2.5}, "n must be an integer >= 0; got 2.5"),
        ({"model": "typeless"}, "model must be a SizeModel; got str"),
    ],
)
def test_sample_sizes_refuses_bad_sizes(kwargs, message):
    args = dict(n=4, seed=0) | kwargs
    with pytest.raises(InvalidInputError, match=message):
        sample_sizes(**args)


def test_sample_sizes_takes_integer_floats_and_gives_int64():
    sizes = sample_sizes(np.int64(50), max_size=8.0, seed=1)
    assert sizes.dtype == np.int64
    assert sizes.tolist() == sample_sizes(50, max_size=8, seed=1).tolist()
    with pytest.raises(InvalidInputError, match=r"SizeModel\.uprob must be a finite number"):
        SizeModel(uprob="high")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"per_spec": NAN}, "SetSpec.per_spec must be an integer >= 1; got nan"),
        ({"per_spec": 2.5}, "SetSpec.per_spec must be an integer >= 1; got 2.5"),
        ({"hosts": 0}, r"SetSpec.hosts must be an integer in \[1, 1000000\]; got 0"),
        ({"jobs": (3, 1.5)}, r"SetSpec.jobs\[1\] must be an integer in \[1, .*\]; got 1.5"),
        ({"jobs": ()}, "SetSpec.jobs must hold at least one job count"),
        ({"jobs": 3}, "SetSpec.jobs must be a tuple of job counts; got 3"),
    ],
)
def test_set_spec_is_checked(kwargs, message):
    args = dict(hosts=2, jobs=(3,), per_spec=1) | kwargs
    with pytest.raises(InvalidInputError, match=message):
        SetSpec(**args)


def test_set_spec_and_generator_take_integer_floats():
    assert SetSpec(hosts=2.0, jobs=[3.0], per_spec=np.int64(1)) == SetSpec(2, (3,), 1)
    a = generate_vcsched(hosts=4.0, jobs=np.int64(6), slack=0.5, cov_cpu=0.25, cov_mem=0.25,
                         parallel=True, max_tasks=8.0, seed=3)
    b = generate_vcsched(hosts=4, jobs=6, slack=0.5, cov_cpu=0.25, cov_mem=0.25,
                         parallel=True, max_tasks=8, seed=3)
    assert a == b
    with pytest.raises(InvalidInputError, match=r"jobs must be an integer >= 1; got 2\.5"):
        generate_vcsched(hosts=4, jobs=2.5, slack=0.5, cov_cpu=0.25, cov_mem=0.25)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: LublinModel(nodes=2.5), "nodes must be an integer >= 1; got 2.5"),
        (lambda: LublinModel(nodes=NAN), "nodes must be an integer >= 1; got nan"),
        (lambda: LublinModel(start_hour=1.5), r"start_hour must be an integer in \[0, 23\]"),
        (lambda: generate_lublin(2.5), "n_jobs must be an integer >= 0; got 2.5"),
        (lambda: generate_lublin(NAN), "n_jobs must be an integer >= 0; got nan"),
        (lambda: dfrs_synthetic(10, nodes=2.5), "nodes must be an integer >= 1; got 2.5"),
        (lambda: dfrs_synthetic(10, load=INF), "load must be a finite number > 0; got inf"),
    ],
)
def test_lublin_refuses_fractional_counts(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_lublin_takes_integer_floats():
    assert LublinModel(nodes=64.0, start_hour=3.0) == LublinModel(nodes=64, start_hour=3)
    a = generate_lublin(20.0, model=LublinModel(nodes=64.0, start_hour=3.0), seed=1)
    b = generate_lublin(20, model=LublinModel(nodes=64, start_hour=3), seed=1)
    assert all(np.array_equal(a[k], b[k]) and a[k].dtype == b[k].dtype for k in a)


# ---------------------------------------------------------------------- MEASY rules
@pytest.mark.parametrize(
    ("tasks", "message"),
    [
        ([1, 2.5], r"tasks\[1\] must be an integer; got 2.5"),
        ([NAN], r"tasks\[0\] must be an integer; got nan"),
        ([[1, 2]], r"tasks must be one-dimensional"),
        ([1, 0], "tasks must be >= 1; got 0 at index 1"),
    ],
)
def test_cpu_usage_refuses_fractional_task_counts(tasks, message):
    with pytest.raises(InvalidInputError, match=message):
        measy_cpu_usage(tasks)


def test_cpu_usage_and_load_factor_take_numpy_numbers():
    assert measy_cpu_usage([1.0, 4], seed=0).tolist() == measy_cpu_usage([1, 4], seed=0).tolist()
    assert measy_load_factor(np.int64(1), np.float32(0.5)) == 2.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: estimate_histogram(NAN, 7200), "njobs must be an integer >= 1; got nan"),
        (lambda: estimate_histogram(2.5, 7200), "njobs must be an integer >= 1; got 2.5"),
        (lambda: estimate_histogram(10, 7200.5), "max_est must be an integer >= 3600"),
        (lambda: tsafrir_estimates([10, 0]), r"runtimes\[1\] must be finite and > 0; got 0.0"),
        (lambda: tsafrir_estimates([-5]), r"runtimes\[0\] must be finite and > 0; got -5.0"),
        (lambda: tsafrir_estimates([NAN]), r"runtimes\[0\] must be finite and > 0; got nan"),
        (lambda: tsafrir_estimates([10], max_est=0), "max_est must be an integer >= 3600; got 0"),
        (lambda: tsafrir_estimates(2.5), r"runtimes must be one-dimensional; got shape \(\)"),
    ],
)
def test_tsafrir_refuses_meaningless_input(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_tsafrir_estimates_one_job():
    (estimate,) = tsafrir_estimates([2.5], seed=0)  # one job used to divide by zero
    assert estimate >= 2.5
    times, counts = estimate_histogram(1, 3600.0, seed=0)
    assert counts.tolist() == [1] and times.tolist() == [3600.0]


# ---------------------------------------------------------------------- Feitelson, Jann
def test_generators_take_numpy_memory_fractions():
    a = feitelson96_workload(50, procs=16, mem=np.float32(0.25), seed=1)
    b = feitelson96_workload(50, procs=16, mem=0.25, seed=1)
    assert a == b
    c = jann97_workload(50, procs=np.int64(32), mem=np.float64(0.25), seed=1)
    assert c == jann97_workload(50, procs=32, mem=0.25, seed=1)
    assert feitelson96_workload(20.0, procs=16.0, seed=2) == feitelson96_workload(
        20, procs=16, seed=2
    )
    for make in (feitelson96_workload, jann97_workload):
        with pytest.raises(InvalidInputError, match=r"mem must be in \[0, 1\]; got nan"):
            make(10, mem=NAN)
        with pytest.raises(InvalidInputError, match=r"jobs must be an integer >= 1; got 2\.5"):
            make(2.5)


@pytest.mark.parametrize("digits", [-1, 0, 2.5, 18, "4"])
def test_calibration_digits_are_checked(digits):
    with pytest.raises(InvalidInputError, match=r"digits must be an integer in \[1, 17\]"):
        calibrate_feitelson96(digits=digits)


def test_calibration_takes_integer_float_digits():
    assert calibrate_feitelson96(digits=3.0) == calibrate_feitelson96(digits=3)
    with pytest.raises(InvalidInputError, match="base must be a Feitelson96Model"):
        calibrate_feitelson96(base={})


def _workload():
    rng = np.random.default_rng(0)
    return Workload.from_jobs(
        Platform(nodes=8), submit=np.cumsum(rng.exponential(60, 200)),
        runtime=rng.exponential(600, 200) + 1, tasks=rng.choice([1, 2, 4, 8], 200),
        cpu=np.ones(200), mem=np.full(200, 0.1),
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_order": 10**30}, r"max_order must be an integer in \[1, 1000\]; got 10+$"),
        ({"max_order": 2.5}, r"max_order must be an integer in \[1, 1000\]; got 2.5"),
        ({"min_jobs": 3.5}, "min_jobs must be an integer >= 3; got 3.5"),
        ({"nodes": 8.5}, "nodes must be an integer >= 1; got 8.5"),
        ({"ranges": [(1, 2.5)]}, r"ranges\[0\] hi must be an integer >= 1; got 2.5"),
        ({"ranges": [(1, 2, 3)]}, r"ranges must be \(lo, hi\) pairs of integers"),
    ],
)
def test_fit_jann97_refuses_bad_options_at_once(kwargs, message):
    start = time.perf_counter()
    with pytest.raises(InvalidInputError, match=message):
        fit_jann97(_workload(), **kwargs)
    assert time.perf_counter() - start < 5


def test_fit_jann97_takes_integer_floats():
    assert fit_jann97(_workload(), max_order=32.0, min_jobs=10.0, nodes=8.0) == fit_jann97(
        _workload()
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lo": 2.5}, "JannRange.lo must be an integer >= 1; got 2.5"),
        ({"hi": NAN}, "JannRange.hi must be an integer >= 1; got nan"),
        ({"sizes": (3.5,), "counts": (1,)}, r"JannRange.sizes\[0\] must be an integer; got 3.5"),
        ({"sizes": (3,), "counts": (NAN,)}, r"JannRange.counts\[0\] must be an integer"),
        ({"sizes": 3, "counts": 1}, "JannRange.sizes must be a sequence of integers; got 3"),
        ({"jobs": 1.5}, "JannRange.jobs must be an integer >= 0; got 1.5"),
    ],
)
def test_jann_range_refuses_fractions(kwargs, message):
    he = HyperErlang.erlang(1, 0.01)
    args = dict(lo=3, hi=4, interarrival=he, runtime=he) | kwargs
    with pytest.raises(InvalidInputError, match=message):
        JannRange(**args)


def test_jann_range_takes_integer_floats():
    he = HyperErlang.erlang(1, 0.01)
    r = JannRange(3.0, np.int64(4), he, he, sizes=(3.0,), counts=(np.int64(2),), jobs=2.0)
    assert r == JannRange(3, 4, he, he, sizes=(3,), counts=(2,), jobs=2)
    assert isinstance(r.jobs, int) and isinstance(r.sizes[0], int)
