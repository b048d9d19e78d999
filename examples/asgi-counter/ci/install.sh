#!/bin/sh
# What the recipe needs on a CI runner: the system programs named (each Debian package and its program share a
# name: valgrind, wrk, redis-server), installed with apt-get as root or through passwordless sudo; oha with
# --oha (the gate's fixed-rate driver); then serverbench and this project with its `perf` extra, into the
# python on PATH.
#
#     SERVERBENCH=REQUIREMENT ci/install.sh [--oha] [PACKAGE...]
#
# SERVERBENCH is one pip requirement: today a pinned commit of serverbench's repository, whose wheel pip builds
# ('serverbench @ git+https://github.com/OWNER/serverbench@COMMIT'), or a wheel file; once serverbench is on
# PyPI, 'serverbench==0.1.0'.
set -eu
OHA_URL=https://github.com/hatoo/oha/releases/download/v1.16.0/oha-linux-amd64
oha=0
if [ "${1:-}" = --oha ]; then
  oha=1
  shift
fi
case "${SERVERBENCH:-}" in
  "" | *OWNER* | *COMMIT*)
    echo "error: SERVERBENCH='${SERVERBENCH:-}' does not name serverbench yet: set it in the workflow's env (or as the" \
         "repository variable SERVERBENCH) to 'serverbench @ git+https://github.com/<its repository>@<a commit>'," \
         "a wheel file, or 'serverbench==<version>' once it is on PyPI" >&2
    exit 2 ;;
esac
missing=""
for package in "$@"; do
  command -v "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    as_root=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root="sudo -n"
  else
    echo "error:$missing not installed, and this runner has neither root nor passwordless sudo to install them:" \
         "add them to the runner's image (apt-get install$missing) or give its user passwordless sudo" >&2
    exit 2
  fi
  echo "serverbench: installing$missing with ${as_root:+$as_root }apt-get" >&2
  $as_root apt-get update -qq
  # shellcheck disable=SC2086  # one word per package
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
if [ "$oha" = 1 ] && ! command -v oha >/dev/null 2>&1; then
  mkdir -p "$HOME/.local/bin"
  if ! curl -fsSL -o "$HOME/.local/bin/oha" "$OHA_URL"; then
    echo "error: oha could not be downloaded from $OHA_URL: put oha on PATH (cargo install --locked oha --version 1.16.0)," \
         "or give the gate --rate off (no fixed-rate latency windows)" >&2
    exit 2
  fi
  chmod +x "$HOME/.local/bin/oha"
  [ -z "${GITHUB_PATH:-}" ] || echo "$HOME/.local/bin" >>"$GITHUB_PATH"  # on PATH for the next steps
  echo "serverbench: oha installed in $HOME/.local/bin" >&2
fi
python -m pip install --quiet "$SERVERBENCH" ".[perf]"
python -m pip show serverbench | sed -n 's/^Version: /serverbench: installed serverbench /p' >&2
