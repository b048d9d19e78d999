#!/usr/bin/env bash
# Time oha's build from crates.io two ways: its default features (rustls on aws-lc, a C build) and the lean build
# ./run uses (--no-default-features --features native-tls: the system's OpenSSL).  oha is the fresh machine's longest
# install, so this is the step ./run tests waits for longest.
#
#   benchmarks/oha_build.sh [OUT.jsonl]     (default: oha-build.jsonl here; one JSON line per build)
#   BUILDS="lean lean-sqlite" benchmarks/oha_build.sh OUT.jsonl   (which builds, in turn; default: default lean)
#
# lean-sqlite is the lean build linked to the system's SQLite (LIBSQLITE3_SYS_USE_PKG_CONFIG=1, libsqlite3-dev)
# instead of compiling oha's bundled copy; lean-sqlite-o1 and lean-sqlite-o2 are that build at a lower optimisation
# level (CARGO_PROFILE_RELEASE_OPT_LEVEL=1 or 2; cargo's release default is 3), shorter to compile: weigh their
# generator CPU per request with benchmarks/generators.py --oha-build NAME=BINARY.
# KEEP=DIR copies each built binary to DIR/oha-BUILD-ROUND.
#
# Each build runs alone, in turn (default, then lean; REPEATS=N rounds, default 1), into a fresh target folder and
# install root under a temporary folder, so nothing built is reused between builds.  The crates come from cargo's
# download cache; on a machine where it is cold the first build also downloads them (time a second round:
# REPEATS=2).  Each line: the build, its wall and CPU seconds
# (GNU time), its exit status and the binary's size.  Run it with nothing else on the machine.
set -euo pipefail
OUT=${1:-oha-build.jsonl}
REPEATS=${REPEATS:-1}
command -v cargo >/dev/null || { echo "cargo is not installed: install Rust (rustup)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is not installed: apt-get install time" >&2; exit 2; }
work=$(mktemp -d /tmp/oha-build.XXXX)
trap 'rm -rf "$work"' EXIT
for round in $(seq "$REPEATS"); do
  for build in ${BUILDS:-default lean}; do
    args=() vars=()
    case "$build" in
      default) ;;
      lean) args=(--no-default-features --features native-tls) ;;
      lean-sqlite) args=(--no-default-features --features native-tls) vars=(LIBSQLITE3_SYS_USE_PKG_CONFIG=1) ;;
      lean-sqlite-o1|lean-sqlite-o2)
        args=(--no-default-features --features native-tls)
        vars=(LIBSQLITE3_SYS_USE_PKG_CONFIG=1 "CARGO_PROFILE_RELEASE_OPT_LEVEL=${build#lean-sqlite-o}") ;;
      *) echo "unknown build '$build': use default, lean, lean-sqlite, lean-sqlite-o1 or lean-sqlite-o2" >&2; exit 2 ;;
    esac
    rm -rf "$work/root" "$work/target"
    status=0
    /usr/bin/time -f '%e %U %S' -o "$work/time" \
      env "${vars[@]}" cargo install --quiet --locked oha --root "$work/root" --target-dir "$work/target" "${args[@]}" \
      >"$work/log" 2>&1 || status=$?
    read -r wall user sys <"$work/time" || true
    size=$(stat -c %s "$work/root/bin/oha" 2>/dev/null || echo 0)
    version=$("$work/root/bin/oha" --version 2>/dev/null | cut -d' ' -f2 || true)
    line=$(printf '{"round": %d, "build": "%s", "features": "%s", "oha": "%s", "wall_s": %s, "user_s": %s, "sys_s": %s, "status": %d, "bytes": %d, "at": "%s", "host": "%s"}' \
      "$round" "$build" "${args[*]:-default}" "$version" "${wall:-0}" "${user:-0}" "${sys:-0}" "$status" "$size" \
      "$(date -u +%FT%TZ)" "$(hostname)")
    echo "$line" | tee -a "$OUT"
    if [ -n "${KEEP:-}" ] && [ "$status" = 0 ]; then
      mkdir -p "$KEEP" && cp "$work/root/bin/oha" "$KEEP/oha-$build-$round"
    fi
    [ "$status" = 0 ] || { echo "the $build build failed; the end of its log:" >&2; tail -n 15 "$work/log" >&2; }
  done
done
