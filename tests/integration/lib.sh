# Shared by the integration scripts: tool paths come from the environment CTest sets.
set -euo pipefail
: "${BTFORGE:?}" "${BTF_ORACLE:?}" "${BPFTOOL:?}"

SKIP=77
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
skip() {
    echo "SKIP: $*"
    exit "$SKIP"
}
require_file() {
    [ -r "$1" ] || skip "$1 is not here${2:+ ($2)}"
}
