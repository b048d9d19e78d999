#!/usr/bin/env bash
# What `serverbench ci` needs on the runner, in order: the system programs (valgrind and wrk, redis-server when the
# project's perf_app_backends name redis) with apt-get as root or through passwordless sudo (first: a runner that
# cannot install them stops at once, naming them), a virtual environment of its own (the system python of Ubuntu
# is externally managed), serverbench installed from the action's own checkout (no package index is needed for
# serverbench itself), oha for the gate (the cache's copy, else the release binary of its pinned version; if
# neither, the gate runs with --rate off and the summary says so), then the project with its `perf` extra.  Outputs: python (the environment's interpreter), rate-off.
set -euo pipefail
# shellcheck source=action/common.sh
. "$(dirname "$0")/common.sh"
project=$(cd "$INPUT_PROJECT" && pwd)
venv="${RUNNER_TEMP:-/tmp}/serverbench-venv"

programs="valgrind wrk"
for file in pyproject.toml pytest.ini tox.ini setup.cfg; do
  if grep -s -A4 perf_app_backends "$project/$file" | grep -q redis; then
    programs="$programs redis-server"
    break
  fi
done
missing=""
for program in $programs; do  # each Debian package and its program share a name
  command -v "$program" >/dev/null 2>&1 || missing="$missing $program"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    as_root=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root="sudo -n"
  else
    fail "$missing not installed, and this runner has neither root nor passwordless sudo to install them: add them to its image (apt-get install$missing)"
  fi
  echo "serverbench: installing$missing with ${as_root:+$as_root }apt-get" >&2
  # shellcheck disable=SC2086  # one word per package
  { $as_root apt-get update -qq && $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null; } \
    || fail "apt-get install$missing failed (its error is in the log above)"
fi

"$INPUT_PYTHON" -m venv "$venv" \
  || fail "'$INPUT_PYTHON -m venv' failed: name an interpreter with venv in the python input (or put actions/setup-python before this action)"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$GITHUB_ACTION_PATH" \
  || fail "serverbench could not be installed from $GITHUB_ACTION_PATH (pip's error is in the log above)"
output python "$venv/bin/python"

output rate-off false
if [ "${SB_OHA:-false}" = true ] && [ ! -x "$SB_OHA_DIR/oha" ]; then
  case "$(uname -m)" in
    x86_64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) arch=$(uname -m) ;;
  esac
  url="https://github.com/hatoo/oha/releases/download/v$SB_OHA_VERSION/oha-linux-$arch"
  mkdir -p "$SB_OHA_DIR"
  if curl -fsSL --retry 2 --max-time 120 -o "$SB_OHA_DIR/oha.part" "$url"; then
    mv "$SB_OHA_DIR/oha.part" "$SB_OHA_DIR/oha"
    chmod +x "$SB_OHA_DIR/oha"
    echo "serverbench: oha $SB_OHA_VERSION downloaded from $url (cached for the next runs)" >&2
  else
    rm -f "$SB_OHA_DIR/oha.part"
    output rate-off true
    say "oha $SB_OHA_VERSION is not in the cache and could not be downloaded from $url: the gate runs with" \
      "\`--rate off\` (no fixed-rate latency windows). Put oha on the runner's PATH to measure them." ""
  fi
fi
if [ -x "${SB_OHA_DIR:-}/oha" ]; then
  echo "$SB_OHA_DIR" >>"${GITHUB_PATH:-/dev/null}"
fi

if [ -f "$project/pyproject.toml" ] || [ -f "$project/setup.py" ]; then
  # (pip warns and goes on when the project declares no perf extra; serverbench, installed above, satisfies its own)
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${project}[perf]" \
    || fail "the project in $INPUT_PROJECT could not be installed (pip's error is in the log above)"
else
  echo "serverbench: $INPUT_PROJECT has no pyproject.toml or setup.py: nothing of the project to install" >&2
fi
"$venv/bin/serverbench" --version >&2 2>/dev/null || true
