//! One test per row of every special-value table of the spec (9.7.3.8, 9.7.3.13-22,
//! 9.7.4.9-10), written from the spec text with literal bits, independent of `special.rs`.
//! `.ftz` forms are checked too: the tables apply after input flushing.

use super::eval;
use crate::expect::{Outcome, Reading};
use crate::isa::{Ftz, Instr, Opcode, Precision, Type};

fn form(op: Opcode, precision: Precision, ty: Type, ftz: Ftz) -> Instr {
    let mut i = Instr::new(op, ty);
    i.precision = precision;
    i.ftz = ftz;
    i
}

/// Every lane of `op` on `input` (broadcast to every lane) is exactly `want`.
fn check(op: Opcode, precision: Precision, ty: Type, ftz: Ftz, inputs: &[u64], want: Outcome) {
    let i = form(op, precision, ty, ftz);
    let w = ty.scalar().bits();
    for &x in inputs {
        let reg = if ty.lanes() == 2 { x | x << w } else { x };
        let ops: Vec<u64> = (0..i.inputs).map(|_| reg).collect();
        let e = eval(&i, &ops).unwrap_or_else(|err| panic!("{op:?} {ty:?} {ftz:?}: {err}"));
        for lane in &e.lanes {
            assert_eq!(lane.primary, want, "{op:?} {ty:?} {ftz:?} on {x:#x}");
            assert!(lane.alternatives.is_empty(), "{op:?} {ty:?} on {x:#x}: {:?}", lane.alternatives);
        }
    }
}

const BOTH: [Ftz; 2] = [Ftz::Preserve, Ftz::Flush];
const A: Precision = Precision::Approx;

// f32 inputs
const NEG_INF: u64 = 0xff80_0000;
const POS_INF: u64 = 0x7f80_0000;
const NEG_NORMALS: &[u64] = &[0xbf80_0000, 0xc2c8_0000, 0x8080_0000, 0xff7f_ffff];
const NEG_ZERO: u64 = 0x8000_0000;
const POS_ZERO: u64 = 0;
const NANS: &[u64] = &[0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0x7fff_ffff, 0xffbf_ffff];
const ONE: u64 = 0x3f80_0000;
const NEG_ONE: u64 = 0xbf80_0000;
const NAN: Outcome = Outcome::AnyNan;
fn bits(b: u64) -> Outcome {
    Outcome::Bits(b)
}

macro_rules! rows_f32 {
    ($($name:ident: $op:ident, $inputs:expr => $want:expr;)*) => {$(
        #[test]
        fn $name() {
            for ftz in BOTH {
                check(Opcode::$op, A, Type::F32, ftz, &$inputs, $want);
            }
        }
    )*};
}

// 9.7.3.13 rcp.approx.f32
rows_f32! {
    rcp_neg_inf_gives_neg_zero: Rcp, [NEG_INF] => bits(NEG_ZERO);
    rcp_neg_zero_gives_neg_inf: Rcp, [NEG_ZERO] => bits(NEG_INF);
    rcp_pos_zero_gives_pos_inf: Rcp, [POS_ZERO] => bits(POS_INF);
    rcp_pos_inf_gives_pos_zero: Rcp, [POS_INF] => bits(POS_ZERO);
    rcp_nan_gives_nan: Rcp, NANS => NAN;
}

// 9.7.3.15 sqrt.approx.f32
rows_f32! {
    sqrt_neg_inf_gives_nan: Sqrt, [NEG_INF] => NAN;
    sqrt_neg_normal_gives_nan: Sqrt, NEG_NORMALS => NAN;
    sqrt_neg_zero_gives_neg_zero: Sqrt, [NEG_ZERO] => bits(NEG_ZERO);
    sqrt_pos_zero_gives_pos_zero: Sqrt, [POS_ZERO] => bits(POS_ZERO);
    sqrt_pos_inf_gives_pos_inf: Sqrt, [POS_INF] => bits(POS_INF);
    sqrt_nan_gives_nan: Sqrt, NANS => NAN;
}

