# Sourced by ci/cost.sh and ci/gate.sh (serverbench's CI recipe): the step summary, a commit a shallow clone
# lacks, and a base that has no serverbench yet.  SERVERBENCH_STRICT=1 turns "not measured" and "could not
# decide" into exit 3 (a failed job); by default they are said in the summary and the job passes.
summary="${GITHUB_STEP_SUMMARY:-serverbench-summary.md}"
project="$(git rev-parse --show-prefix)"  # this project's folder inside the repository ('' at its top)

say() {  # say LINE...: to the step summary and to the log
  printf '%s\n' "$@" >>"$summary"
  printf '%s\n' "$@" >&2
}

undecided() {  # undecided WHAT WORD WHY: said as such (never a pass); exit 0, or 3 with SERVERBENCH_STRICT=1
  say "### serverbench $1: **$2**" "" "$3" ""
  if [ "${SERVERBENCH_STRICT:-0}" = 1 ]; then
    say "SERVERBENCH_STRICT=1: the job fails on it (exit 3)."
    exit 3
  fi
  exit 0
}

have_commit() {  # have_commit SHA: the commit in this clone, fetched alone when a shallow clone lacks it
  git rev-parse --verify --quiet "$1^{commit}" >/dev/null && return 0
  echo "serverbench: fetching $1 (not in this shallow clone)" >&2
  if git fetch --quiet --no-tags --depth=1 origin "$1" && git rev-parse --verify --quiet "$1^{commit}" >/dev/null; then
    return 0
  fi
  echo "error: commit $1 is not in this clone and origin would not send it; check it out with" \
       "fetch-depth: 0 (actions/checkout) or fetch it before this step" >&2
  exit 2
}

configured() {  # configured SHA: whether that commit's tree has this project's serverbench settings (perf_app)
  for file in pyproject.toml pytest.ini tox.ini setup.cfg; do
    git show "$1:$project$file" 2>/dev/null | grep -Eq '^[[:space:]]*perf_app[[:space:]]*=' && return 0
  done
  return 1
}
