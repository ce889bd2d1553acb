//===- Parse.cpp - Reading the compilers' reports and the ISA --------------===//
#include "inspect/Inspect.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace stencilc {

namespace {

int numberAfterColon(StringRef line) {
  StringRef rest = line.substr(line.rfind(':') + 1).trim();
  rest = rest.take_while([](char c) { return isDigit(c); });
  int value = 0;
  rest.getAsInteger(10, value);
  return value;
}

/// The lines of `text`.
SmallVector<StringRef, 0> linesOf(StringRef text) {
  SmallVector<StringRef, 0> lines;
  text.split(lines, '\n');
  return lines;
}

void count(std::map<std::string, int> &counts, StringRef mnemonic) {
  ++counts[mnemonic.str()];
}

} // namespace

std::map<std::string, KernelResources> parseAmdRemarks(StringRef remarks) {
  std::map<std::string, KernelResources> kernels;
  KernelResources *current = nullptr;
  for (StringRef line : linesOf(remarks)) {
    size_t at = line.find("remark: ");
    if (at == StringRef::npos)
      continue;
    StringRef body = line.substr(at + 8);
    body = body.substr(0, body.find(" [-Rpass-analysis")).trim();
    if (body.consume_front("Function Name: ")) {
      current = &kernels[body.trim().str()];
      continue;
    }
    if (!current)
      continue;
    int value = numberAfterColon(body);
    if (body.startswith("SGPRs Spill"))
      current->sgprSpills = value;
    else if (body.startswith("VGPRs Spill"))
      current->vgprSpills = value;
    else if (body.startswith("SGPRs"))
      current->sgprs = value;
    else if (body.startswith("VGPRs"))
      current->vgprs = value;
    else if (body.startswith("AGPRs"))
      current->agprs = value;
    else if (body.startswith("ScratchSize"))
      current->scratchBytesPerLane = value;
    else if (body.startswith("Occupancy"))
      current->compilerOccupancy = value;
    else if (body.startswith("LDS Size"))
      current->ldsBytes = value;
  }
  return kernels;
}

void parseAmdAssembly(StringRef assembly,
                      std::map<std::string, KernelResources> &kernels) {
  KernelResources *current = nullptr;
  for (StringRef line : linesOf(assembly)) {
    // A function's code runs from its label to its .Lfunc_end label.
    if (!line.empty() && !isSpace(line[0]) && line.contains(':')) {
      StringRef label = line.substr(0, line.find(':'));
      auto it = kernels.find(label.str());
      if (it != kernels.end()) {
        current = &it->second;
        current->isaKind = "amdgcn";
        current->isa.clear();
        continue;
      }
      if (label.startswith(".Lfunc_end"))
        current = nullptr;
    }
    if (!current)
      continue;
    current->isa += line.str() + "\n";
    StringRef code = line.trim();
    StringRef mnemonic = code.take_until([](char c) { return isSpace(c); });
    bool load = mnemonic.startswith("global_load") ||
                mnemonic.startswith("buffer_load") ||
                mnemonic.startswith("flat_load");
    bool store = mnemonic.startswith("global_store") ||
                 mnemonic.startswith("buffer_store") ||
                 mnemonic.startswith("flat_store");
    if (load)
      count(current->loads, mnemonic);
    if (store) {
      count(current->stores, mnemonic);
      // gfx9: a non-temporal store is marked glc slc (or nt on gfx940).
      SmallVector<StringRef, 8> words;
      code.split(words, ' ', -1, false);
      bool slc = false, nt = false;
      for (StringRef word : words) {
        slc |= word == "slc";
        nt |= word == "nt";
      }
      current->nontemporalStores += slc || nt;
    }
  }
}

std::map<std::string, KernelResources> parsePtxasInfo(StringRef output) {
  std::map<std::string, KernelResources> kernels;
  KernelResources *current = nullptr;
  for (StringRef line : linesOf(output)) {
    StringRef body = line.trim();
    if (body.consume_front("ptxas info    : Function properties for ")) {
      current = &kernels[body.trim().str()];
      continue;
    }
    if (body.consume_front("ptxas info    : Compiling entry function '")) {
      current = &kernels[body.substr(0, body.find('\'')).str()];
      continue;
    }
    if (!current)
      continue;
    // "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
    // "ptxas info    : Used 40 registers, used 0 barriers, 392 bytes cmem[0]"
    SmallVector<StringRef, 8> parts;
    body.split(parts, ',');
    for (StringRef part : parts) {
      part = part.trim();
      if (part.consume_front("ptxas info    : Used "))
        part = part.trim();
      int value = 0;
      StringRef number = part.take_while([](char c) { return isDigit(c); });
      if (number.empty() || number.getAsInteger(10, value))
        continue;
      StringRef what = part.drop_front(number.size()).trim();
      if (what == "registers")
        current->registers = value;
      else if (what == "bytes stack frame")
        current->stackBytes = value;
      else if (what == "bytes spill stores")
        current->spillStoreBytes = value;
      else if (what == "bytes spill loads")
        current->spillLoadBytes = value;
      else if (what == "bytes smem")
        current->sharedBytes = value;
    }
  }
  return kernels;
}

void parseSass(StringRef sass,
               std::map<std::string, KernelResources> &kernels) {
  KernelResources *current = nullptr;
  for (StringRef line : linesOf(sass)) {
    StringRef body = line.trim();
    if (body.consume_front("Function : ")) {
      auto it = kernels.find(body.trim().str());
      current = it == kernels.end() ? nullptr : &it->second;
      if (current) {
        current->isaKind = "sass";
        current->isa.clear();
      }
      continue;
    }
    if (!current)
      continue;
    current->isa += line.str() + "\n";
    // "/*0090*/  LDG.E.64 R2, desc[UR4][R2.64] ;"
    size_t close = body.find("*/");
    if (close == StringRef::npos)
      continue;
    StringRef code = body.substr(close + 2).trim();
    if (code.startswith("@")) // predicated
      code = code.drop_until([](char c) { return isSpace(c); }).trim();
    StringRef mnemonic = code.take_until([](char c) { return isSpace(c); });
    if (mnemonic.startswith("LDG"))
      count(current->loads, mnemonic);
    if (mnemonic.startswith("STG")) {
      count(current->stores, mnemonic);
      // __stcs: evict-first (streaming) stores.
      current->nontemporalStores += mnemonic.contains(".EF");
    }
  }
}

void parsePtx(StringRef ptx, std::map<std::string, KernelResources> &kernels) {
  KernelResources *current = nullptr;
  for (StringRef line : linesOf(ptx)) {
    StringRef body = line.trim();
    if (body.startswith(".visible .entry ") || body.startswith(".entry ")) {
      StringRef name = body.substr(body.find(".entry ") + 7);
      name = name.take_until([](char c) { return c == '(' || isSpace(c); });
      auto it = kernels.find(name.str());
      current = it == kernels.end() ? nullptr : &it->second;
      if (current) {
        current->isaKind = "ptx";
        current->isa.clear();
      }
    }
    if (!current)
      continue;
    current->isa += line.str() + "\n";
    if (body == "}") {
      current = nullptr;
      continue;
    }
    if (body.startswith("@"))
      body = body.drop_until([](char c) { return isSpace(c); }).trim();
    StringRef mnemonic = body.take_until([](char c) { return isSpace(c); });
    if (mnemonic.startswith("ld.global"))
      count(current->loads, mnemonic);
    if (mnemonic.startswith("st.global")) {
      count(current->stores, mnemonic);
      current->nontemporalStores += mnemonic.contains(".cs");
    }
  }
}

} // namespace stencilc
