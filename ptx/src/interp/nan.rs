//! Which NaN PTX allows when a result is NaN: every NaN rule of the interpreter in one place.
//!
//! | Result of                         | f32, f32x2, f16(x2), bf16(x2)  | f64                                        |
//! |-----------------------------------|--------------------------------|--------------------------------------------|
//! | arithmetic, a NaN operand          | any NaN (9.7.3 intro)          | first NaN operand, quieted (9.7.3 intro)   |
//! | arithmetic, invalid (0*inf, ...)   | any NaN                        | any NaN (the spec names no NaN)            |
//! | `.sat` of a NaN result             | +0.0 (9.7.3.3)                 | (no `.sat` on f64)                         |
//! | `.relu` of a NaN result            | canonical NaN (9.7.4 fma)      | (no `.relu` on f64)                        |
//! | min/max `.NaN`, a NaN operand      | canonical NaN (9.7.3.11)       | canonical NaN                              |
//! | min/max, every operand NaN         | any NaN (9.7.3.11 "NaN")       | any NaN                                    |
//! | abs of a NaN                       | any NaN (9.7.3.9)              | the input unchanged (9.7.3.9)              |
//! | neg of a NaN                       | any NaN (9.7.3.10)             | any NaN (9.7.3.10)                         |
//! | copysign, b NaN                    | b with a's sign; or any NaN    | b with a's sign (9.7.3.2)                  |
//!
//! The `.sat`, `.relu` and min/max rows are applied where those are computed (`arith`,
//! `minmax`); this module gives the rows whose answer depends on the format.

use super::expect::{LaneExpectation, Outcome, Reading};
use crate::format::Format;

/// Whether instructions on this format keep NaN payloads. 9.7.3: "NaN payloads are supported
/// for double-precision instructions ... Single-precision instructions return an unspecified
/// NaN". Half-precision instructions (9.7.4) promise no payloads either.
#[inline(always)]
pub(super) const fn keeps_payloads<F: Format>() -> bool {
    F::BITS == 64
}

/// The NaN result of an IEEE arithmetic instruction (add, sub, mul, fma, mad, div, rcp, sqrt)
/// whose operands, after any `.ftz` flush, are `inputs` (a, b, c in order).
///
/// f64: the first NaN operand, quieted with its sign and payload kept (x86's rule; IEEE-754
/// 6.2.3 only asks for the payload of one of the input NaNs). Open questions, as alternatives: a later NaN operand's payload wins
/// ([`Reading::NanPayloadFromB`], [`Reading::NanPayloadFromC`], as on an ARM-style "signalling
/// NaN first" rule), or a signalling NaN comes through unquieted
/// ([`Reading::SignallingNanNotQuieted`]). No NaN operand (an invalid operation such as
/// inf - inf, 0 * inf, 0 / 0, sqrt(-1)): any NaN, since the spec names none.
#[cold]
pub(super) fn arith<F: Format>(inputs: &[u64]) -> LaneExpectation {
    if !keeps_payloads::<F>() {
        return LaneExpectation::any_nan();
    }
    let Some(first) = inputs.iter().position(|&x| F::is_nan(x)) else {
        return LaneExpectation::any_nan();
    };
    let nan = inputs[first];
    let mut lane = LaneExpectation::exact(F::quiet(nan));
    for (i, &x) in inputs.iter().enumerate().skip(first + 1) {
        if F::is_nan(x) {
            let reading = if i == 1 { Reading::NanPayloadFromB } else { Reading::NanPayloadFromC };
            lane = lane.or(Outcome::Bits(F::quiet(x)), reading);
        }
    }
    if F::is_signalling_nan(nan) {
        lane = lane.or(Outcome::Bits(nan), Reading::SignallingNanNotQuieted);
    }
    lane
}

/// The primary bits of [`arith`] (any NaN read as the canonical one, as
/// `Expectation::primary_bits` reads it), without building the alternatives: the batch
/// loops want only these, and building the whole lane expectation per NaN case copied it
/// around for about 5% of an interp campaign's time (`perf`).
#[cold]
pub(super) fn arith_primary<F: Format>(inputs: &[u64]) -> u64 {
    match inputs.iter().find(|&&x| F::is_nan(x)) {
        Some(&nan) if keeps_payloads::<F>() => F::quiet(nan),
        _ => F::CANONICAL_NAN,
    }
}

