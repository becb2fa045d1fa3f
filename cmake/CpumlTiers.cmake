# The kernel tiers built for the target architecture. Each tier folder is compiled with its own
# ISA flags and nothing else; CPUML_BUILD_<TIER> tells dispatch which tables exist.
set(CPUML_TIER_SOURCES)
set(CPUML_TIER_DEFINITIONS)

function(cpuml_add_tier name flags)
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/${name}/*.cc)
  set_source_files_properties(${sources} PROPERTIES COMPILE_OPTIONS "${flags}")
  string(TOUPPER ${name} upper)
  set(CPUML_TIER_SOURCES ${CPUML_TIER_SOURCES} ${sources} PARENT_SCOPE)
  set(CPUML_TIER_DEFINITIONS ${CPUML_TIER_DEFINITIONS} CPUML_BUILD_${upper} PARENT_SCOPE)
endfunction()

cpuml_add_tier(scalar "")
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  cpuml_add_tier(sse41 "-msse4.1")
  cpuml_add_tier(avx2 "-mavx2;-mf16c")
  # GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on their own _mm512_undefined_*()
  # (GCC bug 105593), so that one warning is off for this tier.
  set(avx512_flags "-mavx512f;-mavx512cd;-mavx512dq;-mavx512bw;-mavx512vl;-mavx512vnni;-mavx2;-mf16c")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND avx512_flags -Wno-maybe-uninitialized)
  endif()
  cpuml_add_tier(avx512vnni "${avx512_flags}")
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  cpuml_add_tier(neon "")  # NEON is part of the AArch64 baseline
  cpuml_add_tier(neon_dotprod "-march=armv8.2-a+dotprod")
  cpuml_add_tier(neon_i8mm "-march=armv8.2-a+dotprod+i8mm")
endif()
