#!/bin/sh
# Writes a seed corpus of small ELF files with DWARF for dwarf-loader-fuzz into DIR, built from
# dwarf-seeds-src/ by gcc and clang: relocatable objects (relocated in memory: by the loader
# itself, also for a big-endian and a 32-bit SHT_REL target, or by libdwfl) and shared objects
# (read directly), DWARF 4 and 5, with and without optimisation, and
# the variants users have: compressed sections (also .zdebug_) and type units (also in COMDAT
# sections of relocatable objects).
# CC, CXX, CLANG and CLANGXX override the compilers (default gcc, g++, clang-19, clang++-19).
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
src=$(cd "$(dirname "$0")" && pwd)/dwarf-seeds-src
gcc=${CC:-gcc}
gxx=${CXX:-g++}
clang=${CLANG:-clang-19}
clangxx=${CLANGXX:-clang++-19}
mkdir -p "$dir"

# Smaller inputs fuzz faster: no unwind tables, build id or page-aligned code.
small="-fno-asynchronous-unwind-tables -Wl,--build-id=none -Wl,-z,noseparate-code -w"
for name in shapes functions; do
	in=$src/$name.c
	"$gcc" -g -O0 -w -fno-asynchronous-unwind-tables -c "$in" -o "$dir/$name-gcc5-O0.o"
	"$gcc" -g -gdwarf-4 -O2 -w -fno-asynchronous-unwind-tables -c "$in" -o "$dir/$name-gcc4-O2.o"
	"$clang" -g -O1 -w -fno-asynchronous-unwind-tables -c "$in" -o "$dir/$name-clang5-O1.o"
	"$gcc" -g -O2 -fPIC -shared -nostdlib $small "$in" -o "$dir/$name-gcc5-O2.so"
done
"$clang" --target=s390x-linux-gnu -g -O1 -w -c "$src/shapes.c" -o "$dir/shapes-clang5-s390x.o"
"$clang" --target=i686-linux-gnu -g -gdwarf-4 -O1 -w -c "$src/functions.c" \
	-o "$dir/functions-clang4-i686.o"
"$gcc" -g -O0 -gz=zlib -w -fno-asynchronous-unwind-tables -c "$src/functions.c" \
	-o "$dir/functions-gcc5-zlib.o"
"$gcc" -g -O0 -gz=zlib-gnu -w -fno-asynchronous-unwind-tables -c "$src/shapes.c" \
	-o "$dir/shapes-gcc5-zlib-gnu.o"
"$gcc" -g -gdwarf-4 -fdebug-types-section -fPIC -shared -nostdlib $small "$src/shapes.c" \
	-o "$dir/shapes-gcc4-type-units.so"
# Relocatable objects keep a COMDAT section per type unit (.debug_types; DWARF 5: .debug_info).
for version in 4 5; do
	"$gcc" -g -gdwarf-$version -fdebug-types-section -w -fno-asynchronous-unwind-tables -c \
		"$src/shapes.c" -o "$dir/shapes-gcc$version-type-units.o"
done
"$gxx" -g -O0 -w -fno-asynchronous-unwind-tables -c "$src/classes.cpp" -o "$dir/classes-g++5-O0.o"
"$clangxx" -g -gdwarf-4 -fdebug-types-section -O1 -fPIC -shared -nostdlib $small \
	"$src/classes.cpp" -o "$dir/classes-clang4-type-units.so"
ls -l "$dir"
