# stencilc_add_kernels(<target>
#     SPECS <spec.yaml>...
#     [PLATFORM host|nvidia|amd]     default: host (amd: configure with
#                                    CMAKE_CXX_COMPILER=hipcc)
#     [OUTPUT_DIR <dir>])            default: <binary dir>/stencilc/<target>
#
# Generates NAME.hip, NAME.hpp and NAME.json for each spec at build time and
# compiles the kernels into the static library <target>, which carries the
# include directory of the generated headers and links the runtime. A spec is
# regenerated when it, a template or the generator changes; files whose
# contents did not change keep their time stamps, so their users are not
# rebuilt. Each spec's file name (without .yaml) must equal its `name`.
#
# Without the generator target (STENCILC_BUILD_GENERATOR=OFF) the checked-in
# sources of STENCILC_PREGENERATED_DIR are compiled instead.
include_guard(GLOBAL)

set(STENCILC_PREGENERATED_DIR "${CMAKE_CURRENT_LIST_DIR}/../generated"
    CACHE PATH "Pre-generated kernel sources used when the generator is not built")

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

function(stencilc_add_kernels target)
  cmake_parse_arguments(ARG "" "PLATFORM;OUTPUT_DIR" "SPECS" ${ARGN})
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

  set(sources "")
  set(names "")
  foreach(spec IN LISTS ARG_SPECS)
    get_filename_component(spec "${spec}" ABSOLUTE)
    get_filename_component(name "${spec}" NAME_WE)
    list(APPEND names ${name})
    if(TARGET stencilc)
      set(dir "${ARG_OUTPUT_DIR}")
      set(stamp "${dir}/${name}.stamp")
      add_custom_command(
        OUTPUT "${stamp}"
        BYPRODUCTS "${dir}/${name}.hip" "${dir}/${name}.hpp" "${dir}/${name}.json"
        COMMAND $<TARGET_FILE:stencilc> generate --quiet
                --expect-name=${name} -o "${dir}" "${spec}"
        COMMAND ${CMAKE_COMMAND} -E touch "${stamp}"
        DEPENDS "${spec}" stencilc
        COMMENT "stencilc: generating ${name} from ${spec}"
        VERBATIM)
      list(APPEND sources "${stamp}")
      set_source_files_properties("${dir}/${name}.hip" PROPERTIES GENERATED TRUE)
    else()
      set(dir "${STENCILC_PREGENERATED_DIR}")
      if(NOT EXISTS "${dir}/${name}.hip")
        message(FATAL_ERROR "stencilc_add_kernels(${target}): the generator "
                            "is not built and ${dir}/${name}.hip does not exist")
      endif()
    endif()
    set(kernel "${dir}/${name}.hip")
    stencilc_set_device_language(PLATFORM ${ARG_PLATFORM} SOURCES "${kernel}")
    list(APPEND sources "${kernel}")
  endforeach()

  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC "${dir}")
  target_link_libraries(${target} PUBLIC stencil_runtime)
  set_target_properties(${target} PROPERTIES
    STENCILC_KERNEL_NAMES "${names}"
    STENCILC_OUTPUT_DIR "${dir}"
    STENCILC_PLATFORM "${ARG_PLATFORM}")
endfunction()

# stencilc_add_solver(<target> KERNELS <kernel library> STENCIL <name>)
#
# A command-line solver for one generated stencil: manufactured solution,
# CG / Jacobi-PCG / CGNR, report, exit status 0 only on convergence. See
# runtime/tools/solve_main.cpp for its options.
set(STENCILC_SOLVER_MAIN "${CMAKE_CURRENT_LIST_DIR}/../runtime/tools/solve_main.cpp"
    CACHE INTERNAL "")
function(stencilc_add_solver target)
  cmake_parse_arguments(ARG "" "KERNELS;STENCIL" "" ${ARGN})
  if(NOT ARG_KERNELS OR NOT ARG_STENCIL)
    message(FATAL_ERROR "stencilc_add_solver(${target}): KERNELS and STENCIL are required")
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
  # Plain C++ whatever the platform: it sees only the runtime's host API.
  target_link_libraries(${target} PRIVATE ${ARG_KERNELS} stencil_runtime)
endfunction()
