#!/usr/bin/env bash
# `serverbench ci` with the action's inputs: its exit status is kept (outputs status and verdict), never the step's,
# so the comment is posted and the artifact uploaded before the last step sets the job's status.  Its step summary
# goes to step-summary.md (the last step appends it to the job's); its stderr is kept in ci-stderr.txt.  When it
# stops before writing result.json (an error in the arguments, a crash), the last line it printed is the one-line
# error, written as result.json's only line (status 2).
set -uo pipefail
# shellcheck source=action/common.sh
. "$(dirname "$0")/common.sh"
args=(ci --mode "$SB_INPUT_MODE" --project "$INPUT_PROJECT" --comment "$INPUT_COMMENT" --out "$SB_OUT")
for name in ${INPUT_ENDPOINTS//,/ }; do
  args+=(--endpoint "$name")
done
for name in ${INPUT_VARIANTS//,/ }; do
  args+=(--variant "$name")
done
read -ra extra <<<"$INPUT_ARGS"
# Each arm's interpreter (a version: its environment made from the lock with uv), passed through to the gate.
if [ "$SB_MODE" = gate ]; then
  [ -z "${INPUT_BASE_PYTHON:-}" ] || extra+=(--base-python "$INPUT_BASE_PYTHON")
  [ -z "${INPUT_CAND_PYTHON:-}" ] || extra+=(--cand-python "$INPUT_CAND_PYTHON")
elif [ -n "${INPUT_BASE_PYTHON:-}${INPUT_CAND_PYTHON:-}" ]; then
  echo "serverbench: base-python and cand-python are the gate's; mode $SB_MODE counts with the action's own interpreter" >&2
fi
if [ "$SB_RATE_OFF" = true ] && [ "$SB_MODE" = gate ]; then
  extra+=(--rate off)  # no oha (install.sh said why in the summary)
fi
[ ${#extra[@]} = 0 ] || args+=(-- "${extra[@]}")
if [ -d "${SB_OHA_DIR:-}" ]; then
  PATH="$SB_OHA_DIR:$PATH"
fi

bin="$(dirname "$SB_PYTHON")/serverbench"
echo "serverbench: ${args[*]}" >&2
{ GITHUB_STEP_SUMMARY="$summary" "$bin" "${args[@]}" 2>&1 1>&3 3>&- | tee "$SB_OUT/ci-stderr.txt" >&2; } 3>&1
status=${PIPESTATUS[0]}
result="$SB_OUT/result.json"
if [ ! -s "$result" ]; then
  line=$(grep -v '^[[:space:]]*$' "$SB_OUT/ci-stderr.txt" | tail -n 1)
  line=${line:-serverbench ci exited $status without a word}
  say "### serverbench: **error**" "" "$line" ""
  jq -n --arg mode "$SB_MODE" --arg line "$line" \
    '{mode: $mode, status: 2, verdict: "error", post: false, pull_request: null, fork: false, lines: [$line]}' >"$result"
  status=2
fi
output status "$status"
output verdict "$(jq -r '.verdict' "$result")"
