//===- Symbolic.cpp - Polynomials, linear forms and conditions -------------===//
#include "import/Symbolic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace stencilc {
namespace import {

Poly Poly::number(int64_t value) {
  Poly p;
  p.add({}, value);
  return p;
}

Poly Poly::atom(int id) {
  Poly p;
  p.add({id}, 1);
  return p;
}

Poly Poly::term(const Monomial &atoms, int64_t coefficient) {
  Monomial sorted = atoms;
  std::sort(sorted.begin(), sorted.end());
  Poly p;
  p.add(sorted, coefficient);
  return p;
}

void Poly::add(const Monomial &m, int64_t c) {
  if (c == 0)
    return;
  int64_t &slot = terms_[m];
  slot += c;
  if (slot == 0)
    terms_.erase(m);
}

bool Poly::isNumber() const {
  return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty());
}

int64_t Poly::numberValue() const {
  auto it = terms_.find(Monomial{});
  return it == terms_.end() ? 0 : it->second;
}

bool Poly::mentions(int atom) const { return degreeOf(atom) > 0; }

int Poly::degreeOf(int atom) const {
  int degree = 0;
  for (const auto &[m, c] : terms_)
    degree = std::max<int>(degree, std::count(m.begin(), m.end(), atom));
  return degree;
}

Poly Poly::operator+(const Poly &other) const {
  Poly r = *this;
  for (const auto &[m, c] : other.terms_)
    r.add(m, c);
  return r;
}

Poly Poly::operator-(const Poly &other) const { return *this + (-other); }

Poly Poly::operator-() const {
  Poly r;
  for (const auto &[m, c] : terms_)
    r.add(m, -c);
  return r;
}

Poly Poly::operator*(const Poly &other) const {
  Poly r;
  for (const auto &[m1, c1] : terms_)
    for (const auto &[m2, c2] : other.terms_) {
      Monomial m = m1;
      m.insert(m.end(), m2.begin(), m2.end());
      std::sort(m.begin(), m.end());
      r.add(m, c1 * c2);
    }
  return r;
}

Poly Poly::substitute(int atom, const Poly &replacement) const {
  Poly r;
  for (const auto &[m, c] : terms_) {
    Monomial rest;
    int power = 0;
    for (int id : m) {
      if (id == atom)
        ++power;
      else
        rest.push_back(id);
    }
    Poly t = term(rest, c);
    for (int k = 0; k < power; ++k)
      t = t * replacement;
    r = r + t;
  }
  return r;
}

int AtomTable::intern(Atom atom) {
  atoms_.push_back(std::move(atom));
  return count() - 1;
}

int AtomTable::size(const void *decl, const std::string &name,
                    std::optional<int64_t> value) {
  for (int id = 0; id < count(); ++id)
    if (atoms_[id].kind == Atom::Kind::Size && atoms_[id].decl == decl)
      return id;
  Atom atom;
  atom.kind = Atom::Kind::Size;
  atom.decl = decl;
  atom.name = name;
  atom.value = value;
  return intern(atom);
}

int AtomTable::wrapped(int coordinate, int64_t offset, const Poly &modulus) {
  for (int id = 0; id < count(); ++id) {
    const Atom &a = atoms_[id];
    if (a.kind == Atom::Kind::Wrapped && a.coordinate == coordinate &&
        a.offset == offset && moduli_[a.modulus] == modulus)
      return id;
  }
  moduli_.push_back(modulus);
  Atom atom;
  atom.kind = Atom::Kind::Wrapped;
  atom.coordinate = coordinate;
  atom.offset = offset;
  atom.modulus = static_cast<int>(moduli_.size()) - 1;
  std::string shift = offset == 0 ? ""
                      : offset > 0 ? " + " + std::to_string(offset)
                                   : " - " + std::to_string(-offset);
  atom.name = "((" + atoms_[coordinate].name + shift + ") mod " +
              text(modulus) + ")";
  return intern(atom);
}

int AtomTable::thread(int kind, int axis) {
  for (int id = 0; id < count(); ++id)
    if (atoms_[id].kind == Atom::Kind::Thread && atoms_[id].threadKind == kind &&
        atoms_[id].threadAxis == axis)
      return id;
  static const char *const kinds[] = {"threadIdx", "blockIdx", "blockDim",
                                      "gridDim"};
  Atom atom;
  atom.kind = Atom::Kind::Thread;
  atom.threadKind = kind;
  atom.threadAxis = axis;
  atom.name = std::string(kinds[kind]) + "." + "xyz"[axis];
  return intern(atom);
}

std::string AtomTable::text(const Poly &poly) const {
  if (poly.isZero())
    return "0";
  std::string out;
  bool first = true;
  // Highest degree first, as people write them.
  std::vector<std::pair<Monomial, int64_t>> terms(poly.terms().begin(),
                                                  poly.terms().end());
  std::stable_sort(terms.begin(), terms.end(), [](const auto &a, const auto &b) {
    return a.first.size() > b.first.size();
  });
  for (const auto &[m, c] : terms) {
    int64_t magnitude = c < 0 ? -c : c;
    if (first)
      out += c < 0 ? "-" : "";
    else
      out += c < 0 ? " - " : " + ";
    first = false;
    std::string product;
    for (int id : m)
      product += (product.empty() ? "" : "*") + atoms_[id].name;
    if (product.empty())
      out += std::to_string(magnitude);
    else if (magnitude == 1)
      out += product;
    else
      out += std::to_string(magnitude) + "*" + product;
  }
  return out;
}

