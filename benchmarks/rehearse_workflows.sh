#!/usr/bin/env bash
# The workflows of .github/ and of examples/*/.github/ rehearsed as a hosted runner runs them: nektos/act on this
# host (-P ubuntu-latest=-self-hosted: no Docker), as a fresh unprivileged user with passwordless sudo and a fresh
# HOME, in a shallow clone, with each run's event (push, pull request, tag) and its refs.  Run as root (it makes
# and removes the user); it times load, so on a shared host run it under the load locks.
#
#     benchmarks/rehearse_workflows.sh [RUN...]        # default: every run below; each prints its wall time
#
# Runs:
#   example-cost:NAME    examples/NAME's workflow on a push to main (the `cost` job); django-notes's push makes
#                        its branch (a `before` of zeros)
#   example-gate:NAME    ... on a pull request (serverbench's action, action.yml, as the workflow uses it: this
#                        checkout's HEAD, mapped with act's --local-repository)
#   example-first-push   flask-todo on the push that adds serverbench (no base): "not measured", exit 0
#   no-sudo              the action's install step (action/install.sh) as a user without sudo, wrk missing from
#                        PATH: it names what to add
#   release              release.yml on a tag v<version>: the `build` job (`publish` needs PyPI's trust and Docker)
#   full:WORKFLOW        .github/workflows/WORKFLOW run for real: tests.yml (./run tests, ~30 min), ab-gate.yml
#                        (three gates), mutation.yml (an hour), perf-sharded.yml (the whole perf run, four jobs at
#                        once on one host); perf.yml's MongoDB and Redis are service containers, which need Docker
#                        (act cannot run that job here; its steps can, below).
#                        Not in the default list: each is far longer than this script's other runs together.
#                        ACT_ARGS adds act arguments, e.g. ACT_ARGS='--matrix shard:1' runs perf-sharded.yml's
#                        first shard of four and its merge job (act runs a matrix's jobs at once: four timed shards
#                        on one host would disturb each other).
#                        (act's dry run, -n, is no substitute: on the host it still runs some jobs' steps.)
#   steps:WORKFLOW:JOB   one job of .github/workflows/WORKFLOW without act: its `run:` steps in order, each as the
#                        runner's user in a depth-1 clone (bash -eo pipefail, CI=true, GITHUB_ACTIONS=true, ACT=true
#                        as act sets them, and a GITHUB_STEP_SUMMARY file, kept in OUT), Python 3.11 of the tool cache first on PATH and its lib/ in
#                        LD_LIBRARY_PATH as setup-python exports it (a venv of a venv loaded Debian's older
#                        libpython3.11 without it: "_ssl...: undefined symbol: _PyModule_Add"), oha in
#                        ~/.local/bin (the cache's hit); it stops at the first step that fails, as a runner does.
#                        LOCKS=1 takes the load locks (turnstile, load, shared quiet) around each step, not the whole
#                        job, so a long job holds them a step at a time; FROM=N starts at the Nth run: step, TO=N
#                        stops after the Nth (FROM=3 TO=3: that step alone).
#                        A job's service containers are stood in for on the ports it maps: redis:* by
#                        redis-server, mongo:* by SecantusDB (MongoDB's wire protocol), e.g. steps:perf.yml:perf.
#                        E.g. steps:tests.yml:documented.
#
# What it needs: act (ACT=path, else built: go install github.com/nektos/act@v0.2.89), the actions the workflows
# use as git mirrors (ACTIONS_MIRROR/owner+name/repo; github.com is not reachable from this host; steps: runs need
# neither), patchelf and sudo
# (apt-get), Python 3.12 and 3.11 to seed the runner's tool cache (PYTHONS: their prefixes), oha on this host (the
# recipe downloads it from GitHub's releases, which this host cannot reach: the host's build is put where the
# download would go).  Every run's log is kept in OUT (default /tmp/serverbench-rehearsal).
set -uo pipefail
cd "$(dirname "$0")/.."
# root's git reads the repositories made for the runner's user (owned by it)
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
root=$PWD
out=${OUT:-/tmp/serverbench-rehearsal}
user=${REHEARSAL_USER:-sb-runner}
mirror=${ACTIONS_MIRROR:-/work/.mirror}
pythons=${PYTHONS:-"$(ls -d /root/.pyenv/versions/3.12.* /root/.pyenv/versions/3.11.* 2>/dev/null | tr '\n' ' ')"}
ports="--cache-server-addr 127.0.0.1 --cache-server-port 23456 --artifact-server-addr 127.0.0.1 --artifact-server-port 23457"
ACTIONS="actions/checkout@v4 actions/setup-python@v5 actions/cache@v4 actions/upload-artifact@v4
actions/download-artifact@v4 actions/setup-node@v4 actions/setup-java@v4 pypa/gh-action-pypi-publish@release/v1"

