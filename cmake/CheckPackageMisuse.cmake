# stencilc_add_kernels() and stencilc_add_solver() misused by an outside
# project against the installed package: each case must fail its configure
# with a message naming what is wrong (never a silent fallback or a build
# that compiles something else). Also: every internal header the runtime's
# sources include is installed beside them (the package rebuilds the
# runtime from them for another platform); without a build type the kernels
# compile with -O3; with Make a deleted generated source is written again.
#   cmake -D BUILD_DIR=... -D SOURCE_DIR=... -D WORK_DIR=... -P CheckPackageMisuse.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}"
                RESULT_VARIABLE status OUTPUT_QUIET)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "install failed (${status})")
endif()

file(GLOB internal RELATIVE "${SOURCE_DIR}/runtime/src" "${SOURCE_DIR}/runtime/src/*.hpp")
foreach(header IN LISTS internal)
  if(NOT EXISTS "${prefix}/share/stencilc/runtime/src/${header}")
    message(FATAL_ERROR "runtime/src/${header} is not installed")
  endif()
endforeach()

# A spec of its own, and one named like a shipped spec but computing
# something else.
set(specs "${WORK_DIR}/specs")
file(WRITE "${specs}/heat2d.yaml" "name: heat2d
grid: {dimensions: 2, boundary: dirichlet}
field: {precision: double}
taps:
  - {offset: [0, 0], coefficient: 4}
  - {offset: [-1, 0], coefficient: -1}
  - {offset: [1, 0], coefficient: -1}
  - {offset: [0, -1], coefficient: -1}
  - {offset: [0, 1], coefficient: -1}
")
file(MAKE_DIRECTORY "${specs}/other")
file(READ "${specs}/heat2d.yaml" heat)
string(REPLACE "coefficient: 4}" "coefficient: 8}" heat8 "${heat}")
file(WRITE "${specs}/other/heat2d.yaml" "${heat8}")
string(REPLACE "name: heat2d" "name: laplacian3d_f64" shipped "${heat}")
file(WRITE "${specs}/laplacian3d_f64.yaml" "${shipped}")

# run(<command>...): sets `status`, `output` and `flat` (the output on one
# line, for messages CMake wraps) in the caller.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  string(REGEX REPLACE "[ \n]+" " " flat "${output}")
  set(status "${status}" PARENT_SCOPE)
  set(output "${output}" PARENT_SCOPE)
  set(flat "${flat}" PARENT_SCOPE)
endfunction()

# write_project(<dir> <languages> <body>): a consumer project's
# CMakeLists.txt that finds the installed package, then <body>.
function(write_project dir languages body)
  file(WRITE "${dir}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.20)
project(consumer LANGUAGES ${languages})
find_package(stencilc CONFIG REQUIRED)
${body}
")
endfunction()

# configure(<project dir> [options...]): against the install, with SPECS
# (and without the environment's compiler flags).
macro(configure dir)
  run(${CMAKE_COMMAND} -E env --unset=CXXFLAGS --unset=CUDAFLAGS
      ${CMAKE_COMMAND} -S "${dir}" -B "${dir}/build" -G Ninja
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DSPECS=${specs}" ${ARGN})
endmacro()

# expect_refusal(<case> <regex> <CMakeLists body> [configure options...])
function(expect_refusal case regex body)
  set(dir "${WORK_DIR}/${case}")
  write_project("${dir}" "CXX" "${body}")
  configure("${dir}" ${ARGN})
  if(status EQUAL 0 OR NOT flat MATCHES "${regex}")
    message(FATAL_ERROR "${case}: the configure should fail with '${regex}' "
                        "(status ${status}):\n${output}")
  endif()
  message(STATUS "${case}: refused: ok")
endfunction()

expect_refusal(unknown-keyword "unknown arguments 'TUNECACHE;x.tsv'; the keywords are SPECS"
  "stencilc_add_kernels(k TUNECACHE x.tsv SPECS \${SPECS}/heat2d.yaml)")
expect_refusal(empty-value "PLATFORM given without a value"
  "stencilc_add_kernels(k SPECS \${SPECS}/heat2d.yaml PLATFORM \${UNSET_VARIABLE})")
expect_refusal(stray-value "unknown arguments 'nvidia'"
  "stencilc_add_kernels(k SPECS \${SPECS}/heat2d.yaml PLATFORM host nvidia)")
expect_refusal(missing-spec "no spec file [^ ]*/nothing.yaml"
  "stencilc_add_kernels(k SPECS \${SPECS}/nothing.yaml)")
expect_refusal(same-name-one-target "two specs named heat2d"
  "stencilc_add_kernels(k SPECS \${SPECS}/heat2d.yaml \${SPECS}/other/heat2d.yaml)")
expect_refusal(same-name-two-targets "is named heat2d, as is [^ ]*/heat2d.yaml of another target"
  "stencilc_add_kernels(k1 SPECS \${SPECS}/heat2d.yaml)
stencilc_add_kernels(k2 SPECS \${SPECS}/other/heat2d.yaml)")
expect_refusal(pregenerated-other-spec "laplacian3d_f64.hip was not generated from [^ ]*/laplacian3d_f64.yaml"
  "stencilc_add_kernels(k SPECS \${SPECS}/laplacian3d_f64.yaml)"
  -DSTENCILC_USE_PREGENERATED=ON)
expect_refusal(amd-without-hipcc "PLATFORM amd compiles the kernels in HIP mode: configure the project with -DCMAKE_CXX_COMPILER=hipcc"
  "stencilc_add_kernels(k SPECS \${SPECS}/heat2d.yaml PLATFORM amd)")
expect_refusal(solver-not-a-target "KERNELS kk is not a target"
  "stencilc_add_solver(s KERNELS kk STENCIL heat2d)")
expect_refusal(solver-other-stencil "k has no stencil heat3d \\(it has: heat2d\\)"
  "stencilc_add_kernels(k SPECS \${SPECS}/heat2d.yaml)
stencilc_add_solver(s KERNELS k STENCIL heat3d)")
# Pregenerated sources: a NAME.json without the spec's hash (an older
# stencilc) is refused; a spec edited after a good configure is caught at
# the next build (its configure reruns).
set(pregen "${WORK_DIR}/pregen")
file(COPY "${SOURCE_DIR}/examples/poisson2d/generated/" DESTINATION "${pregen}")
file(COPY "${SOURCE_DIR}/examples/poisson2d/specs/poisson2d.yaml"
     DESTINATION "${WORK_DIR}/pregen-spec")
file(READ "${pregen}/poisson2d.json" manifest)
string(JSON manifest REMOVE "${manifest}" spec_sha256)
file(MAKE_DIRECTORY "${WORK_DIR}/old")
file(COPY "${pregen}/poisson2d.hip" "${pregen}/poisson2d.hpp"
     DESTINATION "${WORK_DIR}/old")
file(WRITE "${WORK_DIR}/old/poisson2d.json" "${manifest}")
expect_refusal(pregenerated-without-hash "poisson2d.json records no spec_sha256"
  "stencilc_add_kernels(k SPECS ${WORK_DIR}/pregen-spec/poisson2d.yaml PREGENERATED_DIR ${WORK_DIR}/old)"
  -DSTENCILC_USE_PREGENERATED=ON)

set(dir "${WORK_DIR}/edited")
write_project("${dir}" "CXX" "stencilc_add_kernels(k SPECS ${WORK_DIR}/pregen-spec/poisson2d.yaml PREGENERATED_DIR ${pregen})
stencilc_add_kernels(k2 SPECS ${WORK_DIR}/pregen-spec/poisson2d.yaml PREGENERATED_DIR ${pregen})")
configure("${dir}" -DSTENCILC_USE_PREGENERATED=ON)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "edited: the first configure should pass (one spec, "
                      "two targets, same platform):\n${output}")
endif()
run(${CMAKE_COMMAND} "${dir}/build")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "edited: a second configure should pass:\n${output}")
endif()
file(APPEND "${WORK_DIR}/pregen-spec/poisson2d.yaml" "# edited\n")
run(${CMAKE_COMMAND} --build "${dir}/build")
if(status EQUAL 0 OR NOT flat MATCHES "poisson2d.hip was not generated from")
  message(FATAL_ERROR "edited: the build after the spec changed should "
                      "refuse the stale sources (status ${status}):\n${output}")
endif()
message(STATUS "edited: a spec edited after configure is caught: ok")

# Without CMAKE_BUILD_TYPE the kernels compile with -O3 (they had compiled
# without optimisation), said once; a build type given is kept, and so is an
# -O level in CMAKE_CXX_FLAGS.
set(dir "${WORK_DIR}/no-build-type")
write_project("${dir}" "CXX" "stencilc_add_kernels(k SPECS \${SPECS}/heat2d.yaml)")
foreach(type "" Debug -O1)
  file(REMOVE_RECURSE "${dir}/build")
  if(type STREQUAL "-O1")
    configure("${dir}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
              "-DCMAKE_CXX_FLAGS=-O1")
  else()
    configure("${dir}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
              "-DCMAKE_BUILD_TYPE=${type}")
  endif()
  file(READ "${dir}/build/compile_commands.json" commands)
  string(REGEX MATCH "\"command\": \"[^\n]*heat2d\\.hip\"" kernel "${commands}")
  if(NOT status EQUAL 0 OR NOT kernel)
    message(FATAL_ERROR "no-build-type '${type}': the configure failed or "
                        "compiles no heat2d.hip (status ${status}):\n${output}")
  endif()
  set(optimised FALSE)
  if(kernel MATCHES " -O3 ")
    set(optimised TRUE)
  endif()
  if(type STREQUAL "" AND NOT (optimised AND flat MATCHES "no CMAKE_BUILD_TYPE \\(and no -O in the flags\\), so the generated kernels"))
    message(FATAL_ERROR "no-build-type: the kernel should compile with -O3 "
                        "and the configure say so:\n${kernel}\n${output}")
  elseif(NOT type STREQUAL "" AND (optimised OR flat MATCHES "no CMAKE_BUILD_TYPE"))
    message(FATAL_ERROR "no-build-type: a build with ${type} should keep "
                        "its flags:\n${kernel}\n${output}")
  endif()
endforeach()
message(STATUS "no-build-type: -O3 without a build type, Debug and -O1 kept: ok")

# With Make, a deleted generated source is written again (Make ignores the
# generator's byproducts; the compiler had stopped, finding no file), a
# build with nothing missing does not generate, and a NAME.hip newer than
# NAME.hpp does not recompile the files that include NAME.hpp.
set(dir "${WORK_DIR}/make")
write_project("${dir}" "CXX" "stencilc_add_kernels(k SPECS \${SPECS}/heat2d.yaml)
add_library(user OBJECT user.cpp)
target_link_libraries(user PRIVATE k)")
file(WRITE "${dir}/user.cpp" "#include \"heat2d.hpp\"\nint user() { return 0; }\n")
run(${CMAKE_COMMAND} -S "${dir}" -B "${dir}/build" -G "Unix Makefiles"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DSPECS=${specs}")
if(status EQUAL 0)
  run(${CMAKE_COMMAND} --build "${dir}/build" --target k user)
endif()
set(generated "${dir}/build/stencilc/k/heat2d.hip")
if(NOT status EQUAL 0 OR NOT EXISTS "${generated}")
  message(FATAL_ERROR "make: the first build failed (status ${status}):\n${output}")
endif()
file(REMOVE "${generated}")
run(${CMAKE_COMMAND} --build "${dir}/build" --target k)
if(NOT status EQUAL 0 OR NOT EXISTS "${generated}" OR
   NOT flat MATCHES "heat2d.hip is missing: generating heat2d")
  message(FATAL_ERROR "make: the build after heat2d.hip was deleted should "
                      "write it again (status ${status}):\n${output}")
endif()
run(${CMAKE_COMMAND} --build "${dir}/build" --target k user)
if(NOT status EQUAL 0 OR flat MATCHES "is missing")
  message(FATAL_ERROR "make: a build with nothing missing should not "
                      "generate (status ${status}):\n${output}")
endif()
# As when a spec change rewrites NAME.hip and leaves NAME.hpp as it was.
file(TOUCH "${generated}")
run(${CMAKE_COMMAND} --build "${dir}/build" --target k user)
if(NOT status EQUAL 0 OR flat MATCHES "user\\.cpp\\.o")
  message(FATAL_ERROR "make: a newer heat2d.hip should not recompile "
                      "user.cpp, which includes only heat2d.hpp (status "
                      "${status}):\n${output}")
endif()
message(STATUS "make: a deleted generated source is written again, "
               "includers of an unchanged header are not rebuilt: ok")

find_program(nvcc nvcc PATHS /usr/local/cuda/bin)
if(nvcc)
  expect_refusal(one-source-two-platforms "heat2d.hip is already compiled for host by another target"
    "enable_language(CUDA)
stencilc_add_kernels(k_host SPECS \${SPECS}/heat2d.yaml PLATFORM host OUTPUT_DIR shared)
stencilc_add_kernels(k_nvidia SPECS \${SPECS}/heat2d.yaml PLATFORM nvidia OUTPUT_DIR shared)"
    "-DCMAKE_CUDA_COMPILER=${nvcc}" -DCMAKE_CUDA_ARCHITECTURES=90)

  # The runtime rebuilt for nvidia keeps the installed runtime's MPI (it had
  # none): its communicator sources compile with the C++ compiler and
  # STENCIL_HAVE_MPI, the others with nvcc. Configured only.
  file(STRINGS "${BUILD_DIR}/CMakeCache.txt" mpi_on REGEX "^STENCILC_MPI:BOOL=ON$")
  set(mpi OFF)
  if(mpi_on)
    set(mpi ON)
  endif()
  set(dir "${WORK_DIR}/rebuilt-runtime")
  write_project("${dir}" "CXX;CUDA" "stencilc_add_kernels(k SPECS \${SPECS}/heat2d.yaml PLATFORM nvidia)
get_target_property(mpi k STENCILC_MPI)
message(STATUS \"the kernels' runtime has MPI: \${mpi}\")
")
  configure("${dir}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
            "-DCMAKE_CUDA_COMPILER=${nvcc}" -DCMAKE_CUDA_ARCHITECTURES=90)
  file(READ "${dir}/build/compile_commands.json" commands)
  string(REGEX MATCH "\"command\": \"[^\n]*runtime/src/comm\\.cpp[^\n]*" comm "${commands}")
  string(REGEX MATCH "\"command\": \"[^\n]*runtime/src/field\\.cpp[^\n]*" field "${commands}")
  if(NOT status EQUAL 0 OR NOT comm OR NOT field OR comm MATCHES "nvcc" OR
     NOT field MATCHES "nvcc")
    message(FATAL_ERROR "rebuilt-runtime: the configure should compile "
                        "comm.cpp with the C++ compiler and field.cpp with "
                        "nvcc (status ${status}):\n${comm}\n${field}\n${output}")
  endif()
  if(mpi AND NOT (flat MATCHES "runtime has MPI: ON" AND
                  comm MATCHES "-DSTENCIL_HAVE_MPI=1"))
    message(FATAL_ERROR "rebuilt-runtime: the runtime rebuilt for nvidia "
                        "should have MPI, as the installed one does:\n"
                        "${comm}\n${output}")
  elseif(NOT mpi AND NOT flat MATCHES "runtime has MPI: OFF")
    message(FATAL_ERROR "rebuilt-runtime: without MPI installed, the "
                        "rebuilt runtime should have none:\n${output}")
  endif()
  message(STATUS "rebuilt-runtime: MPI as installed (${mpi}): ok")
else()
  message(STATUS "one-source-two-platforms, rebuilt-runtime: skipped (no nvcc)")
endif()
