//===- Symbolic.h - Values of the importer's symbolic evaluation -*- C++ -*-===//
//
// Integer expressions are polynomials with integer coefficients over atoms:
// lattice coordinates (loop variables, global thread indices), sizes
// (integer parameters and constants), raw thread builtins (threadIdx.x ...,
// folded into coordinates once recognised), and wrapped coordinates
// ((c + d) mod m, from `%` or a wrap-around ternary). Floating values are
// linear forms in the elements read, with coefficients that are linear in
// the scalar parameters: exactly what a spec's taps can say. Conditions are
// kept as trees and evaluated numerically on sample lattices.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_IMPORT_SYMBOLIC_H
#define STENCILC_IMPORT_SYMBOLIC_H

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stencilc {
namespace import {

/// A product of atoms (ids, sorted, repeated for powers).
using Monomial = std::vector<int>;

/// A polynomial with integer coefficients; zero coefficients are dropped.
class Poly {
public:
  Poly() = default;
  static Poly number(int64_t value);
  static Poly atom(int id);
  /// coefficient * the product of `atoms`.
  static Poly term(const Monomial &atoms, int64_t coefficient);

  const std::map<Monomial, int64_t> &terms() const { return terms_; }
  bool isNumber() const;
  int64_t numberValue() const; ///< the constant term
  bool isZero() const { return terms_.empty(); }
  bool mentions(int atom) const;
  /// The highest power of `atom` in any term.
  int degreeOf(int atom) const;

  Poly operator+(const Poly &other) const;
  Poly operator-(const Poly &other) const;
  Poly operator*(const Poly &other) const;
  Poly operator-() const;
  bool operator==(const Poly &other) const { return terms_ == other.terms_; }
  bool operator!=(const Poly &other) const { return !(*this == other); }
  bool operator<(const Poly &other) const { return terms_ < other.terms_; }

  /// Replaces every term of `atom` by `replacement` times the rest.
  Poly substitute(int atom, const Poly &replacement) const;

private:
  void add(const Monomial &m, int64_t c);
  std::map<Monomial, int64_t> terms_;
};

struct Atom {
  enum class Kind { Size, Coordinate, Thread, Wrapped };
  Kind kind = Kind::Size;
  std::string name; ///< as printed in messages
  const void *decl = nullptr; ///< the variable (Size, Coordinate)
  std::optional<int64_t> value; ///< a Size of known value (a constant)
  int coordinate = -1;          ///< Wrapped: the coordinate's atom
  int64_t offset = 0;           ///< Wrapped: d of (c + d) mod m
  int modulus = -1;             ///< Wrapped: index into AtomTable::moduli
  int threadAxis = -1;          ///< Thread: 0..2 for .x .y .z
  /// A Coordinate split off a flattened index (`idx / nx`, `idx % nx`):
  /// named after the variable that first holds it.
  bool provisionalName = false;
  int threadKind = -1; ///< Thread: 0 threadIdx, 1 blockIdx, 2 blockDim,
                       ///< 3 gridDim
};

class AtomTable {
public:
  int intern(Atom atom);
  int size(const void *decl, const std::string &name,
           std::optional<int64_t> value);
  int wrapped(int coordinate, int64_t offset, const Poly &modulus);
  int thread(int kind, int axis);
  const Atom &operator[](int id) const { return atoms_[id]; }
  Atom &operator[](int id) { return atoms_[id]; }
  int count() const { return static_cast<int>(atoms_.size()); }
  const Poly &modulus(int index) const { return moduli_[index]; }
  std::string text(const Poly &poly) const;

private:
  std::vector<Atom> atoms_;
  std::vector<Poly> moduli_;
};

/// Values of atoms on one sample lattice; wrapped atoms are derived.
class Binding {
public:
  explicit Binding(const AtomTable &table)
      : table_(&table), values_(table.count(), 0) {}
  void set(int atom, int64_t value) { values_[atom] = value; }
  int64_t get(int atom) const;
  int64_t evaluate(const Poly &poly) const;

private:
  const AtomTable *table_;
  std::vector<int64_t> values_;
};

/// A tap coefficient: constant + sum of factor * parameter.
struct LinearForm {
  double constant = 0.0;
  std::vector<std::pair<std::string, double>> terms;

  static LinearForm number(double value);
  static LinearForm parameter(const std::string &name);
  bool isNumber() const { return terms.empty(); }
  bool isZero() const;
  LinearForm operator+(const LinearForm &other) const;
  LinearForm scaled(double factor) const;
  std::string text() const; ///< spec syntax: "2*a - b + 0.5"
};

/// Sum of coefficient * element read, plus a term that reads nothing.
struct FloatValue {
  std::vector<std::pair<int, LinearForm>> reads; ///< (read id, coefficient)
  LinearForm constant;

  bool readsNothing() const { return reads.empty(); }
  FloatValue operator+(const FloatValue &other) const;
  /// Every coefficient times `factor`; either `factor` or every coefficient
  /// of this value must be a number (the product stays linear).
  FloatValue scaled(const LinearForm &factor) const;
};

/// A condition over integer polynomials.
struct Condition {
  enum class Kind { Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual,
                    And, Or, Not, True, False };
  Kind kind = Kind::True;
  Poly lhs, rhs;
  std::shared_ptr<const Condition> a, b;

  static std::shared_ptr<const Condition> compare(Kind kind, Poly lhs, Poly rhs);
  static std::shared_ptr<const Condition> combine(Kind kind,
                                                  std::shared_ptr<const Condition> a,
                                                  std::shared_ptr<const Condition> b);
  bool evaluate(const Binding &binding) const;
  /// Every atom mentioned.
  void atoms(std::vector<int> &out) const;
};
using ConditionRef = std::shared_ptr<const Condition>;

/// `condition` with every term of `atom` replaced by `replacement`.
ConditionRef substitute(const ConditionRef &condition, int atom,
                        const Poly &replacement);

/// Formats a double so that it reads back exactly (%.17g, shortest form).
std::string formatNumber(double value);

} // namespace import
} // namespace stencilc

#endif
