"""The hosts a run may use, as data: one ``server`` host, one or more ``load`` hosts, optionally a ``backends`` host.

An inventory is a TOML file (``--perf-hosts FILE``, ini ``perf_hosts``, or ``SERVERBENCH_HOSTS``)::

    [defaults]                      # every host's value unless the host gives its own
    user = "bench"
    identity = "~/.ssh/id_ed25519"
    env = "/opt/serverbench/.venv"  # the serverbench environment on the host (its bin/python)

    [[hosts]]
    name = "app"
    role = "server"
    address = "198.18.0.10"

    [[hosts]]
    name = "load1"
    role = "load"
    address = "198.18.0.11"

Each host is an SSH destination (``user``, ``address``, ``port``, ``identity`` file, ``known_hosts`` file) and the
path of a serverbench environment there (``env``).  The file is read and validated once, every problem in one
message, each naming its fix; the result is frozen.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the package's own dependency on Python < 3.11
    import tomli as tomllib

ROLES = ("server", "load", "backends")
ENV_VAR = "SERVERBENCH_HOSTS"
CONTROLLER_VAR = "SERVERBENCH_CONTROLLER"  # set in a session handed over to the server host: the controller's name
# The keys a host (or [defaults]) may give; anything else is a typo, refused with the list.
HOST_KEYS = ("name", "role", "address", "port", "user", "identity", "known_hosts", "env", "cores", "checkout")
DEFAULT_KEYS = ("user", "identity", "known_hosts", "env", "port")


@dataclass(frozen=True)
class Host:
    """One machine: its name and role, how SSH reaches it, and where serverbench's environment is on it."""

    name: str
    role: str
    address: str
    env: str
    port: int = 22
    user: str | None = None
    identity: str | None = None
    known_hosts: str | None = None
    cores: tuple[int, ...] | None = None  # the cores its processes are pinned to there (None: all)
    # The server host's folder of the project, where a controller on another machine hands its session over
    # (hosts.handover); None: the same path as the controller's checkout.
    checkout: str | None = None

    @property
    def destination(self) -> str:
        """``user@address`` (or the address alone): what ssh is given."""
        return f"{self.user}@{self.address}" if self.user else self.address

    @property
    def python(self) -> str:
        """The environment's interpreter on the host."""
        return f"{self.env.rstrip('/')}/bin/python"

    def describe(self) -> str:
        return f"{self.name} ({self.role}, {self.destination}:{self.port})"


