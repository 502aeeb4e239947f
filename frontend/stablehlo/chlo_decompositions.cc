// The chlo ops that have no HLO opcode of their own (erfc, erf_inv, lgamma,
// digamma, polygamma, zeta, bessel_i1e, next_after, is_inf and friends),
// lowered to the elementwise HLO subgraph XLA's CHLO-to-StableHLO
// legalization builds for them: the same polynomials, constants, selects and
// operation order, so that results agree with XLA's bit for bit wherever the
// elementwise kernels do. Types narrower than f32 are computed in f32 and
// converted back, as XLA does.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/element_type.h"
#include "core/hlo_opcode.h"
#include "core/literal.h"
#include "core/status_macros.h"
#include "frontend/stablehlo/stablehlo_internal.h"

namespace hlovm {
namespace stablehlo_internal {
namespace {

using Instr = HloInstruction;
using Dir = ComparisonDirection;

// Emits elementwise instructions on operands of one shape.
class Builder {
 public:
  using EmitFn = std::function<Instr*(HloOpcode, Shape, const std::vector<Instr*>&)>;
  explicit Builder(EmitFn emit) : emit_(std::move(emit)) {}

  // A constant of `like`'s shape holding `value` rounded to its element type
  // (a scalar constant broadcast when `like` has dimensions).
  Instr* Const(double value, Instr* like) {
    const ElementType t = like->shape().element_type();
    Literal scalar;
    if (IsInteger(t)) {
      scalar = IntScalar(t, static_cast<int64_t>(value));
    } else {
      scalar = *Literal::Create(Shape(t, {}));
      (void)scalar.SetFromDouble(0, value);
    }
    return Splat(std::move(scalar), like);
  }
  // An integer constant of `like`'s (integer) shape.
  Instr* IntConst(int64_t value, Instr* like) {
    return Splat(IntScalar(like->shape().element_type(), value), like);
  }
  Instr* Un(HloOpcode opcode, Instr* a) { return emit_(opcode, a->shape(), {a}); }
  Instr* Bin(HloOpcode opcode, Instr* a, Instr* b) { return emit_(opcode, a->shape(), {a, b}); }
  Instr* Add(Instr* a, Instr* b) { return Bin(HloOpcode::kAdd, a, b); }
  Instr* Sub(Instr* a, Instr* b) { return Bin(HloOpcode::kSubtract, a, b); }
  Instr* Mul(Instr* a, Instr* b) { return Bin(HloOpcode::kMultiply, a, b); }
  Instr* Div(Instr* a, Instr* b) { return Bin(HloOpcode::kDivide, a, b); }
  Instr* Neg(Instr* a) { return Un(HloOpcode::kNegate, a); }
  Instr* Abs(Instr* a) { return Un(HloOpcode::kAbs, a); }
  Instr* Floor(Instr* a) { return Un(HloOpcode::kFloor, a); }
  Instr* Cmp(Dir dir, Instr* a, Instr* b) {
    Instr* c = emit_(HloOpcode::kCompare, WithType(a->shape(), ElementType::kPred), {a, b});
    c->comparison_direction = dir;
    return c;
  }
  Instr* Select(Instr* pred, Instr* a, Instr* b) {
    return emit_(HloOpcode::kSelect, a->shape(), {pred, a, b});
  }
  Instr* IsFinite(Instr* a) {
    return emit_(HloOpcode::kIsFinite, WithType(a->shape(), ElementType::kPred), {a});
  }
  Instr* Part(HloOpcode opcode, Instr* z) {
    const ElementType part =
        z->shape().element_type() == ElementType::kC128 ? ElementType::kF64 : ElementType::kF32;
    return emit_(opcode, WithType(z->shape(), part), {z});
  }
  Instr* Complex(Instr* re, Instr* im) {
    const ElementType t =
        re->shape().element_type() == ElementType::kF64 ? ElementType::kC128 : ElementType::kC64;
    return emit_(HloOpcode::kComplex, WithType(re->shape(), t), {re, im});
  }
  Instr* Convert(Instr* a, ElementType t) {
    return emit_(HloOpcode::kConvert, WithType(a->shape(), t), {a});
  }
  Instr* BitcastConvert(Instr* a, ElementType t) {
    return emit_(HloOpcode::kBitcastConvert, WithType(a->shape(), t), {a});
  }
  // c[0] x^(n-1) + ... + c[n-1], evaluated by Horner's rule.
  Instr* Poly(Instr* x, const std::vector<double>& c) {
    if (c.empty()) return Const(0.0, x);
    Instr* p = Const(c[0], x);
    for (size_t i = 1; i < c.size(); ++i) p = Add(Mul(p, x), Const(c[i], x));
    return p;
  }
  // Clenshaw's recurrence for a Chebyshev series (Cephes' chbevl).
  Instr* Chebyshev(Instr* x, const std::vector<double>& c) {
    Instr* b0 = Const(0.0, x);
    Instr* b1 = Const(0.0, x);
    Instr* b2 = Const(0.0, x);
    for (double ci : c) {
      b2 = b1;
      b1 = b0;
      b0 = Add(Sub(Mul(x, b1), b2), Const(ci, x));
    }
    return Mul(Sub(b0, b2), Const(0.5, x));
  }

