# Every dependency is a Debian bookworm package; scripts/install-deps.sh installs them. These are
# what btforge itself builds with (the README lists their packages); the tests find their own
# (tests/CMakeLists.txt), and the llvm-dwarf loader is built when LLVM 19 is there.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
# libdw-dev: the dwarf loader links libdw; core uses only its <dwarf.h> (the DWARF constants).
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
# Boost.JSON (the json loader) came with 1.75; bookworm has it only in 1.81.
# Boost.Program_options (the CLI) is linked into the btforge executable from the archive the same
# package ships: as a shared library its loading and relocation cost every run about 5 % of a
# small module's time, and a kernel build starts btforge once per module.
set(Boost_USE_STATIC_LIBS ON)
find_package(Boost 1.81 REQUIRED COMPONENTS program_options)
set(Boost_USE_STATIC_LIBS OFF)
find_package(Boost 1.81 REQUIRED COMPONENTS json)
find_package(Threads REQUIRED)