@dataclass(frozen=True)
class Inventory:
    """The validated hosts of a run, and the file they came from."""

    hosts: tuple[Host, ...]
    path: str = ""

    @property
    def server(self) -> Host:
        return next(h for h in self.hosts if h.role == "server")

    @property
    def load(self) -> tuple[Host, ...]:
        return tuple(h for h in self.hosts if h.role == "load")

    @property
    def backends(self) -> Host | None:
        return next((h for h in self.hosts if h.role == "backends"), None)

    def named(self, name: str) -> Host:
        for host in self.hosts:
            if host.name == name:
                return host
        raise ConfigError(f"{self.path}: no host named {name!r}; the inventory has {', '.join(self.names)}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(h.name for h in self.hosts)


def _host(raw: Any, index: int, defaults: Mapping[str, Any], base: Path, problems: list[str]) -> Host | None:
    """One [[hosts]] table as a Host, or None with its problems appended."""
    where = f"hosts[{index}]"
    if not isinstance(raw, dict):
        problems.append(f"{where} is not a table: write it as [[hosts]] with name, role and address")
        return None
    where = f"host {raw['name']!r}" if isinstance(raw.get("name"), str) else where
    unknown = sorted(set(raw) - set(HOST_KEYS))
    if unknown:
        problems.append(f"{where}: unknown key {', '.join(unknown)}; a host takes {', '.join(HOST_KEYS)}")
    values = {**defaults, **raw}
    found = len(problems)
    name, role, address, env = (values.get(k) for k in ("name", "role", "address", "env"))
    if not isinstance(name, str) or not name.strip():
        problems.append(f'{where}: no name; give each host a name (name = "load1")')
    if role not in ROLES:
        problems.append(f"{where}: unknown role {role!r}; a host's role is one of {', '.join(ROLES)}")
    if not isinstance(address, str) or not address.strip():
        problems.append(f'{where}: no address; give the address ssh reaches it at (address = "198.18.0.11")')
    if not isinstance(env, str) or not env.strip():
        problems.append(
            f'{where}: no env; give the path of the serverbench environment there (env = "/opt/serverbench/.venv", '
            "the folder whose bin/python has serverbench), here or under [defaults]"
        )
    port = values.get("port", 22)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        problems.append(f"{where}: port {port!r} is not a TCP port; give a whole number from 1 to 65535")
    cores = values.get("cores")
    if cores is not None and (
        not isinstance(cores, list) or not cores or not all(isinstance(c, int) and c >= 0 for c in cores)
    ):
        problems.append(f"{where}: cores {cores!r} is not a list of core numbers; write cores = [0, 1] or leave it out")
    files = {}
    for key in ("identity", "known_hosts"):
        value = values.get(key)
        if value is None:
            continue
        path = Path(os.path.expanduser(str(value)))
        path = path if path.is_absolute() else base / path
        if not os.access(path, os.R_OK):
            problems.append(
                f"{where}: the {key.replace('_', ' ')} file {path} cannot be read; fix its path or its permissions"
            )
        files[key] = str(path)
    checkout = values.get("checkout")
    if checkout is not None and (not isinstance(checkout, str) or not checkout.startswith("/")):
        problems.append(
            f"{where}: checkout {checkout!r} is not an absolute path; give the project's folder on that host "
            '(checkout = "/srv/bench/myapp") or leave it out (the same path as here)'
        )
    user = values.get("user")
    if user is not None and (not isinstance(user, str) or not user.strip()):
        problems.append(f'{where}: user {user!r} is not a user name; give one (user = "bench") or leave it out')
    if len(problems) > found:
        return None
    return Host(
        name=name.strip(),
        role=role,
        address=address.strip(),
        env=os.path.expanduser(env.strip()),
        port=port,
        user=user,
        identity=files.get("identity"),
        known_hosts=files.get("known_hosts"),
        cores=tuple(cores) if cores is not None else None,
        checkout=checkout,
    )


def parse(data: Mapping[str, Any], path: str = "", base: Path | None = None) -> Inventory:
    """The Inventory of a parsed TOML document; a ConfigError lists every problem, each with its fix."""
    where = path or "the inventory"
    base = base if base is not None else (Path(path).parent if path else Path.cwd())
    problems: list[str] = []
    unknown = sorted(set(data) - {"defaults", "hosts"})
    if unknown:
        problems.append(f"unknown table {', '.join(unknown)}; an inventory has [defaults] and [[hosts]]")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        problems.append("[defaults] is not a table")
        defaults = {}
    bad = sorted(set(defaults) - set(DEFAULT_KEYS))
    if bad:
        problems.append(f"[defaults]: unknown key {', '.join(bad)}; it takes {', '.join(DEFAULT_KEYS)}")
    raw_hosts = data.get("hosts", [])
    if not isinstance(raw_hosts, list):
        problems.append("hosts is not a list of tables: write each host as [[hosts]]")
        raw_hosts = []
    hosts = [h for i, raw in enumerate(raw_hosts) if (h := _host(raw, i, defaults, base, problems)) is not None]
    if len(hosts) == len(raw_hosts):  # the roles and names are judged on a list where every host was read
        roles = [h.role for h in hosts]
        if roles.count("server") != 1:
            problems.append(f'{roles.count("server") or "no"} server hosts; name exactly one host with role = "server"')
        if not roles.count("load"):
            problems.append('no load host; name one or more hosts with role = "load" (the load generators run there)')
        if roles.count("backends") > 1:
            problems.append('more than one backends host; name at most one host with role = "backends"')
        for label, key in (("name", lambda h: h.name), ("address", lambda h: (h.address, h.port))):
            seen: dict[Any, str] = {}
            for h in hosts:
                if key(h) in seen:
                    shown = h.name if label == "name" else f"{h.address}:{h.port}"
                    problems.append(
                        f"duplicate {label} {shown} ({seen[key(h)]} and {h.name}); each host needs its own {label}"
                    )
                seen.setdefault(key(h), h.name)
    if problems:
        raise ConfigError(f"{where}: " + "; ".join(problems))
    return Inventory(tuple(hosts), path)


def load(path: str | os.PathLike) -> Inventory:
    """Read and validate the inventory file ``path``."""
    file = Path(path)
    try:
        text = file.read_text()
    except OSError as exc:
        raise ConfigError(
            f"the hosts inventory {file} cannot be read ({exc.strerror or exc}); give the path of a TOML file "
            "(--perf-hosts, perf_hosts or SERVERBENCH_HOSTS), or none to run on this machine alone"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML ({exc}); fix the file (docs/hosts.md shows one)") from None
    return parse(data, str(file), file.parent)


def render(inventory: Inventory) -> str:
    """The inventory as TOML that :func:`load` reads back to the same hosts."""

    def value(v: Any) -> str:
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(str(x) for x in v) + "]"
        if isinstance(v, int):
            return str(v)
        return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["# serverbench hosts (docs/hosts.md)"]
    for h in inventory.hosts:
        lines += ["", "[[hosts]]"]
        for key in HOST_KEYS:
            v = getattr(h, key)
            if v is not None:
                lines.append(f"{key} = {value(v)}")
    return "\n".join(lines) + "\n"
