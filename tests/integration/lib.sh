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
# Fails unless the kernel accepts the BTF file (BPF_BTF_LOAD); passes when it cannot be asked.
require_kernel_accepts() {
    local verdict
    set +e
    "$BTF_ORACLE" load "$1"
    verdict=$?
    set -e
    [ "$verdict" = 0 ] || [ "$verdict" = "$SKIP" ] || fail "the kernel rejects $1"
}
