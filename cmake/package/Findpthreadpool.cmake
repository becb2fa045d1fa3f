# Finds libpthreadpool (Debian ships no CMake package for it): pthreadpool::pthreadpool.
find_path(pthreadpool_INCLUDE_DIR pthreadpool.h)
find_library(pthreadpool_LIBRARY NAMES pthreadpool)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(pthreadpool REQUIRED_VARS pthreadpool_LIBRARY pthreadpool_INCLUDE_DIR)
if(pthreadpool_FOUND AND NOT TARGET pthreadpool::pthreadpool)
  add_library(pthreadpool::pthreadpool UNKNOWN IMPORTED)
  set_target_properties(pthreadpool::pthreadpool PROPERTIES IMPORTED_LOCATION ${pthreadpool_LIBRARY}
                                                            INTERFACE_INCLUDE_DIRECTORIES ${pthreadpool_INCLUDE_DIR})
endif()
mark_as_advanced(pthreadpool_INCLUDE_DIR pthreadpool_LIBRARY)
