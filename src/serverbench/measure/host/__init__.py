"""The machine and a process tree during a window: ``hostcpu`` (every process's CPU and the hypervisor's steal),
``kernel`` (the TCP listen-queue counters), ``sampling`` (a server tree's CPU, memory and files) and ``machine``
(who measured: the id baselines are stored under).  Imports nothing else of ``measure``."""
