//===- KernelPrinter.h - A KernelPlan as HIP/CUDA/C++ source ----*- C++ -*-===//
#ifndef STENCILC_EMIT_KERNELPRINTER_H
#define STENCILC_EMIT_KERNELPRINTER_H

#include "plan/Plan.h"

#include <string>

namespace stencilc {

/// The kernel `plan` describes: its doc comment, signature and body, as the
/// text of NAME.hip (compiled as HIP, CUDA or host C++).
std::string printKernel(const KernelPlan &plan);
/// The site-local clover kernel of an even/odd Wilson-clover stencil.
std::string printCloverKernel(const CloverKernelPlan &plan);

} // namespace stencilc

#endif
