# Finds cpuinfo and pthreadpool by header and library (Debian ships no CMake config for
# pthreadpool, and a cross sysroot may hold only the files), and xsimd by header.
find_path(CPUINFO_INCLUDE_DIR cpuinfo.h REQUIRED)
find_library(CPUINFO_LIBRARY NAMES cpuinfo REQUIRED)
find_path(PTHREADPOOL_INCLUDE_DIR pthreadpool.h REQUIRED)
find_library(PTHREADPOOL_LIBRARY NAMES pthreadpool REQUIRED)
find_path(XSIMD_INCLUDE_DIR xsimd/xsimd.hpp REQUIRED)
find_package(Threads REQUIRED)

add_library(cpuml_deps INTERFACE)
target_include_directories(cpuml_deps SYSTEM INTERFACE ${CPUINFO_INCLUDE_DIR} ${PTHREADPOOL_INCLUDE_DIR}
                                                       ${XSIMD_INCLUDE_DIR})
target_link_libraries(cpuml_deps INTERFACE ${CPUINFO_LIBRARY} ${PTHREADPOOL_LIBRARY} Threads::Threads)
