# stencilc_add_kernels(<target>
#     SPECS <spec.yaml>...
#     [PLATFORM host|nvidia|amd]     default: host (nvidia: the project enables
#                                    CUDA; amd: CMAKE_CXX_COMPILER=hipcc)
#     [OUTPUT_DIR <dir>]             default: <binary dir>/stencilc/<target>
#     [PREGENERATED_DIR <dir>]       compile <dir>/NAME.hip instead of
#                                    generating (no generator needed)
#     [TUNE_CACHE <file.tsv>])       compile the variants this tuning cache
#                                    records (stencilc tune) into the kernels
#
# Generates NAME.hip, NAME.hpp and NAME.json for each spec at build time and
# compiles the kernels into the static library <target>, which carries the
# include directory of the generated headers and links the runtime built for
# PLATFORM. A spec is regenerated when it, a template or the generator
# changes (the templates are compiled into stencilc); files whose contents
# did not change keep their time stamps, so their users are not rebuilt.
# Each spec's file name (without .yaml) must equal its `name`. Generated
# files go to the build tree only.
#
# Without a generator (stencilc built or installed without LLVM), or with
# STENCILC_USE_PREGENERATED ON, the checked-in sources of PREGENERATED_DIR
# (default STENCILC_PREGENERATED_DIR) are compiled instead, and only where
# the NAME.json beside them records the spec file's SHA-256: sources of
# another spec (an edited one, or a shipped spec's of the same name) are
# refused.
#
# Refused at configure time, with the reason: unknown arguments and
# keywords without a value (also one whose variable expanded to nothing),
# a spec file that does not exist (unless a custom command declared before
# this call, in this directory, writes it), two specs of one name (in one
# target, or from two spec files anywhere in the project: their kernels
# would share a namespace), a kernel source compiled for two platforms by
# two targets of one directory, PLATFORM amd without hipcc, and PLATFORM
# nvidia without CUDA enabled.
#
# Used inside the stencilc build (targets stencilc and stencil_runtime) and
# from the installed package (stencilc::stencilc, stencilc::runtime; see
# cmake/stencilcConfig.cmake.in).
include_guard(GLOBAL)

if(NOT DEFINED STENCILC_PREGENERATED_DIR)
  set(STENCILC_PREGENERATED_DIR "${CMAKE_CURRENT_LIST_DIR}/../generated"
      CACHE PATH "Pre-generated kernel sources used when the generator is not built")
endif()
# Cache variables, so that they reach every directory whichever included
# this file first (include_guard makes later includes no-ops).
if(NOT DEFINED STENCILC_RUNTIME_SOURCE_DIR)
  set(STENCILC_RUNTIME_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/../runtime"
      CACHE INTERNAL "")
endif()
# This file's directory, with StencilcRegenerateMissing.cmake beside it.
set(_STENCILC_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "")
# The runtime's sources that are plain C++ on every platform (the
# communicator layer calls MPI and no device code, so that nvcc never sees
# MPI's compile options); the others compile with the device compiler.
set(STENCILC_RUNTIME_HOST_SOURCE_NAMES
    comm halo_exchange scatter exchange_choice exchange_tuning
    CACHE INTERNAL "")

# The generator target: the build's own, or the installed one; "" if none.
function(_stencilc_tool out)
  set(tool "")
  if(TARGET stencilc)
    set(tool stencilc)
  elseif(TARGET stencilc::stencilc)
    set(tool stencilc::stencilc)
  endif()
  if(STENCILC_USE_PREGENERATED)
    set(tool "")
  endif()
  set(${out} "${tool}" PARENT_SCOPE)
endfunction()

# Generated kernels are the hot loop: a single-config build without
# CMAKE_BUILD_TYPE would compile them, and a runtime built here, without
# optimisation. Such builds get -O3 on these targets (said once); a build
# type, a multi-config generator, or an -O level in CMAKE_CXX_FLAGS or
# CMAKE_CUDA_FLAGS decides as usual.
function(_stencilc_optimise target)
  get_property(multi GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi OR CMAKE_BUILD_TYPE OR "${CMAKE_CXX_FLAGS} ${CMAKE_CUDA_FLAGS}"
                                  MATCHES "(^| )-O")
    return()
  endif()
  target_compile_options(${target} PRIVATE -O3)
  get_property(said GLOBAL PROPERTY STENCILC_SAID_OPTIMISE)
  if(NOT said)
    message(STATUS "stencilc: no CMAKE_BUILD_TYPE (and no -O in the "
                   "flags), so the generated kernels (and a runtime built "
                   "here) compile with -O3")
    set_property(GLOBAL PROPERTY STENCILC_SAID_OPTIMISE TRUE)
  endif()
