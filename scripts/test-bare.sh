#!/usr/bin/env bash
# Runs the tests as on a machine with only Node and npm: a fresh clone of this repository's HEAD in a
# private temporary folder (mktemp -d, mode 0700), `npm ci`, then `npm test`, in a mount namespace
# (unshare -m) where the system packages the tests may use are hidden: gnome-keyring, secret-tool,
# dbus-run-session, libfaketime, python3, zsh, fish, tmux and bash-completion. The tests that need
# them are skipped, each with a note naming its package; with --require-all
# (TRIGGER_TEST_REQUIRE_ALL=1, as .ci/run sets) they fail instead.
#
# Usage (as root, which unshare -m and the mounts need):
#   scripts/test-bare.sh [--require-all] [arguments for vitest, e.g. test files or --reporter=verbose]
# Only committed work is tested (it is a clone). Nothing outside the namespace is changed: the
# packages are hidden by mounts that end with it, and the clone is removed at the end.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

if [ "${TRIGGER_BARE_INSIDE:-}" != 1 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: $0 needs root for unshare -m and its mounts: run it with sudo" >&2
    exit 2
  fi
  exec unshare --mount --propagation private env TRIGGER_BARE_INSIDE=1 "$0" "$@"
fi

require_all=0
if [ "${1:-}" = --require-all ]; then
  require_all=1
  shift
fi

# A program is hidden by mounting /dev/null over it (a character device: not a file anyone can run),
# a folder by mounting an empty tmpfs over it. The mounts live in this namespace only.
hide_program() {
  local dir file
  IFS=: read -ra dirs <<<"$PATH"
  for dir in "${dirs[@]}" /usr/bin /usr/sbin /bin /sbin; do
    [ -n "$dir" ] && [ -e "$dir/$1" ] || continue
    file="$(readlink -f "$dir/$1")"
    [ -f "$file" ] && mount --bind /dev/null "$file"
  done
  return 0
}
hide_folder() {
  if [ -d "$1" ]; then mount -t tmpfs -o size=16k,mode=0755 tmpfs "$1"; fi
}
for program in gnome-keyring-daemon secret-tool dbus-run-session python3 zsh fish tmux; do hide_program "$program"; done
for lib in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib /usr/local/lib; do hide_folder "$lib/faketime"; done
hide_folder /usr/share/bash-completion

echo "== hidden in this namespace:"
for program in gnome-keyring-daemon secret-tool dbus-run-session python3 zsh fish tmux; do
  if [ -x "$(command -v "$program" || true)" ] && [ -f "$(command -v "$program")" ]; then
    echo "error: $program is still here" >&2
    exit 1
  fi
  echo "   $program: gone"
done
for file in /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 /usr/share/bash-completion/bash_completion; do
  if [ -e "$file" ]; then
    echo "error: $file is still here" >&2
    exit 1
  fi
  echo "   $file: gone"
done

work="$(mktemp -d)" # mode 0700: a user other than this one cannot read the clone
trap 'rm -rf "$work"' EXIT
echo "== a fresh clone in $work (mode $(stat -c %a "$work"))"
git clone -q "$repo" "$work/trigger"
cd "$work/trigger"
npm ci --no-audit --no-fund --prefer-offline --loglevel=error
unset CI TRIGGER_TEST_REQUIRE_ALL
if [ "$require_all" = 1 ]; then export TRIGGER_TEST_REQUIRE_ALL=1; fi
echo "== npm test $* (TRIGGER_TEST_REQUIRE_ALL=${TRIGGER_TEST_REQUIRE_ALL:-unset}) on Node $(node --version)"
npm test -- "$@"
