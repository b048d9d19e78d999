#!/usr/bin/env bash
# Run a command with each line of its output stamped "HH:MM:SS +SECONDSs LINE" (from its start), and its exit
# status and total time last: the logs benchmarks/answers.py reads.
#   benchmarks/stamp.sh ./run tests -p no:cacheprovider --junitxml=junit.xml > tests.log
start=$(date +%s)
echo "$(date -u +%T) +   0s START $*"
"$@" 2>&1 | while IFS= read -r line; do printf '%s +%4ds %s\n' "$(date -u +%T)" $(( $(date +%s) - start )) "$line"; done
status=${PIPESTATUS[0]}
echo "$(date -u +%T) +$(( $(date +%s) - start ))s END exit=$status"
exit "$status"
