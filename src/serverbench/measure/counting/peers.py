"""Whom a counted server's sockets talk to: each socket descriptor's peer, named as a verdict names it.

Valgrind's system-call trace writes a ``connect``'s address as a pointer (``sys_connect ( 10, 0x1ffeffef10, 16 )``),
so the peer of a socket is read from the kernel instead, while the socket is open: ``/proc/<pid>/fd/<n>`` gives
its inode, and the network namespace's tables (``/proc/<pid>/net/tcp``, ``tcp6``, ``udp``, ``udp6``, ``unix``) the
addresses of that inode.  They are read when the counted window opens (a backend's pooled connection, the listening
socket) and when its last request has been answered (a connection opened in the window and still open).

A peer is named ``clients`` (the listening socket and every connection it accepted: the load's side), the backend's
name where its address is one of the session's backends (``redis``, ``mongo``, ``upstream``: their
``SERVERBENCH_<NAME>_URL``), ``unix`` or ``unix:<path>`` for a Unix socket, and ``address:port`` otherwise.

A TCP connection opened and closed within one request is never seen open, but the kernel keeps its ends in the
namespace's table after the close (TIME_WAIT, for a minute): :func:`tcp_connections` reads every connection of the
table, open or closing, by its ends, so the connections opened in the window are those at its end that were not
there at its opening, by peer.  Where they went to one peer only, systrace names the sockets it never saw open after
it; otherwise their peer is ``unseen``.
"""

from __future__ import annotations

import ipaddress
import os
import re
import sys
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from ...records.cost import CLIENTS

OTHER = "socket"  # a socket of no table read here (netlink, packet): its kind only
_URL = re.compile(r"^SERVERBENCH_([A-Z0-9]+)_URL$")
LISTEN = 0x0A  # TCP_LISTEN in /proc/net/tcp's ``st`` column
Address = tuple[str, int]


def backend_names(env: Mapping[str, str]) -> dict[Address, str]:
    """``(host, port)`` -> backend name, from the ``SERVERBENCH_<NAME>_URL`` variables the server is given
    (``redis://127.0.0.1:27535/0`` -> ``("127.0.0.1", 27535): "redis"``); ``localhost`` stands for both loopbacks."""
    names: dict[Address, str] = {}
    for key, value in env.items():
        match = _URL.match(key)
        if not match:
            continue
        try:
            url = urlsplit(value.split(",")[0])
            host, port = url.hostname, url.port
        except ValueError:
            continue
        if host is None or port is None:
            continue
        for address in ("127.0.0.1", "::1") if host == "localhost" else (host,):
            names[(_canonical(address), port)] = match.group(1).lower()
    return names


def _canonical(host: str) -> str:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is 127.0.0.1
    return str(mapped or address)


def label(remote: Address, local_port: int, state: int, names: Mapping[Address, str], ports: Iterable[int]) -> str:
    """The peer of one TCP or UDP socket: ``clients`` for a listening socket or one on the server's own port, the
    backend's name, else ``address:port`` (an unconnected UDP socket: ``udp``, said by the caller)."""
    if state == LISTEN or local_port in set(ports):
        return CLIENTS
    host, port = _canonical(remote[0]), remote[1]
    if (host, port) in names:
        return names[(host, port)]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _address(text: str) -> Address:
    """``0100007F:1F90`` -> ``("127.0.0.1", 8080)``: the kernel writes each 32-bit word in host order."""
    hexaddr, hexport = text.split(":")
    raw = bytes.fromhex(hexaddr)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4)) if sys.byteorder == "little" else raw
    return str(ipaddress.ip_address(words)), int(hexport, 16)


def _inet(pid: int, names: Mapping[Address, str], ports: Iterable[int]) -> dict[int, str]:
    found: dict[int, str] = {}
    for table in ("tcp", "tcp6", "udp", "udp6"):
        for fields in _rows(f"/proc/{pid}/net/{table}"):
            if len(fields) < 10 or not fields[9].isdigit():
                continue
            local, remote, state = _address(fields[1]), _address(fields[2]), int(fields[3], 16)
            if table.startswith("udp") and remote[1] == 0:
                found[int(fields[9])] = "udp"
            else:
                found[int(fields[9])] = label(remote, local[1], state, names, ports)
    return found


def _unix(pid: int) -> dict[int, str]:
    return {
        int(fields[6]): f"unix:{fields[7]}" if len(fields) > 7 else "unix"
        for fields in _rows(f"/proc/{pid}/net/unix")
        if len(fields) > 6 and fields[6].isdigit()
    }


def _rows(path: str) -> list[list[str]]:
    try:
        with open(path) as f:
            return [line.split() for line in f.read().splitlines()[1:]]
    except OSError:
        return []


def socket_peers(pid: int, names: Mapping[Address, str], ports: Iterable[int]) -> dict[int, str]:
    """Each socket descriptor of ``pid`` now, and its peer; empty when the process is gone."""
    inodes: dict[int, int] = {}
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return {}
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and fd.isdigit():
            inodes[int(fd)] = int(target[len("socket:[") : -1])
    if not inodes:
        return {}
    peers = {**_unix(pid), **_inet(pid, names, ports)}
    return {fd: peers.get(inode, OTHER) for fd, inode in inodes.items()}


def tcp_connections(pid: int, names: Mapping[Address, str], ports: Iterable[int]) -> dict[tuple, str]:
    """Every TCP connection of ``pid``'s network namespace that is not a client's, in any state (a closed one stays
    in TIME_WAIT for a minute), by its two ends (the same key from either end's row), and its peer."""
    ports, ephemeral = set(ports), _ephemeral_start()
    rows = [fields for table in ("tcp", "tcp6") for fields in _rows(f"/proc/{pid}/net/{table}") if len(fields) >= 4]
    listening = {_address(fields[1])[1] for fields in rows if int(fields[3], 16) == LISTEN}
    found: dict[tuple, str] = {}
    for fields in rows:
        local, remote, state = _address(fields[1]), _address(fields[2]), int(fields[3], 16)
        if state == LISTEN or local[1] in ports or remote[1] in ports or remote[1] == 0:
            continue  # a listening socket, or the load's side of the server's own port
        near, far = (_canonical(local[0]), local[1]), (_canonical(remote[0]), remote[1])
        ends = tuple(sorted((near, far)))
        peer = next((names[end] for end in ends if end in names), None)
        if peer is None:  # no backend's: the end that listens here, or below the ephemeral range; else the far one
            serves = near[1] in listening and far[1] not in listening
            host, port = near if serves or (near[1] < ephemeral <= far[1] and far[1] not in listening) else far
            peer = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        found.setdefault(ends, peer)
    return found


def _ephemeral_start() -> int:
    """The first port the kernel hands out to a connecting socket (the ephemeral range's start)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def opened_between(before: Mapping[tuple, str], after: Mapping[tuple, str]) -> dict[str, int]:
    """The connections at ``after`` that were not at ``before``, counted by peer."""
    opened: dict[str, int] = {}
    for ends, peer in after.items():
        if ends not in before:
            opened[peer] = opened.get(peer, 0) + 1
    return opened
