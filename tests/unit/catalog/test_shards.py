"""--perf-shard's selection: every cell in exactly one shard, balanced, the same on every run."""

import random

import pytest

from serverbench.catalog.shards import Shard, share

IDS = [
    f"tests/perf/test_throughput.py::test_throughput[{v}-flask-{w}-c64]"
    for v in ("gunicorn-sync-w2", "waitress", "uwsgi-p2t2", "meinheld", "bjoern", "cheroot", "gevent")
    for w in ("json", "redis", "mongo-small", "upstream")
]


@pytest.mark.parametrize("count", [1, 2, 3, 5, 8, 28, 40])
def test_every_cell_is_in_exactly_one_shard(count):
    """The shards of K/N for K = 1..N partition the selection."""
    shares = [share(IDS, Shard(k, count)) for k in range(1, count + 1)]
    seen = [i for s in shares for i in s]
    assert sorted(seen) == sorted(IDS)
    assert len(seen) == len(set(seen))


@pytest.mark.parametrize("count", [2, 3, 5, 8, 28, 40])
def test_shard_sizes_differ_by_at_most_one(count):
    """However the selection divides, no shard has two cells more than another."""
    sizes = [len(share(IDS, Shard(k, count))) for k in range(1, count + 1)]
    assert max(sizes) - min(sizes) <= 1


def test_a_share_does_not_depend_on_collection_order():
    """The same ids in another order give the same share, kept in the order they were given."""
    shuffled = random.Random(7).sample(IDS, len(IDS))
    for k in (1, 2, 3):
        mine = share(shuffled, Shard(k, 3))
        assert sorted(mine) == sorted(share(IDS, Shard(k, 3)))
        assert mine == [i for i in shuffled if i in set(mine)]


def test_a_variant_is_spread_over_the_shards():
    """Neighbours in sort order (one variant's cells) go to different shards."""
    for k in range(1, 5):
        assert len([i for i in share(IDS, Shard(k, 4)) if "waitress" in i]) == 1


@pytest.mark.parametrize("raw, expected", [("1/1", Shard(1, 1)), ("2/4", Shard(2, 4)), (" 3 / 3 ", Shard(3, 3))])
def test_parse_reads_k_of_n(raw, expected):
    """K/N parses to the K-th of N shards."""
    assert Shard.parse(raw) == expected


@pytest.mark.parametrize("raw", ["0/4", "5/4", "2/0", "2", "2/4/6", "a/b", "-1/2", ""])
def test_parse_rejects_anything_but_k_of_n(raw):
    """A malformed or out-of-range shard is a ValueError showing the expected form."""
    with pytest.raises(ValueError, match=r"expected K/N.*such as 2/4"):
        Shard.parse(raw)