die() { echo "rehearse: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "run it as root: it makes the runner's user (with passwordless sudo) and removes it"
for tool in sudo patchelf git useradd; do
  command -v $tool >/dev/null || die "$tool is missing: apt-get install sudo patchelf git passwd"
done
mkdir -p "$out" && chmod 755 "$out"
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(example-first-push no-sudo example-cost:django-notes example-cost:flask-todo
  example-cost:asgi-counter example-gate:flask-todo release)
# act and the actions it runs: for every run but steps: (which runs a job's `run:` steps itself, without act).
only_steps=1
for spec in "${runs[@]}"; do [[ $spec == steps:* ]] || only_steps=0; done
local_repos=()
if [ "$only_steps" = 0 ]; then
  act=${ACT:-$out/tools/act}
  if [ ! -x "$act" ]; then
    echo "rehearse: building act (go install github.com/nektos/act@v0.2.89)" >&2
    GOBIN="$out/tools" go install github.com/nektos/act@v0.2.89 || die "act could not be built with go"
  fi
  cp "$act" "$out/act" && chmod 755 "$out/act"

  # The actions, each checked out at the ref the workflows name, for act's --local-repository.
  for action in $ACTIONS; do
    name=${action%@*} ref=${action#*@}
    git_dir="$mirror/${name/\//+}/repo"
    dest="$out/actions/$name@${ref//\//-}"
    if [ ! -d "$dest" ]; then
      [ -d "$git_dir" ] || die "no mirror of $name in $git_dir (ACTIONS_MIRROR)"
      commit=$(git --git-dir="$git_dir" rev-parse -q --verify "$ref^{commit}" || git --git-dir="$git_dir" rev-parse -q --verify "refs/remotes/origin/$ref") \
        || die "$name has no $ref in $git_dir"
      mkdir -p "$dest"
      # File by file: a mirror may lack some blobs (test data, a sub-action); what a job runs is checked below.
      git --git-dir="$git_dir" ls-tree -r --name-only "$commit" 2>/dev/null | while read -r path; do
        mkdir -p "$dest/$(dirname "$path")"
        git --git-dir="$git_dir" cat-file -p "$commit:$path" >"$dest/$path" 2>/dev/null || rm -f "$dest/$path"
      done
    fi
    # (tr: some action.yml files have CRLF line ends; a path ending in \r is never there)
    entries=$(tr -d '\r' <"$dest/action.yml" 2>/dev/null | sed -n "s/^ *\(main\|post\|pre\): *['\"]\{0,1\}\([^'\"]*\).*/\2/p")
    for entry in $entries; do
      if [ ! -e "$dest/$entry" ] && [ -f "$dest/package-lock.json" ] && command -v npm >/dev/null; then
        # A JavaScript action's bundle (dist/, built by ncc, megabytes) is what a mirror lacks most: built again from
        # the action's own sources and lock by its release script (upload- and download-artifact's), once.
        echo "rehearse: building $action's $entry from its sources (npm ci, npm run release)" >&2
        (cd "$dest" && npm ci --no-audit --no-fund --ignore-scripts >/dev/null 2>&1 && npm run release >/dev/null 2>&1)
      fi
      [ -e "$dest/$entry" ] || echo "rehearse: note: $action lacks $entry in its mirror: a job that runs it fails here" >&2
    done
    local_repos+=(--local-repository "$action=$dest")
  done
  chmod -R a+rX "$out/actions"
fi

# A fresh runner user: passwordless sudo, a fresh HOME, the runner image's tool cache (Python) and oha.
fresh_user() {  # fresh_user [nosudo]
  userdel -r "$user" >/dev/null 2>&1 || true
  rm -f "/etc/sudoers.d/$user"
  # what an earlier runner user of that name left in /tmp (pytest refuses a basetemp another uid owns); a hosted
  # runner starts from a fresh machine
  rm -rf "/tmp/pytest-of-$user"
  useradd --create-home --shell /bin/bash "$user"
  # (sudo keeps this host's CA bundle variables, see as_user: a step run through sudo reaches the registries too)
  [ "${1:-}" = nosudo ] || {
    printf '%s ALL=(ALL) NOPASSWD:ALL\nDefaults:%s env_keep += "%s"\n' "$user" "$user" \
      "SSL_CERT_FILE SSL_CERT_DIR NODE_EXTRA_CA_CERTS GIT_SSL_CAINFO CURL_CA_BUNDLE REQUESTS_CA_BUNDLE PIP_CERT" \
      >"/etc/sudoers.d/$user"
    chmod 440 "/etc/sudoers.d/$user"
  }
  local home="/home/$user" cache="/home/$user/.cache/act/tool_cache/Python"
  for prefix in $pythons; do  # as the hosted image has them: <tool cache>/Python/<version>/x64 and x64.complete
    local version
    version=$(basename "$prefix")
    mkdir -p "$cache/$version"
    cp -a "$prefix" "$cache/$version/x64"
    for binary in "$cache/$version/x64/bin/python"3.*; do  # relocated: the library beside it, not in /root
      [ -L "$binary" ] || patchelf --set-rpath '$ORIGIN/../lib' "$binary" 2>/dev/null || true
    done
    touch "$cache/$version/x64.complete"
  done
  mkdir -p "$home/.local/bin"
  command -v oha >/dev/null && cp "$(command -v oha)" "$home/.local/bin/oha"
  chown -R "$user:$user" "$home"
  chown -R "$user:$user" "$out/serverbench.git"  # its git reads only repositories it owns
}

# A job's service containers (perf.yml's redis:7 and mongo:7), which need Docker, stood in for by the same servers on
# the host ports the job maps: redis-server, and SecantusDB (MongoDB's wire protocol, this checkout's .venv) for
# mongo.  Any other image: refused, naming it.  Ended by pid when the job's steps end.
service_pids=()
start_services() {  # start_services WORKFLOW JOB
  local image port
  while read -r image port; do
    [ -n "$image" ] || continue
    case "$image" in
      redis:*) redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no >"$out/service-redis.log" 2>&1 & ;;
      mongo:*)
        [ -x .venv/bin/secantusd-py ] || { echo "rehearse: $image's stand-in is .venv/bin/secantusd-py: ./run tests makes it" >&2; return 1; }
        .venv/bin/secantusd-py --host 127.0.0.1 --port "$port" --storage-path :memory: --standalone --log-level WARNING \
          >"$out/service-mongo.log" 2>&1 & ;;
      *) echo "rehearse: no stand-in for the service image $image (redis:* and mongo:* have one)" >&2; return 1 ;;
    esac
    service_pids+=($!)
    local waited=0
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
      sleep 0.5; waited=$((waited + 1))
      [ "$waited" -le 60 ] || { echo "rehearse: $image's stand-in did not listen on $port in 30 s" >&2; return 1; }
    done
    echo "rehearse: service $image stood in for on 127.0.0.1:$port (pid $!)" >&2
  done < <(.venv/bin/python -c 'import sys, yaml
services = yaml.safe_load(open(sys.argv[1]))["jobs"][sys.argv[2]].get("services") or {}
for spec in services.values():
    print(spec["image"], str(spec["ports"][0]).split(":")[0])' ".github/workflows/$1" "$2")
}
stop_services() {
  local pid
  for pid in "${service_pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  service_pids=()
}