endfunction()

# The runtime target for `platform`: the build's own or the installed one
# when they were built for it; otherwise a runtime built here from the
# installed sources (stencilc_runtime_<platform>).
function(_stencilc_runtime platform out)
  if(TARGET stencil_runtime)
    set(base stencil_runtime)
  elseif(TARGET stencilc::runtime)
    set(base stencilc::runtime)
  else()
    message(FATAL_ERROR "stencilc: no runtime target; use find_package(stencilc)")
  endif()
  get_target_property(built ${base} STENCILC_PLATFORM)
  set(runtime ${base})
  if(NOT built STREQUAL platform)
    set(runtime stencilc_runtime_${platform})
    if(NOT TARGET ${runtime})
      file(GLOB sources "${STENCILC_RUNTIME_SOURCE_DIR}/src/*.cpp")
      if(NOT sources)
        message(FATAL_ERROR "stencilc: the runtime was built for ${built}, "
                            "and its sources are not in "
                            "${STENCILC_RUNTIME_SOURCE_DIR}/src to build it "
                            "for ${platform}")
      endif()
      add_library(${runtime} STATIC ${sources})
      # The headers of the runtime found above (the build's or the
      # installed one).
      get_target_property(includes ${base} INTERFACE_INCLUDE_DIRECTORIES)
      target_include_directories(${runtime} PUBLIC ${includes})
      set(device_sources "")
      foreach(source IN LISTS sources)
        get_filename_component(stem "${source}" NAME_WE)
        if(NOT stem IN_LIST STENCILC_RUNTIME_HOST_SOURCE_NAMES)
          list(APPEND device_sources "${source}")
        endif()
      endforeach()
      stencilc_runtime_backend(${runtime} PLATFORM ${platform}
                               SOURCES ${device_sources})
      # With MPI where the runtime found has it.
      get_target_property(mpi ${base} STENCILC_MPI)
      stencilc_runtime_mpi(${runtime} ${mpi})
      _stencilc_optimise(${runtime})
    endif()
  endif()
  set(${out} ${runtime} PARENT_SCOPE)
endfunction()

# stencilc_runtime_backend(<runtime library> PLATFORM <host|nvidia|amd>
#                          SOURCES <file>...)
#
# What a runtime library needs for its platform: the sources compiled with
# the device compiler, C++17, threads, and the backend it links (OpenMP
# when found, the CUDA runtime, or the HIP runtime). Used for the build's own runtime
# and for runtimes the package builds for another platform.
function(stencilc_runtime_backend target)
  cmake_parse_arguments(ARG "" "PLATFORM" "SOURCES" ${ARGN})
  target_compile_features(${target} PUBLIC cxx_std_17)
  stencilc_set_device_language(PLATFORM ${ARG_PLATFORM} SOURCES ${ARG_SOURCES})
  # The clover term is computed on the host by several threads.
  find_package(Threads REQUIRED)
  target_link_libraries(${target} PUBLIC Threads::Threads)
  if(ARG_PLATFORM STREQUAL "nvidia")
    find_package(CUDAToolkit REQUIRED)
    target_link_libraries(${target} PUBLIC CUDA::cudart)
  elseif(ARG_PLATFORM STREQUAL "amd")
    # hipcc links the HIP runtime; name it for consumers linked by others.
    target_link_libraries(${target} PUBLIC amdhip64)
  else()
    find_package(OpenMP)
    if(OpenMP_CXX_FOUND)
      target_link_libraries(${target} PUBLIC OpenMP::OpenMP_CXX)
    endif()
  endif()
endfunction()

