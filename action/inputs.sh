#!/usr/bin/env bash
# The action's inputs, checked before anything is installed: a wrong one stops the job with one line naming the
# values it takes.  Its outputs: the mode the installs are for (gate on a pull request under `auto`), the output
# folder, and whether oha (the gate's fixed-rate driver) must be fetched, with its version (the one
# src/serverbench/drivers/oha.py is tested with) and the folder cached under it.
set -euo pipefail
SB_OUT="${RUNNER_TEMP:-/tmp}/serverbench-out"
rm -rf "$SB_OUT"
mkdir -p "$SB_OUT"
# shellcheck source=action/common.sh
. "$(dirname "$0")/common.sh"
output out "$SB_OUT"

case "$INPUT_MODE" in
  gate | cost) mode=$INPUT_MODE ;;
  auto)
    case "${GITHUB_EVENT_NAME:-}" in
      pull_request | pull_request_target) mode=gate ;;
      *) mode=cost ;;
    esac ;;
  *) fail "mode: '$INPUT_MODE' is not one of auto, gate, cost (auto: gate on pull_request, cost on push)" ;;
esac
case "$INPUT_COMMENT" in
  on-change | always | never) ;;
  *) fail "comment: '$INPUT_COMMENT' is not one of on-change, always, never" ;;
esac
case "$INPUT_STRICT" in
  true | false) ;;
  *) fail "strict: '$INPUT_STRICT' is not true or false" ;;
esac
[ -d "$INPUT_PROJECT" ] || fail "project: there is no folder '$INPUT_PROJECT' in $PWD (run actions/checkout before this action, and name the project's folder from the repository's top)"
output mode "$mode"

version=$(sed -n 's/^VERSION = "\(.*\)"$/\1/p' "$GITHUB_ACTION_PATH/src/serverbench/drivers/oha.py")
[ -n "$version" ] || fail "no VERSION line in $GITHUB_ACTION_PATH/src/serverbench/drivers/oha.py (the action's checkout is incomplete)"
output oha-version "$version"
output oha-dir "$HOME/.cache/serverbench/oha-$version"
if [ "$mode" = gate ] && ! command -v oha >/dev/null 2>&1; then
  output oha true
else
  output oha false
fi
