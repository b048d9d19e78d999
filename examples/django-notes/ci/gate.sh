#!/bin/sh
# The A/B gate of a pull request (the workflow's `gate` job): the app at BASE (the base branch's commit the pull
# request merges into) against the working tree, in one session, on every endpoint (or those given with
# --endpoint NAME), with the timed and the counted signals; its table goes to $GITHUB_STEP_SUMMARY (else
# serverbench-summary.md).
#
#     ci/gate.sh BASE [serverbench gate arguments]
#
# A shallow clone: BASE is fetched alone.  A base without serverbench's settings: "not measured".  Exit 3 of the
# gate (could not decide: too noisy for a verdict) is said as such in the summary, never as a pass; both exit 0,
# or 3 with SERVERBENCH_STRICT=1.  Exit: 0 pass, 1 regression, 2 bad input.
set -eu
base="${1:?usage: ci/gate.sh BASE [serverbench gate arguments]}"
shift
. "$(dirname "$0")/common.sh"
have_commit "$base"
configured "$base" || undecided gate "not measured" \
  "The base ($base) has no serverbench settings (perf_app) in ${project:-the repository's top}: this change adds them. Later pull requests are gated against it."
status=0
serverbench gate --base-ref "$base" --markdown "$summary" "$@" || status=$?
if [ "$status" = 3 ]; then
  undecided gate "could not decide" \
    "The runner was too noisy to decide at the gate's smallest effect: not a pass, not a failure. Re-run the job, or gate fewer endpoints (--endpoint) with more blocks (--blocks)."
fi
exit "$status"
