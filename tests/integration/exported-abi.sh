#!/usr/bin/env bash
# exported-abi.sh LIBRARY INCLUDE_DIR: libbtforge-core.so exports nothing the installed headers
# do not declare (the SDK is exactly what is exported), and its symbols carry the version node of
# libbtforge-core.map. Each exported symbol's class, or its function when it belongs to none, must
# be declared in a header under INCLUDE_DIR (what `cmake --install` installs).
source "$(dirname "$0")/lib.sh"
library=$1 include=$2
require_file "$library"
command -v nm > /dev/null || skip "nm is not installed"
nm -D --defined-only "$library" > "$work/versioned" || fail "nm cannot read $library"
grep -q '@@BTFORGE_0\.' "$work/versioned" || fail "the exported symbols carry no BTFORGE_0.x version"
nm -D --defined-only -C "$library" | awk '$2 ~ /^[TWVDBRu]$/ { $1 = ""; $2 = ""; sub(/^  /, ""); print }' \
    > "$work/exported"
[ "$(wc -l < "$work/exported")" -gt 50 ] || fail "only $(wc -l < "$work/exported") symbols exported?"
python3 - "$work/exported" "$include" > "$work/undeclared" << 'PY'
import pathlib, re, sys
headers = "\n".join(p.read_text() for p in pathlib.Path(sys.argv[2]).rglob("*.h"))
namespaces = set(re.findall(r"namespace\s+([\w:]+)", headers))
namespaces = {part for ns in namespaces for part in ns.split("::")} | {"std"}
def declared(name, is_class):
    if is_class:
        return re.search(r"\b(class|struct|union|enum class|enum)\s+(BTFORGE_API\s+)?(alignas\([^)]*\)\s+)?" + re.escape(name) + r"\b", headers)
    return re.search(r"\b" + re.escape(name) + r"\s*\(", headers) or re.search(r"\b" + re.escape(name) + r"\s*(=|;|\{|\[)", headers)
for line in open(sys.argv[1]):
    symbol = re.sub(r"@@?[\w.]+$", "", line.strip())
    symbol = re.sub(r"^(typeinfo name for|typeinfo for|vtable for|VTT for|guard variable for|non-virtual thunk to|virtual thunk to) ", "", symbol)
    symbol = symbol.replace("[abi:cxx11]", "")
    while re.search(r"<[^<>]*>", symbol):
        symbol = re.sub(r"<[^<>]*>", "", symbol)
    symbol = symbol.split("(")[0].strip()
    if symbol.endswith(" const"):
        symbol = symbol[:-6]
    parts = [p for p in symbol.split("::") if p]
    if not parts or parts[0] != "btforge":
        print("outside namespace btforge: " + line.strip())
        continue
    rest = parts[1:]
    while rest and rest[0] in namespaces and len(rest) > 1:
        rest = rest[1:]
    if not rest:
        continue
    name = rest[0].split(" ")[-1]
    is_class = len(rest) > 1 or line.startswith(("typeinfo", "vtable", "VTT"))
    if name.startswith("operator"):
        continue
    if not declared(name, is_class):
        print(("class " if is_class else "") + name + ": " + line.strip())
PY
if [ -s "$work/undeclared" ]; then
    cat "$work/undeclared"
    fail "libbtforge-core.so exports what no installed header declares"
fi
echo "exported-abi: $(wc -l < "$work/exported") symbols, each declared in an installed header"
