# The HTTP server (src/server) and the web page (web/dist) it serves. Included from the top-level
# CMakeLists.txt once the library, CLI and test targets exist.
#
# The transport is libmicrohttpd (Debian's libmicrohttpd-dev): an epoll event loop on a pool of
# threads, so slow or idle clients hold a socket, not a worker. cpp-httplib stays only for the
# test, soak and load clients, which are clients.
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd)
# Debian's libcpp-httplib-dev: the header plus a compiled library; pkg-config carries the
# CPPHTTPLIB_*_SUPPORT definitions the library was built with (they change its class layout).
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)

# The server is a face: its own static library above the report layer, linked by the CLI and the
# tests, not part of the installed gpusizer::gpusizer; libmicrohttpd stays private to it.
gpusizer_layer(server DIRS server DEPS gpusizer_report PRIVATE_DEPS PkgConfig::MHD Threads::Threads)
list(REMOVE_ITEM GPUSIZER_LAYERS gpusizer_server)
target_link_libraries(gpusizer PRIVATE gpusizer_server)
if(TARGET gpusizer_tests)
  # src/server/*_test.cc drive the live server with cpp-httplib's client.
  target_link_libraries(gpusizer_tests PRIVATE gpusizer_server PkgConfig::HTTPLIB Threads::Threads)
endif()

# The page's built files, compiled in (embedded::web_files()). Re-globbed at every build, so
# running scripts/build_web.sh and then the build picks up a new bundle; without web/dist the table
# is empty and "/" says the bundle was not built.
set(GPUSIZER_WEB_DIST ${PROJECT_SOURCE_DIR}/web/dist)
file(GLOB_RECURSE GPUSIZER_WEB_FILES CONFIGURE_DEPENDS ${GPUSIZER_WEB_DIST}/*)
list(FILTER GPUSIZER_WEB_FILES EXCLUDE REGEX "\\.map$")
list(SORT GPUSIZER_WEB_FILES)
gpusizer_embed(gpusizer_server
  FUNCTION web_files
  ROOT ${GPUSIZER_WEB_DIST}
  OUTPUT ${PROJECT_BINARY_DIR}/generated/web_assets.cc
  COMMENT "Embedding the web page (${GPUSIZER_WEB_DIST})"
  FILES ${GPUSIZER_WEB_FILES})

# The API's OpenAPI document (src/server/openapi.json), compiled in (embedded::server_files()).
gpusizer_embed(gpusizer_server
  FUNCTION server_files
  ROOT ${PROJECT_SOURCE_DIR}/src/server
  OUTPUT ${PROJECT_BINARY_DIR}/generated/server_files.cc
  COMMENT "Embedding the OpenAPI document"
  FILES ${PROJECT_SOURCE_DIR}/src/server/openapi.json)

# A loopback load generator for POST /api/v1/estimate (bench/load_client.cc).
if(GPUSIZER_BUILD_BENCH AND EXISTS ${PROJECT_SOURCE_DIR}/bench/load_client.cc)
  add_executable(gpusizer_load ${PROJECT_SOURCE_DIR}/bench/load_client.cc)
  target_link_libraries(gpusizer_load PRIVATE gpusizer_lib gpusizer_server PkgConfig::HTTPLIB
                        Threads::Threads)
  target_compile_options(gpusizer_load PRIVATE ${GPUSIZER_WARNINGS})
endif()

# A bounded soak of `gpusizer serve` on loopback (tests/soak/soak.cc, run by tests/soak/run_soak.sh).
if(GPUSIZER_BUILD_TESTS)
  add_executable(gpusizer_soak ${PROJECT_SOURCE_DIR}/tests/soak/soak.cc)
  target_link_libraries(gpusizer_soak PRIVATE PkgConfig::HTTPLIB Threads::Threads)
  target_compile_options(gpusizer_soak PRIVATE ${GPUSIZER_WARNINGS})
  add_dependencies(gpusizer_soak gpusizer)
endif()
