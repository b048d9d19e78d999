"""A load generator's run replaced by a canned one, for the drivers' tests of run(): no load is sent."""

from pathlib import Path

from serverbench.processes.executors import GeneratorRun


def canned_generator(monkeypatch, module, stdout, returncode=0, stderr=""):
    """Replace the module's run_generator; returns the calls it saw (argv, timeout, cpus, the script's text)."""
    calls = []

    def run_generator(argv, timeout, cpus=None, env=None):
        script = next((Path(a).read_text() for a in argv if a.endswith(".lua")), None)
        body = next((Path(argv[i + 1]).read_bytes() for i, a in enumerate(argv) if a == "-D"), None)
        calls.append({"argv": list(argv), "timeout": timeout, "cpus": cpus, "script": script, "body": body, "env": env})
        return GeneratorRun(tuple(argv), returncode, stdout, stderr, 1.0, 0.5)

    monkeypatch.setattr(module, "run_generator", run_generator)
    return calls
