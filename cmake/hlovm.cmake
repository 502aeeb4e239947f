# Helpers that every folder's CMakeLists.txt uses.
set(HLOVM_WARNINGS -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers)

if(HLOVM_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(HLOVM_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread)
  add_link_options(-fsanitize=thread)
elseif(NOT HLOVM_SANITIZE STREQUAL "")
  message(FATAL_ERROR "HLOVM_SANITIZE must be empty, 'address' or 'thread'")
endif()

# hlovm_cc_library(NAME name SRCS ... DEPS ...)
function(hlovm_cc_library)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_library(${ARG_NAME} STATIC ${ARG_SRCS})
  target_compile_options(${ARG_NAME} PRIVATE ${HLOVM_WARNINGS})
  target_include_directories(${ARG_NAME} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${ARG_NAME} PUBLIC ${ARG_DEPS})
endfunction()

# hlovm_cc_test(NAME name SRCS ... DEPS ...): a gtest binary registered with ctest.
function(hlovm_cc_test)
  if(NOT HLOVM_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SRCS})
  target_compile_options(${ARG_NAME} PRIVATE ${HLOVM_WARNINGS})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()

# hlovm_glob_library(NAME name DEPS ... [EXCLUDE file.cc ...]): one static
# library from every .cc under the current folder (recursively) that is not a
# test, benchmark or fuzzer, nor named in EXCLUDE (paths relative to the
# folder, built into another library there), plus one gtest binary per
# *_test.cc. Adding a file needs no edit here.
function(hlovm_glob_library)
  cmake_parse_arguments(ARG "" "NAME" "DEPS;TEST_DEPS;EXCLUDE" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  list(FILTER srcs EXCLUDE REGEX "(_test|_bench|_fuzzer)\\.cc$")
  foreach(excluded ${ARG_EXCLUDE})
    list(REMOVE_ITEM srcs ${CMAKE_CURRENT_SOURCE_DIR}/${excluded})
  endforeach()
  if(srcs)
    hlovm_cc_library(NAME ${ARG_NAME} SRCS ${srcs} DEPS ${ARG_DEPS})
  else()
    # Nothing written yet: an interface library keeps dependents linking.
    add_library(${ARG_NAME} INTERFACE)
    target_link_libraries(${ARG_NAME} INTERFACE ${ARG_DEPS})
  endif()
  file(GLOB_RECURSE tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  foreach(test ${tests})
    get_filename_component(test_name ${test} NAME_WE)
    hlovm_cc_test(NAME ${test_name} SRCS ${test} DEPS ${ARG_NAME} ${ARG_TEST_DEPS})
  endforeach()
endfunction()
