#!/usr/bin/env bash
# `./run tests` from a machine made as bare as it can be short of removing apt's packages, timed, and its figure
# rendered into the README (the only `./run tests` time the README states).
#
#     sudo benchmarks/bare_tests.sh [REF]      # REF: the commit to clone (default HEAD); run it with nothing else on
#                                              # the machine: it times the tests, and the tests time servers
#
# Bare means: a fresh clone of REF (no .venv, no .tools), and none of what ./run installs or caches in HOME:
# ~/.cargo/bin/oha and cargo's record of it, cargo's downloaded crates (~/.cargo/registry, ~/.cargo/git), Go's module and build caches and
# what go install built (~/go: actionlint, toxiproxy-server, act; ~/.cache/go-build), uv's and pip's caches
# (~/.cache/uv, ~/.cache/pip), npm's (~/.npm) and Maven's (~/.m2).  Each is moved aside for the run and put back
# after it (also when the run is interrupted), rather than HOME being replaced by an empty folder: the hosts tests'
# simulated hosts run their commands through sshd, which takes HOME from the password file, as on any machine, so
# a HOME of the run's own would leave those sessions a ~/.cargo/bin/oha that the run did not build.  What stays is
# printed and recorded: apt's packages (./run's own list below), the toolchains (Rust under ~/.rustup, Go, Node.js,
# Java and Maven, pyenv's Pythons) and HOME's other files.
#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ref=${1:-HEAD}
[ "$(id -u)" = 0 ] || { echo "bare_tests: run it as root (./run installs apt packages; the hosts tests make namespaces)" >&2; exit 2; }
work=$(mktemp -d /tmp/serverbench-bare.XXXX)
keep=${KEEP:-0}
# What ./run installs or caches in HOME, moved aside (same file system: a rename) and put back at exit.
aside=(.cargo/bin/oha .cargo/.crates.toml .cargo/.crates2.json .cargo/registry .cargo/git go .cache/go-build .cache/uv .cache/pip .npm .m2)
moved=()
# shellcheck disable=SC2317  # called by the EXIT trap
restore() {
  local item
  for item in "${moved[@]}"; do
    rm -rf "${HOME:?}/$item"
    mv "$work/aside/$item" "$HOME/$item"
  done
}
# shellcheck disable=SC2317  # the EXIT trap
cleanup() {
  restore
  [ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for item in "${aside[@]}"; do
  if [ -e "$HOME/$item" ]; then
    mkdir -p "$(dirname "$work/aside/$item")"
    mv "$HOME/$item" "$work/aside/$item"
    moved+=("$item")
  fi
done
for built in oha actionlint toxiproxy-server act; do
  if command -v "$built" >/dev/null 2>&1; then
    echo "bare_tests: $built is on PATH ($(command -v "$built")), outside what this script moves aside: not bare" >&2
    exit 2
  fi
done

git clone --quiet --no-local "$root" "$work/clone/serverbench"
git -C "$work/clone/serverbench" checkout --quiet --detach "$ref"
commit=$(git -C "$work/clone/serverbench" rev-parse --short HEAD)
[ -d "$root/../shared" ] && cp -r "$root/../shared" "$work/clone/shared"

# What stayed installed, in words (recorded with the figure).
apt_kept=()
for package in wrk valgrind redis-server libev-dev nginx-light libnginx-mod-http-echo chromium openssh-server shellcheck \
               pkg-config libssl-dev libsqlite3-dev; do
  dpkg -s "$package" >/dev/null 2>&1 && apt_kept+=("$package")
done
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
conditions="a fresh clone of $commit on a $(nproc)-core $cpu, with none of what ./run installs or caches in HOME (oha, cargo's crates, Go's caches and builds: actionlint, toxiproxy-server, act; uv's, pip's, npm's and Maven's caches); still installed: apt's ${apt_kept[*]:-none of the run script list}, and the toolchains (Rust, Go, Node.js, Java and Maven, pyenv's Pythons)"
echo "bare_tests: $conditions" >&2

cd "$work/clone/serverbench"
status=0
env CI=true SERVERBENCH_TIMELINE="$work/timeline.jsonl" \
  benchmarks/stamp.sh ./run tests -p no:cacheprovider --junitxml="$work/junit.xml" >"$work/tests.log" 2>&1 || status=$?
tail -n 5 "$work/tests.log"
cp "$work/tests.log" "${LOG:-/tmp/serverbench-bare-tests.log}"
.venv/bin/python "$root/benchmarks/answers.py" tests "$work/tests.log" "$work/junit.xml" --as tests-bare \
  --conditions "$conditions" --timeline "$work/timeline.jsonl"
.venv/bin/python "$root/benchmarks/answers.py" render
echo "bare_tests: ./run tests exited $status; figures in benchmarks/results/answers.json (tests-bare)" >&2
exit "$status"
