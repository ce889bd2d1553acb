// The importer's symbolic values: polynomials (indices), linear forms
// (coefficients, written in the spec's syntax) and conditions.
#include "import/Symbolic.h"
#include "spec/Spec.h"
#include "spec/SpecParser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

using namespace stencilc;
using namespace stencilc::import;

namespace {

TEST(ImportSymbolic, PolynomialsExpandAndCancel) {
  AtomTable atoms;
  int nx = atoms.size(&atoms, "nx", std::nullopt);
  int ny = atoms.size(&nx, "ny", std::nullopt);
  Poly k = Poly::atom(atoms.size(&ny, "k", std::nullopt));
  Poly index = (k * Poly::atom(ny) + Poly::number(3)) * Poly::atom(nx);
  EXPECT_EQ(atoms.text(index), "nx*ny*k + 3*nx"); // atoms in order of creation
  Poly difference = index - Poly::number(3) * Poly::atom(nx);
  EXPECT_EQ(difference, k * Poly::atom(nx) * Poly::atom(ny));
  EXPECT_TRUE((index - index).isZero());
  EXPECT_EQ(Poly::atom(nx).degreeOf(nx), 1);
  EXPECT_EQ((Poly::atom(nx) * Poly::atom(nx)).degreeOf(nx), 2);
  EXPECT_EQ(index.substitute(nx, Poly::number(10)),
            Poly::number(10) * k * Poly::atom(ny) + Poly::number(30));
}

TEST(ImportSymbolic, BindingEvaluatesWrappedCoordinates) {
  AtomTable atoms;
  int n = atoms.size(&atoms, "n", std::nullopt);
  Atom coordinate;
  coordinate.kind = Atom::Kind::Coordinate;
  coordinate.name = "i";
  int i = atoms.intern(coordinate);
  int left = atoms.wrapped(i, -1, Poly::atom(n));
  EXPECT_EQ(atoms[left].name, "((i - 1) mod n)");
  EXPECT_EQ(atoms.wrapped(i, -1, Poly::atom(n)), left); // interned once
  Binding b(atoms);
  b.set(n, 7);
  b.set(i, 0);
  EXPECT_EQ(b.get(left), 6);
  b.set(i, 3);
  EXPECT_EQ(b.evaluate(Poly::atom(left) * Poly::number(2)), 4);
  // Constants keep their name but have a value.
  int fixed = atoms.size(&fixed, "NX", 64);
  Binding c(atoms);
  EXPECT_EQ(c.get(fixed), 64);
}

TEST(ImportSymbolic, LinearFormsPrintInSpecSyntaxAndReadBack) {
  LinearForm f = LinearForm::parameter("inv_hx2").scaled(2.0) +
                 LinearForm::parameter("inv_hy2").scaled(-1.0) +
                 LinearForm::number(1.0 / 3.0);
  EXPECT_EQ(f.text(), "2*inv_hx2 - inv_hy2 + 0.3333333333333333");
  CoefficientSpec parsed;
  ASSERT_TRUE(parseCoefficientText(f.text(), parsed));
  EXPECT_EQ(parsed.constant, 1.0 / 3.0);
  ASSERT_EQ(parsed.terms.size(), 2u);
  EXPECT_EQ(parsed.terms[0].name, "inv_hx2");
  EXPECT_EQ(parsed.terms[0].factor, 2.0);
  EXPECT_EQ(parsed.terms[1].factor, -1.0);
  // Terms that cancel disappear; a zero form prints as 0.
  LinearForm zero = f + f.scaled(-1.0);
  EXPECT_TRUE(zero.isZero());
  EXPECT_EQ(zero.text(), "0");
  EXPECT_EQ(LinearForm::parameter("kappa").scaled(-1.0).text(), "-kappa");
  EXPECT_EQ(formatNumber(0.1), "0.1");
  EXPECT_EQ(std::strtod(formatNumber(2.0 / 3.0).c_str(), nullptr), 2.0 / 3.0);
}

TEST(ImportSymbolic, FloatValuesScaleEveryRead) {
  FloatValue v;
  v.reads.emplace_back(0, LinearForm::number(1.0));
  v.reads.emplace_back(1, LinearForm::number(-2.0));
  FloatValue scaled = v.scaled(LinearForm::parameter("c"));
  ASSERT_EQ(scaled.reads.size(), 2u);
  EXPECT_EQ(scaled.reads[1].second.text(), "-2*c");
  EXPECT_TRUE(scaled.constant.isZero());
}

TEST(ImportSymbolic, ConditionsEvaluateOnBindings) {
  AtomTable atoms;
  int n = atoms.size(&atoms, "n", std::nullopt);
  Atom coordinate;
  coordinate.kind = Atom::Kind::Coordinate;
  int i = atoms.intern(coordinate);
  // i == 0 || i >= n - 1: the boundary of [0, n).
  ConditionRef boundary = Condition::combine(
      Condition::Kind::Or,
      Condition::compare(Condition::Kind::Equal, Poly::atom(i), Poly::number(0)),
      Condition::compare(Condition::Kind::GreaterEqual, Poly::atom(i),
                         Poly::atom(n) - Poly::number(1)));
  Binding b(atoms);
  b.set(n, 10);
  int skipped = 0;
  for (int v = 0; v < 10; ++v) {
    b.set(i, v);
    skipped += boundary->evaluate(b);
  }
  EXPECT_EQ(skipped, 2);
  ConditionRef interior =
      Condition::combine(Condition::Kind::Not, boundary, nullptr);
  b.set(i, 5);
  EXPECT_TRUE(interior->evaluate(b));
  std::vector<int> mentioned;
  boundary->atoms(mentioned);
  EXPECT_NE(std::find(mentioned.begin(), mentioned.end(), n), mentioned.end());
}

TEST(ImportSymbolic, ConditionsTakeASplitIndexApart) {
  // idx >= nx * ny with idx = j * nx + i: the same sites as j >= ny.
  AtomTable atoms;
  int nx = atoms.size(&atoms, "nx", std::nullopt);
  int ny = atoms.size(&nx, "ny", std::nullopt);
  Atom coordinate;
  coordinate.kind = Atom::Kind::Coordinate;
  int idx = atoms.intern(coordinate);
  int i = atoms.intern(coordinate);
  int j = atoms.intern(coordinate);
  ConditionRef outside = Condition::combine(
      Condition::Kind::Not,
      Condition::compare(Condition::Kind::GreaterEqual, Poly::atom(idx),
                         Poly::atom(nx) * Poly::atom(ny)),
      nullptr);
  ConditionRef split = substitute(outside, idx,
                                  Poly::atom(j) * Poly::atom(nx) + Poly::atom(i));
  EXPECT_EQ(outside->a->lhs, Poly::atom(idx)); // the original is unchanged
  Binding b(atoms);
  b.set(nx, 7);
  b.set(ny, 5);
  for (int jv = 0; jv < 8; ++jv)
    for (int iv = 0; iv < 7; ++iv) {
      b.set(i, iv);
      b.set(j, jv);
      EXPECT_EQ(split->evaluate(b), jv < 5) << "i = " << iv << ", j = " << jv;
    }
}

} // namespace
