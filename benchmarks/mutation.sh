#!/usr/bin/env bash
# Mutation testing of the code that decides anything (docs/lab/mutation.md): mutmut mutates judge/, records/,
# the contract and its verification, the drivers' parsers and the commands' exit status ([tool.mutmut]
# in pyproject.toml), runs tests/unit against each mutant, and prints the score per module.
# Incremental: mutmut keeps its results in mutants/ and re-runs only the mutants whose function (or the
# tests covering it) changed; `rm -rf mutants` for a cold run.
#   benchmarks/mutation.sh                     # every mutant (cold: ~1 h on a shared 2-core machine)
#   benchmarks/mutation.sh 'serverbench.judge.ab*'   # only these mutants (mutmut's name globs)
# MUTATION_CHILDREN (default 2) bounds the parallel test runs; they run under `nice -n 19`.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${VENV:-.venv}/bin"
nice -n 19 "$bin/mutmut" run --max-children "${MUTATION_CHILDREN:-2}" "$@"
"$bin/python" benchmarks/mutation_score.py
