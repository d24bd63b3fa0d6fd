//! `FUNCTIONS`: every row of the appendix's error-bound tables (7, 8, 10, 11), one per function,
//! rounding direction and condition variant, in table order. The `text` of each row is the bound
//! cell as the plain-text appendix prints it; the tests re-read the appendix and compare.

use super::{
    AbsErr, ArgRange, Behaviour, Bound, Bound::*, Cc, CcReq, Condition, FlagReq, MathFn,
    SpecTable::{T10, T11, T7, T8},
};
use crate::op::{Dir, Fmt::F32, Fmt::F64, Kernel::*, Op};

type Row = MathFn;

impl MathFn {
    #[allow(clippy::too_many_arguments)] // one argument per column of the row
    const fn new(
        table: super::SpecTable,
        name: &'static str,
        entry: &'static str,
        fmt: crate::op::Fmt,
        kernel: crate::op::Kernel,
        condition: Condition,
        bound: Bound,
        text: &'static str,
    ) -> MathFn {
        MathFn { table, name, entry, op: Op { kernel, fmt, dir: Dir::Rn }, condition, bound, text }
    }

    /// A row of an IEEE-compliant intrinsic with rounding direction `dir` (Tables 10, 11).
    #[allow(clippy::too_many_arguments)]
    const fn ieee(
        table: super::SpecTable,
        name: &'static str,
        entry: &'static str,
        fmt: crate::op::Fmt,
        kernel: crate::op::Kernel,
        dir: Dir,
        condition: Condition,
        text: &'static str,
    ) -> MathFn {
        MathFn { table, name, entry, op: Op { kernel, fmt, dir }, condition, bound: Ieee, text }
    }
}

const fn cond(args: ArgRange, otherwise: bool) -> Condition {
    Condition { args, flags: FlagReq::Any, cc: CcReq::Any, otherwise }
}
const fn within(lo: f64, hi: f64) -> Condition {
    cond(ArgRange::Within { arg: 0, lo, hi }, false)
}
const fn outside(lo: f64, hi: f64) -> Condition {
    cond(ArgRange::Outside { arg: 0, lo, hi }, false)
}

/// 2^e for normal f64 exponents.
const fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

const FULL: Condition = cond(ArgRange::Full, false);
const OTHERWISE: Condition = cond(ArgRange::Full, true);
/// Table 7: "0 for compute capability >= 2 when compiled with -prec-div=true".
const PREC_DIV_CC2: Condition = Condition {
    args: ArgRange::Full,
    flags: FlagReq::PrecDiv(true),
    cc: CcReq::AtLeast(Cc::new(2, 0)),
    otherwise: false,
};
const PREC_SQRT: Condition =
    Condition { args: ArgRange::Full, flags: FlagReq::PrecSqrt(true), cc: CcReq::Any, otherwise: false };
const APPROX_SQRT_CC52: Condition = Condition {
    args: ArgRange::Full,
    flags: FlagReq::PrecSqrt(false),
    cc: CcReq::AtLeast(Cc::new(5, 2)),
    otherwise: true,
};
const APPROX_SQRT_OLDER: Condition = Condition {
    args: ArgRange::Full,
    flags: FlagReq::PrecSqrt(false),
    cc: CcReq::Below(Cc::new(5, 2)),
    otherwise: true,
};
/// Table 11: "Requires compute capability > 2."
const CC_ABOVE_2: Condition =
    Condition { args: ArgRange::Full, flags: FlagReq::Any, cc: CcReq::Above(Cc::new(2, 0)), otherwise: false };
const X_BELOW_8: Condition = cond(ArgRange::AbsBelow { arg: 0, limit: 8.0 }, false);
const X_NOT_BELOW_8: Condition = cond(ArgRange::AbsNotBelow { arg: 0, limit: 8.0 }, true);
const N_IS_128: Condition = cond(ArgRange::IntEquals { arg: 0, value: 128 }, false);
const X_BELOW_N: Condition = cond(ArgRange::AbsBelowScaledN { x: 1, n: 0, scale: 1.0 }, false);
const X_NOT_BELOW_N: Condition = cond(ArgRange::AbsNotBelowScaledN { x: 1, n: 0, scale: 1.0 }, true);
const X_ABOVE_1_5N: Condition = cond(ArgRange::AbsAboveScaledN { x: 1, n: 0, scale: 1.5 }, false);
/// H.2: "For x in [0.5, 2]" (`__logf`, `__log2f`, `__log10f`).
const X_IN_HALF_TO_2: Condition = within(0.5, 2.0);
const X_OUTSIDE_HALF_TO_2: Condition = Condition { otherwise: true, ..outside(0.5, 2.0) };
/// H.2: "For x in [-π,π]" (`__sinf`, `__cosf`), π the real number. f64 PI is 1.2e-16 below π
/// and no f32 lies in between, so comparing f32 arguments with it is exact.
const X_IN_PI: Condition = within(-std::f64::consts::PI, std::f64::consts::PI);
const X_OUTSIDE_PI: Condition =
    Condition { otherwise: true, ..outside(-std::f64::consts::PI, std::f64::consts::PI) };
