"""Hosts beyond this machine: the inventory, processes over SSH, the checks, and hosts simulated in namespaces."""
