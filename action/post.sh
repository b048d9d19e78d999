#!/usr/bin/env bash
# The pull request's one comment, from DIR/comment.md when DIR/result.json says post: the comment whose body holds
# its marker line (comment.md's first line) is updated, else one is made, with the GitHub CLI (GH_TOKEN).
# A pull request from a fork gets nothing here (its token cannot write): the summary says comment.md is in the
# artifact, which the workflow_run pattern posts (comment/action.yml, which runs this with --from-artifact).
# A token that cannot write, or no gh, is a warning: the verdict still sets the job's status.
#
#     post.sh DIR [--from-artifact]
set -uo pipefail
dir=${1:?usage: post.sh DIR [--from-artifact]}
SB_OUT=${SB_OUT:-$dir}
# shellcheck source=action/common.sh
. "$(dirname "$0")/common.sh"
[ "${2:-}" != --from-artifact ] || summary=${GITHUB_STEP_SUMMARY:-/dev/null}  # the artifact's own copy stays as it was
result="$dir/result.json"
[ -s "$result" ] || { echo "serverbench: no $result: nothing to post" >&2; exit 0; }
post=$(jq -r '.post' "$result")
fork=$(jq -r '.fork' "$result")
pr=$(jq -r '.pull_request // empty' "$result")
if [ "$post" != true ] || [ -z "$pr" ]; then
  echo "serverbench: no comment to post (post: $post, pull request: ${pr:-none})" >&2
  exit 0
fi
if [ "$fork" = true ] && [ "${2:-}" != --from-artifact ]; then
  say "A pull request from a fork: its token cannot comment, so nothing is posted from this job." \
    "The comment (comment.md) is in this job's artifact; the workflow_run pattern posts it from the base repository" \
    "(serverbench's comment action in a workflow run on \`workflow_run\`)." ""
  exit 0
fi
if ! command -v gh >/dev/null 2>&1; then
  annotate warning "serverbench: the comment was not posted: gh (the GitHub CLI) is not on this runner's PATH; install it, or read comment.md in the artifact"
  exit 0
fi

warn() {  # warn STDERR_FILE: a post that failed, said as a warning naming the fix
  local why
  why=$(grep -v '^[[:space:]]*$' "$1" | tail -n 1)
  if grep -q 'HTTP 403' "$1"; then
    annotate warning "serverbench: the token cannot comment on pull requests ($why): give the job \`permissions: pull-requests: write\`; a pull request from a fork needs the workflow_run pattern"
    say "The comment was not posted: the token cannot write (HTTP 403). Give the job \`permissions: pull-requests: write\`." ""
  else
    annotate warning "serverbench: the comment was not posted: $why"
    say "The comment was not posted: $why" ""
  fi
  exit 0
}

repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}
body="$dir/comment.md"
marker=$(head -n 1 "$body")
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
id=$(gh api --paginate "repos/$repo/issues/$pr/comments" \
  --jq ".[] | select(.body | contains($(jq -Rn --arg m "$marker" '$m'))) | .id" 2>"$errors" | head -n 1) || warn "$errors"
if [ -n "$id" ]; then
  url=$(gh api -X PATCH "repos/$repo/issues/comments/$id" -F "body=@$body" --jq .html_url 2>"$errors") || warn "$errors"
  echo "serverbench: comment updated: $url" >&2
else
  url=$(gh api -X POST "repos/$repo/issues/$pr/comments" -F "body=@$body" --jq .html_url 2>"$errors") || warn "$errors"
  echo "serverbench: comment posted: $url" >&2
fi
