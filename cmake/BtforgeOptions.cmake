# Warnings, sanitizers and profile-guided optimisation applied to every btforge target through
# this interface library.
add_library(btforge_options INTERFACE)
target_compile_options(btforge_options INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)

if(BTFORGE_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_compile_options(btforge_options INTERFACE ${_san})
  target_link_options(btforge_options INTERFACE ${_san})
endif()

include(BtforgePgo)

# btforge_add_plugin, as the installed SDK has it, for the plugins built here.
include(BtforgePlugin)
