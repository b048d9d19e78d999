#!/bin/sh
# The cost test of a push (the workflow's `cost` job): every endpoint's instructions per request, counted
# under valgrind at BASE (the commit before the push) into a temporary baseline, then in the working tree
# against it.  Fails when a cell costs more than the tolerance (2%), naming the functions the rise came
# from, your own (role app) among them.  Extra arguments go to both pytest runs (--perf-variants=...).
#
#     ci/cost.sh BASE_REF [pytest arguments]
set -eu  # (options below take "=": a separate path argument would move pytest's rootdir)
base="${1:?usage: ci/cost.sh BASE_REF [pytest arguments]}"
shift
project="$(git rev-parse --show-prefix)"  # this project's folder inside the repository ('' at its top)
scratch="$(mktemp -d)"
trap 'git worktree remove --force "$scratch/base" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
git worktree add --detach --quiet "$scratch/base" "$base"
(cd "$scratch/base/$project" && python -m pytest -m cost -p no:cacheprovider --perf-save-baseline \
    --perf-cost-baseline-dir="$scratch/baselines" "$@")
python -m pytest -m cost -p no:cacheprovider --perf-cost-baseline-dir="$scratch/baselines" "$@"