# stencilc_runtime_mpi(<runtime library> <ON|OFF>)
#
# MPI for a runtime library (STENCILC_MPI): its headers and libraries, not
# its compile options (Open MPI's -pthread, which nvcc would not take;
# Threads is linked anyway); the target's STENCILC_MPI property says which.
# Used for the build's own runtime and for runtimes the package builds for
# another platform, which get MPI where the runtime they derive from has it.
function(stencilc_runtime_mpi target mpi)
  if(NOT mpi)
    set_target_properties(${target} PROPERTIES STENCILC_MPI OFF)
    return()
  endif()
  find_package(MPI COMPONENTS CXX)
  if(NOT MPI_CXX_FOUND)
    message(FATAL_ERROR "stencilc: ${target} is built with MPI "
                        "(STENCILC_MPI), but no MPI library was found: "
                        "install one (Debian: libopenmpi-dev openmpi-bin), "
                        "or configure stencilc with -DSTENCILC_MPI=OFF")
  endif()
  target_include_directories(${target} SYSTEM PUBLIC ${MPI_CXX_INCLUDE_DIRS})
  target_link_libraries(${target} PUBLIC ${MPI_CXX_LIBRARIES})
  target_compile_definitions(${target} PUBLIC STENCIL_HAVE_MPI=1
    OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
  set_target_properties(${target} PROPERTIES STENCILC_MPI ON)
  message(STATUS "stencilc: ${target} with MPI ${MPI_CXX_VERSION} "
                 "(${MPI_CXX_LIBRARIES})")
endfunction()

# stencilc_set_device_language(PLATFORM <host|nvidia|amd> SOURCES <file>...)
#
# Compiles the sources with the platform's device compiler: the C++ compiler
# for the host backend, CUDA (nvcc) for nvidia, and hipcc in HIP mode for
# the targets of STENCILC_AMD_ARCHITECTURES for amd (the project is then
# configured with CMAKE_CXX_COMPILER=hipcc).
function(stencilc_set_device_language)
  cmake_parse_arguments(ARG "" "PLATFORM" "SOURCES" ${ARGN})
  if(ARG_PLATFORM STREQUAL "host")
    set_source_files_properties(${ARG_SOURCES} PROPERTIES LANGUAGE CXX)
  elseif(ARG_PLATFORM STREQUAL "nvidia")
    set_source_files_properties(${ARG_SOURCES} PROPERTIES LANGUAGE CUDA)
  else()
    if(NOT STENCILC_AMD_ARCHITECTURES)
      set(STENCILC_AMD_ARCHITECTURES gfx908 gfx90a)
    endif()
    set(options -x hip)
    foreach(arch IN LISTS STENCILC_AMD_ARCHITECTURES)
      list(APPEND options --offload-arch=${arch})
    endforeach()
    set_source_files_properties(${ARG_SOURCES} PROPERTIES
      LANGUAGE CXX COMPILE_OPTIONS "${options}")
  endif()
endfunction()

# stencilc_require_hipcc(<who>)
#
# The amd platform compiles in HIP mode with hipcc as the C++ compiler:
# CMake's HIP language expects ROCm's own directory layout, which Debian's
# packages do not have. Fails, naming <who>, with another compiler.
function(stencilc_require_hipcc who)
  get_filename_component(compiler "${CMAKE_CXX_COMPILER}" NAME)
  if(NOT compiler MATCHES "hipcc")
    message(FATAL_ERROR "${who} compiles the kernels in HIP mode: configure "
                        "the project with -DCMAKE_CXX_COMPILER=hipcc (the C++ "
                        "compiler is ${CMAKE_CXX_COMPILER})")
  endif()
endfunction()

# A misspelt keyword, a stray value or a keyword whose value expanded to
# nothing would otherwise be dropped (or read as a spec) without a word.
function(_stencilc_check_arguments function target)
  # DEFINED: a stray value such as 0 or OFF reads as false.
  if(DEFINED ARG_UNPARSED_ARGUMENTS)
    list(JOIN ARGN ", " keywords)
    message(FATAL_ERROR "${function}(${target}): unknown arguments "
                        "'${ARG_UNPARSED_ARGUMENTS}'; the keywords are "
                        "${keywords}")
  endif()
  if(ARG_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${function}(${target}): "
                        "${ARG_KEYWORDS_MISSING_VALUES} given without a value")
  endif()
endfunction()

# Pregenerated sources are compiled only for the spec they were generated
# from: NAME.json records the spec file's SHA-256.
function(_stencilc_check_pregenerated target dir name spec)
  set(manifest "${dir}/${name}.json")
  if(NOT EXISTS "${manifest}")
    message(FATAL_ERROR "stencilc_add_kernels(${target}): ${manifest} is "
                        "missing; pregenerated sources come with the NAME.json "
                        "that 'stencilc generate' writes beside them")
  endif()
  # Checked again when the spec or its sources change, not only at the
  # first configure.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               "${spec}" "${manifest}")
  file(READ "${manifest}" text)
  string(JSON recorded ERROR_VARIABLE missing GET "${text}" spec_sha256)
  file(SHA256 "${spec}" actual)
  if(missing)
    message(FATAL_ERROR "stencilc_add_kernels(${target}): ${manifest} "
                        "records no spec_sha256: it was written by a stencilc "
                        "older than 2026-11-30, so nothing tells whether "
                        "${dir}/${name}.hip comes from ${spec}; regenerate "
                        "it with 'stencilc generate -o ${dir} ${spec}' on a "
                        "machine with the generator")
  endif()
  if(NOT recorded STREQUAL actual)
    message(FATAL_ERROR "stencilc_add_kernels(${target}): ${dir}/${name}.hip "
                        "was not generated from ${spec} (${manifest} records "
                        "spec SHA-256 '${recorded}', the spec's is ${actual}); "
                        "regenerate it with 'stencilc generate -o ${dir} "
                        "${spec}', or build with the generator")
  endif()
endfunction()

function(stencilc_add_kernels target)
  cmake_parse_arguments(ARG "" "PLATFORM;OUTPUT_DIR;PREGENERATED_DIR;TUNE_CACHE"
                        "SPECS" ${ARGN})
  _stencilc_check_arguments(stencilc_add_kernels ${target}
                            SPECS PLATFORM OUTPUT_DIR PREGENERATED_DIR TUNE_CACHE)
  set(tune_args "")
  if(ARG_TUNE_CACHE)
    get_filename_component(ARG_TUNE_CACHE "${ARG_TUNE_CACHE}" ABSOLUTE)
    if(NOT EXISTS "${ARG_TUNE_CACHE}")
      message(FATAL_ERROR "stencilc_add_kernels(${target}): TUNE_CACHE "
                          "${ARG_TUNE_CACHE} does not exist")
    endif()
    set(tune_args --tune-cache "${ARG_TUNE_CACHE}")
  endif()
  if(NOT ARG_SPECS)
    message(FATAL_ERROR "stencilc_add_kernels(${target}): no SPECS given")
  endif()
  if(NOT ARG_PLATFORM)
    set(ARG_PLATFORM host)
  endif()
  if(NOT ARG_PLATFORM MATCHES "^(host|nvidia|amd)$")
    message(FATAL_ERROR "stencilc_add_kernels(${target}): PLATFORM must be "
                        "host, nvidia or amd, not '${ARG_PLATFORM}'")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/stencilc/${target}")
  endif()
  get_filename_component(ARG_OUTPUT_DIR "${ARG_OUTPUT_DIR}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  file(RELATIVE_PATH in_source "${CMAKE_SOURCE_DIR}" "${ARG_OUTPUT_DIR}")
  file(RELATIVE_PATH in_build "${CMAKE_BINARY_DIR}" "${ARG_OUTPUT_DIR}")
  if(NOT in_source MATCHES "^\\.\\./" AND in_build MATCHES "^\\.\\./")
    message(FATAL_ERROR "stencilc_add_kernels(${target}): OUTPUT_DIR "
                        "${ARG_OUTPUT_DIR} is in the source tree; generated "
                        "files belong in the build tree")
  endif()
  if(ARG_PLATFORM STREQUAL "nvidia")
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "CUDA" IN_LIST languages)
      message(FATAL_ERROR "stencilc_add_kernels(${target}): PLATFORM nvidia "
                          "compiles the kernels as CUDA: call "
                          "enable_language(CUDA) first")
    endif()
  elseif(ARG_PLATFORM STREQUAL "amd")
    stencilc_require_hipcc("stencilc_add_kernels(${target}): PLATFORM amd")
  endif()
  _stencilc_tool(tool)
  _stencilc_runtime(${ARG_PLATFORM} runtime)
  if(NOT ARG_PREGENERATED_DIR)
    set(ARG_PREGENERATED_DIR "${STENCILC_PREGENERATED_DIR}")
  endif()

  set(sources "")
  set(names "")
  foreach(spec IN LISTS ARG_SPECS)
    get_filename_component(spec "${spec}" ABSOLUTE)
    get_filename_component(name "${spec}" NAME_WE)
    # A spec that a custom command writes (stencilc import) exists later.
    get_source_file_property(written "${spec}" GENERATED)
    if(NOT written AND (NOT EXISTS "${spec}" OR IS_DIRECTORY "${spec}"))
      message(FATAL_ERROR "stencilc_add_kernels(${target}): no spec file "
                          "${spec} (SPECS lists spec files; a misspelt "
                          "keyword after SPECS is read as one)")
    endif()
    if(name IN_LIST names)
      message(FATAL_ERROR "stencilc_add_kernels(${target}): two specs named "
                          "${name} (${spec} and an earlier one); their kernels "
                          "would share one namespace")
    endif()
    # One name, one spec, in the whole project: two libraries with kernels
    # of the same name would link, and one would silently run the other's.
    file(REAL_PATH "${spec}" real)
    get_property(known GLOBAL PROPERTY "STENCILC_SPEC_OF_${name}")
    if(known AND NOT known STREQUAL real)
      message(FATAL_ERROR "stencilc_add_kernels(${target}): spec ${spec} is "
                          "named ${name}, as is ${known} of another target; "
                          "kernels of one name from two specs cannot be told "
                          "apart at link time: rename one")
    endif()
    set_property(GLOBAL PROPERTY "STENCILC_SPEC_OF_${name}" "${real}")
    list(APPEND names ${name})
    if(tool)
      set(dir "${ARG_OUTPUT_DIR}")
      set(stamp "${dir}/${name}.stamp")
      # The generator's file: a rebuilt or reinstalled stencilc (new
      # templates included) regenerates.
      add_custom_command(
        OUTPUT "${stamp}"
        BYPRODUCTS "${dir}/${name}.hip" "${dir}/${name}.hpp" "${dir}/${name}.json"
        COMMAND $<TARGET_FILE:${tool}> generate --quiet
                --expect-name=${name} ${tune_args} -o "${dir}" "${spec}"
        COMMAND ${CMAKE_COMMAND} -E touch "${stamp}"
        DEPENDS "${spec}" $<TARGET_FILE:${tool}> ${ARG_TUNE_CACHE}
        COMMENT "stencilc: generating ${name} from ${spec}"
        VERBATIM)
      list(APPEND sources "${stamp}")
      set_source_files_properties("${dir}/${name}.hip" PROPERTIES GENERATED TRUE)
      if(CMAKE_GENERATOR MATCHES "Makefiles")
        # Make ignores byproducts: without this rule a deleted NAME.hip
        # stopped the build (the compiler found no file) instead of being
        # written again. It runs at every build (NAME.hip stays older than
        # the stamp: the generator leaves unchanged files alone) and costs
        # a CMake start when nothing is missing. NAME.hpp and NAME.json are
        # byproducts here too: as outputs, Make would touch NAME.hpp
        # whenever NAME.hip is newer, and recompile every file including it.
        add_custom_command(
          OUTPUT "${dir}/${name}.hip"
          BYPRODUCTS "${dir}/${name}.hpp" "${dir}/${name}.json"
          COMMAND ${CMAKE_COMMAND} -D "TOOL=$<TARGET_FILE:${tool}>"
                  -D "SPEC=${spec}" -D "DIR=${dir}" -D "NAME=${name}"
                  -D "TUNE_CACHE=${ARG_TUNE_CACHE}"
                  -P "${_STENCILC_MODULE_DIR}/StencilcRegenerateMissing.cmake"
          DEPENDS "${stamp}"
          COMMENT "stencilc: checking that ${name}'s generated files exist"
          VERBATIM)
      endif()
    else()
      if(ARG_TUNE_CACHE)
        message(STATUS "stencilc_add_kernels(${target}): TUNE_CACHE not "
                       "applied to ${name}: its pregenerated sources carry "
                       "the variants of the cache they were generated with")
      endif()
      set(dir "${ARG_PREGENERATED_DIR}")
      if(NOT EXISTS "${dir}/${name}.hip")
        message(FATAL_ERROR "stencilc_add_kernels(${target}): no generator "
                            "(stencilc built without LLVM, or "
                            "STENCILC_USE_PREGENERATED) and no "
                            "${dir}/${name}.hip; pass PREGENERATED_DIR with "
                            "sources from 'stencilc generate'")
      endif()
      _stencilc_check_pregenerated(${target} "${dir}" ${name} "${spec}")
    endif()
    set(kernel "${dir}/${name}.hip")
    # A source's language is a property of the file in this directory, not
    # of the target: a second target here compiling it for another platform
    # would change it for both.
    set(key "STENCILC_PLATFORM_OF_${CMAKE_CURRENT_SOURCE_DIR}/${kernel}")
    get_property(compiled_for GLOBAL PROPERTY "${key}")
    if(compiled_for AND NOT compiled_for STREQUAL ARG_PLATFORM)
      message(FATAL_ERROR "stencilc_add_kernels(${target}): ${kernel} is "
                          "already compiled for ${compiled_for} by another "
                          "target; give this one (PLATFORM ${ARG_PLATFORM}) "
                          "an OUTPUT_DIR of its own (with the generator) or "
                          "a copy of the sources (PREGENERATED_DIR)")
    endif()
    set_property(GLOBAL PROPERTY "${key}" ${ARG_PLATFORM})
    stencilc_set_device_language(PLATFORM ${ARG_PLATFORM} SOURCES "${kernel}")
    list(APPEND sources "${kernel}")
  endforeach()

  add_library(${target} STATIC ${sources})
  _stencilc_optimise(${target})
  target_include_directories(${target} PUBLIC "${dir}")
  target_link_libraries(${target} PUBLIC ${runtime})
  get_target_property(runtime_mpi ${runtime} STENCILC_MPI)
  set_target_properties(${target} PROPERTIES
    STENCILC_KERNEL_NAMES "${names}"
    STENCILC_OUTPUT_DIR "${dir}"
    STENCILC_PLATFORM "${ARG_PLATFORM}"
    STENCILC_MPI "${runtime_mpi}")
endfunction()

# stencilc_add_solver(<target> KERNELS <kernel library> STENCIL <name>)
#
# A command-line solver for one generated stencil: manufactured solution,
# CG / Jacobi-PCG / CGNR, report, exit status 0 only on convergence. See
# runtime/tools/solve_main.cpp for its options.
if(NOT DEFINED STENCILC_SOLVER_MAIN)
  set(STENCILC_SOLVER_MAIN
      "${CMAKE_CURRENT_LIST_DIR}/../runtime/tools/solve_main.cpp" CACHE INTERNAL "")
endif()
function(stencilc_add_solver target)
  cmake_parse_arguments(ARG "" "KERNELS;STENCIL" "" ${ARGN})
  _stencilc_check_arguments(stencilc_add_solver ${target} KERNELS STENCIL)
  if(NOT ARG_KERNELS OR NOT ARG_STENCIL)
    message(FATAL_ERROR "stencilc_add_solver(${target}): KERNELS and STENCIL are required")
  endif()
  if(NOT TARGET ${ARG_KERNELS})
    message(FATAL_ERROR "stencilc_add_solver(${target}): KERNELS "
                        "${ARG_KERNELS} is not a target; name a library of "
                        "stencilc_add_kernels()")
  endif()
  get_target_property(stencils ${ARG_KERNELS} STENCILC_KERNEL_NAMES)
  if(NOT stencils)
    message(FATAL_ERROR "stencilc_add_solver(${target}): KERNELS "
                        "${ARG_KERNELS} is not a library made by "
                        "stencilc_add_kernels()")
  endif()
  if(NOT ARG_STENCIL IN_LIST stencils)
    message(FATAL_ERROR "stencilc_add_solver(${target}): ${ARG_KERNELS} has "
                        "no stencil ${ARG_STENCIL} (it has: ${stencils})")
  endif()
  set(glue "${CMAKE_CURRENT_BINARY_DIR}/stencilc/${target}_kernel.cpp")
  file(WRITE "${glue}.tmp"
    "// Generated by stencilc_add_solver(): the stencil this solver drives.\n"
    "#include \"${ARG_STENCIL}.hpp\"\n"
    "const stencil::KernelInfo &solver_kernel() {\n"
    "  return stencilc_kernels::${ARG_STENCIL}::info();\n"
    "}\n")
  configure_file("${glue}.tmp" "${glue}" COPYONLY)
  add_executable(${target} "${STENCILC_SOLVER_MAIN}" "${glue}")
  # Plain C++ whatever the platform: it sees only the runtime's host API
  # (the kernel library carries its runtime).
  target_link_libraries(${target} PRIVATE ${ARG_KERNELS})
endfunction()
