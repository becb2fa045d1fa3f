#!/usr/bin/env bash
# What an engine sees: installs the build in BUILD_DIR into a temporary prefix, checks that the
# public headers compile as strict C99 and C++, then builds the examples/ as a separate project
# against the installed package four ways (find_package and pkg-config, each shared and static)
# and runs every example. Usage: scripts/consumer_test.sh BUILD_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"
cmake --install "$BUILD" --prefix "$PREFIX" > /dev/null
LIBDIR=$(dirname "$(find "$PREFIX" -name libcpuml.a)")
echo "installed: $(cd "$PREFIX" && find . -type f -o -type l | sort | tr '\n' ' ')"

# The public header alone, as strict C99 and C++11 (cpuml.hpp: C++14).
echo '#include <cpuml/cpuml.h>' > "$WORK/header.c"
cc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$PREFIX/include" "$WORK/header.c"
printf '#include <cpuml/cpuml.h>\n#include <cpuml/cpuml.hpp>\n' > "$WORK/header.cc"
c++ -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$PREFIX/include" -x c++ - <<< '#include <cpuml/cpuml.h>'
c++ -std=c++14 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$PREFIX/include" "$WORK/header.cc"
echo "headers: cpuml.h compiles as -std=c99 -pedantic and -std=c++11 -pedantic; cpuml.hpp as -std=c++14 -pedantic"

# Runs every example in $1; $2 says whether libcpuml.so must be loaded (shared) or absent (static).
run_examples() {
  local dir=$1 linkage=$2
  for example in fill_constant fill_sequence quantized_linear dynamic_linear int4_linear; do
    local needs_shared=no
    readelf -d "$dir/$example" | grep -q 'NEEDED.*libcpuml\.so' && needs_shared=yes
    if [ "$linkage" = shared ] && [ $needs_shared = no ]; then echo "$dir/$example: not linked to libcpuml.so"; return 1; fi
    if [ "$linkage" = static ] && [ $needs_shared = yes ]; then echo "$dir/$example: loads libcpuml.so"; return 1; fi
    LD_LIBRARY_PATH="$LIBDIR" "$dir/$example"
  done
}

for linkage in shared static; do
  static=OFF; [ $linkage = static ] && static=ON
  cmake -S "$ROOT/examples" -B "$WORK/cmake-$linkage" -DCMAKE_PREFIX_PATH="$PREFIX" -DCPUML_EXAMPLES_STATIC=$static > /dev/null
  cmake --build "$WORK/cmake-$linkage" -j "$(nproc)" > /dev/null
  echo "--- find_package(cpuml), $linkage"
  run_examples "$WORK/cmake-$linkage" $linkage

  make_static=0; [ $linkage = static ] && make_static=1
  PKG_CONFIG_PATH="$LIBDIR/pkgconfig" make -s -f "$ROOT/examples/Makefile" OUT="$WORK/pc-$linkage" STATIC=$make_static
  echo "--- pkg-config cpuml ($(PKG_CONFIG_PATH="$LIBDIR/pkgconfig" pkg-config --modversion cpuml)), $linkage"
  run_examples "$WORK/pc-$linkage" $linkage
done

echo "--- CPUML_VERBOSE=1 quantized_linear"
CPUML_VERBOSE=1 LD_LIBRARY_PATH="$LIBDIR" "$WORK/cmake-shared/quantized_linear"
echo "consumer builds: find_package and pkg-config, shared and static: all examples passed"
