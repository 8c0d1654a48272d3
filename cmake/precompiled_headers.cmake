# Precompiled headers (GPUSIZER_PCH): the third-party and standard headers most sources include,
# parsed once per target instead of once per source file. The layers share one precompiled header
# (same flags); the CLI and the test program build their own. A target with one source (each
# benchmark, each fuzz target) gains nothing and gets none.
set(GPUSIZER_PCH_LIBRARY_HEADERS
    <algorithm> <cmath> <cstdint> <map> <memory> <optional> <string> <string_view> <vector>
    <fmt/format.h> <nlohmann/json.hpp>)

function(gpusizer_precompile_library_headers target)
  if(NOT GPUSIZER_PCH)
    return()
  endif()
  # gpusizer_core is the first layer; the others reuse its precompiled header.
  if(target STREQUAL "gpusizer_core" OR NOT TARGET gpusizer_core)
    target_precompile_headers(${target} PRIVATE ${GPUSIZER_PCH_LIBRARY_HEADERS})
  else()
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      target_precompile_headers(${target} REUSE_FROM gpusizer_core)
    else()
      target_precompile_headers(${target} PRIVATE ${GPUSIZER_PCH_LIBRARY_HEADERS})
    endif()
  endif()
endfunction()

function(gpusizer_precompile_test_headers target)
  if(GPUSIZER_PCH)
    target_precompile_headers(${target} PRIVATE ${GPUSIZER_PCH_LIBRARY_HEADERS} <gtest/gtest.h>)
  endif()
endfunction()
