"""measure.servers: the environment a server starts with (no server is started here)."""

from pathlib import Path

from serverbench.measure.servers import bytecode_cache


def test_a_server_caches_its_bytecode_out_of_the_tree_when_the_environment_forbids_writing_it():
    """PYTHONDONTWRITEBYTECODE set: the server writes and reads bytecode in serverbench's cache, not beside the source."""
    env = bytecode_cache({"PYTHONDONTWRITEBYTECODE": "1", "XDG_CACHE_HOME": "/var/cache/u"})
    assert env == {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": "/var/cache/u/serverbench/pycache"}
    home = bytecode_cache({"PYTHONDONTWRITEBYTECODE": "1"})["PYTHONPYCACHEPREFIX"]
    assert home == str(Path.home() / ".cache" / "serverbench" / "pycache")


def test_an_environment_that_writes_bytecode_or_names_a_prefix_is_left_alone():
    """No setting, an empty one, or a prefix the user chose: nothing is changed."""
    assert bytecode_cache({}) == {}
    assert bytecode_cache({"PYTHONDONTWRITEBYTECODE": ""}) == {}
    assert bytecode_cache({"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}) == {}