user_argv=()
as_user() {  # as_user DIR COMMAND...: in DIR, as the runner's user, with a hosted runner's PATH
  user_command "$@"
  "${user_argv[@]}"
}

user_command() {  # user_command DIR COMMAND...: as_user's command line, in user_argv (for flock to run)
  local dir=$1
  shift
  # This host reaches the package registries through its own CA bundle: the variables naming it go along (a
  # hosted runner's TLS works as it is); nothing else of root's environment does.
  local ca=()
  for name in SSL_CERT_FILE SSL_CERT_DIR NODE_EXTRA_CA_CERTS GIT_SSL_CAINFO CURL_CA_BUNDLE REQUESTS_CA_BUNDLE PIP_CERT; do
    [ -z "${!name:-}" ] || ca+=("$name=${!name}")
  done
  user_argv=(timeout "${step_timeout:-${RUN_TIMEOUT:-3600}}" sudo -u "$user" -H env -i HOME="/home/$user" USER="$user" LANG=C.UTF-8
    "${ca[@]}" PATH="/home/$user/.local/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
    bash -c 'cd "$0" && exec "$@"' "$dir" "$@")
}

act_run() {  # act_run DIR EVENT_NAME EVENT_JSON WORKFLOW [act arguments]
  local dir=$1 event=$2 json=$3 workflow=$4
  shift 4
  # shellcheck disable=SC2086
  as_user "$dir" "$out/act" "$event" -e "$json" -W "$workflow" -P ubuntu-latest=-self-hosted \
    --action-cache-path "/home/$user/.cache/act" --artifact-server-path "/home/$user/artifacts" $ports \
    --action-offline-mode "${local_repos[@]}" "$@"
}

