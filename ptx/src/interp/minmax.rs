//! min and max (9.7.3.11, 9.7.3.12, and their half forms in 9.7.4): the spec's pseudocode on one
//! lane, with `.ftz`, `.NaN`, `.abs` and `.xorsign.abs`, two or three inputs.

use super::expect::LaneExpectation;
use crate::format::Format;
use crate::isa::{AbsMode, Ftz, NanMode};

/// Which extremum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Extremum {
    Min,
    Max,
}

/// The modifiers of a min/max form.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mods {
    pub which: Extremum,
    pub ftz: Ftz,
    pub nan: NanMode,
    pub abs: AbsMode,
    /// 3 for the three-input form, else 2.
    pub inputs: usize,
}

/// `two_inputs_min` / `two_inputs_max` of the pseudocode. A NaN result is returned as one of
/// the NaN operands; the caller decides which NaN is allowed.
#[inline(always)]
fn two_inputs<F: Format>(which: Extremum, nan: NanMode, x: u64, y: u64) -> u64 {
    match (F::is_nan(x), F::is_nan(y), nan) {
        (false, false, _) => {
            // "note: -0.0 < +0.0 here"; order_key orders -0.0 below +0.0.
            let x_wins = match which {
                Extremum::Min => F::order_key(x) < F::order_key(y),
                Extremum::Max => F::order_key(x) > F::order_key(y),
            };
            if x_wins {
                x
            } else {
                y
            }
        }
        // min_num: "else if (isNaN(x)) z = y; else if (isNaN(y)) z = x".
        (true, false, NanMode::Number) => y,
        (false, true, NanMode::Number) => x,
        // min_nan: "if (isNaN(x) || isNaN(y)) z = NaN"; min_num: both NaN, "z = NaN".
        (true, _, _) => x,
        (false, true, NanMode::Propagate) => y,
    }
}