// 9.7.3.16 rsqrt.approx.f32
rows_f32! {
    rsqrt_neg_inf_gives_nan: Rsqrt, [NEG_INF] => NAN;
    rsqrt_neg_normal_gives_nan: Rsqrt, NEG_NORMALS => NAN;
    rsqrt_neg_zero_gives_neg_inf: Rsqrt, [NEG_ZERO] => bits(NEG_INF);
    rsqrt_pos_zero_gives_pos_inf: Rsqrt, [POS_ZERO] => bits(POS_INF);
    rsqrt_pos_inf_gives_pos_zero: Rsqrt, [POS_INF] => bits(POS_ZERO);
    rsqrt_nan_gives_nan: Rsqrt, NANS => NAN;
}

// 9.7.3.18 sin.approx.f32
rows_f32! {
    sin_neg_inf_gives_nan: Sin, [NEG_INF] => NAN;
    sin_neg_zero_gives_neg_zero: Sin, [NEG_ZERO] => bits(NEG_ZERO);
    sin_pos_zero_gives_pos_zero: Sin, [POS_ZERO] => bits(POS_ZERO);
    sin_pos_inf_gives_nan: Sin, [POS_INF] => NAN;
    sin_nan_gives_nan: Sin, NANS => NAN;
}

// 9.7.3.19 cos.approx.f32
rows_f32! {
    cos_neg_inf_gives_nan: Cos, [NEG_INF] => NAN;
    cos_neg_zero_gives_one: Cos, [NEG_ZERO] => bits(ONE);
    cos_pos_zero_gives_one: Cos, [POS_ZERO] => bits(ONE);
    cos_pos_inf_gives_nan: Cos, [POS_INF] => NAN;
    cos_nan_gives_nan: Cos, NANS => NAN;
}

// 9.7.3.20 lg2.approx.f32
rows_f32! {
    lg2_neg_inf_gives_nan: Lg2, [NEG_INF] => NAN;
    lg2_neg_normal_gives_nan: Lg2, NEG_NORMALS => NAN;
    lg2_neg_zero_gives_neg_inf: Lg2, [NEG_ZERO] => bits(NEG_INF);
    lg2_pos_zero_gives_neg_inf: Lg2, [POS_ZERO] => bits(NEG_INF);
    lg2_pos_inf_gives_pos_inf: Lg2, [POS_INF] => bits(POS_INF);
    lg2_nan_gives_nan: Lg2, NANS => NAN;
}

// 9.7.3.21 ex2.approx.f32
rows_f32! {
    ex2_neg_inf_gives_pos_zero: Ex2, [NEG_INF] => bits(POS_ZERO);
    ex2_neg_zero_gives_one: Ex2, [NEG_ZERO] => bits(ONE);
    ex2_pos_zero_gives_one: Ex2, [POS_ZERO] => bits(ONE);
    ex2_pos_inf_gives_pos_inf: Ex2, [POS_INF] => bits(POS_INF);
    ex2_nan_gives_nan: Ex2, NANS => NAN;
}

// 9.7.3.22 tanh.approx.f32 (no .ftz form)
macro_rules! rows_tanh_f32 {
    ($($name:ident: $inputs:expr => $want:expr;)*) => {$(
        #[test]
        fn $name() {
            check(Opcode::Tanh, A, Type::F32, Ftz::Preserve, &$inputs, $want);
        }
    )*};
}
rows_tanh_f32! {
    tanh_neg_inf_gives_neg_one: [NEG_INF] => bits(NEG_ONE);
    tanh_neg_zero_gives_neg_zero: [NEG_ZERO] => bits(NEG_ZERO);
    tanh_pos_zero_gives_pos_zero: [POS_ZERO] => bits(POS_ZERO);
    tanh_pos_inf_gives_one: [POS_INF] => bits(ONE);
    tanh_nan_gives_nan: NANS => NAN;
}

#[test]
fn tanh_passes_subnormal_inputs_through() {
    // 9.7.3.22 note: "The subnormal inputs gets passed through to the output".
    for x in [0x0000_0001u64, 0x007f_ffff, 0x8000_0001, 0x8040_0000] {
        check(Opcode::Tanh, A, Type::F32, Ftz::Preserve, &[x], bits(x));
    }
}

