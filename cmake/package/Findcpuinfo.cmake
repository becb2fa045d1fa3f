# Finds libcpuinfo by header and library: cpuinfo::cpuinfo. Used instead of cpuinfo's own CMake
# package, whose Debian 12 build points its targets at /usr/lib/lib/... and fails to load.
find_path(cpuinfo_INCLUDE_DIR cpuinfo.h)
find_library(cpuinfo_LIBRARY NAMES cpuinfo)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(cpuinfo REQUIRED_VARS cpuinfo_LIBRARY cpuinfo_INCLUDE_DIR)
if(cpuinfo_FOUND AND NOT TARGET cpuinfo::cpuinfo)
  add_library(cpuinfo::cpuinfo UNKNOWN IMPORTED)
  set_target_properties(cpuinfo::cpuinfo PROPERTIES IMPORTED_LOCATION ${cpuinfo_LIBRARY}
                                                    INTERFACE_INCLUDE_DIRECTORIES ${cpuinfo_INCLUDE_DIR})
endif()
mark_as_advanced(cpuinfo_INCLUDE_DIR cpuinfo_LIBRARY)
