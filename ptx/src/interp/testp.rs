//! testp (9.7.3.1): classify an operand; the result is a predicate.

use crate::format::{Format, FpClass};
use crate::isa::TestpOp;

/// Whether `a` has the property `op` tests.
#[inline]
pub(super) fn test<F: Format>(op: TestpOp, a: u64) -> bool {
    let class = F::classify(a);
    match op {
        // "True if the input is not infinite or NaN".
        TestpOp::Finite => !matches!(class, FpClass::Infinite | FpClass::Nan),
        TestpOp::Infinite => class == FpClass::Infinite,
        TestpOp::Number => class != FpClass::Nan,
        TestpOp::NotANumber => class == FpClass::Nan,
        // "As a special case, positive and negative zero are considered normal numbers."
        TestpOp::Normal => matches!(class, FpClass::Normal | FpClass::Zero),
        TestpOp::Subnormal => class == FpClass::Subnormal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F32, F64};

    /// (value, finite, infinite, number, notanumber, normal, subnormal)
    const F32_CASES: [(u64, [bool; 6]); 8] = [
        (0x0000_0000, [true, false, true, false, true, false]),
        (0x8000_0000, [true, false, true, false, true, false]),
        (0x0000_0001, [true, false, true, false, false, true]),
        (0x807f_ffff, [true, false, true, false, false, true]),
        (0x3f80_0000, [true, false, true, false, true, false]),
        (0xff80_0000, [false, true, true, false, false, false]),
        (0x7f80_0001, [false, false, false, true, false, false]),
        (0xffc0_0000, [false, false, false, true, false, false]),
    ];

    #[test]
    fn testp_classifies_every_kind_of_f32() {
        for (bits, want) in F32_CASES {
            for (op, w) in TestpOp::ALL.into_iter().zip(want) {
                assert_eq!(test::<F32>(op, bits), w, "testp.{}.f32 {bits:#x}", op.name());
            }
        }
    }

    #[test]
    fn testp_normal_of_zero_is_true() {
        assert!(test::<F32>(TestpOp::Normal, 0));
        assert!(test::<F64>(TestpOp::Normal, F64::SIGN_MASK));
        assert!(!test::<F64>(TestpOp::Subnormal, 0));
    }

    #[test]
    fn testp_f64_subnormal_and_infinite() {
        assert!(test::<F64>(TestpOp::Subnormal, 1));
        assert!(!test::<F64>(TestpOp::Normal, 1));
        assert!(test::<F64>(TestpOp::Infinite, F64::inf(true)));
        assert!(!test::<F64>(TestpOp::Finite, F64::INF));
        assert!(test::<F64>(TestpOp::NotANumber, 0x7ff0_0000_0000_0001));
    }
}
