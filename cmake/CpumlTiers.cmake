# The kernel tiers built for the target architecture, one cpuml_add_tier line each (the tier's
# registry line is in kernels/registry.h). Each tier folder is compiled with its own ISA flags and
# nothing else; CPUML_TIER_FLAGS_<tier> keeps them for the benchmark's peak probes.
#
#   cpuml_add_tier(<tier> FLAGS <flags...> [FILL_FLAGS <flags...>] SOURCES <files in kernels/<tier>/...>)
#
# FILL_FLAGS compiles the tier's fill_*.cc and quantize_*.cc with fewer features than its GEMM kernels need, so a
# CPU with the fill instructions but not the GEMM ones can use its fills (dispatch's fill check).
set(CPUML_TIER_SOURCES)
set(CPUML_TIERS)

function(cpuml_add_tier name)
  cmake_parse_arguments(TIER "" "" "FLAGS;FILL_FLAGS;SOURCES" ${ARGN})
  set(sources)
  foreach(file IN LISTS TIER_SOURCES)
    set(path ${PROJECT_SOURCE_DIR}/kernels/${name}/${file})
    if(TIER_FILL_FLAGS AND file MATCHES "^(fill|quantize)_")
      set_source_files_properties(${path} PROPERTIES COMPILE_OPTIONS "${TIER_FILL_FLAGS}")
    else()
      set_source_files_properties(${path} PROPERTIES COMPILE_OPTIONS "${TIER_FLAGS}")
    endif()
    list(APPEND sources ${path})
  endforeach()
  set(CPUML_TIER_SOURCES ${CPUML_TIER_SOURCES} ${sources} PARENT_SCOPE)
  set(CPUML_TIERS ${CPUML_TIERS} ${name} PARENT_SCOPE)
  set(CPUML_TIER_FLAGS_${name} "${TIER_FLAGS}" PARENT_SCOPE)
endfunction()

# GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on their own _mm512_undefined_*() (GCC bug
# 105593), so that one warning is off where AVX-512 is on.
set(CPUML_NO_AVX512_HEADER_WARNING)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(CPUML_NO_AVX512_HEADER_WARNING -Wno-maybe-uninitialized)
endif()

cpuml_add_tier(scalar SOURCES tier.cc fill_scalar.cc quantize_scalar.cc qgemm_s8u4_4x16c8_scalar.cc qgemm_x16_4x4c2_scalar.cc)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  cpuml_add_tier(sse41 FLAGS -msse4.1 SOURCES tier.cc fill_sse41.cc quantize_sse41.cc qgemm_s8u4_4x8c8_sse41.cc qgemm_x16_4x8c2_sse41.cc)
  cpuml_add_tier(avx2 FLAGS -mavx2 -mfma -mf16c SOURCES tier.cc fill_avx2.cc quantize_avx2.cc qgemm_s8u4_4x16c8_avx2.cc qgemm_u8s8_1x16c4_avx2.cc qgemm_u8s7_6x16c4_avx2.cc
    qgemm_x16_6x16c2_avx2.cc)
  cpuml_add_tier(avxvnni FLAGS -mavx2 -mfma -mf16c -mavxvnni SOURCES tier.cc qgemm_s8u4_4x16c8_avxvnni.cc qgemm_u8s8_6x16c4_avxvnni.cc)
  cpuml_add_tier(avx512vnni
    FLAGS -mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx512vl -mavx512vnni -mavx2 -mfma -mf16c ${CPUML_NO_AVX512_HEADER_WARNING}
    FILL_FLAGS -mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx512vl -mavx2 -mfma -mf16c ${CPUML_NO_AVX512_HEADER_WARNING}
    SOURCES tier.cc fill_avx512vnni.cc quantize_avx512vnni.cc qgemm_s8u4_4x64c8_avx512vnni.cc
            qgemm_u8s8_12x32c4_avx512vnni.cc)
  cpuml_add_tier(amx
    FLAGS -mamx-tile -mamx-int8 -mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx512vl -mavx512vnni -mgfni -mavx2 -mfma -mf16c
          ${CPUML_NO_AVX512_HEADER_WARNING}
    SOURCES tier.cc qgemm_u8s8_32x32c64_amx.cc qgemm_s8u4_32x32c8_amx.cc)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  cpuml_add_tier(neon SOURCES tier.cc fill_neon.cc quantize_neon.cc qgemm_s8u4_2x8c8_neon.cc qgemm_s8s8_2x8c16_neon.cc requantize_neon.cc)  # NEON is baseline
  cpuml_add_tier(neon_dotprod FLAGS -march=armv8.2-a+dotprod SOURCES tier.cc qgemm_s8u4_4x16c8_neondot.cc qgemm_s8s8_8x8c4_neondot.cc)
  cpuml_add_tier(neon_i8mm FLAGS -march=armv8.2-a+dotprod+i8mm SOURCES tier.cc qgemm_s8s8_8x8c8_neoni8mm.cc)
endif()
