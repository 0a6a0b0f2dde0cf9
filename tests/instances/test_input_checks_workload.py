"""Workload, Platform and the SWF conversion refuse bad input by name (never truncate or drop).

Each refusal names the argument, the entry and the value; valid inputs (floats of integer
value, numpy scalars) still give the same arrays, of the same dtypes.
"""

import math

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.instances.swf import read_swf, swf_lines, swf_to_workload, workload_to_swf
from allockit.instances.workload import Platform, Workload
from allockit.instances.workload_files import read_workload

P = Platform(nodes=4)


def _jobs(**overrides):
    jobs = dict(submit=[0, 10], runtime=[100, 50], tasks=[2, 1], cpu=[1, 1], mem=[0.1, 0.5])
    jobs.update(overrides)
    return jobs


def _dtypes(w):
    names = ("ids", "submit", "runtime", "tasks", "cpu", "mem", "requested_time", "user",
             "queue", "preceding", "think_time")
    return [getattr(w, n).dtype for n in names]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"submit": [0]}, r"runtime must have one entry per job \(1, the length of submit\)"),
        ({"runtime": [100]}, r"runtime must have one entry per job \(2, .*\); got 1"),
        ({"tasks": [2]}, r"tasks must have one entry per job \(2, .*\); got 1"),
        ({"cpu": [1]}, r"cpu must have one entry per job \(2, .*\); got 1"),
        ({"mem": [0.1, 0.1, 0.1]}, r"mem must have one entry per job \(2, .*\); got 3"),
        ({"tasks": [2.5, 1]}, r"tasks\[0\] must be an integer; got 2.5"),
        ({"ids": [1, 2.5]}, r"ids\[1\] must be an integer; got 2.5"),
        ({"ids": [math.nan, 2]}, r"ids\[0\] must be an integer; got nan"),
        ({"user": [0.5, 1]}, r"user\[0\] must be an integer; got 0.5"),
        ({"queue": [1, 1.5]}, r"queue\[1\] must be an integer; got 1.5"),
        ({"tasks": ["a", 1]}, r"tasks\[0\] must be an integer; got 'a'"),
        ({"cpu": ["1", 1]}, r"cpu\[0\] must be a number; got '1'"),
        ({"tasks": [1, None]}, r"tasks\[1\] must be an integer; got None"),
        ({"tasks": [[1, 2], [1]]}, "tasks must be an array of numbers"),
        ({"tasks": [10**30, 1]}, r"tasks\[0\] must be an integer; got 1e\+30"),
        ({"tasks": [[2], [1]]}, r"tasks must be one-dimensional; got shape \(2, 1\)"),
        ({"requested_time": [-math.inf, 60]}, r"requested_time must be NaN or \+inf"),
        ({"requested_time": [-1, 60]}, r"requested_time must be NaN .*; got -1.0 at job 1"),
        ({"requested_time": [0, 60]}, r"requested_time must be NaN .*; got 0.0 at job 1"),
        ({"preceding": [-1, 7]}, "preceding must be -1 or the id of another job; got 7 at job 2"),
        ({"ids": [3, 3]}, "job ids must be unique; got 3 2 times"),
    ],
)
def test_from_jobs_refuses_what_it_used_to_drop_or_change(overrides, message):
    with pytest.raises(InvalidInputError, match=message):
        Workload.from_jobs(P, **_jobs(**overrides))


def test_from_jobs_takes_floats_of_integer_value_and_numpy_scalars():
    plain = Workload.from_jobs(P, **_jobs(ids=[5, 6], user=[1, 2], requested_time=[200, None]))
    floats = Workload.from_jobs(
        P,
        **_jobs(
            submit=[np.float32(0), 10.0],
            tasks=[2.0, np.int64(1)],
            cpu=np.ones(2, np.float32),
            ids=[5.0, np.float64(6)],
            user=np.array([1, 2], np.int32),
            requested_time=[200, np.nan],
        ),
    )
    assert floats == plain and _dtypes(floats) == _dtypes(plain)
    assert plain.tasks.dtype == np.int64 and plain.cpu.dtype == np.float64


