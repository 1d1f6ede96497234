#!/usr/bin/env bash
# kernel-e2e.sh ARCH: scripts/kernel-e2e.sh ARCH (a kernel built with btforge, booted in qemu)
# when BTFORGE_KERNEL_E2E=1; skipped otherwise, as it takes minutes and needs root.
set -euo pipefail
[ "${BTFORGE_KERNEL_E2E:-}" = 1 ] || { echo "SKIP: set BTFORGE_KERNEL_E2E=1 to run"; exit 77; }
exec "$(dirname "$0")/../../scripts/kernel-e2e.sh" "$@"
