# Profile-guided optimisation through btforge_options (scripts/build-pgo.sh runs the steps):
# GENERATE builds btforge instrumented, each run adding to the profile in BTFORGE_PGO_DIR; USE
# builds it optimised with that profile, in the same build directory (GCC names a profile after
# its object file's path). docs/performance.md has what it gains, and why LTO is not offered.
set(BTFORGE_PGO "" CACHE STRING "Profile-guided optimisation: GENERATE or USE (scripts/build-pgo.sh)")
set_property(CACHE BTFORGE_PGO PROPERTY STRINGS "" GENERATE USE)
set(BTFORGE_PGO_DIR "${CMAKE_BINARY_DIR}/pgo-profile" CACHE PATH
    "Where BTFORGE_PGO=GENERATE writes the profile and BTFORGE_PGO=USE reads it")

if(BTFORGE_PGO)
  if(NOT BTFORGE_PGO MATCHES "^(GENERATE|USE)$")
    message(FATAL_ERROR "BTFORGE_PGO is '${BTFORGE_PGO}': it takes GENERATE or USE")
  endif()
  if(BTFORGE_SANITIZE OR BTFORGE_FUZZ)
    message(FATAL_ERROR "BTFORGE_PGO is for release builds, not with BTFORGE_SANITIZE or BTFORGE_FUZZ")
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "^(GNU|Clang)$")
    message(FATAL_ERROR "BTFORGE_PGO needs GCC or clang, not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(BTFORGE_PGO STREQUAL "GENERATE")
    set(_pgo -fprofile-generate=${BTFORGE_PGO_DIR})
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # Atomic counters: the units of a run are read on several threads at once.
      list(APPEND _pgo -fprofile-update=atomic)
    endif()
    target_link_options(btforge_options INTERFACE -fprofile-generate=${BTFORGE_PGO_DIR})
  elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    file(GLOB_RECURSE _profiles ${BTFORGE_PGO_DIR}/*.gcda)
    if(NOT _profiles)
      message(FATAL_ERROR "BTFORGE_PGO=USE: no profile (*.gcda) in ${BTFORGE_PGO_DIR}: build with "
                          "BTFORGE_PGO=GENERATE and run btforge first (scripts/build-pgo.sh)")
    endif()
    # What the training never ran is optimised as without a profile, not for size: btforge also
    # meets inputs the training did not show it (other architectures, other compilers' DWARF).
    # Counters of threads that ran at once may disagree slightly: corrected, not refused.
    set(_pgo -fprofile-use=${BTFORGE_PGO_DIR} -fprofile-partial-training -fprofile-correction
             -Wno-missing-profile)
  else()
    set(_profdata ${BTFORGE_PGO_DIR}/btforge.profdata)
    if(NOT EXISTS ${_profdata})
      message(FATAL_ERROR "BTFORGE_PGO=USE: no ${_profdata}: build with BTFORGE_PGO=GENERATE, run "
                          "btforge and merge its *.profraw with llvm-profdata (scripts/build-pgo.sh)")
    endif()
    set(_pgo -fprofile-use=${_profdata} -Wno-profile-instr-unprofiled)
  endif()
  target_compile_options(btforge_options INTERFACE ${_pgo})
  message(STATUS "Profile-guided optimisation: ${BTFORGE_PGO} (${BTFORGE_PGO_DIR})")
endif()
