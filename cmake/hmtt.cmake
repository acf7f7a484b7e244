# Helpers shared by every part of hmtt.
#
#   hmtt_library(NAME SOURCES ... [DEPS ...] [PUBLIC_INCLUDE dir])
#       A static library; with HMTT_SANITIZED_LIBS also NAME_asan, built with
#       ASan+UBSan, which the fuzz tier links against.
#   hmtt_test(NAME LABELS tier SOURCES ... [DEPS ...] [TIMEOUT s])
#       A doctest executable registered with ctest under the given tier label.
#   hmtt_fuzzer(NAME SOURCES harness.cpp DEPS lib_asan... CORPUS dir [RUNS n])
#       A fuzz target (LLVMFuzzerTestOneInput). Built against the standalone
#       driver (corpus replay + bounded mutation) unless HMTT_LIBFUZZER; the
#       `fuzz` tier replays the committed corpus and runs RUNS mutations.

set(HMTT_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
    -Wimplicit-fallthrough)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12 at -O3 (Release) reports false overlaps and out-of-bounds accesses
  # inside libstdc++ (GCC bugs 105329 and 107852: "literal" + std::string,
  # vector::resize then memcpy), which -Werror turned into build errors in
  # code without them. They stay warnings, printed but not fatal.
  list(APPEND HMTT_WARNINGS -Wno-error=restrict -Wno-error=array-bounds -Wno-error=stringop-overflow)
endif()
if(HMTT_WERROR)
  list(APPEND HMTT_WARNINGS -Werror)
endif()
set(HMTT_SAN_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
if(HMTT_LIBFUZZER)
  # coverage instrumentation for the libraries under test, not only the harness
  list(APPEND HMTT_SAN_FLAGS -fsanitize=fuzzer-no-link)
endif()

function(hmtt_target_defaults target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${HMTT_WARNINGS}>)
endfunction()

function(hmtt_library name)
  cmake_parse_arguments(A "" "" "SOURCES;DEPS;PUBLIC_INCLUDE" ${ARGN})
  if(NOT A_PUBLIC_INCLUDE)
    set(A_PUBLIC_INCLUDE ${CMAKE_CURRENT_SOURCE_DIR}/include)
  endif()
  set(variants ${name})
  if(HMTT_SANITIZED_LIBS)
    list(APPEND variants ${name}_asan)
  endif()
  foreach(v ${variants})
    add_library(${v} STATIC ${A_SOURCES})
    target_include_directories(${v} PUBLIC ${A_PUBLIC_INCLUDE})
    hmtt_target_defaults(${v})
    set(deps)
    foreach(d ${A_DEPS})
      if(v MATCHES "_asan$" AND TARGET ${d}_asan)
        list(APPEND deps ${d}_asan)
      else()
        list(APPEND deps ${d})
      endif()
    endforeach()
    target_link_libraries(${v} PUBLIC ${deps})
    if(v MATCHES "_asan$")
      target_compile_options(${v} PUBLIC ${HMTT_SAN_FLAGS})
      target_link_options(${v} PUBLIC ${HMTT_SAN_FLAGS})
      set_target_properties(${v} PROPERTIES EXCLUDE_FROM_ALL OFF)
    endif()
  endforeach()
endfunction()

function(hmtt_test name)
  cmake_parse_arguments(A "" "TIMEOUT" "LABELS;SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE hmtt_doctest_main ${A_DEPS})
  hmtt_target_defaults(${name})
  add_test(NAME ${name} COMMAND ${name})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${A_LABELS}" TIMEOUT ${A_TIMEOUT})
endfunction()

function(hmtt_fuzzer name)
  cmake_parse_arguments(A "" "CORPUS;RUNS" "SOURCES;DEPS" ${ARGN})
  if(NOT A_RUNS)
    set(A_RUNS 20000)
  endif()
  add_executable(${name} ${A_SOURCES})
  hmtt_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${A_DEPS})
  if(HMTT_LIBFUZZER)
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  else()
    target_link_libraries(${name} PRIVATE hmtt_fuzz_driver)
    target_compile_options(${name} PRIVATE ${HMTT_SAN_FLAGS})
    target_link_options(${name} PRIVATE ${HMTT_SAN_FLAGS})
  endif()
  add_test(NAME ${name} COMMAND ${name} -runs=${A_RUNS} -max_len=65536 -seed=1 ${A_CORPUS})
  set_tests_properties(${name} PROPERTIES LABELS fuzz TIMEOUT 300)
endfunction()
