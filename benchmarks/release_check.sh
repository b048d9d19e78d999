#!/usr/bin/env bash
# Release readiness, as a user of the built package meets it: `uv build` (sdist and wheel), `twine check --strict`,
# the license in both, then the wheel alone in a fresh venv (nothing else installed): `serverbench --help` for every
# subcommand, the version it reports against pyproject.toml's, and an example project's `pytest -m perf` installed
# from that wheel.
# Each step prints its wall time.  It starts servers and times them: run it under the load locks on a shared host.
#
#     benchmarks/release_check.sh [OUT_DIR]     # default: a new temporary folder, kept (its path is printed)
#     EXAMPLE=django-notes PYTHON=python3.12 benchmarks/release_check.sh
#     EXAMPLE=none benchmarks/release_check.sh dist-check   # no example (the release workflow: no load there)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-$(mktemp -d /tmp/serverbench-release-XXXXXX)}
example=${EXAMPLE:-flask-todo}
py=${PYTHON:-python3}
uv=$(command -v uv || echo "$root/.tools/bin/uv")   # ./run puts a pinned uv in .tools/
[ -x "$uv" ] || { echo "release_check: no uv (run ./run tests --collect-only once, or pip install uv)" >&2; exit 2; }
mkdir -p "$out"
step() {  # step LABEL COMMAND...: run it, print its wall time; a failure stops the check naming the step
  local label=$1 started=$SECONDS status=0
  shift
  "$@" >"$out/$label.log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    echo "release_check: $label failed (exit $status); its output: $out/$label.log" >&2
    tail -20 "$out/$label.log" >&2
    exit 1
  fi
  echo "$label: $((SECONDS - started)) s"
}

rm -rf "$out/dist"
step build "$uv" build --out-dir "$out/dist" .
step twine-check "$uv" tool run twine check --strict "$out"/dist/*
wheel=$(ls "$out"/dist/serverbench-*.whl)
# The license travels with both: the wheel's METADATA names it and both carry its text (pyproject's license-files).
unzip -p "$wheel" '*.dist-info/METADATA' | grep -x 'License-Expression: MIT' >/dev/null &&
  unzip -l "$wheel" | grep '\.dist-info/licenses/LICENSE$' >/dev/null &&
  tar -tzf "$out"/dist/serverbench-*.tar.gz | grep '^serverbench-[^/]*/LICENSE$' >/dev/null ||
  { echo "release_check: the wheel or the sdist lacks the license (LICENSE, License-Expression: MIT)" >&2; exit 1; }
echo "license: MIT, its text in the wheel and the sdist"

rm -rf "$out/venv"
step fresh-venv "$py" -m venv "$out/venv"
step install-wheel "$out/venv/bin/python" -m pip install -q "$wheel"
# The wheel alone: its console script and every subcommand's help, without pytest's plugins or a checkout.
commands=$("$out/venv/bin/python" -c "from serverbench.cli import COMMANDS; print(*COMMANDS)")
for command in "" $commands; do
  step "help${command:+-$command}" "$out/venv/bin/serverbench" $command --help
done
want=$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -1)
got=$("$out/venv/bin/python" -c "import serverbench; print(serverbench.__version__)")
[ "$got" = "$want" ] || { echo "release_check: serverbench.__version__ is $got, pyproject.toml says $want" >&2; exit 1; }
echo "version: $got (pyproject.toml and the installed package agree)"

[ "$example" != none ] || { echo "release_check: passed (no example); the wheel and sdist in $out/dist"; exit 0; }
# An example project, as a user installs it next to the wheel, and its perf suite on short trials.
rm -rf "${out:?}/$example"
cp -r "examples/$example" "$out/$example"
step install-example "$out/venv/bin/python" -m pip install -q --find-links "$out/dist" "$out/$example[perf]"
cd "$out/$example"
step example-perf "$out/venv/bin/python" -m pytest -m perf -p no:cacheprovider \
  --perf-duration 1 --perf-warmup 0 --perf-connections 8 --perf-json "$out/example-perf.json"
grep -E "passed|failed" "$out/example-perf.log" | tail -1
echo "release_check: all steps passed; logs and the wheel in $out"
