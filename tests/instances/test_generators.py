"""The paper's instance generator and its two sets."""

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.instances.generators import SETS, generate_vcsched, iter_vcsched_set
from allockit.instances.lublin_sizes import SizeModel, sample_sizes


def test_generator_is_reproducible_and_seed_sensitive():
    kw = dict(hosts=4, jobs=10, slack=0.4, cov_cpu=0.75, cov_mem=0.75)
    assert generate_vcsched(**kw, seed=3) == generate_vcsched(**kw, seed=3)
    assert generate_vcsched(**kw, seed=3) != generate_vcsched(**kw, seed=4)


def test_generator_statistics_match_the_specification():
    inst = generate_vcsched(hosts=64, jobs=20_000, slack=0.5, cov_cpu=0.25, cov_mem=0.25, seed=1)
    assert ((inst.cpu > 0) & (inst.cpu <= 1)).all() and ((inst.mem > 0) & (inst.mem <= 1)).all()
    assert inst.cpu.mean() == pytest.approx(0.5, abs=0.01)
    assert inst.cpu.std() / inst.cpu.mean() == pytest.approx(0.25, abs=0.01)
    # memory mean (1 - slack) * H / J: total memory is (1 - slack) of the hosts' memory
    assert inst.mem.sum() / inst.hosts == pytest.approx(0.5, rel=0.02)


def test_parallel_generator_keeps_the_slack_over_all_tasks():
    inst = generate_vcsched(
        hosts=64, jobs=500, slack=0.3, cov_cpu=0.25, cov_mem=0.25, parallel=True, seed=2
    )
    assert inst.is_parallel and inst.tasks.max() <= 64
    total = float((inst.tasks * inst.mem).sum())
    assert total / inst.hosts == pytest.approx(0.7, rel=0.05)


def test_set_sizes_match_the_paper():
    assert SETS["small"].size == 1440
    assert SETS["large"].size == 10_800
    stems = [stem for stem, _ in iter_vcsched_set("small", seed=0)]
    assert len(stems) == len(set(stems)) == 1440


def test_set_instances_are_regenerable_one_by_one():
    first = dict(iter_vcsched_set("small", seed=5))
    again = dict(iter_vcsched_set("small", seed=5))
    key = "h4-j12-s0.9-cc0.75-cm0.75-r9"
    assert first[key] == again[key] and first[key].n_jobs == 12


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"hosts": 0}, "hosts must be an integer >= 1; got 0"),
        ({"jobs": 0}, "jobs must be an integer >= 1; got 0"),
        ({"slack": 1.0}, r"slack must be a finite number in \[0, 1\); got 1.0"),
        ({"cov_cpu": -1.0}, "cov_cpu must be a finite number >= 0; got -1.0"),
        ({"cov_cpu": float("nan")}, "cov_cpu must be a finite number >= 0; got nan"),
        ({"hosts": 2_000_000}, "at most 1000000 hosts"),
    ],
)
def test_generator_rejects_bad_parameters(kw, match):
    args = dict(hosts=4, jobs=6, slack=0.5, cov_cpu=0.25, cov_mem=0.25, seed=0) | kw
    with pytest.raises(InvalidInputError, match=match):
        generate_vcsched(**args)


def test_unknown_set():
    with pytest.raises(InvalidInputError, match="set must be one of"):
        list(iter_vcsched_set("medium"))


def test_lublin_sizes_statistics():
    sizes = sample_sizes(100_000, seed=0)
    assert sizes.min() == 1 and sizes.max() <= 64
    serial = (sizes == 1).mean()
    assert serial == pytest.approx(0.244, abs=0.01)
    parallel = sizes[sizes > 1]
    pow2 = (parallel & (parallel - 1)) == 0
    # at least POW2_PROB / (1 - SERIAL_PROB) of parallel jobs are powers of two
    assert pow2.mean() >= 0.576 / (1 - 0.244) - 0.01
    assert np.median(parallel) <= 16


def test_size_model_validation():
    with pytest.raises(InvalidInputError, match="ulow <= umed <= uhi"):
        SizeModel(umed=9.0)