# A user's repository made from an example: main = the example (BASE_CHANGE: without serverbench's settings),
# then a comment-only change on top; the runner gets a depth-1 clone of it, as actions/checkout makes.
example_repo() {  # example_repo NAME [nobase] -> $repo (the origin) and $clone (the runner's shallow checkout)
  local name=$1 work="$out/work/$1${2:+-$2}"
  rm -rf "$work" && mkdir -p "$work"
  repo="$work/origin" clone="$work/checkout"
  git init -q -b main "$repo"
  if [ "${2:-}" = nobase ]; then
    printf '[project]\nname = "%s"\nversion = "0"\n' "$name" >"$repo/pyproject.toml"
    git -C "$repo" add -A && git -C "$repo" -c user.name=ci -c user.email=ci@example.org commit -qm "the app"
  fi
  cp -r "examples/$name/." "$repo/"
  find "$repo" -name __pycache__ -prune -exec rm -rf {} +
  git -C "$repo" add -A && git -C "$repo" -c user.name=ci -c user.email=ci@example.org commit -qm "serverbench"
  if [ "${2:-}" != nobase ]; then
    local module
    module=$(git -C "$repo" ls-files '*.py' | grep -v '^tests/' | grep -v __init__ | head -1)
    sed -i '1i # a comment, nothing else' "$repo/$module"
    git -C "$repo" -c user.name=ci -c user.email=ci@example.org commit -qam "a comment"
  fi
  git clone -q --depth 1 "file://$repo" "$clone"
  chown -R "$user:$user" "$work"
  chmod -R a+rwX "$work"
}

event() {  # event FILE JSON
  printf '%s\n' "$2" >"$1"
  chmod 644 "$1"
}

# This checkout's HEAD: a bare clone (the steps: runs clone it), and its tree for the examples' `uses:
# OWNER/serverbench@main` (the action installs serverbench from its own checkout).
rm -rf "$out/serverbench.git" "$out/serverbench-tree"
git clone -q --bare "$root" "$out/serverbench.git"
chmod -R a+rX "$out/serverbench.git"
mkdir -p "$out/serverbench-tree"
git archive HEAD | tar -x -C "$out/serverbench-tree"
chmod -R a+rwX "$out/serverbench-tree"
local_repos+=(--local-repository "OWNER/serverbench@main=$out/serverbench-tree")

results=()
status=0
run() {  # run LABEL EXPECTED_EXIT COMMAND...: time it, keep its log, say what it printed last (its exit in $status)
  local label=$1 want=$2 started=$SECONDS
  status=0
  shift 2
  echo "=== $label" >&2
  "$@" >"$out/$label.log" 2>&1 || status=$?
  for pid in $(ps -u "$user" -o pid= 2>/dev/null); do  # what a timed-out run left: the throwaway user's, by pid
    kill "$pid" 2>/dev/null || true
  done
  local took=$((SECONDS - started))
  local verdict=ok
  [ "$status" = "$want" ] || verdict="UNEXPECTED (exit $status, expected $want)"
  results+=("$label: exit $status in ${took} s: $verdict")
  echo "$label: exit $status in ${took} s: $verdict (log $out/$label.log)" >&2
  grep -E "serverbench (cost|gate|A/B)|Job (succeeded|failed)|not measured|could not decide|error:|[0-9]+ (passed|failed)|step began" \
    "$out/$label.log" | tail -8 >&2
}

