# shellcheck shell=bash
# Sourced by the action's scripts (action.yml runs them in order).  Each step's notes go to step-summary.md in the
# output folder, which the last step (conclude.sh) appends to the job's step summary in one piece.
summary="${SB_OUT:-${RUNNER_TEMP:-/tmp}/serverbench-out}/step-summary.md"

say() {  # say LINE...: to the step summary and to the log
  printf '%s\n' "$@" >>"$summary"
  printf '%s\n' "$@" >&2
}

output() {  # output NAME VALUE: a step output
  printf '%s=%s\n' "$1" "$2" >>"${GITHUB_OUTPUT:-/dev/null}"
}

annotate() {  # annotate error|warning TEXT: a workflow command, its text on one line as the runner wants it
  local text="${2//'%'/%25}"
  text="${text//$'\r'/%0D}"
  printf '::%s::%s\n' "$1" "${text//$'\n'/%0A}"
}

fail() {  # fail TEXT: a setup error (exit 2), said in the summary and as an error annotation
  say "### serverbench: **error**" "" "$1" ""
  annotate error "serverbench: $1"
  exit 2
}
