# profdiff_library(NAME folder SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# Makes the library profdiff_<folder> with alias profdiff::<folder>, C++20,
# the project's warnings and the repository root as include root.
function(profdiff_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(profdiff_${name} ${ARG_SOURCES})
  add_library(profdiff::${name} ALIAS profdiff_${name})
  profdiff_target_settings(profdiff_${name})
  target_include_directories(profdiff_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(profdiff_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# Settings every profdiff target gets: C++20, warnings as errors, thread-safety analysis under clang.
function(profdiff_target_settings target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety -Werror=thread-safety)
  endif()
  target_compile_definitions(${target} PRIVATE SIMDJSON_EXCEPTIONS=0)
endfunction()

# profdiff_binary(NAME SOURCES ... DEPS ...): an executable built with the same settings.
function(profdiff_binary name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  profdiff_target_settings(${name})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
endfunction()
