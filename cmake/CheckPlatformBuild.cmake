# Configures and builds the project for another platform from the checked-in
# generated/ sources (no generator, no tests), as a cluster without LLVM
# would: proves that the runtime, the kernels and the solver programs build
# there, the kernels without warnings (the tests' only warning check of the
# shipped kernels with hipcc and nvcc). Running them needs that platform's
# GPU.
#   cmake -D SOURCE_DIR=... -D BUILD_DIR=... -D PLATFORM=amd|nvidia
#         [-D CXX_COMPILER=hipcc] [-D CUDA_COMPILER=nvcc] -P CheckPlatformBuild.cmake
set(args -S "${SOURCE_DIR}" -B "${BUILD_DIR}" -G Ninja -DCMAKE_BUILD_TYPE=Release
         -DSTENCILC_PLATFORM=${PLATFORM} -DSTENCILC_BUILD_GENERATOR=OFF
         -DSTENCILC_BUILD_TESTS=OFF -DSTENCILC_KERNEL_WARNINGS_AS_ERRORS=ON)
if(CXX_COMPILER)
  list(APPEND args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(CUDA_COMPILER)
  list(APPEND args -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${args} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "configuring the ${PLATFORM} build failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BUILD_DIR}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "building for ${PLATFORM} failed")
endif()
file(GLOB solvers "${BUILD_DIR}/solve_*")
list(LENGTH solvers count)
message(STATUS "${PLATFORM}: runtime, kernels and ${count} solver programs built")