/// `__fdividef`: "For |y| in [2^-126, 2^126]".
const Y_IN_FDIVIDEF_RANGE: Condition =
    cond(ArgRange::AbsWithin { arg: 1, lo: pow2(-126), hi: pow2(126) }, false);
/// H.2 prose: "for 2^126 < |y| < 2^128, __fdividef(x,y) delivers a result of zero".
const Y_IN_FDIVIDEF_ZERO_RANGE: Condition =
    cond(ArgRange::AbsBetweenOpen { arg: 1, lo: pow2(126), hi: pow2(128) }, false);

const NO_BOUND_FAST_ALGORITHM: Bound =
    NoneDocumented("a fast algorithm is used with accuracy loss due to round-off");
const LARGER_INSIDE: Bound = NoneDocumented("larger inside the interval; no number given");
const LARGER_OUTSIDE_PI: Bound = NoneDocumented("larger outside [-pi, pi]; no number given");

const FDIV_TEXT: &str = "0 for compute capability ≥ 2 when compiled with -prec-div=true 2 (full range), otherwise";
const FRCP_TEXT: &str = "0 for compute capability ≥ 2 when compiled with -prec-div=true 1 (full range), otherwise";
const RSQRTF_TEXT: &str = "2 (full range) Applies to 1/sqrtf(x) only when it is converted to rsqrtf(x) by the compiler.";
const SQRTF_TEXT: &str = "0 when compiled with -prec-sqrt=true Otherwise 1 for compute capability ≥ 5.2 and 3 for older architectures";
const NORM_TEXT: &str = "An error bound can't be provided because a fast algorithm is used with accuracy loss due to round-off";
const LGAMMAF_TEXT: &str = "6 (outside interval -10.001 ... -2.264; larger inside)";
const LGAMMA_TEXT: &str = "4 (outside interval -11.0001 ... -2.2637; larger inside)";
const BESSEL_F_TEXT: &str = "9 for |x| < 8 otherwise, the maximum absolute error is 2.2 x 10^-6";
const BESSEL_TEXT: &str = "7 for |x| < 8 otherwise, the maximum absolute error is 5 x 10^-12";
const JNF_TEXT: &str = "For n = 128, the maximum absolute error is 2.2 x 10^-6";
const JN_TEXT: &str = "For n = 128, the maximum absolute error is 5 x 10^-12";
const YNF_TEXT: &str = "ceil(2 + 2.5n) for |x| < n otherwise, the maximum absolute error is 2.2 x 10^-6";
const YN_TEXT: &str = "For |x| > 1.5n, the maximum absolute error is 5 x 10^-12";
const IEEE: &str = "IEEE-compliant.";
const IEEE_CC2: &str = "IEEE-compliant. Requires compute capability > 2.";
const FDIVIDEF_TEXT: &str = "For |y| in [2^-126, 2^126], the maximum ulp error is 2.";

