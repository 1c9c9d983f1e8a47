# Helpers that turn the layout of src/arbiter/ into targets, so that a new module or file needs no
# CMake edit: every directory under src/arbiter/ except cmd/ is a module; its *.cc files (less
# *_test.cc and *_fuzz.cc) go into the one library `arbiter`; its *_test.cc files form one
# GoogleTest binary `<module>_test` labelled `unit`; each *_fuzz.cc is a libFuzzer target.

# arbiter_discover_modules(<out-var> <dir>): module names, sorted.
function(arbiter_discover_modules out dir)
  file(GLOB children RELATIVE ${dir} CONFIGURE_DEPENDS ${dir}/*)
  set(modules)
  foreach(child IN LISTS children)
    if(IS_DIRECTORY ${dir}/${child} AND NOT child STREQUAL "cmd")
      list(APPEND modules ${child})
    endif()
  endforeach()
  list(SORT modules)
  set(${out} ${modules} PARENT_SCOPE)
endfunction()

# arbiter_add_gtest(<target> LABEL <label> SOURCES <files...>)
function(arbiter_add_gtest target)
  cmake_parse_arguments(ARG "" "LABEL" "SOURCES" ${ARGN})
  add_executable(${target} ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  target_link_libraries(${target} PRIVATE arbiter arbiter_warnings GTest::gtest GTest::gmock
                                          GTest::gtest_main)
  gtest_discover_tests(${target}
    DISCOVERY_MODE PRE_TEST
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS ${ARG_LABEL}
    TEST_PREFIX "${target}.")
endfunction()
