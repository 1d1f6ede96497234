// Boost.JSON compiled into the fuzz target (header-only form), so that coverage and the sanitizers
// reach its parser too.
#include <boost/json/src.hpp>
