#!/bin/sh
# The A/B gate of a pull request (the workflow's `gate` job): the app at BASE (the merge base) against the
# working tree, in one session, on every endpoint (or those given with --endpoint NAME), with the timed and
# the counted signals.  Appends a summary to $GITHUB_STEP_SUMMARY (else gate-summary.md).  Exit status:
# 0 pass, 1 regression, 3 inconclusive (too noisy: not a pass), 2 bad input.
#
#     ci/gate.sh BASE_REF [gate arguments]
set -eu
base="${1:?usage: ci/gate.sh BASE_REF [gate arguments]}"
shift
serverbench gate --base-ref "$base" --markdown "${GITHUB_STEP_SUMMARY:-gate-summary.md}" "$@"