// .ftz: the tables apply after flushing, so subnormals take the zero rows.
#[test]
fn ftz_subnormal_inputs_take_the_zero_rows() {
    let ftz = Ftz::Flush;
    check(Opcode::Rcp, A, Type::F32, ftz, &[0x8000_0001], bits(NEG_INF));
    check(Opcode::Sqrt, A, Type::F32, ftz, &[0x8040_0000], bits(NEG_ZERO));
    check(Opcode::Rsqrt, A, Type::F32, ftz, &[0x0000_0001], bits(POS_INF));
    check(Opcode::Sin, A, Type::F32, ftz, &[0x807f_ffff], bits(NEG_ZERO));
    check(Opcode::Cos, A, Type::F32, ftz, &[0x807f_ffff], bits(ONE));
    check(Opcode::Lg2, A, Type::F32, ftz, &[0x0000_0001], bits(NEG_INF));
    check(Opcode::Ex2, A, Type::F32, ftz, &[0x8000_0001], bits(ONE));
}

// 9.7.3.16 rsqrt.approx.f64: the same table, f64 NaN payloads (9.7.3 intro).
mod rsqrt_f64 {
    use super::*;
    fn c(inputs: &[u64], want: Outcome) {
        check(Opcode::Rsqrt, A, Type::F64, Ftz::Preserve, inputs, want);
    }
    #[test]
    fn neg_inf_gives_nan() {
        c(&[0xfff0_0000_0000_0000], NAN);
    }
    #[test]
    fn neg_normal_gives_nan() {
        c(&[0xbff0_0000_0000_0000, 0x8010_0000_0000_0000], NAN);
    }
    #[test]
    fn neg_zero_gives_neg_inf() {
        c(&[0x8000_0000_0000_0000], bits(0xfff0_0000_0000_0000));
    }
    #[test]
    fn pos_zero_gives_pos_inf() {
        c(&[0], bits(0x7ff0_0000_0000_0000));
    }
    #[test]
    fn pos_inf_gives_pos_zero() {
        c(&[0x7ff0_0000_0000_0000], bits(0));
    }
    #[test]
    fn nan_gives_the_quieted_input() {
        c(&[0x7ff8_0000_0000_1234], bits(0x7ff8_0000_0000_1234));
        let e = eval(&form(Opcode::Rsqrt, A, Type::F64, Ftz::Preserve), &[0xfff0_0000_0000_0001]).unwrap();
        assert_eq!(e.lanes[0].primary, bits(0xfff8_0000_0000_0001));
        assert_eq!(
            e.lanes[0].alternatives.as_slice(),
            &[(bits(0xfff0_0000_0000_0001), Reading::SignallingNanNotQuieted)]
        );
    }
}

