# Cross build for 64-bit Arm with Debian's g++-aarch64-linux-gnu.
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake -DCPUML_ARM64_SYSROOT=<dir>
# CPUML_ARM64_SYSROOT holds the arm64 cpuinfo and pthreadpool packages unpacked with dpkg -x
# (libcpuinfo-dev:arm64 cannot be installed beside the amd64 one); libgtest-dev:arm64 and the
# header-only xsimd come from the multiarch system itself.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CPUML_ARM64_SYSROOT "" CACHE PATH "dpkg -x folder of the arm64 cpuinfo and pthreadpool packages")
set(CMAKE_FIND_ROOT_PATH ${CPUML_ARM64_SYSROOT} / /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
