// Reading ILDG gauge configurations: SU(3) links of a 4-D lattice in a LIME
// file. A LIME file is a sequence of records, each a 144-byte big-endian
// header (magic 0x456789ab, version, flags, the data's length, a 128-byte
// type name) and its data padded to 8 bytes. ILDG needs an "ildg-format"
// record (XML: field su3gauge, precision 32 or 64, lx ly lz lt) and an
// "ildg-binary-data" record: big-endian IEEE values, sites with x fastest and
// t slowest, at each site U_x, U_y, U_z, U_t as row-major 3x3 complex
// matrices (the layout of stencil/gauge.hpp). A "scidac-checksum" record, if
// present, is checked (CRC-32 of each site's bytes, rotated by the site's
// rank modulo 29 and 31 and xor-ed into suma and sumb).
#include "stencil/gauge.hpp"

#include "stencil/device.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <cstdlib>

namespace stencil {
namespace {

std::uint64_t bigEndian(const unsigned char *bytes, int count) {
  std::uint64_t value = 0;
  for (int i = 0; i < count; ++i)
    value = (value << 8) | bytes[i];
  return value;
}

std::uint32_t crc32(const unsigned char *bytes, std::size_t count) {
  std::uint32_t crc = 0xffffffffu;
  for (std::size_t i = 0; i < count; ++i) {
    crc ^= bytes[i];
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::uint32_t rotateLeft(std::uint32_t value, int by) {
  return by == 0 ? value : (value << by) | (value >> (32 - by));
}

/// The text between <tag> and </tag> in `xml`, trimmed, or "".
std::string xmlText(const std::string &xml, const std::string &tag) {
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  const std::size_t start = xml.find(open);
  if (start == std::string::npos)
    return "";
  const std::size_t from = start + open.size();
  const std::size_t end = xml.find(close, from);
  if (end == std::string::npos)
    return "";
  std::string text = xml.substr(from, end - from);
  const char *space = " \t\r\n";
  const std::size_t first = text.find_first_not_of(space);
  if (first == std::string::npos)
    return "";
  return text.substr(first, text.find_last_not_of(space) - first + 1);
}

/// The decimal integer in <tag>...</tag> of `xml` (at most 9 digits), or -1.
long long xmlInteger(const std::string &xml, const std::string &tag) {
  const std::string text = xmlText(xml, tag);
  if (text.empty() || text.size() > 9 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::strtoll(text.c_str(), nullptr, 10);
}

} // namespace

std::uint32_t scidac_site_checksum(const unsigned char *bytes,
                                   std::size_t count) {
  return crc32(bytes, count);
}

Status GaugeField::read_ildg(const std::string &path, GaugeField &out) {
  auto bad = [&](const std::string &why) {
    return Status::failure("ILDG file '" + path + "': " + why);
  };
  std::ifstream is(path, std::ios::binary | std::ios::ate);
  if (!is)
    return Status::failure("cannot open ILDG file '" + path + "'");
  const std::uint64_t size = static_cast<std::uint64_t>(is.tellg());
  is.seekg(0);
  std::string format, checksum;
  std::uint64_t dataOffset = 0, dataLength = 0;
  bool haveData = false;
  for (std::uint64_t at = 0; at < size;) {
    unsigned char header[144];
    if (size - at < sizeof header)
      return bad("truncated: a record header at byte " + std::to_string(at) +
                 " is cut short");
    is.seekg(static_cast<std::streamoff>(at));
    is.read(reinterpret_cast<char *>(header), sizeof header);
    if (bigEndian(header, 4) != 0x456789abu)
      return bad("not a LIME file (no record magic at byte " +
                 std::to_string(at) + ")");
    const std::uint64_t length = bigEndian(header + 8, 8);
    const std::string type(reinterpret_cast<char *>(header + 16),
                           strnlen(reinterpret_cast<char *>(header + 16), 128));
    const std::uint64_t data = at + sizeof header;
    if (length > size - data)
      return bad("truncated: record '" + type + "' at byte " +
                 std::to_string(at) + " declares " + std::to_string(length) +
                 " bytes, " + std::to_string(size - data) + " remain");
    if (type == "ildg-format" || type == "scidac-checksum") {
      if (length > (1u << 20))
        return bad("record '" + type + "' is implausibly long");
      std::string text(length, '\0');
      is.read(&text[0], static_cast<std::streamsize>(length));
      (type == "ildg-format" ? format : checksum) = text;
    } else if (type == "ildg-binary-data") {
      haveData = true;
      dataOffset = data;
      dataLength = length;
    }
    at = data + (length + 7) / 8 * 8;
  }
  if (format.empty())
    return bad("has no 'ildg-format' record");
  if (!haveData)
    return bad("has no 'ildg-binary-data' record");
  const std::string field = xmlText(format, "field");
  if (field != "su3gauge")
    return bad("holds field '" + field + "'; only su3gauge is read");
  const long long precision = xmlInteger(format, "precision");
  if (precision != 32 && precision != 64)
    return bad("precision " + std::to_string(precision) +
               "; expected 32 or 64");
  int extents[4];
  const char *const names[4] = {"lx", "ly", "lz", "lt"};
  std::uint64_t sites = 1;
  for (int axis = 0; axis < 4; ++axis) {
    const long long n = xmlInteger(format, names[axis]);
    if (n < 1 || n > (1 << 20))
      return bad(std::string("'") + names[axis] + "' is missing or out of range");
    extents[axis] = static_cast<int>(n);
    sites *= static_cast<std::uint64_t>(n);
    if (sites > (std::uint64_t(1) << 40))
      return bad("the lattice has more than 2^40 sites");
  }
  const int bytesPerValue = static_cast<int>(precision / 8);
  const std::uint64_t siteBytes = 4 * 18 * bytesPerValue;
  if (dataLength != sites * siteBytes)
    return bad("the binary data holds " + std::to_string(dataLength) +
               " bytes; a " + std::to_string(extents[0]) + "x" +
               std::to_string(extents[1]) + "x" + std::to_string(extents[2]) +
               "x" + std::to_string(extents[3]) + " lattice at precision " +
               std::to_string(precision) + " needs " +
               std::to_string(sites * siteBytes));
  GaugeField U;
  STENCIL_TRY(GaugeField::create(4, extents, 3, U));
  std::uint32_t suma = 0, sumb = 0;
  std::vector<unsigned char> site(siteBytes);
  is.seekg(static_cast<std::streamoff>(dataOffset));
  for (std::uint64_t s = 0; s < sites; ++s) {
    is.read(reinterpret_cast<char *>(site.data()),
            static_cast<std::streamsize>(siteBytes));
    if (!is)
      return bad("read failed");
    const std::uint32_t crc = crc32(site.data(), site.size());
    suma ^= rotateLeft(crc, static_cast<int>(s % 29));
    sumb ^= rotateLeft(crc, static_cast<int>(s % 31));
    double *values = U.link(static_cast<std::int64_t>(s), 0);
    for (int k = 0; k < 4 * 18; ++k) {
      const std::uint64_t bits = bigEndian(site.data() + k * bytesPerValue,
                                           bytesPerValue);
      if (bytesPerValue == 8) {
        std::memcpy(&values[k], &bits, 8);
      } else {
        const std::uint32_t narrow = static_cast<std::uint32_t>(bits);
        float value;
        std::memcpy(&value, &narrow, 4);
        values[k] = value;
      }
      if (!std::isfinite(values[k]))
        return bad("holds a non-finite value at site " + std::to_string(s));
    }
  }
  if (!checksum.empty()) {
    const std::string a = xmlText(checksum, "suma").substr(0, 16),
                      b = xmlText(checksum, "sumb").substr(0, 16);
    const unsigned long long storedA = std::strtoull(a.c_str(), nullptr, 16);
    const unsigned long long storedB = std::strtoull(b.c_str(), nullptr, 16);
    if (a.empty() || b.empty() || storedA != suma || storedB != sumb) {
      char text[160];
      std::snprintf(text, sizeof text,
                    "SciDAC checksum mismatch (stored %s %s, computed %x %x); "
                    "the file is corrupt",
                    a.c_str(), b.c_str(), suma, sumb);
      return bad(text);
    }
  }
  out = std::move(U);
  return Status();
}

Status GaugeField::load(const std::string &path, GaugeField &out) {
  std::ifstream is(path, std::ios::binary);
  if (!is)
    return Status::failure("cannot open gauge file '" + path + "'");
  unsigned char magic[4] = {0, 0, 0, 0};
  is.read(reinterpret_cast<char *>(magic), sizeof magic);
  if (is.gcount() == sizeof magic && bigEndian(magic, 4) == 0x456789abu)
    return read_ildg(path, out);
  return read(path, out);
}

} // namespace stencil