/// `abs` of a NaN. 9.7.3.9: "For abs.f32, NaN input yields unspecified NaN. For abs.f64, NaN
/// input is passed through unchanged. Future implementations may comply with the IEEE 754
/// standard by preserving payload and modifying only the sign bit" (the alternative
/// [`Reading::SignBitOnly`]). Half abs (9.7.4) is read like abs.f32.
#[cold]
pub(super) fn abs<F: Format>(a: u64) -> LaneExpectation {
    if keeps_payloads::<F>() {
        LaneExpectation::exact(a).or(Outcome::Bits(F::abs(a)), Reading::SignBitOnly)
    } else {
        LaneExpectation::any_nan()
    }
}

/// `neg` of a NaN. 9.7.3.10: "NaN inputs yield an unspecified NaN", for f32 and f64 alike.
#[cold]
pub(super) fn neg() -> LaneExpectation {
    LaneExpectation::any_nan()
}

/// `copysign` whose result `d` (b's bits with a's sign) is a NaN. 9.7.3.2 defines the result
/// bit-wise ("Copy sign bit of a into value of b"), which is the primary for every type; but
/// 9.7.3 lets single-precision instructions return an unspecified NaN, hence the alternative
/// [`Reading::NanUnspecified`] for f32. f64 keeps payloads, so it is exact.
#[cold]
pub(super) fn copysign<F: Format>(d: u64) -> LaneExpectation {
    let lane = LaneExpectation::exact(d);
    if keeps_payloads::<F>() {
        lane
    } else {
        lane.or(Outcome::AnyNan, Reading::NanUnspecified)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F32, F64};

    const QNAN1: u64 = 0x7ff8_0000_0000_0001;
    const QNAN2: u64 = 0xfff8_0000_0000_0002;
    const SNAN3: u64 = 0x7ff0_0000_0000_0003;

    #[test]
    fn f32_arith_nan_is_unspecified() {
        assert_eq!(arith::<F32>(&[0x7fc0_0001, 0]), LaneExpectation::any_nan());
    }

    #[test]
    fn f64_arith_nan_quiets_first_nan_and_lists_later_payloads() {
        let lane = arith::<F64>(&[F64::ONE, QNAN2, QNAN1]);
        assert_eq!(lane.primary, Outcome::Bits(QNAN2));
        assert_eq!(lane.alternatives.as_slice(), &[(Outcome::Bits(QNAN1), Reading::NanPayloadFromC)]);
    }

    #[test]
    fn f64_signalling_nan_is_quieted_with_unquieted_alternative() {
        let lane = arith::<F64>(&[SNAN3, QNAN1]);
        assert_eq!(lane.primary, Outcome::Bits(0x7ff8_0000_0000_0003));
        assert_eq!(
            lane.alternatives.as_slice(),
            &[
                (Outcome::Bits(QNAN1), Reading::NanPayloadFromB),
                (Outcome::Bits(SNAN3), Reading::SignallingNanNotQuieted)
            ]
        );
    }

    #[test]
    fn f64_invalid_operation_without_nan_operand_gives_any_nan() {
        assert_eq!(arith::<F64>(&[F64::INF, F64::inf(true)]), LaneExpectation::any_nan());
    }

    #[test]
    fn arith_primary_is_the_primary_of_arith() {
        use super::super::expect::Outcome;
        use crate::format::{BF16, F16};
        fn check<F: Format>(vals: &[u64]) {
            for &a in vals {
                for &b in vals {
                    for &c in vals {
                        let want = match arith::<F>(&[a, b, c]).primary {
                            Outcome::Bits(x) => x,
                            _ => F::CANONICAL_NAN,
                        };
                        assert_eq!(arith_primary::<F>(&[a, b, c]), want, "{a:#x} {b:#x} {c:#x}");
                    }
                }
            }
        }
        check::<F64>(&[F64::ONE, QNAN1, QNAN2, SNAN3, F64::INF]);
        check::<F32>(&[0x3f80_0000, 0x7fc0_0001, 0xff80_0001, 0x7f80_0000]);
        check::<F16>(&[0x3c00, 0x7e01, 0xfc01]);
        check::<BF16>(&[0x3f80, 0x7fc1, 0xff81]);
    }

    #[test]
    fn f64_same_payload_twice_gives_no_alternative() {
        let lane = arith::<F64>(&[QNAN1, QNAN1]);
        assert!(lane.alternatives.is_empty());
    }
}
