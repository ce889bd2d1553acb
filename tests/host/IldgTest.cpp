// ILDG configurations in LIME files: a writer here, written from the format
// (big-endian record headers, big-endian values, x fastest, U_x .. U_t per
// site, SciDAC checksums), and GaugeField::read_ildg reading its files back,
// at both precisions, and refusing damaged ones with the reason.
#include "HostFixtures.h"

#include "stencil/gauge.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

using namespace stencil;

namespace {

void putBigEndian(std::string &out, std::uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

/// One LIME record: header, data, zero padding to 8 bytes.
std::string limeRecord(const std::string &type, const std::string &data,
                       bool begin, bool end) {
  std::string record;
  putBigEndian(record, 0x456789ab, 4);
  putBigEndian(record, 1, 2);
  putBigEndian(record, (begin ? 0x8000 : 0) | (end ? 0x4000 : 0), 2);
  putBigEndian(record, data.size(), 8);
  std::string name = type;
  name.resize(128, '\0');
  record += name + data;
  record.resize((record.size() + 7) / 8 * 8, '\0');
  return record;
}

struct IldgParts {
  std::string format, binary, checksum;
};

/// The records of `U` at `precision` (32 or 64).
IldgParts ildgParts(const GaugeField &U, int precision) {
  const int *n = U.extents();
  IldgParts parts;
  parts.format = "<?xml version=\"1.0\"?><ildgFormat><version>1.0</version>"
                 "<field>su3gauge</field><precision>" +
                 std::to_string(precision) + "</precision><lx>" +
                 std::to_string(n[0]) + "</lx><ly>" + std::to_string(n[1]) +
                 "</ly><lz>" + std::to_string(n[2]) + "</lz><lt>" +
                 std::to_string(n[3]) + "</lt></ildgFormat>";
  std::uint32_t suma = 0, sumb = 0;
  for (std::int64_t s = 0; s < U.sites(); ++s) {
    std::string site;
    const double *v = U.link(s, 0);
    for (int k = 0; k < 72; ++k) {
      std::uint64_t bits = 0;
      if (precision == 64) {
        std::memcpy(&bits, &v[k], 8);
      } else {
        const float f = static_cast<float>(v[k]);
        std::uint32_t narrow;
        std::memcpy(&narrow, &f, 4);
        bits = narrow;
      }
      putBigEndian(site, bits, precision / 8);
    }
    const std::uint32_t crc = scidac_site_checksum(
        reinterpret_cast<const unsigned char *>(site.data()), site.size());
    auto rotl = [](std::uint32_t x, int by) {
      return by ? (x << by) | (x >> (32 - by)) : x;
    };
    suma ^= rotl(crc, static_cast<int>(s % 29));
    sumb ^= rotl(crc, static_cast<int>(s % 31));
    parts.binary += site;
  }
  char sums[160];
  std::snprintf(sums, sizeof sums,
                "<?xml version=\"1.0\"?><scidacChecksum><version>1.0</version>"
                "<suma>%x</suma><sumb>%x</sumb></scidacChecksum>",
                suma, sumb);
  parts.checksum = sums;
  return parts;
}

std::string ildgFile(const IldgParts &p) {
  return limeRecord("ildg-format", p.format, true, false) +
         limeRecord("ildg-binary-data", p.binary, false, false) +
         limeRecord("scidac-checksum", p.checksum, false, true);
}

std::string writeFile(const std::string &name, const std::string &bytes) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

GaugeField randomGauge() {
  const int extents[4] = {3, 2, 5, 4};
  GaugeField U;
  EXPECT_TRUE(GaugeField::create(4, extents, 3, U).ok());
  Random random(31);
  U.set_random(random);
  return U;
}

void expectRefused(const std::string &path, const std::string &why) {
  GaugeField out;
  Status status = GaugeField::read_ildg(path, out);
  ASSERT_FALSE(status.ok()) << why;
  EXPECT_NE(status.message().find(path), std::string::npos) << status.message();
  EXPECT_NE(status.message().find(why), std::string::npos) << status.message();
}

} // namespace

TEST(Ildg, DoublePrecisionFilesReadBackExactly) {
  const GaugeField U = randomGauge();
  const std::string path = writeFile("ildg64.lime", ildgFile(ildgParts(U, 64)));
  GaugeField read;
  ASSERT_OK(GaugeField::read_ildg(path, read));
  ASSERT_EQ(read.dims(), 4);
  for (int axis = 0; axis < 4; ++axis)
    EXPECT_EQ(read.extents()[axis], U.extents()[axis]);
  EXPECT_EQ(std::as_const(read).data(), U.data());
  EXPECT_EQ(read.plaquette(), U.plaquette());
}

TEST(Ildg, SinglePrecisionFilesReadAsFloats) {
  const GaugeField U = randomGauge();
  const std::string path = writeFile("ildg32.lime", ildgFile(ildgParts(U, 32)));
  GaugeField read;
  ASSERT_OK(GaugeField::read_ildg(path, read));
  for (size_t i = 0; i < U.data().size(); ++i)
    ASSERT_EQ(read.data()[i], static_cast<double>(static_cast<float>(U.data()[i])));
  EXPECT_LT(read.unitarity_deviation(), 1e-6);
}

TEST(Ildg, DamagedFilesAreRefusedWithTheReason) {
  const GaugeField U = randomGauge();
  const IldgParts parts = ildgParts(U, 64);
  const std::string good = ildgFile(parts);

  std::string flipped = good;
  flipped[144 * 2 + 200] ^= 0x10; // inside the binary data
  expectRefused(writeFile("ildg-flipped.lime", flipped), "checksum mismatch");

  expectRefused(writeFile("ildg-short.lime", good.substr(0, good.size() - 300)),
                "truncated");
  expectRefused(writeFile("ildg-header.lime", good.substr(0, 100)),
                "truncated");
  expectRefused(writeFile("ildg-noformat.lime",
                          limeRecord("ildg-binary-data", parts.binary, true,
                                     true)),
                "no 'ildg-format' record");
  IldgParts fermion = parts;
  fermion.format.replace(fermion.format.find("su3gauge"), 8, "diracfermion");
  expectRefused(writeFile("ildg-fermion.lime", ildgFile(fermion)),
                "only su3gauge");
  IldgParts wrongSize = parts;
  wrongSize.format.replace(wrongSize.format.find("<lt>4</lt>"), 10,
                           "<lt>5</lt>");
  expectRefused(writeFile("ildg-size.lime", ildgFile(wrongSize)), "needs");

  // stencilc's own format is not LIME.
  const std::string own = ::testing::TempDir() + "ildg-own.gauge";
  ASSERT_OK(U.write(own));
  expectRefused(own, "not a LIME file");
  GaugeField out;
  const Status missing = GaugeField::read_ildg(::testing::TempDir() + "nope.lime", out);
  EXPECT_FALSE(missing.ok());
}

// GaugeField::load tells the two formats apart by their first bytes: an
// ILDG file and a stencilc gauge file of the same links read the same, and
// a file of neither kind is refused by the stencilc reader, naming it.
TEST(Ildg, LoadReadsEitherFormat) {
  const GaugeField U = randomGauge();
  const std::string lime = writeFile("load64.lime", ildgFile(ildgParts(U, 64)));
  const std::string own = ::testing::TempDir() + "load.gauge";
  ASSERT_OK(U.write(own));
  GaugeField fromLime, fromOwn;
  ASSERT_OK(GaugeField::load(lime, fromLime));
  ASSERT_OK(GaugeField::load(own, fromOwn));
  EXPECT_EQ(std::as_const(fromLime).data(), U.data());
  EXPECT_EQ(std::as_const(fromOwn).data(), U.data());
  const std::string other = writeFile("load.txt", "plain text, not links");
  GaugeField out;
  Status status = GaugeField::load(other, out);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(other), std::string::npos) << status.message();
  EXPECT_FALSE(GaugeField::load(::testing::TempDir() + "missing.gauge", out).ok());
}