def test_from_jobs_still_sorts_and_numbers_jobs_in_input_order():
    w = Workload.from_jobs(P, **_jobs(submit=[10, 0], preceding=[-1, 1]))
    assert w.ids.tolist() == [2, 1] and w.submit.tolist() == [0.0, 10.0]
    assert w.preceding.tolist() == [1, -1]


def test_preceding_jobs_outside_an_excerpt_are_kept():
    w = Workload.from_jobs(P, **_jobs(preceding=[-1, 1]))
    part = w.select(np.array([False, True]))  # its preceding job is not in the excerpt
    assert part.preceding.tolist() == [1]
    assert Workload.from_dict(part.to_dict()) == part


@pytest.mark.parametrize(("preceding", "on_cycle"), [
    ([2, 1], (1, 2)),                    # two jobs waiting for each other
    ([-1, 3, 4, 2, 1], (2, 3, 4)),       # a cycle of three, job 5 waiting on it
    ([5, 1, 2, 3, 4], (1, 2, 3, 4, 5)),  # every job, in a ring
])
def test_preceding_jobs_that_form_a_cycle_are_refused(preceding, on_cycle):
    # they used to be kept, and only a simulator honouring feedback refused them
    n = len(preceding)
    jobs = dict(submit=list(range(n)), runtime=[5] * n, tasks=[1] * n, cpu=[1] * n,
                mem=[0.1] * n)
    with pytest.raises(InvalidInputError, match=r"preceding jobs form a cycle") as err:
        Workload.from_jobs(P, preceding=preceding, **jobs)
    named = int(str(err.value).split("(job ")[1].split()[0])
    assert named in on_cycle
    chain = [-1, 1, 2, 3, 4][:n]  # the same jobs in a chain: taken
    assert Workload.from_jobs(P, preceding=chain, **jobs).preceding.tolist() == chain


def test_constructor_refuses_two_dimensional_fields():
    with pytest.raises(InvalidInputError, match=r"submit must be one-dimensional; got shape"):
        Workload(platform=P, ids=[1, 2], submit=[[0], [1]], runtime=[1, 1], tasks=[1, 1],
                 cpu=[1, 1], mem=[0, 0])
    with pytest.raises(InvalidInputError, match=r"tasks\[0\] must be an integer; got 2.5"):
        Workload(platform=P, ids=[1], submit=[0], runtime=[1], tasks=[2.5], cpu=[1], mem=[0])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"platform": {"nodes": 4}}, "workload object is missing ids, submit, runtime"),
        ([1, 2], "a workload must be an object; got list"),
        ({"platform": 4}, "workload object is missing ids"),
        ({"platform": {"nodes": 4, "colour": 1}, "ids": [1], "submit": [0], "runtime": [1],
          "tasks": [1], "cpu": [1], "mem": [0]}, "workload platform is malformed"),
        ({"platform": {"nodes": 2.5}, "ids": [1], "submit": [0], "runtime": [1],
          "tasks": [1], "cpu": [1], "mem": [0]}, r"Platform\.nodes must be an integer >= 1"),
        ({"platform": {"nodes": 4}, "ids": [1], "submit": [0], "runtime": [1],
          "tasks": [2.5], "cpu": [1], "mem": [0]}, r"tasks\[0\] must be an integer; got 2.5"),
        ({"platform": {"nodes": 4}, "ids": 1, "submit": [0], "runtime": [1],
          "tasks": [1], "cpu": [1], "mem": [0]}, "workload ids must be a list; got 1"),
    ],
)
def test_from_dict_refuses_malformed_objects(data, message):
    with pytest.raises(InvalidInputError, match=message):
        Workload.from_dict(data)


