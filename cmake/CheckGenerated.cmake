# Fails when generated/ differs from what the generator writes for specs/:
# a spec, a template or the generator changed and generated/ was not
# refreshed (run scripts/regenerate.sh).
#   cmake -D STENCILC=... -D SOURCE_DIR=... -D WORK_DIR=...
#         [-D GENERATED_DIR=<dir, default SOURCE_DIR/generated>]
#         [-D GENERATE_ARGS=<extra arguments, e.g. --naive; passes apart
#            by '|': "--naive|--open-options" generates twice>]
#         -P CheckGenerated.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE "${WORK_DIR}")
if(NOT GENERATED_DIR)
  set(GENERATED_DIR "${SOURCE_DIR}/generated")
endif()
file(GLOB specs "${SOURCE_DIR}/specs/*.yaml")
list(SORT specs)
string(REPLACE "|" ";" passes "${GENERATE_ARGS}")
if(NOT passes)
  set(passes " ")
endif()
foreach(pass IN LISTS passes)
  separate_arguments(extra UNIX_COMMAND "${pass}")
  execute_process(COMMAND "${STENCILC}" generate --quiet ${extra} -o "${WORK_DIR}"
                          ${specs}
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "stencilc generate ${pass} failed for specs/")
  endif()
endforeach()
file(GLOB expected RELATIVE "${WORK_DIR}" "${WORK_DIR}/*")
file(GLOB actual RELATIVE "${GENERATED_DIR}" "${GENERATED_DIR}/*")
list(SORT expected)
list(SORT actual)
set(problems "")
foreach(file IN LISTS expected)
  if(NOT EXISTS "${GENERATED_DIR}/${file}")
    string(APPEND problems "  missing: ${GENERATED_DIR}/${file}\n")
  else()
    file(READ "${WORK_DIR}/${file}" want)
    file(READ "${GENERATED_DIR}/${file}" have)
    if(NOT want STREQUAL have)
      string(APPEND problems "  out of date: ${GENERATED_DIR}/${file}\n")
    endif()
  endif()
endforeach()
foreach(file IN LISTS actual)
  if(NOT file IN_LIST expected AND NOT file STREQUAL "README.md")
    string(APPEND problems "  stale (no spec): ${GENERATED_DIR}/${file}\n")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "${GENERATED_DIR} is out of sync with ${SOURCE_DIR}/specs:\n${problems}"
                      "Run scripts/regenerate.sh and commit the result.")
endif()
message(STATUS "generated/ matches specs/")
