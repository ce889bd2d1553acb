# Make's rule for the sources of one spec (StencilcKernels.cmake). Make
# does not treat a custom command's byproducts as outputs, so a deleted
# NAME.hip, NAME.hpp or NAME.json would not be written again (Ninja does);
# this script runs the generator when one of them is missing, and does
# nothing otherwise.
#   cmake -D TOOL=<stencilc> -D SPEC=<spec> -D DIR=<output dir> -D NAME=<name>
#         [-D TUNE_CACHE=<file>] -P StencilcRegenerateMissing.cmake
cmake_minimum_required(VERSION 3.20)
foreach(suffix hip hpp json)
  if(NOT EXISTS "${DIR}/${NAME}.${suffix}")
    set(tune "")
    if(TUNE_CACHE)
      set(tune --tune-cache "${TUNE_CACHE}")
    endif()
    message(STATUS "stencilc: ${DIR}/${NAME}.${suffix} is missing: "
                   "generating ${NAME} from ${SPEC} again")
    execute_process(COMMAND "${TOOL}" generate --quiet --expect-name=${NAME}
                            ${tune} -o "${DIR}" "${SPEC}"
                    RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "stencilc: generating ${NAME} from ${SPEC} failed")
    endif()
    return()
  endif()
endforeach()