def test_platform_takes_integer_floats_and_refuses_fractions():
    assert Platform(nodes=4.0, cores=np.int64(2)) == Platform(nodes=4, cores=2)
    assert isinstance(Platform(nodes=np.float32(4)).nodes, int)
    for bad in (2.5, math.nan, True, "4", 0):
        with pytest.raises(InvalidInputError, match=r"Platform\.nodes must be an integer >= 1"):
            Platform(nodes=bad)


@pytest.mark.parametrize(("factor", "message"), [(0, "factor"), (math.inf, "factor"),
                                                 ("2", "factor")])
def test_scale_arrivals_refuses_bad_factors(factor, message):
    w = Workload.from_jobs(P, **_jobs())
    with pytest.raises(InvalidInputError, match=f"{message} must be a finite number > 0"):
        w.scale_arrivals(factor)
    assert w.scale_arrivals(np.float32(2)).submit.tolist() == [0.0, 20.0]


# ---------------------------------------------------------------------- SWF
_LINE = "7 0 0 1 1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1"


def test_swf_header_lines_never_read_back_as_jobs():
    w = Workload.from_jobs(P, **_jobs())
    trace = workload_to_swf(w, header=[_LINE, "; Note: kept", "  ; indented"])
    assert trace.comments[:3] == ("; " + _LINE, "; Note: kept", "  ; indented")
    back = read_swf(list(swf_lines(trace)))
    assert back.n_jobs == 2 and swf_to_workload(back) == w


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (["; a\n" + _LINE], r"header\[0\] must be one line of text \(no line break\)"),
        (["; a", "b\rc"], r"header\[1\] must be one line of text"),
        ([None], r"header\[0\] must be one line of text"),
        ("; Note: x", "header must be a list of lines"),
    ],
)
def test_swf_header_with_line_breaks_is_refused(header, message):
    with pytest.raises(InvalidInputError, match=message):
        workload_to_swf(Workload.from_jobs(P, **_jobs()), header=header)


def _trace():
    return read_swf(["; MaxNodes: 4", "1 0 5 100 2 -1 -1 2 200 -1 1 3 -1 -1 1 -1 -1 -1"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"nodes": 2.5}, "nodes must be an integer >= 1; got 2.5"),
        ({"nodes": 0}, "nodes must be an integer >= 1; got 0"),
        ({"cores": math.nan}, "cores must be an integer >= 1; got nan"),
        ({"node_memory": 1.5}, "node_memory must be an integer >= 1; got 1.5"),
        ({"default_mem": 2.0}, r"default_mem must be a finite number in \[0, 1\]; got 2.0"),
    ],
)
def test_swf_to_workload_refuses_fractional_platforms(kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        swf_to_workload(_trace(), **kwargs)


def test_swf_to_workload_takes_integer_floats():
    assert swf_to_workload(_trace(), nodes=8.0, cores=np.int64(2)).platform == Platform(8, 2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"nodes": 2.5}, r"nodes must be an integer in \[1, 1000000\]; got 2.5"),
        ({"cores": "2"}, r"cores must be an integer in \[1, 4096\]; got '2'"),
        ({"node_memory_gib": math.nan}, r"node_memory_gib must be a finite number in \(0, "),
        ({"node_memory_gib": -1.0}, r"node_memory_gib must be .*; got -1.0"),
    ],
)
def test_read_workload_refuses_bad_platform_options(tmp_path, kwargs, message):
    path = tmp_path / "w.swf"
    path.write_text("; MaxNodes: 4\n" + _LINE + "\n")
    assert read_workload(path, nodes=4.0, node_memory_gib=np.float32(4)).platform == Platform(
        4, 1, 4 * 1024**3
    )
    with pytest.raises(InvalidInputError, match=message):
        read_workload(path, **kwargs)


def test_one_job_may_be_given_as_numbers():
    one = Workload.from_jobs(Platform(nodes=2), submit=0, runtime=1, tasks=1, cpu=1, mem=0.1)
    assert one.n_jobs == 1 and one.tasks.tolist() == [1]
