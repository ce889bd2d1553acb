# The example consumer (examples/poisson2d) against installed packages:
#   1. this build installed to a temporary prefix: the example generates its
#      spec at build time with the installed stencilc, builds and runs;
#   2. the same prefix with STENCILC_USE_PREGENERATED=ON: the checked-in
#      examples/poisson2d/generated/ is compiled instead;
#   3. stencilc configured without LLVM (no generator), runtime only,
#      installed to a second prefix: the example builds from its checked-in
#      sources, as on a cluster without the LLVM development packages.
#   cmake -D BUILD_DIR=... -D SOURCE_DIR=... -D WORK_DIR=... -P CheckExample.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE "${WORK_DIR}")
# A copy, so that touching its spec leaves the source tree alone.
file(COPY "${SOURCE_DIR}/examples/poisson2d" DESTINATION "${WORK_DIR}")
set(example "${WORK_DIR}/poisson2d")

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${output}")
  endif()
  message(STATUS "${what}: ok")
  set(last_output "${output}" PARENT_SCOPE)
endfunction()

function(build_and_run label prefix)
  set(dir "${WORK_DIR}/${label}")
  step("${label}: configure" ${CMAKE_COMMAND} -S "${example}" -B "${dir}"
       -G Ninja "-DCMAKE_PREFIX_PATH=${prefix}" ${ARGN})
  step("${label}: build" ${CMAKE_COMMAND} --build "${dir}" -v)
  set(generated OFF)
  if(last_output MATCHES "stencilc generate")
    set(generated ON)
  endif()
  step("${label}: run" "${dir}/poisson2d")
  set(serial_output "${last_output}")
  # The distributed variant, where the package has MPI: 2 and 4 ranks.
  if(EXISTS "${dir}/poisson2d_mpi" AND MPIEXEC)
    foreach(ranks 2 4)
      step("${label}: run on ${ranks} ranks" ${CMAKE_COMMAND} -E env
           OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
           OMP_NUM_THREADS=1 ${MPIEXEC} --oversubscribe --bind-to none
           -np ${ranks} "${dir}/poisson2d_mpi")
      message(STATUS "${label}: on ${ranks} ranks\n${last_output}")
    endforeach()
  endif()
  set(last_output "${serial_output}")
  message(STATUS "${label}: generated at build time: ${generated}\n${last_output}")
  set(generated ${generated} PARENT_SCOPE)
  set(last_output "${last_output}" PARENT_SCOPE)
endfunction()

step("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}"
     --prefix "${WORK_DIR}/prefix")
build_and_run(installed "${WORK_DIR}/prefix")
if(NOT generated)
  message(FATAL_ERROR "the installed stencilc did not generate the spec")
endif()
# Regeneration only when the spec (or the generator) changes.
function(rebuild what expect_generation)
  step("installed: rebuild ${what}" ${CMAKE_COMMAND} --build
       "${WORK_DIR}/installed" -v)
  set(generated OFF)
  if(last_output MATCHES "stencilc generate")
    set(generated ON)
  endif()
  if(NOT generated STREQUAL expect_generation)
    message(FATAL_ERROR "rebuild ${what}: the spec was generated: "
                        "${generated}, expected ${expect_generation}")
  endif()
endfunction()
rebuild("with nothing changed" OFF)
file(TOUCH "${example}/specs/poisson2d.yaml")
rebuild("after the spec changed" ON)
file(TOUCH "${WORK_DIR}/prefix/bin/stencilc")
rebuild("after stencilc (with its templates) changed" ON)
# Generated files stay in the build tree.
file(GLOB_RECURSE stray "${example}/*.hip" "${example}/*.hpp")
list(FILTER stray EXCLUDE REGEX "/generated/")
if(stray)
  message(FATAL_ERROR "generated files in the source tree: ${stray}")
endif()
# The tuner's two phases with the installed stencilc, on the host backend:
# emit the variants, then build and run their timing program.
step("tune: emit" "${WORK_DIR}/prefix/bin/stencilc" tune
     "${example}/specs/poisson2d.yaml" --size 65,65 --max-variants 4
     -o "${WORK_DIR}/tune")
step("tune: configure" ${CMAKE_COMMAND} -S "${WORK_DIR}/tune"
     -B "${WORK_DIR}/tune/build" -G Ninja "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
     -DTUNE_PLATFORM=host)
step("tune: build" ${CMAKE_COMMAND} --build "${WORK_DIR}/tune/build")
set(cache "${WORK_DIR}/tune/tunecache.tsv")
step("tune: time" "${WORK_DIR}/tune/build/tune_poisson2d" --runs 3
     --json "${WORK_DIR}/tune/timings.json" --cache "${cache}")