zero=0000000000000000000000000000000000000000
for spec in "${runs[@]}"; do
  case "$spec" in
    example-cost:* | example-gate:* | example-first-push)
      name=${spec#*:}
      [ "$spec" = example-first-push ] && name=flask-todo
      fresh_user
      example_repo "$name" $([ "$spec" = example-first-push ] && echo nobase)
      head=$(git -C "$repo" rev-parse HEAD) parent=$(git -C "$repo" rev-parse HEAD~1)
      before=$parent
      [ "$name" = django-notes ] && before=$zero  # the push made the branch
      if [ "${spec%%:*}" = example-gate ]; then
        event "$out/event-$spec.json" "{\"pull_request\": {\"number\": 1, \"base\": {\"ref\": \"main\", \"sha\": \"$parent\"},
          \"head\": {\"ref\": \"change\", \"sha\": \"$head\"}}, \"repository\": {\"full_name\": \"user/$name\"}}"
        run "$spec" 0 act_run "$clone" pull_request "$out/event-$spec.json" .github/workflows/serverbench.yml
      else
        event "$out/event-$spec.json" "{\"ref\": \"refs/heads/main\", \"before\": \"$before\", \"after\": \"$head\",
          \"repository\": {\"full_name\": \"user/$name\", \"default_branch\": \"main\"}}"
        run "$spec" 0 act_run "$clone" push "$out/event-$spec.json" .github/workflows/serverbench.yml
      fi ;;
    no-sudo)
      fresh_user nosudo
      example_repo flask-todo
      nowrk="$out/path-without-wrk"
      rm -rf "$nowrk" && mkdir -p "$nowrk"
      for program in /usr/local/bin/* /usr/bin/* /bin/*; do
        [ "$(basename "$program")" = wrk ] || ln -sf "$program" "$nowrk/"
      done
      run no-sudo 2 as_user "$clone" env PATH="$nowrk" INPUT_PYTHON=python3 INPUT_PROJECT=. RUNNER_TEMP="/home/$user" \
        GITHUB_ACTION_PATH="$out/serverbench-tree" bash "$out/serverbench-tree/action/install.sh" ;;
    release | full:*)
      fresh_user
      work="$out/work/serverbench"
      rm -rf "$work" && git clone -q --depth 1 "file://$root" "$work" && chown -R "$user:$user" "$work"
      version=$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -1)
      workflow=${spec#*:}
      [ "$spec" = release ] && workflow=release.yml
      case "$workflow" in
        tests.yml) name=push json="{\"ref\": \"refs/heads/main\", \"before\": \"$zero\"}" ;;
        ab-gate.yml) name=pull_request json="{\"pull_request\": {\"number\": 1, \"base\": {\"ref\": \"main\"}}}" ;;
        release.yml) name=push json="{\"ref\": \"refs/tags/v$version\"}" ;;
        *) name=workflow_dispatch json="{}" ;;
      esac
      event "$out/event-$workflow.json" "$json"
      case "$spec" in
        release) run release 0 act_run "$work" "$name" "$out/event-$workflow.json" ".github/workflows/$workflow" -j build ;;
        # shellcheck disable=SC2086
        full:*) run "$spec" 0 act_run "$work" "$name" "$out/event-$workflow.json" ".github/workflows/$workflow" ${ACT_ARGS:-} ;;
      esac ;;
    steps:*)
      fresh_user
      work="$out/work/serverbench"
      # Cloned by the runner's user from its own copy: a step that runs git against origin runs it as that user, which
      # refuses an origin root owns ("dubious ownership"), and root's git cannot clone from the user's copy.
      rm -rf "$work" && install -d -o "$user" "$work" && as_user "$work" git clone -q --depth 1 "file://$out/serverbench.git" .
      IFS=: read -r _ workflow job <<<"$spec"
      python311=$(ls -d "/home/$user/.cache/act/tool_cache/Python/3.11."*/x64/bin 2>/dev/null | head -1)
      [ -n "$python311" ] || die "no Python 3.11 in PYTHONS for setup-python's 3.11"
      gobin=""  # the hosted image has Go on PATH (./run builds actionlint and toxiproxy-server with it)
      command -v go >/dev/null && gobin="$(dirname "$(readlink -f "$(command -v go)")"):"
      install -d -o "$user" "/home/$user/tmp"
      # the files a runner gives each job's steps (a step that appends to $GITHUB_STEP_SUMMARY fails without one)
      summary="/home/$user/tmp/step-summary.md"
      install -o "$user" -m 644 /dev/null "$summary"
      lock=()
      [ "${LOCKS:-0}" = 1 ] && lock=(flock /tmp/serverbench-load.lock flock -s /tmp/serverbench-quiet.lock)
      start_services "$workflow" "$job" || die "the job's service containers could not be stood in for (above)"
      # Each step may take the job's timeout-minutes, as on a runner (RUN_TIMEOUT overrides; other runs: an hour): a cold
      # mutation.yml step ran past this script's hour and was cut at 8,148 of its 8,507 mutants.
      job_timeout=$(.venv/bin/python -c 'import sys, yaml
print(int(yaml.safe_load(open(sys.argv[1]))["jobs"][sys.argv[2]].get("timeout-minutes", 60)) * 60)' ".github/workflows/$workflow" "$job")
      step_timeout=${RUN_TIMEOUT:-$job_timeout}
      number=0
      while IFS= read -r -d '' script; do
        number=$((number + 1))
        [ "$number" -ge "${FROM:-1}" ] || continue  # FROM=N: the job from its Nth run: step (a rerun after a fix)
        [ "$number" -le "${TO:-$number}" ] || break  # TO=N: up to its Nth (a step too long to take in turn)
        # shellcheck disable=SC2016  # the step's own shell expands it
        printf 'echo "step began $(date -u +%%T)"\n%s\n' "$script" >"$out/step-$number.sh" && chmod 644 "$out/step-$number.sh"
        [ ${#lock[@]} = 0 ] || flock /tmp/serverbench-turn.lock true
        user_command "$work" env PATH="$python311:/home/$user/.local/bin:$gobin/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
          CI=true GITHUB_ACTIONS=true ACT=true GITHUB_WORKSPACE="$work" RUNNER_OS=Linux RUNNER_TEMP="/home/$user/tmp" \
          GITHUB_STEP_SUMMARY="$summary" \
          pythonLocation="${python311%/bin}" LD_LIBRARY_PATH="${python311%/bin}/lib" \
          bash --noprofile --norc -eo pipefail "$out/step-$number.sh"
        run "$spec#$number" 0 "${lock[@]}" "${user_argv[@]}"
        echo "  step $number: $(sed -n 2p "$out/step-$number.sh")" >&2
        [ "$status" = 0 ] || break
      done < <(.venv/bin/python -c 'import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["jobs"][sys.argv[2]]["steps"]
sys.stdout.write("".join(step["run"] + "\0" for step in steps if "run" in step))' ".github/workflows/$workflow" "$job")
      step_timeout=""  # this job's, not the next run's
      if [ -s "$summary" ]; then  # kept: the runner's HOME goes with its user
        cp "$summary" "$out/$workflow-$job-summary.md" && echo "  the job's step summary: $out/$workflow-$job-summary.md" >&2
      fi
      stop_services ;;
    *) die "unknown run $spec (see the list at the top of $0)" ;;
  esac
done
# The runner's user goes, after what it still runs has ended (a step cut by its timeout leaves children that take
# seconds to exit; userdel refuses a user with a process, which once left the user behind).
for _ in $(seq 20); do
  pids=$(ps -u "$user" -o pid= 2>/dev/null)
  [ -z "$pids" ] && break
  # shellcheck disable=SC2086  # one word per pid
  kill $pids 2>/dev/null || true
  sleep 0.5
done
if ! userdel -r "$user" >/dev/null 2>&1 && id "$user" >/dev/null 2>&1; then
  echo "rehearse: the user $user is left (userdel failed; a process of its own may still run): userdel -r $user" >&2
fi
rm -f "/etc/sudoers.d/$user"
printf '%s\n' "${results[@]}" | tee "$out/results.txt"
! grep -q UNEXPECTED "$out/results.txt"