/// Every row of Tables 7, 8, 10 and 11, in table order.
pub static FUNCTIONS: &[MathFn] = &[
    // ---- Table 7: single-precision standard functions (H.1) ----
    Row::new(T7, "fadd", "x+y", F32, Add, FULL, Ulp(0.0), "0 (IEEE-754 round-to-nearest-even)"),
    Row::new(T7, "fmul", "x*y", F32, Mul, FULL, Ulp(0.0), "0 (IEEE-754 round-to-nearest-even)"),
    // "0 for compute capability >= 2 when compiled with -prec-div=true; 2 (full range), otherwise"
    Row::new(T7, "fdiv", "x/y", F32, Div, PREC_DIV_CC2, Ulp(0.0), FDIV_TEXT),
    Row::new(T7, "fdiv", "x/y", F32, Div, OTHERWISE, Ulp(2.0), FDIV_TEXT),
    Row::new(T7, "frcp", "1/x", F32, Rcp, PREC_DIV_CC2, Ulp(0.0), FRCP_TEXT),
    Row::new(T7, "frcp", "1/x", F32, Rcp, OTHERWISE, Ulp(1.0), FRCP_TEXT),
    // One cell holds both rsqrtf(x) and 1/sqrtf(x); the bound cell applies to both, to
    // 1/sqrtf(x) "only when it is converted to rsqrtf(x) by the compiler" (when that happens
    // is not documented; otherwise 1/sqrtf is a division of a square root). The reference of
    // both is the correctly rounded 1/sqrt(x).
    Row::new(T7, "rsqrtf", "rsqrtf(x)", F32, Rsqrt, FULL, Ulp(2.0), RSQRTF_TEXT),
    Row::new(T7, "1/sqrtf", "1/sqrtf(x)", F32, Rsqrt, FULL, Ulp(2.0), RSQRTF_TEXT),
    // "0 when compiled with -prec-sqrt=true; Otherwise 1 for cc >= 5.2 and 3 for older architectures"
    Row::new(T7, "sqrtf", "sqrtf(x)", F32, Sqrt, PREC_SQRT, Ulp(0.0), SQRTF_TEXT),
    Row::new(T7, "sqrtf", "sqrtf(x)", F32, Sqrt, APPROX_SQRT_CC52, Ulp(1.0), SQRTF_TEXT),
    Row::new(T7, "sqrtf", "sqrtf(x)", F32, Sqrt, APPROX_SQRT_OLDER, Ulp(3.0), SQRTF_TEXT),
    Row::new(T7, "cbrtf", "cbrtf(x)", F32, Cbrt, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T7, "rcbrtf", "rcbrtf(x)", F32, Rcbrt, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T7, "hypotf", "hypotf(x,y)", F32, Hypot, FULL, Ulp(3.0), "3 (full range)"),
    Row::new(T7, "rhypotf", "rhypotf(x,y)", F32, Rhypot, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "norm3df", "norm3df(x,y,z)", F32, Norm3d, FULL, Ulp(3.0), "3 (full range)"),
    Row::new(T7, "rnorm3df", "rnorm3df(x,y,z)", F32, Rnorm3d, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "norm4df", "norm4df(x,y,z,t)", F32, Norm4d, FULL, Ulp(3.0), "3 (full range)"),
    Row::new(T7, "rnorm4df", "rnorm4df(x,y,z,t)", F32, Rnorm4d, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "normf", "normf(dim,arr)", F32, Norm, FULL, NO_BOUND_FAST_ALGORITHM, NORM_TEXT),
    Row::new(T7, "rnormf", "rnormf(dim,arr)", F32, Rnorm, FULL, NO_BOUND_FAST_ALGORITHM, NORM_TEXT),
    Row::new(T7, "expf", "expf(x)", F32, Exp, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "exp2f", "exp2f(x)", F32, Exp2, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "exp10f", "exp10f(x)", F32, Exp10, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "expm1f", "expm1f(x)", F32, Expm1, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T7, "logf", "logf(x)", F32, Log, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T7, "log2f", "log2f(x)", F32, Log2, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T7, "log10f", "log10f(x)", F32, Log10, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "log1pf", "log1pf(x)", F32, Log1p, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T7, "sinf", "sinf(x)", F32, Sin, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "cosf", "cosf(x)", F32, Cos, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "tanf", "tanf(x)", F32, Tan, FULL, Ulp(4.0), "4 (full range)"),
    Row::new(T7, "sincosf", "sincosf(x,sptr,cptr)", F32, Sincos, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "sinpif", "sinpif(x)", F32, Sinpi, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "cospif", "cospif(x)", F32, Cospi, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "sincospif", "sincospif(x,sptr,cptr)", F32, Sincospi, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "asinf", "asinf(x)", F32, Asin, FULL, Ulp(4.0), "4 (full range)"),
    Row::new(T7, "acosf", "acosf(x)", F32, Acos, FULL, Ulp(3.0), "3 (full range)"),
    Row::new(T7, "atanf", "atanf(x)", F32, Atan, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "atan2f", "atan2f(y,x)", F32, Atan2, FULL, Ulp(3.0), "3 (full range)"),
    Row::new(T7, "sinhf", "sinhf(x)", F32, Sinh, FULL, Ulp(3.0), "3 (full range)"),
    Row::new(T7, "coshf", "coshf(x)", F32, Cosh, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "tanhf", "tanhf(x)", F32, Tanh, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "asinhf", "asinhf(x)", F32, Asinh, FULL, Ulp(3.0), "3 (full range)"),
    Row::new(T7, "acoshf", "acoshf(x)", F32, Acosh, FULL, Ulp(4.0), "4 (full range)"),
    Row::new(T7, "atanhf", "atanhf(x)", F32, Atanh, FULL, Ulp(3.0), "3 (full range)"),
    Row::new(T7, "powf", "powf(x,y)", F32, Pow, FULL, Ulp(9.0), "9 (full range)"),
    Row::new(T7, "erff", "erff(x)", F32, Erf, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "erfcf", "erfcf(x)", F32, Erfc, FULL, Ulp(4.0), "4 (full range)"),
    Row::new(T7, "erfinvf", "erfinvf(x)", F32, Erfinv, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T7, "erfcinvf", "erfcinvf(x)", F32, Erfcinv, FULL, Ulp(4.0), "4 (full range)"),
    Row::new(T7, "erfcxf", "erfcxf(x)", F32, Erfcx, FULL, Ulp(4.0), "4 (full range)"),
    Row::new(T7, "normcdff", "normcdff(x)", F32, Normcdf, FULL, Ulp(5.0), "5 (full range)"),
    Row::new(T7, "normcdfinvf", "normcdfinvf(x)", F32, Normcdfinv, FULL, Ulp(5.0), "5 (full range)"),
    // "6 (outside interval -10.001 ... -2.264; larger inside)": interval taken as closed.
    Row::new(T7, "lgammaf", "lgammaf(x)", F32, Lgamma, outside(-10.001, -2.264), Ulp(6.0), LGAMMAF_TEXT),
    Row::new(T7, "lgammaf", "lgammaf(x)", F32, Lgamma, within(-10.001, -2.264), LARGER_INSIDE, LGAMMAF_TEXT),
    Row::new(T7, "tgammaf", "tgammaf(x)", F32, Tgamma, FULL, Ulp(11.0), "11 (full range)"),
    Row::new(T7, "fmaf", "fmaf(x,y,z)", F32, Fma, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "frexpf", "frexpf(x,exp)", F32, Frexp, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "ldexpf", "ldexpf(x,exp)", F32, Ldexp, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "scalbnf", "scalbnf(x,n)", F32, Scalbn, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "scalblnf", "scalblnf(x,l)", F32, Scalbln, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "logbf", "logbf(x)", F32, Logb, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "ilogbf", "ilogbf(x)", F32, Ilogb, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "j0f", "j0f(x)", F32, J0, X_BELOW_8, Ulp(9.0), BESSEL_F_TEXT),
    Row::new(T7, "j0f", "j0f(x)", F32, J0, X_NOT_BELOW_8, Abs(AbsErr::Value(2.2e-6)), BESSEL_F_TEXT),
    Row::new(T7, "j1f", "j1f(x)", F32, J1, X_BELOW_8, Ulp(9.0), BESSEL_F_TEXT),
    Row::new(T7, "j1f", "j1f(x)", F32, J1, X_NOT_BELOW_8, Abs(AbsErr::Value(2.2e-6)), BESSEL_F_TEXT),
    // Only n = 128 has a bound; other n: no row, no bound documented.
    Row::new(T7, "jnf", "jnf(n,x)", F32, Jn, N_IS_128, Abs(AbsErr::Value(2.2e-6)), JNF_TEXT),
    Row::new(T7, "y0f", "y0f(x)", F32, Y0, X_BELOW_8, Ulp(9.0), BESSEL_F_TEXT),
    Row::new(T7, "y0f", "y0f(x)", F32, Y0, X_NOT_BELOW_8, Abs(AbsErr::Value(2.2e-6)), BESSEL_F_TEXT),
    Row::new(T7, "y1f", "y1f(x)", F32, Y1, X_BELOW_8, Ulp(9.0), BESSEL_F_TEXT),
    Row::new(T7, "y1f", "y1f(x)", F32, Y1, X_NOT_BELOW_8, Abs(AbsErr::Value(2.2e-6)), BESSEL_F_TEXT),
    Row::new(T7, "ynf", "ynf(n,x)", F32, Yn, X_BELOW_N, UlpPerN { base: 2.0, per_n: 2.5 }, YNF_TEXT),
    Row::new(T7, "ynf", "ynf(n,x)", F32, Yn, X_NOT_BELOW_N, Abs(AbsErr::Value(2.2e-6)), YNF_TEXT),
    Row::new(T7, "cyl_bessel_i0f", "cyl_bessel_i0f(x)", F32, I0, FULL, Ulp(6.0), "6 (full range)"),
    Row::new(T7, "cyl_bessel_i1f", "cyl_bessel_i1f(x)", F32, I1, FULL, Ulp(6.0), "6 (full range)"),
    Row::new(T7, "fmodf", "fmodf(x,y)", F32, Fmod, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "remainderf", "remainderf(x,y)", F32, Remainder, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "remquof", "remquof(x,y,iptr)", F32, Remquo, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "modff", "modff(x,iptr)", F32, Modf, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "fdimf", "fdimf(x,y)", F32, Fdim, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "truncf", "truncf(x)", F32, Trunc, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "roundf", "roundf(x)", F32, Round, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "rintf", "rintf(x)", F32, Rint, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "nearbyintf", "nearbyintf(x)", F32, Nearbyint, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "ceilf", "ceilf(x)", F32, Ceil, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "floorf", "floorf(x)", F32, Floor, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "lrintf", "lrintf(x)", F32, Lrint, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "lroundf", "lroundf(x)", F32, Lround, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "llrintf", "llrintf(x)", F32, Llrint, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T7, "llroundf", "llroundf(x)", F32, Llround, FULL, Ulp(0.0), "0 (full range)"),
    // ---- Table 8: double-precision standard functions (H.1) ----
    Row::new(T8, "dadd", "x+y", F64, Add, FULL, Ulp(0.0), "0 (IEEE-754 round-to-nearest-even)"),
    Row::new(T8, "dmul", "x*y", F64, Mul, FULL, Ulp(0.0), "0 (IEEE-754 round-to-nearest-even)"),
    Row::new(T8, "ddiv", "x/y", F64, Div, FULL, Ulp(0.0), "0 (IEEE-754 round-to-nearest-even)"),
    Row::new(T8, "drcp", "1/x", F64, Rcp, FULL, Ulp(0.0), "0 (IEEE-754 round-to-nearest-even)"),
    Row::new(T8, "sqrt", "sqrt(x)", F64, Sqrt, FULL, Ulp(0.0), "0 (IEEE-754 round-to-nearest-even)"),
    Row::new(T8, "rsqrt", "rsqrt(x)", F64, Rsqrt, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "cbrt", "cbrt(x)", F64, Cbrt, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "rcbrt", "rcbrt(x)", F64, Rcbrt, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "hypot", "hypot(x,y)", F64, Hypot, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "rhypot", "rhypot(x,y)", F64, Rhypot, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "norm3d", "norm3d(x,y,z)", F64, Norm3d, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "rnorm3d", "rnorm3d(x,y,z)", F64, Rnorm3d, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "norm4d", "norm4d(x,y,z,t)", F64, Norm4d, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "rnorm4d", "rnorm4d(x,y,z,t)", F64, Rnorm4d, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "norm", "norm(dim,arr)", F64, Norm, FULL, NO_BOUND_FAST_ALGORITHM, NORM_TEXT),
    Row::new(T8, "rnorm", "rnorm(dim,arr)", F64, Rnorm, FULL, NO_BOUND_FAST_ALGORITHM, NORM_TEXT),
    Row::new(T8, "exp", "exp(x)", F64, Exp, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "exp2", "exp2(x)", F64, Exp2, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "exp10", "exp10(x)", F64, Exp10, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "expm1", "expm1(x)", F64, Expm1, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "log", "log(x)", F64, Log, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "log2", "log2(x)", F64, Log2, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "log10", "log10(x)", F64, Log10, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "log1p", "log1p(x)", F64, Log1p, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "sin", "sin(x)", F64, Sin, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "cos", "cos(x)", F64, Cos, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "tan", "tan(x)", F64, Tan, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "sincos", "sincos(x,sptr,cptr)", F64, Sincos, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "sinpi", "sinpi(x)", F64, Sinpi, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "cospi", "cospi(x)", F64, Cospi, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "sincospi", "sincospi(x,sptr,cptr)", F64, Sincospi, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "asin", "asin(x)", F64, Asin, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "acos", "acos(x)", F64, Acos, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "atan", "atan(x)", F64, Atan, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "atan2", "atan2(y,x)", F64, Atan2, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "sinh", "sinh(x)", F64, Sinh, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "cosh", "cosh(x)", F64, Cosh, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "tanh", "tanh(x)", F64, Tanh, FULL, Ulp(1.0), "1 (full range)"),
    Row::new(T8, "asinh", "asinh(x)", F64, Asinh, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "acosh", "acosh(x)", F64, Acosh, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "atanh", "atanh(x)", F64, Atanh, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "pow", "pow(x,y)", F64, Pow, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "erf", "erf(x)", F64, Erf, FULL, Ulp(2.0), "2 (full range)"),
    Row::new(T8, "erfc", "erfc(x)", F64, Erfc, FULL, Ulp(5.0), "5 (full range)"),
    Row::new(T8, "erfinv", "erfinv(x)", F64, Erfinv, FULL, Ulp(5.0), "5 (full range)"),
    Row::new(T8, "erfcinv", "erfcinv(x)", F64, Erfcinv, FULL, Ulp(6.0), "6 (full range)"),
    Row::new(T8, "erfcx", "erfcx(x)", F64, Erfcx, FULL, Ulp(4.0), "4 (full range)"),
    Row::new(T8, "normcdf", "normcdf(x)", F64, Normcdf, FULL, Ulp(5.0), "5 (full range)"),
    Row::new(T8, "normcdfinv", "normcdfinv(x)", F64, Normcdfinv, FULL, Ulp(8.0), "8 (full range)"),
    Row::new(T8, "lgamma", "lgamma(x)", F64, Lgamma, outside(-11.0001, -2.2637), Ulp(4.0), LGAMMA_TEXT),
    Row::new(T8, "lgamma", "lgamma(x)", F64, Lgamma, within(-11.0001, -2.2637), LARGER_INSIDE, LGAMMA_TEXT),
    Row::new(T8, "tgamma", "tgamma(x)", F64, Tgamma, FULL, Ulp(8.0), "8 (full range)"),
    Row::new(T8, "fma", "fma(x,y,z)", F64, Fma, FULL, Ulp(0.0), "0 (IEEE-754 round-to-nearest-even)"),
    Row::new(T8, "frexp", "frexp(x,exp)", F64, Frexp, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "ldexp", "ldexp(x,exp)", F64, Ldexp, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "scalbn", "scalbn(x,n)", F64, Scalbn, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "scalbln", "scalbln(x,l)", F64, Scalbln, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "logb", "logb(x)", F64, Logb, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "ilogb", "ilogb(x)", F64, Ilogb, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "j0", "j0(x)", F64, J0, X_BELOW_8, Ulp(7.0), BESSEL_TEXT),
    Row::new(T8, "j0", "j0(x)", F64, J0, X_NOT_BELOW_8, Abs(AbsErr::Value(5e-12)), BESSEL_TEXT),
    Row::new(T8, "j1", "j1(x)", F64, J1, X_BELOW_8, Ulp(7.0), BESSEL_TEXT),
    Row::new(T8, "j1", "j1(x)", F64, J1, X_NOT_BELOW_8, Abs(AbsErr::Value(5e-12)), BESSEL_TEXT),
    Row::new(T8, "jn", "jn(n,x)", F64, Jn, N_IS_128, Abs(AbsErr::Value(5e-12)), JN_TEXT),
    Row::new(T8, "y0", "y0(x)", F64, Y0, X_BELOW_8, Ulp(7.0), BESSEL_TEXT),
    Row::new(T8, "y0", "y0(x)", F64, Y0, X_NOT_BELOW_8, Abs(AbsErr::Value(5e-12)), BESSEL_TEXT),
    Row::new(T8, "y1", "y1(x)", F64, Y1, X_BELOW_8, Ulp(7.0), BESSEL_TEXT),
    Row::new(T8, "y1", "y1(x)", F64, Y1, X_NOT_BELOW_8, Abs(AbsErr::Value(5e-12)), BESSEL_TEXT),
    // Only |x| > 1.5n has a bound; elsewhere no row, no bound documented.
    Row::new(T8, "yn", "yn(n,x)", F64, Yn, X_ABOVE_1_5N, Abs(AbsErr::Value(5e-12)), YN_TEXT),
    Row::new(T8, "cyl_bessel_i0", "cyl_bessel_i0(x)", F64, I0, FULL, Ulp(6.0), "6 (full range)"),
    Row::new(T8, "cyl_bessel_i1", "cyl_bessel_i1(x)", F64, I1, FULL, Ulp(6.0), "6 (full range)"),
    Row::new(T8, "fmod", "fmod(x,y)", F64, Fmod, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "remainder", "remainder(x,y)", F64, Remainder, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "remquo", "remquo(x,y,iptr)", F64, Remquo, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "modf", "modf(x,iptr)", F64, Modf, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "fdim", "fdim(x,y)", F64, Fdim, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "trunc", "trunc(x)", F64, Trunc, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "round", "round(x)", F64, Round, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "rint", "rint(x)", F64, Rint, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "nearbyint", "nearbyint(x)", F64, Nearbyint, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "ceil", "ceil(x)", F64, Ceil, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "floor", "floor(x)", F64, Floor, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "lrint", "lrint(x)", F64, Lrint, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "lround", "lround(x)", F64, Lround, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "llrint", "llrint(x)", F64, Llrint, FULL, Ulp(0.0), "0 (full range)"),
    Row::new(T8, "llround", "llround(x)", F64, Llround, FULL, Ulp(0.0), "0 (full range)"),
    // ---- Table 10: single-precision intrinsic functions (H.2) ----
    Row::ieee(T10, "__fadd_rn", "__fadd_[rn,rz,ru,rd](x,y)", F32, Add, Dir::Rn, FULL, IEEE),
    Row::ieee(T10, "__fadd_rz", "__fadd_[rn,rz,ru,rd](x,y)", F32, Add, Dir::Rz, FULL, IEEE),
    Row::ieee(T10, "__fadd_ru", "__fadd_[rn,rz,ru,rd](x,y)", F32, Add, Dir::Ru, FULL, IEEE),
    Row::ieee(T10, "__fadd_rd", "__fadd_[rn,rz,ru,rd](x,y)", F32, Add, Dir::Rd, FULL, IEEE),
    Row::ieee(T10, "__fsub_rn", "__fsub_[rn,rz,ru,rd](x,y)", F32, Sub, Dir::Rn, FULL, IEEE),
    Row::ieee(T10, "__fsub_rz", "__fsub_[rn,rz,ru,rd](x,y)", F32, Sub, Dir::Rz, FULL, IEEE),
    Row::ieee(T10, "__fsub_ru", "__fsub_[rn,rz,ru,rd](x,y)", F32, Sub, Dir::Ru, FULL, IEEE),
    Row::ieee(T10, "__fsub_rd", "__fsub_[rn,rz,ru,rd](x,y)", F32, Sub, Dir::Rd, FULL, IEEE),
    Row::ieee(T10, "__fmul_rn", "__fmul_[rn,rz,ru,rd](x,y)", F32, Mul, Dir::Rn, FULL, IEEE),
    Row::ieee(T10, "__fmul_rz", "__fmul_[rn,rz,ru,rd](x,y)", F32, Mul, Dir::Rz, FULL, IEEE),
    Row::ieee(T10, "__fmul_ru", "__fmul_[rn,rz,ru,rd](x,y)", F32, Mul, Dir::Ru, FULL, IEEE),
    Row::ieee(T10, "__fmul_rd", "__fmul_[rn,rz,ru,rd](x,y)", F32, Mul, Dir::Rd, FULL, IEEE),
    Row::ieee(T10, "__fmaf_rn", "__fmaf_[rn,rz,ru,rd](x,y,z)", F32, Fma, Dir::Rn, FULL, IEEE),
    Row::ieee(T10, "__fmaf_rz", "__fmaf_[rn,rz,ru,rd](x,y,z)", F32, Fma, Dir::Rz, FULL, IEEE),
    Row::ieee(T10, "__fmaf_ru", "__fmaf_[rn,rz,ru,rd](x,y,z)", F32, Fma, Dir::Ru, FULL, IEEE),
    Row::ieee(T10, "__fmaf_rd", "__fmaf_[rn,rz,ru,rd](x,y,z)", F32, Fma, Dir::Rd, FULL, IEEE),
    Row::ieee(T10, "__frcp_rn", "__frcp_[rn,rz,ru,rd](x)", F32, Rcp, Dir::Rn, FULL, IEEE),
    Row::ieee(T10, "__frcp_rz", "__frcp_[rn,rz,ru,rd](x)", F32, Rcp, Dir::Rz, FULL, IEEE),
    Row::ieee(T10, "__frcp_ru", "__frcp_[rn,rz,ru,rd](x)", F32, Rcp, Dir::Ru, FULL, IEEE),
    Row::ieee(T10, "__frcp_rd", "__frcp_[rn,rz,ru,rd](x)", F32, Rcp, Dir::Rd, FULL, IEEE),
    Row::ieee(T10, "__fsqrt_rn", "__fsqrt_[rn,rz,ru,rd](x)", F32, Sqrt, Dir::Rn, FULL, IEEE),
    Row::ieee(T10, "__fsqrt_rz", "__fsqrt_[rn,rz,ru,rd](x)", F32, Sqrt, Dir::Rz, FULL, IEEE),
    Row::ieee(T10, "__fsqrt_ru", "__fsqrt_[rn,rz,ru,rd](x)", F32, Sqrt, Dir::Ru, FULL, IEEE),
    Row::ieee(T10, "__fsqrt_rd", "__fsqrt_[rn,rz,ru,rd](x)", F32, Sqrt, Dir::Rd, FULL, IEEE),
    Row::ieee(T10, "__frsqrt_rn", "__frsqrt_rn(x)", F32, Rsqrt, Dir::Rn, FULL, IEEE),
    Row::ieee(T10, "__fdiv_rn", "__fdiv_[rn,rz,ru,rd](x,y)", F32, Div, Dir::Rn, FULL, IEEE),
    Row::ieee(T10, "__fdiv_rz", "__fdiv_[rn,rz,ru,rd](x,y)", F32, Div, Dir::Rz, FULL, IEEE),
    Row::ieee(T10, "__fdiv_ru", "__fdiv_[rn,rz,ru,rd](x,y)", F32, Div, Dir::Ru, FULL, IEEE),
    Row::ieee(T10, "__fdiv_rd", "__fdiv_[rn,rz,ru,rd](x,y)", F32, Div, Dir::Rd, FULL, IEEE),
    Row::new(T10, "__fdividef", "__fdividef(x,y)", F32, Div, Y_IN_FDIVIDEF_RANGE, Ulp(2.0), FDIVIDEF_TEXT),
    // Not a table cell: the H.2 prose above the table documents this range.
    Row::new(T10, "__fdividef", "__fdividef(x,y)", F32, Div, Y_IN_FDIVIDEF_ZERO_RANGE, Documented(Behaviour::ZeroOrNanIfXInfinite), FDIVIDEF_TEXT),
    Row::new(T10, "__expf", "__expf(x)", F32, Exp, FULL, UlpLinear { base: 2.0, slope: 1.16 }, "The maximum ulp error is 2 + floor(abs(1.16 * x)) ."),
    Row::new(T10, "__exp10f", "__exp10f(x)", F32, Exp10, FULL, UlpLinear { base: 2.0, slope: 2.95 }, "The maximum ulp error is 2+ floor(abs(2.95 * x)) ."),
    Row::new(T10, "__logf", "__logf(x)", F32, Log, X_IN_HALF_TO_2, Abs(AbsErr::Pow2(-21.41)), "For x in [0.5, 2], the maximum absolute error is 2^-21.41, otherwise, the maximum ulp error is 3."),
    Row::new(T10, "__logf", "__logf(x)", F32, Log, X_OUTSIDE_HALF_TO_2, Ulp(3.0), "For x in [0.5, 2], the maximum absolute error is 2^-21.41, otherwise, the maximum ulp error is 3."),
    Row::new(T10, "__log2f", "__log2f(x)", F32, Log2, X_IN_HALF_TO_2, Abs(AbsErr::Pow2(-22.0)), "For x in [0.5, 2], the maximum absolute error is 2^-22, otherwise, the maximum ulp error is 2."),
    Row::new(T10, "__log2f", "__log2f(x)", F32, Log2, X_OUTSIDE_HALF_TO_2, Ulp(2.0), "For x in [0.5, 2], the maximum absolute error is 2^-22, otherwise, the maximum ulp error is 2."),
    Row::new(T10, "__log10f", "__log10f(x)", F32, Log10, X_IN_HALF_TO_2, Abs(AbsErr::Pow2(-24.0)), "For x in [0.5, 2], the maximum absolute error is 2^-24, otherwise, the maximum ulp error is 3."),
    Row::new(T10, "__log10f", "__log10f(x)", F32, Log10, X_OUTSIDE_HALF_TO_2, Ulp(3.0), "For x in [0.5, 2], the maximum absolute error is 2^-24, otherwise, the maximum ulp error is 3."),
    Row::new(T10, "__sinf", "__sinf(x)", F32, Sin, X_IN_PI, Abs(AbsErr::Pow2(-21.41)), "For x in [-π,π], the maximum absolute error is 2^-21.41, and larger otherwise."),
    Row::new(T10, "__sinf", "__sinf(x)", F32, Sin, X_OUTSIDE_PI, LARGER_OUTSIDE_PI, "For x in [-π,π], the maximum absolute error is 2^-21.41, and larger otherwise."),
    Row::new(T10, "__cosf", "__cosf(x)", F32, Cos, X_IN_PI, Abs(AbsErr::Pow2(-21.19)), "For x in [-π,π], the maximum absolute error is 2^-21.19, and larger otherwise."),
    Row::new(T10, "__cosf", "__cosf(x)", F32, Cos, X_OUTSIDE_PI, LARGER_OUTSIDE_PI, "For x in [-π,π], the maximum absolute error is 2^-21.19, and larger otherwise."),
    Row::new(T10, "__sincosf", "__sincosf(x,sptr,cptr)", F32, Sincos, FULL, SameAs(&["__sinf", "__cosf"]), "Same as __sinf(x) and __cosf(x) ."),
    Row::new(T10, "__tanf", "__tanf(x)", F32, Tan, FULL, Derived("__sinf(x) * (1/__cosf(x))"), "Derived from its implementation as __sinf(x) * (1/__cosf(x)) ."),
    Row::new(T10, "__powf", "__powf(x, y)", F32, Pow, FULL, Derived("exp2f(y * __log2f(x))"), "Derived from its implementation as exp2f(y * __log2f(x)) ."),
    // ---- Table 11: double-precision intrinsic functions (H.2) ----
    Row::ieee(T11, "__dadd_rn", "__dadd_[rn,rz,ru,rd](x,y)", F64, Add, Dir::Rn, FULL, IEEE),
    Row::ieee(T11, "__dadd_rz", "__dadd_[rn,rz,ru,rd](x,y)", F64, Add, Dir::Rz, FULL, IEEE),
    Row::ieee(T11, "__dadd_ru", "__dadd_[rn,rz,ru,rd](x,y)", F64, Add, Dir::Ru, FULL, IEEE),
    Row::ieee(T11, "__dadd_rd", "__dadd_[rn,rz,ru,rd](x,y)", F64, Add, Dir::Rd, FULL, IEEE),
    Row::ieee(T11, "__dsub_rn", "__dsub_[rn,rz,ru,rd](x,y)", F64, Sub, Dir::Rn, FULL, IEEE),
    Row::ieee(T11, "__dsub_rz", "__dsub_[rn,rz,ru,rd](x,y)", F64, Sub, Dir::Rz, FULL, IEEE),
    Row::ieee(T11, "__dsub_ru", "__dsub_[rn,rz,ru,rd](x,y)", F64, Sub, Dir::Ru, FULL, IEEE),
    Row::ieee(T11, "__dsub_rd", "__dsub_[rn,rz,ru,rd](x,y)", F64, Sub, Dir::Rd, FULL, IEEE),
    Row::ieee(T11, "__dmul_rn", "__dmul_[rn,rz,ru,rd](x,y)", F64, Mul, Dir::Rn, FULL, IEEE),
    Row::ieee(T11, "__dmul_rz", "__dmul_[rn,rz,ru,rd](x,y)", F64, Mul, Dir::Rz, FULL, IEEE),
    Row::ieee(T11, "__dmul_ru", "__dmul_[rn,rz,ru,rd](x,y)", F64, Mul, Dir::Ru, FULL, IEEE),
    Row::ieee(T11, "__dmul_rd", "__dmul_[rn,rz,ru,rd](x,y)", F64, Mul, Dir::Rd, FULL, IEEE),
    Row::ieee(T11, "__fma_rn", "__fma_[rn,rz,ru,rd](x,y,z)", F64, Fma, Dir::Rn, FULL, IEEE),
    Row::ieee(T11, "__fma_rz", "__fma_[rn,rz,ru,rd](x,y,z)", F64, Fma, Dir::Rz, FULL, IEEE),
    Row::ieee(T11, "__fma_ru", "__fma_[rn,rz,ru,rd](x,y,z)", F64, Fma, Dir::Ru, FULL, IEEE),
    Row::ieee(T11, "__fma_rd", "__fma_[rn,rz,ru,rd](x,y,z)", F64, Fma, Dir::Rd, FULL, IEEE),
    // The cell repeats the argument list: "__ddiv_[rn,rz,ru,rd](x,y)(x,y)".
    Row::ieee(T11, "__ddiv_rn", "__ddiv_[rn,rz,ru,rd](x,y)(x,y)", F64, Div, Dir::Rn, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__ddiv_rz", "__ddiv_[rn,rz,ru,rd](x,y)(x,y)", F64, Div, Dir::Rz, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__ddiv_ru", "__ddiv_[rn,rz,ru,rd](x,y)(x,y)", F64, Div, Dir::Ru, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__ddiv_rd", "__ddiv_[rn,rz,ru,rd](x,y)(x,y)", F64, Div, Dir::Rd, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__drcp_rn", "__drcp_[rn,rz,ru,rd](x)", F64, Rcp, Dir::Rn, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__drcp_rz", "__drcp_[rn,rz,ru,rd](x)", F64, Rcp, Dir::Rz, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__drcp_ru", "__drcp_[rn,rz,ru,rd](x)", F64, Rcp, Dir::Ru, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__drcp_rd", "__drcp_[rn,rz,ru,rd](x)", F64, Rcp, Dir::Rd, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__dsqrt_rn", "__dsqrt_[rn,rz,ru,rd](x)", F64, Sqrt, Dir::Rn, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__dsqrt_rz", "__dsqrt_[rn,rz,ru,rd](x)", F64, Sqrt, Dir::Rz, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__dsqrt_ru", "__dsqrt_[rn,rz,ru,rd](x)", F64, Sqrt, Dir::Ru, CC_ABOVE_2, IEEE_CC2),
    Row::ieee(T11, "__dsqrt_rd", "__dsqrt_[rn,rz,ru,rd](x)", F64, Sqrt, Dir::Rd, CC_ABOVE_2, IEEE_CC2),
];