// 9.7.3.14 rcp.approx.ftz.f64 and 9.7.3.17 rsqrt.approx.ftz.f64: on a[63:32]; the low word
// of the input never matters (an upper word 0x7ff00000 is +inf whatever the low word).
macro_rules! rows_gross {
    ($($name:ident: $op:ident, $inputs:expr => $want:expr;)*) => {$(
        #[test]
        fn $name() {
            check(Opcode::$op, A, Type::F64, Ftz::Flush, &$inputs, $want);
        }
    )*};
}
const GNAN: Outcome = Outcome::Bits(0x7fff_ffff_0000_0000);
const F64_NANS: [u64; 4] = [0x7ff8_0000_0000_0000, 0xfff0_0001_0000_0000, 0x7ff0_0001_ffff_ffff, 0x7fff_ffff_0000_0000];
rows_gross! {
    rcp_gross_neg_inf_gives_neg_zero: Rcp, [0xfff0_0000_0000_0000, 0xfff0_0000_0000_0001] => bits(0x8000_0000_0000_0000);
    rcp_gross_neg_subnormal_gives_neg_inf: Rcp, [0x800f_ffff_0000_0000, 0x8000_0001_ffff_ffff] => bits(0xfff0_0000_0000_0000);
    rcp_gross_neg_zero_gives_neg_inf: Rcp, [0x8000_0000_0000_0000, 0x8000_0000_0000_0001] => bits(0xfff0_0000_0000_0000);
    rcp_gross_pos_zero_gives_pos_inf: Rcp, [0, 0x0000_0000_ffff_ffff] => bits(0x7ff0_0000_0000_0000);
    rcp_gross_pos_subnormal_gives_pos_inf: Rcp, [0x0000_0001_0000_0000, 0x000f_ffff_ffff_ffff] => bits(0x7ff0_0000_0000_0000);
    rcp_gross_pos_inf_gives_pos_zero: Rcp, [0x7ff0_0000_0000_0000, 0x7ff0_0000_1234_5678] => bits(0);
    rcp_gross_nan_gives_canonical_nan: Rcp, F64_NANS => GNAN;

    rsqrt_gross_neg_subnormal_gives_neg_inf: Rsqrt, [0x800f_ffff_0000_0000, 0x8000_0001_ffff_ffff] => bits(0xfff0_0000_0000_0000);
    rsqrt_gross_neg_zero_gives_neg_inf: Rsqrt, [0x8000_0000_0000_0000, 0x8000_0000_0000_0001] => bits(0xfff0_0000_0000_0000);
    rsqrt_gross_pos_zero_gives_pos_inf: Rsqrt, [0, 0x0000_0000_ffff_ffff] => bits(0x7ff0_0000_0000_0000);
    rsqrt_gross_pos_subnormal_gives_pos_inf: Rsqrt, [0x0000_0001_0000_0000, 0x000f_ffff_ffff_ffff] => bits(0x7ff0_0000_0000_0000);
    rsqrt_gross_pos_inf_gives_pos_zero: Rsqrt, [0x7ff0_0000_0000_0000, 0x7ff0_0000_ffff_ffff] => bits(0);
    rsqrt_gross_nan_gives_canonical_nan: Rsqrt, F64_NANS => GNAN;
}

#[test]
fn rsqrt_gross_neg_inf_gives_nan() {
    // "NaN" without an encoding (the canonical-NaN sentence is about input NaNs): the model
    // expects the gross canonical NaN, any NaN as the nan-unspecified reading.
    let i = form(Opcode::Rsqrt, A, Type::F64, Ftz::Flush);
    for x in [0xfff0_0000_0000_0000, 0xfff0_0000_0000_0001] {
        let e = eval(&i, &[x]).unwrap();
        assert_eq!(e.lanes[0].primary, GNAN);
        assert_eq!(e.lanes[0].alternatives.as_slice(), &[(NAN, Reading::NanUnspecified)]);
        assert!(e.accepts(0x7ff8_0000_0000_0000) && !e.accepts(0xfff0_0000_0000_0000));
    }
}

