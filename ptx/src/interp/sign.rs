//! Sign manipulation on one lane: abs (9.7.3.9), neg (9.7.3.10), their half forms (9.7.4), and
//! copysign (9.7.3.2). Exact bit operations; only NaNs and `.ftz` need rules.

use super::expect::LaneExpectation;
use super::nan;
use crate::format::Format;
use crate::isa::Ftz;

/// `abs{.ftz}`: "d = |a|". `.ftz` flushes a subnormal input first (9.7.3.9), so
/// abs.ftz(-subnormal) = +0.0.
#[inline(always)]
pub(super) fn abs<F: Format>(ftz: Ftz, a: u64) -> LaneExpectation {
    let a = if ftz == Ftz::Flush { F::flush(a) } else { a };
    if F::is_nan(a) {
        return nan::abs::<F>(a);
    }
    LaneExpectation::exact(F::abs(a))
}

/// `neg{.ftz}`: "d = -a", so neg(+0.0) = -0.0. `.ftz` flushes a subnormal input first (9.7.3.10).
#[inline(always)]
pub(super) fn neg<F: Format>(ftz: Ftz, a: u64) -> LaneExpectation {
    let a = if ftz == Ftz::Flush { F::flush(a) } else { a };
    if F::is_nan(a) {
        return nan::neg();
    }
    LaneExpectation::exact(a ^ F::SIGN_MASK)
}

/// `copysign d, a, b`: "Copy sign bit of a into value of b" (9.7.3.2). No `.ftz` form: a
/// subnormal b keeps its bits.
#[inline(always)]
pub(super) fn copysign<F: Format>(a: u64, b: u64) -> LaneExpectation {
    let d = (b & !F::SIGN_MASK & F::MASK) | (a & F::SIGN_MASK);
    if F::is_nan(d) {
        return nan::copysign::<F>(d);
    }
    LaneExpectation::exact(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{BF16, F16, F32, F64};
    use crate::interp::expect::{Outcome, Reading};

    const P: Ftz = Ftz::Preserve;

    #[test]
    fn abs_clears_sign_of_numbers_and_zeros() {
        assert_eq!(abs::<F32>(P, 0x8000_0000), LaneExpectation::exact(0));
        assert_eq!(abs::<F32>(P, 0xbf80_0000), LaneExpectation::exact(0x3f80_0000));
        assert_eq!(abs::<F64>(P, F64::inf(true)), LaneExpectation::exact(F64::INF));
        assert_eq!(abs::<F32>(P, 0x8000_0001), LaneExpectation::exact(1));
        assert_eq!(abs::<BF16>(P, 0xbf80), LaneExpectation::exact(0x3f80));
    }

    #[test]
    fn neg_flips_sign_of_numbers_and_zeros() {
        assert_eq!(neg::<F32>(P, 0), LaneExpectation::exact(0x8000_0000));
        assert_eq!(neg::<F32>(P, 0x8000_0000), LaneExpectation::exact(0));
        assert_eq!(neg::<F64>(P, F64::ONE), LaneExpectation::exact(F64::ONE | F64::SIGN_MASK));
        assert_eq!(neg::<F16>(P, 0x0001), LaneExpectation::exact(0x8001));
    }

    #[test]
    fn ftz_flushes_abs_and_neg_inputs() {
        assert_eq!(abs::<F32>(Ftz::Flush, 0x8000_0001), LaneExpectation::exact(0));
        assert_eq!(neg::<F32>(Ftz::Flush, 0x0000_0001), LaneExpectation::exact(0x8000_0000));
        assert_eq!(neg::<F16>(Ftz::Flush, 0x83ff), LaneExpectation::exact(0));
        assert_eq!(abs::<F32>(Ftz::Flush, 0x8080_0000), LaneExpectation::exact(0x0080_0000));
    }

    #[test]
    fn abs_of_nan_is_unspecified_for_f32_and_half() {
        assert_eq!(abs::<F32>(P, 0xffc0_0000), LaneExpectation::any_nan());
        assert_eq!(abs::<F16>(P, 0xfe00), LaneExpectation::any_nan());
        assert_eq!(abs::<BF16>(P, 0xffc1), LaneExpectation::any_nan());
    }

    #[test]
    fn abs_f64_passes_nan_through_with_sign_bit_only_alternative() {
        let nan = 0xfff0_0000_0000_0001;
        let lane = abs::<F64>(P, nan);
        assert_eq!(lane.primary, Outcome::Bits(nan));
        assert_eq!(lane.alternatives.as_slice(), &[(Outcome::Bits(0x7ff0_0000_0000_0001), Reading::SignBitOnly)]);
        // A positive NaN: both readings agree.
        assert_eq!(abs::<F64>(P, 0x7ff8_0000_0000_0000), LaneExpectation::exact(0x7ff8_0000_0000_0000));
    }

    #[test]
    fn neg_of_nan_is_unspecified_for_every_type() {
        assert_eq!(neg::<F32>(P, 0x7fc0_0000), LaneExpectation::any_nan());
        assert_eq!(neg::<F64>(P, 0x7ff8_0000_0000_0001), LaneExpectation::any_nan());
        assert_eq!(neg::<F16>(P, 0x7e00), LaneExpectation::any_nan());
    }

    #[test]
    fn copysign_puts_sign_of_a_on_b() {
        assert_eq!(copysign::<F32>(0x8000_0000, 0x3f80_0000), LaneExpectation::exact(0xbf80_0000));
        assert_eq!(copysign::<F32>(0x3f80_0000, 0x8000_0001), LaneExpectation::exact(0x0000_0001));
        assert_eq!(copysign::<F64>(F64::SIGN_MASK, 0), LaneExpectation::exact(F64::SIGN_MASK));
        // a NaN a only lends its sign.
        assert_eq!(copysign::<F32>(0xffc0_0000, 0x4000_0000), LaneExpectation::exact(0xc000_0000));
    }

    #[test]
    fn copysign_of_nan_b_is_exact_for_f64_and_possibly_any_nan_for_f32() {
        let lane = copysign::<F32>(0x8000_0000, 0x7fc0_1234);
        assert_eq!(lane.primary, Outcome::Bits(0xffc0_1234));
        assert_eq!(lane.alternatives.as_slice(), &[(Outcome::AnyNan, Reading::NanUnspecified)]);
        let b = 0x7ff0_0000_0000_0009;
        assert_eq!(copysign::<F64>(F64::SIGN_MASK, b), LaneExpectation::exact(b | F64::SIGN_MASK));
    }
}
