// Host emulation for the import tests' CUDA kernels: see hip/hip_runtime.h.
#include "hip/hip_runtime.h"
