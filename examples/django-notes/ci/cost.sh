#!/bin/sh
# The cost test of a push (the workflow's `cost` job): every endpoint's instructions per request, counted
# under valgrind at BEFORE (the commit before the push) into a temporary baseline, then in the working tree
# against it.  Fails when a cell costs more than the tolerance (2%), naming the functions the rise came
# from, your own (role app) among them.  Extra arguments go to both pytest runs (--perf-variants=...).
#
#     ci/cost.sh BEFORE [pytest arguments]
#
# BEFORE of all zeros (a new branch): the pushed commit's parent.  A shallow clone: the one commit needed is
# fetched.  A base without serverbench's settings or cost tests (the push that adds them): "not measured" in
# the step summary, exit 0 (3 with SERVERBENCH_STRICT=1).  Exit: 0 pass, 1 a cell costs more, 2 bad input.
set -eu  # (options below take "=": a separate path argument would move pytest's rootdir)
before="${1?usage: ci/cost.sh BEFORE [pytest arguments]}"
shift
. "$(dirname "$0")/common.sh"
case "$before" in
  "" | *[!0]*) ;;
  *) before="" ;;  # all zeros: the push made the branch
esac
if [ -z "$before" ]; then
  before="$(git cat-file -p HEAD | sed -n 's/^parent //p' | head -1)"  # known even in a shallow clone
  [ -n "$before" ] || undecided cost "not measured" "$(git rev-parse --short HEAD) is the first commit: there is nothing before it to count."
  echo "serverbench: a new branch; counting against the pushed commit's parent $before" >&2
fi
have_commit "$before"
configured "$before" || undecided cost "not measured" \
  "The commit before the push ($before) has no serverbench settings (perf_app) in ${project:-the repository's top}: this push adds them. The next push is counted against this one."

scratch="$(mktemp -d)"
trap 'git worktree remove --force "$scratch/base" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
git worktree add --detach --quiet "$scratch/base" "$before"
status=0
(cd "$scratch/base/$project" && python -m pytest -m cost -p no:cacheprovider --perf-save-baseline \
    --perf-cost-baseline-dir="$scratch/baselines" "$@") || status=$?
case $status in
  0) ;;
  5) undecided cost "not measured" "The commit before the push ($before) has no cost tests (pytest -m cost collected none): nothing to compare with." ;;
  *) say "### serverbench cost: **error**" "" "Counting the commit before the push ($before) failed (pytest exit $status): see the job's log."
     exit 2 ;;
esac
python -m pytest -m cost -p no:cacheprovider --perf-cost-baseline-dir="$scratch/baselines" "$@" || status=$?
case $status in
  0) say "### serverbench cost: **pass**" "" "Every counted cell is within its tolerance of $before." "" ;;
  1) say "### serverbench cost: **regression**" "" "A cell costs more than at $before: the job's log names the functions." "" ;;
  5) undecided cost "not measured" "pytest -m cost collected no test in this commit." ;;
esac
exit "$status"