/// Evaluate one lane; `x` holds the lane's operands (a, b and, for three inputs, c).
#[inline(always)]
pub(super) fn lane<F: Format>(m: Mods, mut x: [u64; 3]) -> LaneExpectation {
    let n = m.inputs;
    if m.ftz == Ftz::Flush {
        // 9.7.3.11: "min.ftz.f32 flushes subnormal inputs and results to sign-preserving zero";
        // the result is one of the flushed inputs, so it needs no second flush.
        for v in &mut x[..n] {
            *v = F::flush(*v);
        }
    }
    // "if (.xorsign && !isPresent(c)) xorsign = getSignBit(a) ^ getSignBit(b)": the signs of
    // the inputs before `.abs`.
    let xorsign = (m.abs == AbsMode::XorsignAbs && n == 2).then(|| (x[0] ^ x[1]) & F::SIGN_MASK);
    if m.abs != AbsMode::None {
        for v in &mut x[..n] {
            *v = F::abs(*v);
        }
    }
    let mut d = two_inputs::<F>(m.which, m.nan, x[0], x[1]);
    if n == 3 {
        d = two_inputs::<F>(m.which, m.nan, d, x[2]);
    }
    if F::is_nan(d) {
        // "If the result of min is NaN then the .xorsign and .abs modifiers will be ignored."
        return match m.nan {
            // "the result is canonical NaN if any of the inputs is NaN".
            NanMode::Propagate => LaneExpectation::exact(F::CANONICAL_NAN),
            // min_num of two NaNs: "z = NaN", which NaN unspecified (f64 too: the pseudocode
            // names no payload rule, see docs/semantics.md).
            NanMode::Number => LaneExpectation::any_nan(),
        };
    }
    if let Some(sign) = xorsign {
        // "setSignBit(d, xorsign)".
        d = (d & !F::SIGN_MASK) | sign;
    }
    LaneExpectation::exact(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{BF16, F16, F32, F64};
    use crate::interp::expect::Outcome;

    fn mods(which: Extremum) -> Mods {
        Mods { which, ftz: Ftz::Preserve, nan: NanMode::Number, abs: AbsMode::None, inputs: 2 }
    }
    fn f(v: f32) -> u64 {
        v.to_bits() as u64
    }
    const NEG0: u64 = 0x8000_0000;
    const QNAN: u64 = 0x7fc0_0001;

    #[test]
    fn negative_zero_is_below_positive_zero() {
        for (a, b) in [(0, NEG0), (NEG0, 0)] {
            assert_eq!(lane::<F32>(mods(Extremum::Min), [a, b, 0]), LaneExpectation::exact(NEG0));
            assert_eq!(lane::<F32>(mods(Extremum::Max), [a, b, 0]), LaneExpectation::exact(0));
        }
        let f64_neg0 = F64::SIGN_MASK;
        assert_eq!(lane::<F64>(mods(Extremum::Min), [0, f64_neg0, 0]), LaneExpectation::exact(f64_neg0));
        assert_eq!(lane::<F16>(mods(Extremum::Max), [0x8000, 0, 0]), LaneExpectation::exact(0));
    }

    #[test]
    fn ordinary_min_and_max() {
        let (a, b) = (f(-3.0), f(2.5));
        assert_eq!(lane::<F32>(mods(Extremum::Min), [a, b, 0]), LaneExpectation::exact(a));
        assert_eq!(lane::<F32>(mods(Extremum::Max), [a, b, 0]), LaneExpectation::exact(b));
        assert_eq!(lane::<F32>(mods(Extremum::Max), [F32::inf(true), a, 0]), LaneExpectation::exact(a));
        assert_eq!(lane::<BF16>(mods(Extremum::Min), [0x3f80, 0xbf80, 0]), LaneExpectation::exact(0xbf80));
    }

    #[test]
    fn one_nan_operand_gives_the_other_operand_exactly() {
        for which in [Extremum::Min, Extremum::Max] {
            assert_eq!(lane::<F32>(mods(which), [QNAN, NEG0, 0]), LaneExpectation::exact(NEG0));
            assert_eq!(lane::<F32>(mods(which), [1, QNAN, 0]), LaneExpectation::exact(1));
            let q64 = 0x7ff8_0000_0000_0005;
            assert_eq!(lane::<F64>(mods(which), [q64, F64::ONE, 0]), LaneExpectation::exact(F64::ONE));
        }
    }

    #[test]
    fn two_nan_operands_give_any_nan() {
        assert_eq!(lane::<F32>(mods(Extremum::Min), [QNAN, 0xff80_0001, 0]), LaneExpectation::any_nan());
        let (q, s) = (0x7ff8_0000_0000_0005, 0xfff0_0000_0000_0001);
        assert_eq!(lane::<F64>(mods(Extremum::Max), [q, s, 0]), LaneExpectation::any_nan());
    }

    #[test]
    fn nan_modifier_gives_canonical_nan_bits() {
        let m = |which| Mods { nan: NanMode::Propagate, ..mods(which) };
        assert_eq!(lane::<F32>(m(Extremum::Min), [f(1.0), QNAN, 0]), LaneExpectation::exact(0x7fff_ffff));
        assert_eq!(lane::<F32>(m(Extremum::Max), [0xff80_0001, f(1.0), 0]), LaneExpectation::exact(0x7fff_ffff));
        assert_eq!(lane::<F16>(m(Extremum::Min), [0x7e00, 0x3c00, 0]), LaneExpectation::exact(0x7fff));
        assert_eq!(lane::<BF16>(m(Extremum::Max), [0x3f80, 0xffc0, 0]), LaneExpectation::exact(0x7fff));
        assert_eq!(lane::<F64>(m(Extremum::Min), [0x7ff0_0000_0000_0001, 0, 0]), LaneExpectation::exact(0x7fff_ffff_ffff_ffff));
        // Without NaN operands, .NaN changes nothing.
        assert_eq!(lane::<F32>(m(Extremum::Min), [f(1.0), f(2.0), 0]), LaneExpectation::exact(f(1.0)));
    }

    #[test]
    fn xorsign_abs_takes_magnitude_extremum_and_xor_of_input_signs() {
        let m = |which| Mods { abs: AbsMode::XorsignAbs, ..mods(which) };
        assert_eq!(lane::<F32>(m(Extremum::Min), [f(-3.0), f(2.0), 0]), LaneExpectation::exact(f(-2.0)));
        assert_eq!(lane::<F32>(m(Extremum::Max), [f(-3.0), f(2.0), 0]), LaneExpectation::exact(f(-3.0)));
        assert_eq!(lane::<F32>(m(Extremum::Max), [f(-3.0), f(-2.0), 0]), LaneExpectation::exact(f(3.0)));
        assert_eq!(lane::<F16>(m(Extremum::Min), [0xc000, 0x3c00, 0]), LaneExpectation::exact(0xbc00));
    }

    #[test]
    fn xorsign_with_nan_result_ignores_modifiers() {
        let m = Mods { abs: AbsMode::XorsignAbs, ..mods(Extremum::Min) };
        assert_eq!(lane::<F32>(m, [QNAN, 0xffc0_0000, 0]), LaneExpectation::any_nan());
        let nan_mode = Mods { nan: NanMode::Propagate, ..m };
        // The canonical NaN keeps its + sign although sign(a) ^ sign(b) = 1.
        assert_eq!(lane::<F32>(nan_mode, [f(-1.0), QNAN, 0]), LaneExpectation::exact(0x7fff_ffff));
    }

    #[test]
    fn xorsign_counts_the_sign_of_a_losing_nan() {
        // The pseudocode reads the sign bits before anything else, NaN or not.
        let m = Mods { abs: AbsMode::XorsignAbs, ..mods(Extremum::Min) };
        assert_eq!(lane::<F32>(m, [0xffc0_0000, f(2.0), 0]), LaneExpectation::exact(f(-2.0)));
    }

    #[test]
    fn three_inputs_take_extremum_of_all() {
        let m = |which| Mods { inputs: 3, ..mods(which) };
        let x = [f(2.0), f(-1.0), f(0.5)];
        assert_eq!(lane::<F32>(m(Extremum::Min), x), LaneExpectation::exact(f(-1.0)));
        assert_eq!(lane::<F32>(m(Extremum::Max), x), LaneExpectation::exact(f(2.0)));
        let abs = |which| Mods { abs: AbsMode::Abs, ..m(which) };
        assert_eq!(lane::<F32>(abs(Extremum::Min), x), LaneExpectation::exact(f(0.5)));
        assert_eq!(lane::<F32>(abs(Extremum::Max), [f(-2.0), f(-4.0), f(3.0)]), LaneExpectation::exact(f(4.0)));
        // a and b NaN: min(min(a, b), c) = c.
        assert_eq!(lane::<F32>(m(Extremum::Min), [QNAN, QNAN, f(7.0)]), LaneExpectation::exact(f(7.0)));
        assert_eq!(lane::<F32>(m(Extremum::Min), [QNAN, QNAN, QNAN]), LaneExpectation::any_nan());
        let nan = |which| Mods { nan: NanMode::Propagate, ..m(which) };
        assert_eq!(lane::<F32>(nan(Extremum::Max), [f(1.0), f(2.0), QNAN]), LaneExpectation::exact(0x7fff_ffff));
    }

    #[test]
    fn ftz_flushes_inputs_before_comparing() {
        let m = |which| Mods { ftz: Ftz::Flush, ..mods(which) };
        // +subnormal vs +0: without .ftz the subnormal is larger; with it both are +0.
        assert_eq!(lane::<F32>(mods(Extremum::Max), [1, 0, 0]), LaneExpectation::exact(1));
        assert_eq!(lane::<F32>(m(Extremum::Max), [1, 0, 0]), LaneExpectation::exact(0));
        // -subnormal vs +0: flushed to -0.0, which is still below +0.0.
        assert_eq!(lane::<F32>(m(Extremum::Min), [0x8000_0001, 0, 0]), LaneExpectation::exact(NEG0));
        assert_eq!(lane::<F32>(m(Extremum::Max), [0x8000_0001, f(-1.0), 0]), LaneExpectation::exact(NEG0));
        let primary = lane::<F16>(m(Extremum::Min), [0x0001, 0x3c00, 0]).primary;
        assert_eq!(primary, Outcome::Bits(0));
    }
}
