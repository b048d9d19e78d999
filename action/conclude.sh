#!/usr/bin/env bash
# The job's status from `serverbench ci`'s exit (SB_STATUS), the last step: 1 (regression) and 2 (bad input or a
# setup error) fail it with an error annotation carrying the verdict line or the one-line error; 3 (could not
# decide) is a warning annotation and passes, unless INPUT_STRICT is true; 0 passes, but "not measured" fails
# under strict.  First the action's step summary (step-summary.md) goes to the job's, in one piece.
set -uo pipefail
# shellcheck source=action/common.sh
. "$(dirname "$0")/common.sh"
if [ -s "$summary" ]; then
  cat "$summary" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
fi
status=${SB_STATUS:-}
if [ -z "$status" ]; then
  echo "serverbench: the job stopped before serverbench ci gave a verdict: the step that failed says why" >&2
  exit 1
fi
result="$SB_OUT/result.json"
verdict=$(jq -r '.verdict // empty' "$result" 2>/dev/null)
line=$(jq -r '.lines[0] // empty' "$result" 2>/dev/null)
line="serverbench: ${line:-${verdict:-serverbench ci exited $status}}"
case "$status" in
  0)
    if [ "$verdict" = "not measured" ] && [ "$INPUT_STRICT" = true ]; then
      annotate error "$line (strict: not measured fails the job)"
      exit 1
    fi
    [ "$verdict" != "not measured" ] || annotate notice "$line"
    exit 0 ;;
  1 | 2)
    annotate error "$line"
    exit "$status" ;;
  3)
    if [ "$INPUT_STRICT" = true ]; then
      annotate error "$line (strict: could not decide fails the job)"
      exit 3
    fi
    annotate warning "$line"
    exit 0 ;;
  *)
    annotate error "serverbench ci exited $status, which it never should: $line"
    exit 2 ;;
esac