if(NOT last_output MATCHES "best: poisson2d_t00[0-3]")
  message(FATAL_ERROR "the timing program named no best variant:\n${last_output}")
endif()
message(STATUS "${last_output}")
# CG's fold pass as its pipelined loop runs it (beta read from the device),
# recorded as an entry for the fold pass alone.
step("tune: time the fold pass" "${WORK_DIR}/tune/build/tune_poisson2d"
     --runs 3 --kernel fold --cache "${cache}")
if(NOT last_output MATCHES "timing apply_fold_partials" OR
   NOT last_output MATCHES "best: poisson2d_t00[0-3]")
  message(FATAL_ERROR "the fold pass was not timed:\n${last_output}")
endif()
# The cache, read by the generator (variants compiled in) and the runtime
# (the example's 65 x 65 operator runs the tuned kernels and its fold pass
# the fold entry's, 129 x 129 its own).
file(STRINGS "${cache}" entries REGEX "^poisson2d\t")
file(STRINGS "${cache}" fold_entries REGEX "^poisson2d\t.*\tkernel=fold; block=")
list(LENGTH entries count)
list(LENGTH fold_entries fold_count)
if(NOT count EQUAL 2 OR NOT fold_count EQUAL 1)
  message(FATAL_ERROR "the tuning cache holds ${count} entries for poisson2d, "
                      "${fold_count} of them for the fold pass (want 2 and 1)")
endif()
build_and_run(tuned "${WORK_DIR}/prefix" "-DPOISSON_TUNE_CACHE=${cache}")
if(NOT last_output MATCHES "65 x 65: kernels: tuned: block=[^\n]*compiled-in[^\n]*; CG's fold pass: tuned: block=[^\n]*compiled-in tuning-cache entry for CG's fold pass"
   OR NOT last_output MATCHES "129 x 129: kernels: the spec's own options: [^\n]*no tuning-cache entry")
  message(FATAL_ERROR "the tuned example did not choose as the cache says:\n${last_output}")
endif()
# At run time: STENCILC_TUNING=off, and STENCILC_TUNE_CACHE naming a variant
# this build lacks (an error that says to regenerate).
step("tuned: STENCILC_TUNING=off" ${CMAKE_COMMAND} -E env STENCILC_TUNING=off
     "${WORK_DIR}/tuned/poisson2d")
if(NOT last_output MATCHES "65 x 65: kernels: the spec's own options: [^\n]*STENCILC_TUNING=off")
  message(FATAL_ERROR "STENCILC_TUNING=off was not obeyed:\n${last_output}")
endif()
list(GET entries 0 entry)
string(REGEX REPLACE "block=[0-9x]+" "block=16x2" other "${entry}")
file(WRITE "${WORK_DIR}/tune/other.tsv" "${other}\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E env
                "STENCILC_TUNE_CACHE=${WORK_DIR}/tune/other.tsv"
                "${WORK_DIR}/tuned/poisson2d"
                RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(status EQUAL 0 OR NOT output MATCHES "other.tsv:1: the tuning cache chooses 'block=16x2;[^\n]*regenerate its code with `stencilc generate --tune-cache")
  message(FATAL_ERROR "a cache naming a missing variant was not refused (${status}):\n${output}")
endif()
message(STATUS "tuned: a cache naming a missing variant is refused: ok")

build_and_run(pregenerated "${WORK_DIR}/prefix" -DSTENCILC_USE_PREGENERATED=ON)
if(generated)
  message(FATAL_ERROR "STENCILC_USE_PREGENERATED ran the generator")
endif()

step("no-LLVM stencilc: configure" ${CMAKE_COMMAND} -S "${SOURCE_DIR}"
     -B "${WORK_DIR}/stencilc-no-llvm" -G Ninja -DSTENCILC_BUILD_GENERATOR=OFF
     -DSTENCILC_BUILD_TESTS=OFF -DSTENCILC_BUILD_SHIPPED=OFF)
step("no-LLVM stencilc: build" ${CMAKE_COMMAND} --build
     "${WORK_DIR}/stencilc-no-llvm")
step("no-LLVM stencilc: install" ${CMAKE_COMMAND} --install
     "${WORK_DIR}/stencilc-no-llvm" --prefix "${WORK_DIR}/prefix-no-llvm")
if(EXISTS "${WORK_DIR}/prefix-no-llvm/bin/stencilc")
  message(FATAL_ERROR "the no-LLVM install holds a stencilc")
endif()
build_and_run(no-llvm "${WORK_DIR}/prefix-no-llvm")
if(generated)
  message(FATAL_ERROR "the no-LLVM package ran a generator")
endif()
