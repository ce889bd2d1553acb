// The stencilc gauge file (format in stencil/gauge.hpp): a fixed header
// with the lattice and an FNV-1a checksum, then the links as little-endian
// doubles; every way a file can be damaged is refused with the reason.
#include "stencil/gauge.hpp"

#include "stencil/device.hpp"

#include "fnv1a.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace stencil {
namespace {

const char kMagic[16] = {'S', 'T', 'E', 'N', 'C', 'I', 'L', 'C',
                         '-', 'G', 'A', 'U', 'G', 'E', 0,   0};
constexpr std::uint32_t kVersion = 1;

bool littleEndian() {
  const std::uint16_t probe = 1;
  unsigned char first;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

} // namespace

std::uint64_t GaugeField::checksum() const {
  return fnv1a(data_.data(), data_.size() * sizeof(double));
}

Status GaugeField::write(const std::string &path) const {
  if (!littleEndian())
    return Status::failure("gauge file '" + path +
                           "': writing needs a little-endian host");
  std::ofstream os(path, std::ios::binary);
  if (!os)
    return Status::failure("cannot open gauge file '" + path +
                           "' for writing");
  std::uint32_t header[7] = {kVersion,
                             static_cast<std::uint32_t>(dims_),
                             static_cast<std::uint32_t>(colours_),
                             static_cast<std::uint32_t>(extents_[0]),
                             static_cast<std::uint32_t>(extents_[1]),
                             static_cast<std::uint32_t>(extents_[2]),
                             static_cast<std::uint32_t>(extents_[3])};
  const std::uint64_t count = data_.size();
  const std::uint64_t hash = checksum();
  os.write(kMagic, sizeof kMagic);
  os.write(reinterpret_cast<const char *>(header), sizeof header);
  os.write(reinterpret_cast<const char *>(&count), sizeof count);
  os.write(reinterpret_cast<const char *>(&hash), sizeof hash);
  os.write(reinterpret_cast<const char *>(data_.data()),
           static_cast<std::streamsize>(data_.size() * sizeof(double)));
  os.close();
  if (!os)
    return Status::failure("cannot write gauge file '" + path + "'");
  return Status();
}

Status GaugeField::read(const std::string &path, GaugeField &out) {
  if (!littleEndian())
    return Status::failure("gauge file '" + path +
                           "': reading needs a little-endian host");
  std::ifstream is(path, std::ios::binary | std::ios::ate);
  if (!is)
    return Status::failure("cannot open gauge file '" + path + "'");
  const std::uint64_t size = static_cast<std::uint64_t>(is.tellg());
  is.seekg(0);
  const std::uint64_t headerBytes = 16 + 7 * 4 + 8 + 8;
  auto bad = [&](const std::string &why) {
    return Status::failure("gauge file '" + path + "': " + why);
  };
  if (size < headerBytes)
    return bad("truncated: " + std::to_string(size) +
               " bytes, shorter than the " + std::to_string(headerBytes) +
               "-byte header");
  char magic[16];
  std::uint32_t header[7];
  std::uint64_t count = 0, hash = 0;
  is.read(magic, sizeof magic);
  is.read(reinterpret_cast<char *>(header), sizeof header);
  is.read(reinterpret_cast<char *>(&count), sizeof count);
  is.read(reinterpret_cast<char *>(&hash), sizeof hash);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0)
    return bad("not a stencilc gauge file (wrong magic bytes)");
  if (header[0] != kVersion)
    return bad("version " + std::to_string(header[0]) +
               " is not supported (this reader knows version 1)");
  const int dims = static_cast<int>(header[1]);
  const int colours = static_cast<int>(header[2]);
  if (dims < 1 || dims > 4 || colours < 1 || colours > 4)
    return bad("header gives dims " + std::to_string(header[1]) +
               " and colours " + std::to_string(header[2]) +
               "; expected 1 to 4 each");
  int extents[4];
  std::uint64_t sites = 1;
  for (int axis = 0; axis < 4; ++axis) {
    if (header[3 + axis] < 1 || header[3 + axis] > 0x7fffffffu ||
        (axis >= dims && header[3 + axis] != 1))
      return bad("header gives extent " + std::to_string(header[3 + axis]) +
                 " along axis " + std::to_string(axis));
    extents[axis] = static_cast<int>(header[3 + axis]);
    // sites <= 2^40 and a factor below 2^31: no overflow before the check.
    sites *= header[3 + axis];
    if (sites > (std::uint64_t(1) << 40))
      return bad("header gives a lattice of more than 2^40 sites, as "
                 "GaugeField::create allows");
  }
  const std::uint64_t expected =
      sites * static_cast<std::uint64_t>(dims) * 2 * colours * colours;
  if (count != expected)
    return bad("header counts " + std::to_string(count) +
               " values but the lattice needs " + std::to_string(expected));
  const std::uint64_t total = headerBytes + expected * sizeof(double);
  if (size < total)
    return bad("truncated: " + std::to_string(size) + " bytes, expected " +
               std::to_string(total));
  if (size > total)
    return bad(std::to_string(size - total) +
               " bytes follow the links; expected exactly " +
               std::to_string(total) + " bytes");
  GaugeField field;
  STENCIL_TRY(GaugeField::create(dims, extents, colours, field));
  is.read(reinterpret_cast<char *>(field.data_.data()),
          static_cast<std::streamsize>(expected * sizeof(double)));
  if (!is)
    return bad("read failed");
  const std::uint64_t actual = field.checksum();
  if (actual != hash) {
    char text[80];
    std::snprintf(text, sizeof text,
                  "checksum mismatch (stored %016llx, computed %016llx)",
                  static_cast<unsigned long long>(hash),
                  static_cast<unsigned long long>(actual));
    return bad(std::string(text) + "; the file is corrupt");
  }
  for (double v : field.data_)
    if (!std::isfinite(v))
      return bad("holds a non-finite value");
  out = std::move(field);
  return Status();
}

} // namespace stencil