// 9.7.4.9 tanh.approx.{f16,f16x2,bf16,bf16x2}
macro_rules! rows_half {
    ($($name:ident: $op:ident $ftz:ident [$($ty:ident),*], $inputs:expr => $want:expr;)*) => {$(
        #[test]
        fn $name() {
            $(check(Opcode::$op, A, Type::$ty, Ftz::$ftz, &$inputs, $want);)*
        }
    )*};
}
rows_half! {
    tanh_f16_neg_inf_gives_neg_one: Tanh Preserve [F16, F16x2], [0xfc00] => bits(0xbc00);
    tanh_f16_neg_zero_gives_neg_zero: Tanh Preserve [F16, F16x2], [0x8000] => bits(0x8000);
    tanh_f16_pos_zero_gives_pos_zero: Tanh Preserve [F16, F16x2], [0x0000] => bits(0x0000);
    tanh_f16_pos_inf_gives_one: Tanh Preserve [F16, F16x2], [0x7c00] => bits(0x3c00);
    tanh_f16_nan_gives_nan: Tanh Preserve [F16, F16x2], [0x7e00, 0xfc01, 0x7fff] => NAN;
    tanh_bf16_neg_inf_gives_neg_one: Tanh Preserve [Bf16, Bf16x2], [0xff80] => bits(0xbf80);
    tanh_bf16_neg_zero_gives_neg_zero: Tanh Preserve [Bf16, Bf16x2], [0x8000] => bits(0x8000);
    tanh_bf16_pos_zero_gives_pos_zero: Tanh Preserve [Bf16, Bf16x2], [0x0000] => bits(0x0000);
    tanh_bf16_pos_inf_gives_one: Tanh Preserve [Bf16, Bf16x2], [0x7f80] => bits(0x3f80);
    tanh_bf16_nan_gives_nan: Tanh Preserve [Bf16, Bf16x2], [0x7fc0, 0xff81, 0x7fff] => NAN;

    // 9.7.4.10 ex2.approx.ftz.{bf16,bf16x2}
    ex2_bf16_neg_inf_gives_pos_zero: Ex2 Flush [Bf16, Bf16x2], [0xff80] => bits(0);
    ex2_bf16_neg_subnormal_gives_one: Ex2 Flush [Bf16, Bf16x2], [0x8001, 0x807f] => bits(0x3f80);
    ex2_bf16_neg_zero_gives_one: Ex2 Flush [Bf16, Bf16x2], [0x8000] => bits(0x3f80);
    ex2_bf16_pos_zero_gives_one: Ex2 Flush [Bf16, Bf16x2], [0x0000] => bits(0x3f80);
    ex2_bf16_pos_subnormal_gives_one: Ex2 Flush [Bf16, Bf16x2], [0x0001, 0x007f] => bits(0x3f80);
    ex2_bf16_pos_inf_gives_pos_inf: Ex2 Flush [Bf16, Bf16x2], [0x7f80] => bits(0x7f80);
    ex2_bf16_nan_gives_nan: Ex2 Flush [Bf16, Bf16x2], [0x7fc0, 0xff81] => NAN;

    // 9.7.4.10 ex2.approx.{f16,f16x2}
    ex2_f16_neg_inf_gives_pos_zero: Ex2 Preserve [F16, F16x2], [0xfc00] => bits(0);
    ex2_f16_neg_zero_gives_one: Ex2 Preserve [F16, F16x2], [0x8000] => bits(0x3c00);
    ex2_f16_pos_zero_gives_one: Ex2 Preserve [F16, F16x2], [0x0000] => bits(0x3c00);
    ex2_f16_pos_inf_gives_pos_inf: Ex2 Preserve [F16, F16x2], [0x7c00] => bits(0x7c00);
    ex2_f16_nan_gives_nan: Ex2 Preserve [F16, F16x2], [0x7e00, 0xfd00] => NAN;
}

// 9.7.3.8 div.approx: "For 2^126 < |b| < 2^128, if a is infinity, div.approx.f32 returns NaN,
// otherwise it returns a sign-preserving zero."
#[test]
fn div_approx_large_divisor_with_infinite_dividend_gives_nan() {
    for ftz in BOTH {
        let i = form(Opcode::Div, A, Type::F32, ftz);
        for (a, b) in [(POS_INF, 0x7f00_0000u64), (NEG_INF, 0xff7f_ffff), (POS_INF, 0x7e80_0001)] {
            assert_eq!(eval(&i, &[a, b]).unwrap().lanes[0].primary, NAN, "{a:#x}/{b:#x}");
        }
    }
}

#[test]
fn div_approx_large_divisor_gives_zero_with_the_quotient_sign() {
    for ftz in BOTH {
        let i = form(Opcode::Div, A, Type::F32, ftz);
        for (a, b, z) in [
            (ONE, 0x7f00_0000u64, 0u64),
            (ONE, 0xff00_0000, NEG_ZERO),
            (0xff7f_ffff, 0x7f7f_ffff, NEG_ZERO),
            (0xff7f_ffff, 0xff7f_ffff, 0),
            (NEG_ZERO, 0x7f00_0000, NEG_ZERO),
            (0x0000_0001, 0x7e80_0001, 0),
        ] {
            assert_eq!(eval(&i, &[a, b]).unwrap().lanes[0].primary, bits(z), "{a:#x}/{b:#x}");
        }
        // 2^126 itself is inside the 2-ulp range, not the zero rule.
        let e = eval(&i, &[0x7f00_0000, 0x7e80_0000]).unwrap();
        assert!(e.accepts(0x4000_0000) && !e.accepts(0));
    }
}