int64_t Binding::get(int atom) const {
  const Atom &a = (*table_)[atom];
  if (a.kind == Atom::Kind::Size && a.value)
    return *a.value;
  if (a.kind == Atom::Kind::Wrapped) {
    int64_t m = evaluate(table_->modulus(a.modulus));
    if (m <= 0)
      return 0;
    int64_t v = (values_[a.coordinate] + a.offset) % m;
    return v < 0 ? v + m : v;
  }
  return values_[atom];
}

int64_t Binding::evaluate(const Poly &poly) const {
  int64_t sum = 0;
  for (const auto &[m, c] : poly.terms()) {
    int64_t term = c;
    for (int id : m)
      term *= get(id);
    sum += term;
  }
  return sum;
}

LinearForm LinearForm::number(double value) {
  LinearForm f;
  f.constant = value;
  return f;
}

LinearForm LinearForm::parameter(const std::string &name) {
  LinearForm f;
  f.terms.emplace_back(name, 1.0);
  return f;
}

bool LinearForm::isZero() const {
  return constant == 0.0 &&
         std::all_of(terms.begin(), terms.end(),
                     [](const auto &t) { return t.second == 0.0; });
}

LinearForm LinearForm::operator+(const LinearForm &other) const {
  LinearForm r = *this;
  r.constant += other.constant;
  for (const auto &[name, factor] : other.terms) {
    auto same = std::find_if(r.terms.begin(), r.terms.end(),
                             [&](const auto &t) { return t.first == name; });
    if (same != r.terms.end())
      same->second += factor;
    else
      r.terms.emplace_back(name, factor);
  }
  r.terms.erase(std::remove_if(r.terms.begin(), r.terms.end(),
                               [](const auto &t) { return t.second == 0.0; }),
                r.terms.end());
  return r;
}

LinearForm LinearForm::scaled(double factor) const {
  LinearForm r;
  r.constant = constant * factor;
  for (const auto &[name, f] : terms)
    if (f * factor != 0.0)
      r.terms.emplace_back(name, f * factor);
  return r;
}

std::string formatNumber(double value) {
  char buffer[64];
  // The shortest of %.15g .. %.17g that reads back exactly.
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  return buffer;
}

std::string LinearForm::text() const {
  std::string out;
  auto append = [&](double factor, const std::string &name) {
    double magnitude = std::fabs(factor);
    if (out.empty())
      out += factor < 0 ? "-" : "";
    else
      out += factor < 0 ? " - " : " + ";
    if (name.empty())
      out += formatNumber(magnitude);
    else if (magnitude == 1.0)
      out += name;
    else
      out += formatNumber(magnitude) + "*" + name;
  };
  for (const auto &[name, factor] : terms)
    append(factor, name);
  if (constant != 0.0 || out.empty())
    append(constant, "");
  return out;
}

FloatValue FloatValue::operator+(const FloatValue &other) const {
  FloatValue r = *this;
  r.constant = r.constant + other.constant;
  for (const auto &[read, coefficient] : other.reads)
    r.reads.emplace_back(read, coefficient);
  return r;
}

FloatValue FloatValue::scaled(const LinearForm &factor) const {
  // Callers pass a number when this value is not itself a number.
  FloatValue r;
  auto times = [&](const LinearForm &f) {
    if (factor.isNumber())
      return f.scaled(factor.constant);
    return factor.scaled(f.constant);
  };
  r.constant = times(constant);
  for (const auto &[read, coefficient] : reads)
    r.reads.emplace_back(read, times(coefficient));
  return r;
}

ConditionRef Condition::compare(Kind kind, Poly lhs, Poly rhs) {
  auto c = std::make_shared<Condition>();
  c->kind = kind;
  c->lhs = std::move(lhs);
  c->rhs = std::move(rhs);
  return c;
}

ConditionRef Condition::combine(Kind kind, ConditionRef a, ConditionRef b) {
  auto c = std::make_shared<Condition>();
  c->kind = kind;
  c->a = std::move(a);
  c->b = std::move(b);
  return c;
}

ConditionRef substitute(const ConditionRef &condition, int atom,
                        const Poly &replacement) {
  if (!condition)
    return condition;
  auto copy = std::make_shared<Condition>(*condition);
  copy->lhs = condition->lhs.substitute(atom, replacement);
  copy->rhs = condition->rhs.substitute(atom, replacement);
  copy->a = substitute(condition->a, atom, replacement);
  copy->b = substitute(condition->b, atom, replacement);
  return copy;
}

bool Condition::evaluate(const Binding &binding) const {
  switch (kind) {
  case Kind::True:
    return true;
  case Kind::False:
    return false;
  case Kind::And:
    return a->evaluate(binding) && b->evaluate(binding);
  case Kind::Or:
    return a->evaluate(binding) || b->evaluate(binding);
  case Kind::Not:
    return !a->evaluate(binding);
  default:
    break;
  }
  int64_t l = binding.evaluate(lhs), r = binding.evaluate(rhs);
  switch (kind) {
  case Kind::Less:
    return l < r;
  case Kind::LessEqual:
    return l <= r;
  case Kind::Greater:
    return l > r;
  case Kind::GreaterEqual:
    return l >= r;
  case Kind::Equal:
    return l == r;
  default:
    return l != r;
  }
}

void Condition::atoms(std::vector<int> &out) const {
  if (a)
    a->atoms(out);
  if (b)
    b->atoms(out);
  for (const Poly *p : {&lhs, &rhs})
    for (const auto &[m, c] : p->terms())
      out.insert(out.end(), m.begin(), m.end());
}

} // namespace import
} // namespace stencilc