  static Shape WithType(const Shape& s, ElementType t) {
    return Shape(t, std::vector<int64_t>(s.dimensions().begin(), s.dimensions().end()));
  }

 private:
  static Literal IntScalar(ElementType t, int64_t v) {
    switch (t) {
      case ElementType::kS8: return Literal::CreateR0<int8_t>(static_cast<int8_t>(v));
      case ElementType::kS16: return Literal::CreateR0<int16_t>(static_cast<int16_t>(v));
      case ElementType::kS32: return Literal::CreateR0<int32_t>(static_cast<int32_t>(v));
      default: return Literal::CreateR0<int64_t>(v);
    }
  }
  Instr* Splat(Literal scalar, Instr* like) {
    const Shape& s = like->shape();
    Instr* c = emit_(HloOpcode::kConstant, Shape(scalar.shape().element_type(), {}), {});
    c->literal.emplace(std::move(scalar));
    if (s.rank() == 0) return c;
    Instr* b = emit_(HloOpcode::kBroadcast, s, {c});
    return b;
  }

  EmitFn emit_;
};

// ---- erf / erfc (Cephes; f32 and f64) ----

Instr* ErfcGeOneF64(Builder& b, Instr* x) {
  const double kMaxlog = 7.09782712893383996843E2;
  static const std::vector<double> kP = {
      2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
      4.86371970985681366614E1,   1.96520832956077098242E2,  5.26445194995477358631E2,
      9.34528527171957607540E2,   1.02755188689515710272E3,  5.57535335369399327526E2};
  static const std::vector<double> kQ = {
      1.00000000000000000000E0, 1.32281951154744992508E1, 8.67072140885989742329E1,
      3.54937778887819891062E2, 9.75708501743205489753E2, 1.82390916687909736289E3,
      2.24633760818710981792E3, 1.65666309194161350182E3, 5.57535340817727675546E2};
  static const std::vector<double> kR = {
      5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
      6.16021097993053585195E0,  7.40974269950448939160E0, 2.97886665372100240670E0};
  static const std::vector<double> kS = {
      1.00000000000000000000E0, 2.26052863220117276590E0, 9.39603524938001434673E0,
      1.20489539808096656605E1, 1.70814450747565897222E1, 9.60896809063285878198E0,
      3.36907645100081516050E0};
  Instr* z = b.Neg(b.Mul(x, x));
  Instr* exp_z = b.Un(HloOpcode::kExp, z);
  Instr* abs_x = b.Abs(x);
  Instr* approx_1_8 = b.Div(b.Mul(exp_z, b.Poly(abs_x, kP)), b.Poly(abs_x, kQ));
  Instr* approx_8_inf = b.Div(b.Mul(exp_z, b.Poly(abs_x, kR)), b.Poly(abs_x, kS));
  Instr* lt8 = b.Cmp(Dir::kLt, abs_x, b.Const(8.0, x));
  Instr* approx = b.Select(lt8, approx_1_8, approx_8_inf);
  Instr* underflow = b.Cmp(Dir::kLt, z, b.Const(-kMaxlog, x));
  Instr* zero = b.Const(0.0, x);
  Instr* clamped = b.Select(underflow, zero, approx);
  Instr* negative = b.Cmp(Dir::kLt, x, zero);
  return b.Select(negative, b.Sub(b.Const(2.0, x), clamped), clamped);
}

Instr* ErfLeOneF64(Builder& b, Instr* x) {
  static const std::vector<double> kT = {9.60497373987051638749E0, 9.00260197203842689217E1,
                                         2.23200534594684319226E3, 7.00332514112805075473E3,
                                         5.55923013010394962768E4};
  static const std::vector<double> kU = {1.00000000000000000000E0, 3.35617141647503099647E1,
                                         5.21357949780152679795E2, 4.59432382970980127987E3,
                                         2.26290000613890934246E4, 4.92673942608635921086E4};
  Instr* x2 = b.Mul(x, x);
  return b.Div(b.Mul(x, b.Poly(x2, kT)), b.Poly(x2, kU));
}

Instr* ErfcF64(Builder& b, Instr* x) {
  Instr* erfc_approx = ErfcGeOneF64(b, x);
  Instr* one = b.Const(1.0, x);
  Instr* erf_based = b.Sub(one, ErfLeOneF64(b, x));
  return b.Select(b.Cmp(Dir::kLt, b.Abs(x), one), erf_based, erfc_approx);
}

// The f32 coefficients are floats in XLA; rounding them here first keeps
// the constants identical.
std::vector<double> F(std::initializer_list<float> v) { return std::vector<double>(v.begin(), v.end()); }

Instr* ErfcGeOneF32(Builder& b, Instr* x) {
  const double kMaxlog = 88.72283905206835;
  static const std::vector<double> kP = F({
      +2.326819970068386E-2f, -1.387039388740657E-1f, +3.687424674597105E-1f,
      -5.824733027278666E-1f, +6.210004621745983E-1f, -4.944515323274145E-1f,
      +3.404879937665872E-1f, -2.741127028184656E-1f, +5.638259427386472E-1f});
  static const std::vector<double> kR = F({
      -1.047766399936249E+1f, +1.297719955372516E+1f, -7.495518717768503E+0f,
      +2.921019019210786E+0f, -1.015265279202700E+0f, +4.218463358204948E-1f,
      -2.820767439740514E-1f, +5.641895067754075E-1f});
  Instr* x2 = b.Mul(x, x);
  Instr* z = b.Neg(x2);
  Instr* abs_x = b.Abs(x);
  Instr* one = b.Const(1.0, x);
  Instr* inv_x2 = b.Div(one, x2);
  Instr* exp_z = b.Un(HloOpcode::kExp, z);
  Instr* inv_abs_x = b.Div(one, abs_x);
  Instr* scale = b.Mul(exp_z, inv_abs_x);
  Instr* two = b.Const(2.0, x);
  Instr* lt2 = b.Cmp(Dir::kLt, abs_x, two);
  Instr* p = b.Poly(inv_x2, kP);
  Instr* r = b.Poly(inv_x2, kR);
  Instr* approx = b.Mul(scale, b.Select(lt2, p, r));
  Instr* underflow = b.Cmp(Dir::kLt, z, b.Const(-kMaxlog, x));
  Instr* zero = b.Const(0.0, x);
  Instr* clamped = b.Select(underflow, zero, approx);
  Instr* negative = b.Cmp(Dir::kLt, x, zero);
  return b.Select(negative, b.Sub(two, clamped), clamped);
}

Instr* ErfLeOneF32(Builder& b, Instr* x) {
  static const std::vector<double> kT = F({
      +7.853861353153693E-5f, -8.010193625184903E-4f, +5.188327685732524E-3f,
      -2.685381193529856E-2f, +1.128358514861418E-1f, -3.761262582423300E-1f,
      +1.128379165726710E+0f});
  return b.Mul(x, b.Poly(b.Mul(x, x), kT));
}

Instr* ErfcF32(Builder& b, Instr* x) {
  Instr* erfc_approx = ErfcGeOneF32(b, x);
  Instr* one = b.Const(1.0, x);
  Instr* erf_based = b.Sub(one, ErfLeOneF32(b, x));
  return b.Select(b.Cmp(Dir::kLt, b.Abs(x), one), erf_based, erfc_approx);
}

// ---- erf_inv (Giles' approximation) ----

Instr* ErfInvF32(Builder& b, Instr* x) {
  static const float kLt5[] = {2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f,
                               -4.39150654e-06f, 0.00021858087f,  -0.00125372503f,
                               -0.00417768164f,  0.246640727f,    1.50140941f};
  static const float kGe5[] = {-0.000200214257f, 0.000100950558f, 0.00134934322f,
                               -0.00367342844f,  0.00573950773f,  -0.0076224613f,
                               0.00943887047f,   1.00167406f,     2.83297682f};
  Instr* w = b.Neg(b.Un(HloOpcode::kLog1p, b.Mul(x, b.Neg(x))));
  Instr* lt = b.Cmp(Dir::kLt, w, b.Const(5.0, x));
  auto coefficient = [&](int i) { return b.Select(lt, b.Const(kLt5[i], x), b.Const(kGe5[i], x)); };
  w = b.Select(lt, b.Sub(w, b.Const(2.5, x)),
               b.Sub(b.Un(HloOpcode::kSqrt, w), b.Const(3.0, x)));
  Instr* p = coefficient(0);
  for (int i = 1; i < 9; ++i) p = b.Add(coefficient(i), b.Mul(p, w));
  Instr* result = b.Mul(p, x);
  Instr* edge = b.Cmp(Dir::kEq, b.Abs(x), b.Const(1.0, x));
  return b.Select(edge, b.Mul(x, b.Const(std::numeric_limits<double>::infinity(), x)), result);
}

Instr* ErfInvF64(Builder& b, Instr* x) {
  static const double kLt625[23] = {
      -3.6444120640178196996e-21, -1.685059138182016589e-19,  1.2858480715256400167e-18,
      1.115787767802518096e-17,   -1.333171662854620906e-16,  2.0972767875968561637e-17,
      6.6376381343583238325e-15,  -4.0545662729752068639e-14, -8.1519341976054721522e-14,
      2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
      1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08,
      4.2347877827932403518e-07,  -1.3654692000834678645e-06, -1.3882523362786468719e-05,
      0.0001867342080340571352,   -0.00074070253416626697512, -0.0060336708714301490533,
      0.24015818242558961693,     1.6536545626831027356};
  static const double kLt16[19] = {
      2.2137376921775787049e-09,  9.0756561938885390979e-08,  -2.7517406297064545428e-07,
      1.8239629214389227755e-08,  1.5027403968909827627e-06,  -4.013867526981545969e-06,
      2.9234449089955446044e-06,  1.2475304481671778723e-05,  -4.7318229009055733981e-05,
      6.8284851459573175448e-05,  2.4031110387097893999e-05,  -0.0003550375203628474796,
      0.00095328937973738049703,  -0.0016882755560235047313, 0.0024914420961078508066,
      -0.0037512085075692412107, 0.005370914553590063617,    1.0052589676941592334,
      3.0838856104922207635};
  static const double kGe16[17] = {
      -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
      -3.7894654401267369937e-09, 7.6157012080783393804e-09,  -1.4960026627149240478e-08,
      2.9147953450901080826e-08,  -6.7711997758452339498e-08, 2.2900482228026654717e-07,
      -9.9298272942317002539e-07, 4.5260625972231537039e-06,  -1.9681778105531670567e-05,
      7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026,
      1.0103004648645343977,      4.8499064014085844221};
  Instr* w = b.Neg(b.Un(HloOpcode::kLog1p, b.Mul(x, b.Neg(x))));
  Instr* lt625 = b.Cmp(Dir::kLt, w, b.Const(6.25, x));
  Instr* lt16 = b.Cmp(Dir::kLt, w, b.Const(16.0, x));
  auto coefficient = [&](int i) {
    Instr* c = b.Const(kLt625[i], x);
    if (i < 19) c = b.Select(lt625, c, b.Const(kLt16[i], x));
    if (i < 17) c = b.Select(lt16, c, b.Const(kGe16[i], x));
    return c;
  };
  Instr* sqrt_w = b.Un(HloOpcode::kSqrt, w);
  Instr* w_minus = b.Sub(w, b.Const(3.125, x));
  Instr* offset = b.Select(lt16, b.Const(3.25, w), b.Const(5.0, w));
  w = b.Select(lt625, w_minus, b.Sub(sqrt_w, offset));
  Instr* p = coefficient(0);
  for (int i = 1; i < 17; ++i) p = b.Add(coefficient(i), b.Mul(p, w));
  for (int i = 17; i < 19; ++i) p = b.Select(lt16, b.Add(coefficient(i), b.Mul(p, w)), p);
  for (int i = 19; i < 23; ++i) p = b.Select(lt625, b.Add(coefficient(i), b.Mul(p, w)), p);
  Instr* result = b.Mul(p, x);
  Instr* edge = b.Cmp(Dir::kEq, b.Abs(x), b.Const(1.0, x));
  return b.Select(edge, b.Mul(x, b.Const(std::numeric_limits<double>::infinity(), x)), result);
}

// ---- bessel_i1e (Cephes' Chebyshev series) ----

Instr* BesselI1e(Builder& b, Instr* x, const std::vector<double>& a, const std::vector<double>& c) {
  Instr* z = b.Abs(x);
  Instr* two = b.Const(2.0, x);
  Instr* le8_value = b.Mul(z, b.Chebyshev(b.Sub(b.Mul(b.Const(0.5, x), z), two), a));
  Instr* gt8_value = b.Div(b.Chebyshev(b.Sub(b.Div(b.Const(32.0, x), z), two), c),
                           b.Un(HloOpcode::kSqrt, z));
  Instr* le8 = b.Cmp(Dir::kLe, z, b.Const(8.0, x));
  return b.Mul(b.Un(HloOpcode::kSign, x), b.Select(le8, le8_value, gt8_value));
}

Instr* BesselI1eF32(Builder& b, Instr* x) {
  static const std::vector<double> kA = F({
      9.38153738649577178388E-9f, -4.44505912879632808065E-8f, 2.00329475355213526229E-7f,
      -8.56872026469545474066E-7f, 3.47025130813767847674E-6f, -1.32731636560394358279E-5f,
      4.78156510755005422638E-5f, -1.61760815825896745588E-4f, 5.12285956168575772895E-4f,
      -1.51357245063125314899E-3f, 4.15642294431288815669E-3f, -1.05640848946261981558E-2f,
      2.47264490306265168283E-2f, -5.29459812080949914269E-2f, 1.02643658689847095384E-1f,
      -1.76416518357834055153E-1f, 2.52587186443633654823E-1f});
  static const std::vector<double> kB = F({
      -3.83538038596423702205E-9f, -2.63146884688951950684E-8f, -2.51223623787020892529E-7f,
      -3.88256480887769039346E-6f, -1.10588938762623716291E-4f, -9.76109749136146840777E-3f,
      7.78576235018280120474E-1f});
  return BesselI1e(b, x, kA, kB);
}

Instr* BesselI1eF64(Builder& b, Instr* x) {
  static const std::vector<double> kA = {
      2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
      -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
      3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
      -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
      9.38153738649577178388E-9,  -4.44505912879632808065E-8, 2.00329475355213526229E-7,
      -8.56872026469545474066E-7, 3.47025130813767847674E-6,  -1.32731636560394358279E-5,
      4.78156510755005422638E-5,  -1.61760815825896745588E-4, 5.12285956168575772895E-4,
      -1.51357245063125314899E-3, 4.15642294431288815669E-3,  -1.05640848946261981558E-2,
      2.47264490306265168283E-2,  -5.29459812080949914269E-2, 1.02643658689847095384E-1,
      -1.76416518357834055153E-1, 2.52587186443633654823E-1};
  static const std::vector<double> kB = {
      7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
      -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
      -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
      4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
      -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
      3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
      -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
      -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
      7.78576235018280120474E-1};
  return BesselI1e(b, x, kA, kB);
}

// ---- lgamma, digamma (Lanczos approximation, g = 7) ----

constexpr double kLanczosGamma = 7;
constexpr double kBaseLanczosCoeff = 0.99999999999980993227684700473478;
constexpr double kLanczosCoefficients[8] = {
    676.520368121885098567009190444019, -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,   -176.61502916214059906584551354,
    12.507343278686904814458936853,     -0.13857109526572011689554707,
    9.984369578019570859563e-6,         1.50563273514931155834e-7};
constexpr double kPi = 3.14159265358979323846;

Instr* IsInf(Builder& b, Instr* x) {
  return b.Cmp(Dir::kEq, b.Abs(x), b.Const(std::numeric_limits<double>::infinity(), x));
}

Instr* Lgamma(Builder& b, Instr* x) {
  Instr* half = b.Const(0.5, x);
  Instr* reflect = b.Cmp(Dir::kLt, x, half);
  Instr* one = b.Const(1.0, x);
  Instr* z = b.Select(reflect, b.Neg(x), b.Sub(x, one));
  Instr* a = b.Const(kBaseLanczosCoeff, x);
  for (int i = 0; i < 8; ++i) {
    a = b.Add(a, b.Div(b.Const(kLanczosCoefficients[i], x), b.Add(z, b.Const(i + 1, x))));
  }
  Instr* g_half = b.Const(kLanczosGamma + 0.5, x);
  Instr* t = b.Add(g_half, z);
  Instr* log_t = b.Add(b.Const(std::log(kLanczosGamma + 0.5), x),
                       b.Un(HloOpcode::kLog1p, b.Div(z, g_half)));
  Instr* r = b.Mul(b.Sub(b.Add(z, half), b.Div(t, log_t)), log_t);
  Instr* lgamma = b.Add(b.Add(b.Const((std::log(2.0) + std::log(kPi)) / 2, x), r),
                        b.Un(HloOpcode::kLog, a));
  // Reflection: lgamma(x) = log(pi) - log|sin(pi x)| - lgamma(1 - x), with
  // the sine's argument reduced to [0, 1/2] for accuracy.
  Instr* abs = b.Abs(x);
  Instr* frac = b.Sub(abs, b.Floor(abs));
  Instr* reduce = b.Cmp(Dir::kLt, half, frac);
  frac = b.Select(reduce, b.Sub(one, frac), frac);
  Instr* denom = b.Un(HloOpcode::kLog, b.Un(HloOpcode::kSin, b.Mul(b.Const(kPi, x), frac)));
  Instr* reflection = b.Sub(b.Sub(b.Const(std::log(kPi), x), denom), lgamma);
  reflection = b.Select(b.IsFinite(denom), reflection, b.Neg(denom));
  lgamma = b.Select(reflect, reflection, lgamma);
  return b.Select(IsInf(b, x), b.Const(std::numeric_limits<double>::infinity(), x), lgamma);
}

Instr* Digamma(Builder& b, Instr* x) {
  Instr* half = b.Const(0.5, x);
  Instr* reflect = b.Cmp(Dir::kLt, x, half);
  Instr* one = b.Const(1.0, x);
  Instr* z = b.Select(reflect, b.Neg(x), b.Sub(x, one));
  Instr* zero = b.Const(0.0, x);
  Instr* a = b.Const(kBaseLanczosCoeff, x);
  Instr* a_prime = zero;
  for (int i = 0; i < 8; ++i) {
    Instr* coeff = b.Const(kLanczosCoefficients[i], x);
    Instr* zi = b.Add(z, b.Const(i + 1, x));
    a_prime = b.Sub(a_prime, b.Div(coeff, b.Mul(zi, zi)));
    a = b.Add(a, b.Div(coeff, zi));
  }
  Instr* g_half = b.Const(kLanczosGamma + 0.5, x);
  Instr* t = b.Add(g_half, z);
  Instr* log_t = b.Add(b.Const(std::log(kLanczosGamma + 0.5), x),
                       b.Un(HloOpcode::kLog1p, b.Div(z, g_half)));
  Instr* digamma = b.Sub(b.Add(log_t, b.Div(a_prime, a)), b.Div(b.Const(kLanczosGamma, x), t));
  // Reflection: digamma(x) = digamma(1 - x) - pi cos(pi x) / sin(pi x).
  Instr* reduced = b.Add(x, b.Abs(b.Floor(b.Add(x, b.Const(0.5, x)))));
  Instr* pi = b.Const(kPi, x);
  Instr* angle = b.Mul(pi, reduced);
  Instr* cos = b.Un(HloOpcode::kCos, angle);
  Instr* sin = b.Un(HloOpcode::kSin, angle);
  Instr* reflection = b.Sub(digamma, b.Div(b.Mul(pi, cos), sin));
  digamma = b.Select(reflect, reflection, digamma);
  Instr* le_zero = b.Cmp(Dir::kLe, x, zero);
  Instr* is_int = b.Cmp(Dir::kEq, x, b.Floor(x));
  Instr* pole = b.Bin(HloOpcode::kAnd, le_zero, is_int);
  return b.Select(pole, b.Const(std::numeric_limits<double>::quiet_NaN(), x), digamma);
}

// ---- zeta (Hurwitz; Euler-Maclaurin summation), polygamma ----

Instr* Zeta(Builder& b, Instr* x, Instr* q) {
  constexpr int kTerms = 12;
  constexpr int kIters = 9;
  constexpr int kTwoTermsMinusOne = 2 * kTerms - 1;
  static const double kZetaCoeffs[kTerms] = {
      -7.1661652561756670113e18, 1.8152105401943546773e17, -4.5979787224074726105e15,
      1.1646782814350067249e14,  -2.950130727918164224e12, 7.47242496e10,
      -1.8924375803183791606e9,  47900160.0,               -1209600.0,
      30240.0,                   -720.0,                   12.0};
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Instr* zero = b.Const(0.0, q);
  Instr* one = b.Const(1.0, q);
  Instr* acc = q;
  Instr* q_neg_power = zero;
  Instr* neg_x = b.Neg(x);
  Instr* power_sum = b.Bin(HloOpcode::kPower, q, neg_x);
  for (int i = 0; i < kIters; ++i) {
    acc = b.Add(acc, one);
    q_neg_power = b.Bin(HloOpcode::kPower, acc, neg_x);
    power_sum = b.Add(power_sum, q_neg_power);
  }
  acc = b.Add(acc, one);
  q_neg_power = b.Bin(HloOpcode::kPower, acc, neg_x);
  Instr* one_x = b.Const(1.0, x);
  Instr* correction = b.Div(b.Mul(q_neg_power, acc), b.Sub(x, one_x));
  Instr* inv_acc2 = b.Div(one, b.Mul(acc, acc));
  Instr* horner_sum = zero;
  for (int i = 0; i < kTerms - 1; ++i) {
    Instr* lhs = b.Add(x, b.Const(kTwoTermsMinusOne - 1 - 2 * i, x));
    Instr* rhs = b.Add(x, b.Const(kTwoTermsMinusOne - 2 - 2 * i, x));
    Instr* product = b.Mul(lhs, rhs);
    horner_sum = b.Mul(product,
                       b.Mul(inv_acc2, b.Add(horner_sum, b.Const(1. / kZetaCoeffs[i], acc))));
  }
  Instr* tail = b.Mul(q_neg_power,
                      b.Add(b.Const(0.5, q_neg_power),
                            b.Mul(b.Div(x, acc),
                                  b.Add(b.Const(1. / kZetaCoeffs[kTerms - 1], acc), horner_sum))));
  Instr* accurate = b.Add(b.Add(power_sum, correction), tail);
  // The smallest positive (denormal) value of the type.
  const ElementType t = x->shape().element_type();
  const double smallest = t == ElementType::kF64 ? std::numeric_limits<double>::denorm_min()
                                                 : std::numeric_limits<float>::denorm_min();
  Instr* output = b.Select(
      b.Cmp(Dir::kLt, b.Abs(q_neg_power), b.Mul(b.Abs(power_sum), b.Const(smallest, acc))),
      power_sum, accurate);
  Instr* nan_c = b.Const(nan, x);
  output = b.Select(b.Cmp(Dir::kLt, x, one_x), nan_c, output);
  Instr* q_le_zero = b.Cmp(Dir::kLe, q, zero);
  Instr* x_not_int = b.Cmp(Dir::kNe, x, b.Floor(x));
  output = b.Select(b.Bin(HloOpcode::kAnd, q_le_zero, x_not_int), nan_c, output);
  Instr* inf_c = b.Const(inf, x);
  Instr* q_is_int = b.Cmp(Dir::kEq, q, b.Floor(q));
  Instr* at_pole = b.Bin(HloOpcode::kAnd, q_le_zero, q_is_int);
  Instr* two = b.Const(2.0, x);
  Instr* x_is_int = b.Cmp(Dir::kEq, x, b.Floor(x));
  Instr* x_is_even = b.Cmp(Dir::kEq, b.Bin(HloOpcode::kRemainder, x, two), zero);
  Instr* x_is_even_int = b.Bin(HloOpcode::kAnd, x_is_int, x_is_even);
  output = b.Select(at_pole, b.Select(x_is_even_int, inf_c, nan_c), output);
  return b.Select(b.Cmp(Dir::kEq, x, one), inf_c, output);
}

Instr* Polygamma(Builder& b, Instr* n, Instr* x) {
  Instr* one = b.Const(1.0, x);
  Instr* two = b.Const(2.0, x);
  Instr* sign = b.Sub(b.Mul(two, b.Bin(HloOpcode::kRemainder, n, two)), one);
  Instr* n_plus_one = b.Add(n, one);
  Instr* exp_lgamma = b.Un(HloOpcode::kExp, Lgamma(b, n_plus_one));
  Instr* zeta = Zeta(b, n_plus_one, x);
  Instr* result = b.Mul(b.Mul(sign, exp_lgamma), zeta);
  Instr* zero = b.Const(0.0, x);
  result = b.Select(b.Cmp(Dir::kEq, n, zero), Digamma(b, x), result);
  Instr* non_int = b.Cmp(Dir::kNe, n, b.Floor(n));
  Instr* negative = b.Cmp(Dir::kLt, n, zero);
  Instr* non_natural = b.Bin(HloOpcode::kOr, non_int, negative);
  return b.Select(non_natural, b.Const(std::numeric_limits<double>::quiet_NaN(), x), result);
}

// ---- square ----

Instr* Square(Builder& b, Instr* z) {
  if (!IsComplex(z->shape().element_type())) return b.Mul(z, z);
  // Complex: the real part is exactly 0 where |re| == |im| (finite).
  Instr* x = b.Part(HloOpcode::kReal, z);
  Instr* y = b.Part(HloOpcode::kImag, z);
  Instr* cancel = b.Bin(HloOpcode::kAnd, b.IsFinite(x), b.Cmp(Dir::kEq, b.Abs(x), b.Abs(y)));
  Instr* re = b.Select(cancel, b.Const(0.0, x), b.Mul(b.Sub(x, y), b.Add(x, y)));
  Instr* im = b.Mul(b.Const(2.0, x), b.Mul(x, y));
  return b.Complex(re, im);
}

// ---- next_after (on the bit patterns) ----

Instr* NextAfter(Builder& b, Instr* x, Instr* y) {
  const ElementType ft = x->shape().element_type();
  const int bits = BitWidth(ft);
  const ElementType it = bits == 16 ? ElementType::kS16 : bits == 32 ? ElementType::kS32 : ElementType::kS64;
  Instr* x_int = b.BitcastConvert(x, it);
  Instr* y_int = b.BitcastConvert(y, it);
  Instr* nan_input = b.Bin(HloOpcode::kOr, b.Cmp(Dir::kNe, x, x), b.Cmp(Dir::kNe, y, y));
  Instr* nan_int = b.BitcastConvert(b.Const(std::numeric_limits<double>::quiet_NaN(), x), it);
  const int64_t sign_bit = static_cast<int64_t>(uint64_t{1} << (bits - 1));
  Instr* sign_mask = b.IntConst(sign_bit, x_int);
  Instr* magnitude_mask = b.IntConst(~sign_bit, x_int);
  Instr* x_abs = b.Bin(HloOpcode::kAnd, x_int, magnitude_mask);
  Instr* y_abs = b.Bin(HloOpcode::kAnd, y_int, magnitude_mask);
  Instr* equal = b.Cmp(Dir::kEq, x, y);
  Instr* zero = b.IntConst(0, x_int);
  Instr* x_zero = b.Cmp(Dir::kEq, x_abs, zero);
  Instr* y_zero = b.Cmp(Dir::kEq, y_abs, zero);
  Instr* x_sign = b.Bin(HloOpcode::kAnd, x_int, sign_mask);
  Instr* y_sign = b.Bin(HloOpcode::kAnd, y_int, sign_mask);
  Instr* one = b.IntConst(1, x_int);
  Instr* from_zero = b.Bin(HloOpcode::kOr, y_sign, one);
  Instr* signs_differ = b.Cmp(Dir::kNe, x_sign, y_sign);
  Instr* x_larger = b.Cmp(Dir::kGt, x_abs, y_abs);
  Instr* toward_zero = b.Bin(HloOpcode::kOr, x_larger, signs_differ);
  Instr* step = b.Select(toward_zero, b.IntConst(-1, x_int), one);
  Instr* result = b.Add(x_int, step);
  result = b.Select(x_zero, b.Select(y_zero, y_int, from_zero), result);
  result = b.Select(equal, y_int, result);
  result = b.Select(nan_input, nan_int, result);
  return b.BitcastConvert(result, ft);
}

enum class Types { kErfLike, kAnyFloat, kAny };

struct ChloOp {
  std::string_view name;
  int operands;
  Types types;
};

constexpr ChloOp kChloOps[] = {
    {"erfc", 1, Types::kErfLike},      {"erf_inv", 1, Types::kErfLike},
    {"bessel_i1e", 1, Types::kErfLike}, {"lgamma", 1, Types::kAnyFloat},
    {"digamma", 1, Types::kAnyFloat},  {"zeta", 2, Types::kAnyFloat},
    {"polygamma", 2, Types::kAnyFloat}, {"next_after", 2, Types::kAnyFloat},
    {"is_inf", 1, Types::kAnyFloat},   {"is_pos_inf", 1, Types::kAnyFloat},
    {"is_neg_inf", 1, Types::kAnyFloat}, {"square", 1, Types::kAny}};

const ChloOp* FindChloOp(std::string_view name) {
  for (const ChloOp& op : kChloOps) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

}  // namespace

bool Parser::IsDecomposedChloOp(std::string_view name) { return FindChloOp(name) != nullptr; }

absl::Status Parser::LowerChlo(Scope* scope, Op* op, std::vector<HloInstruction*>* results) {
  const size_t at = op->offset;
  std::string_view name = std::string_view(op->name).substr(op->name.find('.') + 1);
  const ChloOp* spec = FindChloOp(name);
  if (spec == nullptr) return Error(at, absl::StrCat("unsupported operation '", op->name, "'"));
  if (static_cast<int>(op->operands.size()) != spec->operands) {
    return Error(at, absl::StrCat("'", op->name, "' takes ", spec->operands, " operand(s), has ",
                                  op->operands.size()));
  }
  if (op->result_types.size() != 1) {
    return Error(at, absl::StrCat("'", op->name, "' has 1 result, its type says ",
                                  op->result_types.size()));
  }
  const Shape& in = op->operands[0]->shape();
  const ElementType t = in.element_type();
  for (HloInstruction* operand : op->operands) {
    const Shape& s = operand->shape();
    if (!s.IsArray() || s.element_type() != t || s.dimensions() != in.dimensions()) {
      return Error(at, absl::StrCat("'", op->name, "' needs operands of one array shape"));
    }
  }
  const bool erf_like_type = t == ElementType::kF64 || t == ElementType::kF32 ||
                             t == ElementType::kF16 || t == ElementType::kBF16;
  if (name == "square") {
    if (!IsFloatingPoint(t) && !IsComplex(t) && !IsInteger(t)) {
      return Error(at, absl::StrCat("'", op->name, "' does not take ", Sv(ElementTypeName(t)),
                                    " operands"));
    }
  } else if (!IsFloatingPoint(t) || IsComplex(t) || (spec->types == Types::kErfLike && !erf_like_type) ||
      (name == "next_after" && BitWidth(t) != 16 && BitWidth(t) != 32 && BitWidth(t) != 64)) {
    return Error(at, absl::StrCat("'", op->name, "' does not take ", Sv(ElementTypeName(t)),
                                  " operands"));
  }
  const bool predicate = name.substr(0, 3) == "is_";
  const Shape expected = predicate ? Builder::WithType(in, ElementType::kPred) : in;
  const Shape& declared = op->result_types[0];
  if (!declared.IsArray() || declared.element_type() != expected.element_type() ||
      declared.dimensions() != expected.dimensions()) {
    return Error(at, absl::StrCat("'", op->name, "' result type differs from its operands'"));
  }

  Builder b([&](HloOpcode opcode, Shape shape, const std::vector<HloInstruction*>& operands) {
    return Emit(scope, opcode, std::move(shape), operands);
  });
  std::vector<HloInstruction*> args = op->operands;
  if (name == "square") {
    results->push_back(Square(b, args[0]));
    return absl::OkStatus();
  }
  if (name == "next_after") {
    results->push_back(NextAfter(b, args[0], args[1]));
    return absl::OkStatus();
  }
  if (predicate) {
    Instr* x = args[0];
    const double inf = std::numeric_limits<double>::infinity();
    if (name == "is_inf") {
      results->push_back(IsInf(b, x));
    } else {
      results->push_back(b.Cmp(Dir::kEq, x, b.Const(name == "is_pos_inf" ? inf : -inf, x)));
    }
    return absl::OkStatus();
  }
  // Narrow types are computed in f32, as XLA's legalization does.
  const bool upcast = BitWidth(t) < 32;
  if (upcast) {
    for (HloInstruction*& a : args) a = b.Convert(a, ElementType::kF32);
  }
  const bool f64 = t == ElementType::kF64;
  Instr* r = nullptr;
  if (name == "erfc") {
    r = f64 ? ErfcF64(b, args[0]) : ErfcF32(b, args[0]);
  } else if (name == "erf_inv") {
    r = f64 ? ErfInvF64(b, args[0]) : ErfInvF32(b, args[0]);
  } else if (name == "bessel_i1e") {
    r = f64 ? BesselI1eF64(b, args[0]) : BesselI1eF32(b, args[0]);
  } else if (name == "lgamma") {
    r = Lgamma(b, args[0]);
  } else if (name == "digamma") {
    r = Digamma(b, args[0]);
  } else if (name == "zeta") {
    r = Zeta(b, args[0], args[1]);
  } else {
    r = Polygamma(b, args[0], args[1]);
  }
  if (upcast) r = b.Convert(r, t);
  results->push_back(r);
  return absl::OkStatus();
}

}  // namespace stablehlo_internal
}  // namespace hlovm
