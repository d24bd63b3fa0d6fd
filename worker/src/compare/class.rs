//! Mismatch classes, and the classification of one disagreeing result: which rule the target
//! seems to have broken. The rules are tried in the order of [`classify`]'s table, first match
//! wins; each class names the most specific explanation that holds.

use ptx::format::{FpClass, Scalar};
use ptx::interp::{self, Expectation, Outcome};
use ptx::isa::{Clamp, Instr, Narrow, Opcode, Precision};
use ptx::narrow_format;
use ptx::Rounding;
use arrayvec::ArrayVec;
use api::signature::{OperandClass, Signature};

pub use api::MismatchClass;

/// Largest distance (in ulps, from the primary result) still called `rounding` for an exact
/// (IEEE-rounded) form: a correctly rounded result is off by at most 1 ulp in another mode,
/// and a double rounding by at most 1 more. Farther is `gross`.
pub const ROUNDING_MAX_ULPS: u64 = 2;

/// The classification of one disagreeing register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Classified {
    /// The first lane that disagrees (0 for scalars).
    pub lane: usize,
    pub class: MismatchClass,
    /// `got - primary` in ulps on that lane (both zeros one value; infinity one past the
    /// largest finite value); `None` when either is NaN or for a predicate.
    pub ulps: Option<i64>,
    /// `bound-exceeded`: ulps beyond the nearest end of the allowed range.
    pub excess: Option<u64>,
}

/// Classify `got` (the whole register), which `expected` (the expectation of `instr` on
/// `operands`) does not accept. Rules, first match wins:
///
/// | # | class | when |
/// |---|-------|------|
/// | 0 | comparison | a comparison's other outcome: any wrong `setp` predicate, a `set` lane 0 or 1.0 inverted, the operand `selp` did not select |
/// | 0a | ftz, rounding, gross | an integer result (`cvt` to `.s32`, ...): `.ftz` toggled (on a subnormal operand), then another integer rounding, accepts `got`; else gross |
/// | 1 | ftz | flushing at play (`compare::flush`: an operand subnormal, a lane of `got` at most the smallest normal, or the f64 `rsqrt` pair), and `instr` with `.ftz` toggled (a legal form) accepts `got` |
/// | 2 | sat | `instr` without its `.sat`/`.relu` accepts `got`, or `.sat` gave NaN or left [-0, 1] |
/// | 3 | nan-payload | `got` is NaN and some NaN is allowed |
/// | 4 | nan-vs-number | `got` is NaN and only numbers are allowed, or a number and only NaN |
/// | 5 | signed-zero | `got` is a zero and the other zero is allowed |
/// | 5a | sign | `got` with its sign bit flipped is allowed (a nonzero number) |
/// | 6 | ftz | `got` is zero and the primary subnormal, or `got` subnormal and the primary zero |
/// | 7 | special-case-table | `instr` approximate and the lane's expectation exact (a table row, or under a hardware profile its one value) |
/// | 8 | bound-exceeded | `instr` approximate, `got` outside its range (`excess` ulps) |
/// | 9 | rounding | another rounding mode accepts `got`, or it is within [`ROUNDING_MAX_ULPS`] |
/// | 10 | gross | otherwise |
///
/// Rules 1 to 10 judge an element of an fp8 pair (`cvt.rn.satfinite.e4m3x2.f32`) as they judge
/// a float lane, in the element's own format ([`LaneFmt`]).
pub fn classify(instr: Option<&Instr>, operands: &[u64], expected: &Expectation, got: u64) -> Classified {
    if let Some(lane) = instr.and_then(|i| other_outcome(i, operands, expected, got)) {
        return Classified { lane, class: MismatchClass::Comparison, ulps: None, excess: None };
    }
    if let Some(t) = expected.integer {
        return integer_class(instr, operands, t, expected, got);
    }
    let Some(scalar) = LaneFmt::of(expected) else {
        return Classified { lane: 0, class: MismatchClass::Gross, ulps: None, excess: None };
    };
    let w = scalar.bits();
    let lane_of = |bits: u64, i: usize| (bits >> (i as u32 * w)) & scalar.mask();
    let lane = (0..expected.lanes.len())
        .find(|&i| !expected.lane_accepts(i, lane_of(got, i)))
        .unwrap_or(0);
    let l = &expected.lanes[lane];
    let v = lane_of(got, lane);
    let primary = lane_of(expected.primary_bits(), lane);
    let ulps = (!scalar.is_nan(v) && !scalar.is_nan(primary)).then(|| scalar.key(v) - scalar.key(primary));
    let out = |class, excess| Classified { lane, class, ulps, excess };

    // A NaN where a NaN is expected is a payload question: the form with `.ftz` toggled allows
    // any NaN as well, which says nothing (a `--judge sm_90` campaign called the NaN of
    // `cvt.f32.bf16` an ftz mismatch).
    let nan_for_nan = scalar.is_nan(v) && scalar.is_nan(primary);
    if let Some(instr) = instr.filter(|_| !nan_for_nan) {
        // 1, 2: counterfactual forms, judged on the whole register.
        if ftz_toggled_accepts(instr, operands, expected, got) {
            return out(MismatchClass::Ftz, None);
        }
        if instr.clamp != Clamp::None {
            let unclamped = Instr { clamp: Clamp::None, ..*instr };
            let outside = instr.clamp == Clamp::Sat && (scalar.is_nan(v) || !(-0.0..=1.0).contains(&scalar.to_f64(v)));
            if outside || accepts_as(&unclamped, operands, got) {
                return out(MismatchClass::Sat, None);
            }
        }
    }
    let outcomes = || std::iter::once(l.primary).chain(l.alternatives.iter().map(|(o, _)| *o));
    let allows_nan = outcomes().any(|o| match o {
        Outcome::AnyNan | Outcome::Unbounded { .. } => true,
        Outcome::Bits(b) => scalar.is_nan(b),
        Outcome::Range { .. } => false,
    });
    let allows_number = outcomes().any(|o| !matches!(o, Outcome::AnyNan) && !matches!(o, Outcome::Bits(b) if scalar.is_nan(b)));
    let got_class = scalar.classify(v);
    if got_class == FpClass::Nan {
        return out(if allows_nan { MismatchClass::NanPayload } else { MismatchClass::NanVsNumber }, None);
    }
    if !allows_number {
        return out(MismatchClass::NanVsNumber, None);
    }
    let sign = 1u64 << (w - 1);
    if got_class == FpClass::Zero && expected.lane_accepts(lane, v ^ sign) {
        return out(MismatchClass::SignedZero, None);
    }
    // Only the sign bit differs from an allowed number (the H100's min.NaN.xorsign.abs.f16x2
    // finding: -1.0 where 1.0 is expected).
    if expected.lane_accepts(lane, v ^ sign) {
        return out(MismatchClass::Sign, None);
    }
    let primary_class = scalar.classify(primary);
    if matches!((got_class, primary_class), (FpClass::Zero, FpClass::Subnormal) | (FpClass::Subnormal, FpClass::Zero)) {
        return out(MismatchClass::Ftz, None);
    }
    if let Some(instr) = instr.filter(|i| i.is_approximate()) {
        let _ = instr;
        let ranged = outcomes().find_map(|o| match o {
            Outcome::Range { lo, hi, .. } => Some((lo, hi)),
            _ => None,
        });
        let Some((lo, hi)) = ranged else {
            return out(MismatchClass::SpecialCaseTable, None);
        };
        let k = scalar.key(v);
        let excess = if k < scalar.key(lo) { scalar.key(lo) - k } else { k - scalar.key(hi) };
        return out(MismatchClass::BoundExceeded, Some(excess.unsigned_abs()));
    }
    // Rule 9's distance first: it needs no evaluation, and either way the class is the same
    // (another mode's evaluation, three `eval`s, was about 8 % of `bench --judge`'s time).
    let near = ulps.is_some_and(|n| n.unsigned_abs() <= ROUNDING_MAX_ULPS);
    if near || instr.is_some_and(|i| other_rounding_accepts(i, operands, got)) {
        return out(MismatchClass::Rounding, None);
    }
    out(MismatchClass::Gross, None)
}

/// An integer result (a `cvt` to `.s32`, ...): `ftz` or `rounding` when the form with `.ftz`
/// toggled (on a subnormal operand) or another integer rounding (`.rzi` for `.rni`, ...) gives
/// `got`, else `gross`; `ulps` is the integer difference `got - expected`.
fn integer_class(instr: Option<&Instr>, operands: &[u64], t: ptx::integer::IntType, expected: &Expectation, got: u64) -> Classified {
    let ulps = i64::try_from(t.value(got) - t.value(expected.primary_bits())).ok();
    let out = |class| Classified { lane: 0, class, ulps, excess: None };
    match instr {
        Some(i) if ftz_toggled_accepts(i, operands, expected, got) => out(MismatchClass::Ftz),
        Some(i) if other_rounding_accepts(i, operands, got) => out(MismatchClass::Rounding),
        _ => out(MismatchClass::Gross),
    }
}

/// Rule 1 (and 0a): flushing is at play, and the form with `.ftz` toggled, where that is a
/// legal form, gives `got`. Elsewhere the toggled form allows nothing more (`compare::flush`),
/// so it is not evaluated.
fn ftz_toggled_accepts(instr: &Instr, operands: &[u64], expected: &Expectation, got: u64) -> bool {
    super::flush::in_play(instr, operands, expected, got) && accepts_as(&super::flush::toggled(instr), operands, got)
}

/// Rule 9 (and 0a): the form in another rounding mode gives `got` (for a `cvt` to an
/// integer the mode is its integer rounding: `.rzi` for `.rni`).
fn other_rounding_accepts(instr: &Instr, operands: &[u64], got: u64) -> bool {
    Rounding::ALL
        .into_iter()
        .filter(|&m| instr.precision.rounding().is_some_and(|r| r != m))
        .any(|m| accepts_as(&Instr { precision: Precision::Rounded(m), ..*instr }, operands, got))
}

/// Rule 0: the first disagreeing lane when `got` is the other outcome of a comparison: any
/// wrong `setp` predicate, a `set` lane holding 0 or 1.0 (all ones for an integer `.dtype`)
/// where the other is expected, the
/// operand `selp` did not select (`c ? b : a`).
fn other_outcome(instr: &Instr, operands: &[u64], expected: &Expectation, got: u64) -> Option<usize> {
    match instr.op {
        // A packed setp's first wrong predicate: p (bit 0), else q (bit 1).
        Opcode::Setp => Some(usize::from((expected.primary_bits() ^ got) & 1 == 0 && instr.writes_predicate_pair())),
        Opcode::Selp => {
            let c = operands.get(2)? & 1 == 1;
            (got == operands[usize::from(c)]).then_some(0)
        }
        Opcode::Set => {
            // What `set` writes for true (9.7.6.1, 9.7.7.1): 1.0 in a float lane's format; all
            // ones in an integer destination, each half of it for a packed source.
            let (w, one) = match (expected.scalar, instr.int_dest()) {
                (Some(s), _) => (s.bits(), ptx::compare::true_bits(ptx::compare::Ty::Float(s))),
                (None, Some(t)) => {
                    let w = t.bits / instr.src_type().lanes();
                    (w, (1u64 << w) - 1)
                }
                (None, None) => return None,
            };
            let n = expected.width() / w;
            let mask = (1u64 << w) - 1;
            let lane = |bits: u64, l: u32| (bits >> (l * w)) & mask;
            let outcome = |v: u64| v == 0 || v == one;
            (got >> expected.width() == 0 && (0..n).all(|l| outcome(lane(got, l))))
                .then(|| (0..n).find(|&l| lane(expected.primary_bits(), l) != lane(got, l)).map(|l| l as usize))
                .flatten()
        }
        _ => None,
    }
}

/// Whether the (legal) form `instr` allows `got` on `operands`; an illegal form allows nothing.
fn accepts_as(instr: &Instr, operands: &[u64], got: u64) -> bool {
    instr.is_legal() && interp::eval(instr, operands).is_ok_and(|e| e.accepts(got))
}

/// The format of one lane of a float-valued result: an IEEE scalar, or an element of an fp8
/// pair (`cvt.rn.satfinite.e4m3x2.f32`), which the rules judge alike: NaN, signed zero, sign,
/// `.relu`, distance in steps of the format.
#[derive(Clone, Copy, Debug)]
enum LaneFmt {
    Ieee(Scalar),
    Narrow(Narrow),
}

impl LaneFmt {
    fn of(e: &Expectation) -> Option<LaneFmt> {
        e.scalar.map(LaneFmt::Ieee).or(e.narrow.map(LaneFmt::Narrow))
    }
    fn bits(self) -> u32 {
        match self {
            LaneFmt::Ieee(s) => s.bits(),
            LaneFmt::Narrow(n) => n.slot_bits(),
        }
    }
    fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }
    fn classify(self, v: u64) -> FpClass {
        match self {
            LaneFmt::Ieee(s) => s.classify(v),
            LaneFmt::Narrow(n) => narrow_format::classify(n, v),
        }
    }
    fn is_nan(self, v: u64) -> bool {
        self.classify(v) == FpClass::Nan
    }
    fn to_f64(self, v: u64) -> f64 {
        match self {
            LaneFmt::Ieee(s) => s.to_f64(v),
            LaneFmt::Narrow(n) => narrow_format::decode(n, v),
        }
    }
    /// Position on the value line in steps of the format, both zeros at 0: the sign-magnitude
    /// encoding read as an integer (an fp8 element's sign is its top bit too).
    fn key(self, bits: u64) -> i64 {
        let sign = 1u64 << (self.bits() - 1);
        let a = (bits & (sign - 1)) as i64;
        if bits & sign != 0 {
            -a
        } else {
            a
        }
    }
}

/// The signature of a classified mismatch: operand classes on the disagreeing lane.
pub fn signature_of(
    instr: Option<Instr>,
    operands: &[u64],
    expected: &Expectation,
    c: &Classified,
    sm: Option<u32>,
) -> Signature {
    let operands = match (instr, expected.scalar) {
        (Some(i), _) => {
            // Each source's own format (a `cvt`'s or a `set`'s is not its result's, a
            // mixed-precision form reads a half and an f32), on the disagreeing lane; a
            // predicate source is true or false.
            operands
                .iter()
                .enumerate()
                .map(|(k, &o)| match (i.reads_predicate(k), i.int_source_at(k), i.narrow_source()) {
                    (true, _, _) => OperandClass::of_predicate(o),
                    (false, Some(t), _) => OperandClass::of_int(t, o),
                    // An fp8 pair: the element on the disagreeing lane (lane 0 the low byte).
                    (false, None, Some(n)) => OperandClass::of_narrow(n, (o >> (c.lane as u32 * n.slot_bits())) & 0xff),
                    (false, None, None) => {
                        let t = i.src_type_at(k);
                        let s = t.scalar();
                        let lane = if t.lanes() == 2 { c.lane as u32 } else { 0 };
                        OperandClass::of(s, (o >> (lane * s.bits())) & s.mask())
                    }
                })
                .collect()
        }
        _ => ArrayVec::new(),
    };
    Signature { instr, class: c.class, operands, sm }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instr(t: &str) -> Instr {
        Instr::parse_default(t).unwrap()
    }

    fn f(x: f32) -> u64 {
        x.to_bits() as u64
    }

    /// Classify `got` for `form` on `ops`, asserting the interpreter rejects it first.
    fn class_of(form: &str, ops: &[u64], got: u64) -> Classified {
        let i = instr(form);
        let e = interp::eval(&i, ops).unwrap();
        assert!(!e.accepts(got), "{form} {ops:x?}: 0x{got:x} is allowed");
        classify(Some(&i), ops, &e, got)
    }

    #[test]
    fn rz_computed_as_rn_is_rounding() {
        // 1 + 2^-24 + 2^-30: .rz truncates to 1, .rn rounds up to 1 + 2^-23.
        let a = f(1.0);
        let b = f(2f32.powi(-24) + 2f32.powi(-30));
        let c = class_of("add.rz.f32", &[a, b], f(1.0 + 2f32.powi(-23)));
        assert_eq!(c.class, MismatchClass::Rounding);
        assert_eq!(c.ulps, Some(1));
    }

    #[test]
    fn an_integer_off_by_another_rounding_is_rounding_else_gross() {
        // 2.5 to s32: .rni gives 2 (ties to even); 3 is .rpi's answer, 7 nobody's.
        let c = class_of("cvt.rni.s32.f32", &[f(2.5)], 3);
        assert_eq!((c.class, c.ulps), (MismatchClass::Rounding, Some(1)));
        let c = class_of("cvt.rni.s32.f32", &[f(2.5)], 0xffff_fff9);
        assert_eq!((c.class, c.ulps), (MismatchClass::Gross, Some(-9)));
        // An f32 subnormal: .rpi without .ftz gives 1, with it 0.
        let c = class_of("cvt.rpi.s32.f32", &[1], 0);
        assert_eq!(c.class, MismatchClass::Ftz);
    }

    #[test]
    fn an_fp8_element_is_judged_in_its_own_format() {
        // cvt.rn.satfinite.e4m3x2.f32 of (1.0, -2.0) is 0x38c0: -2 in the low element.
        let form = "cvt.rn.satfinite.e4m3x2.f32";
        let ops = [f(1.0), f(-2.0)];
        // +2 for -2: the sign alone, on lane 0.
        let c = class_of(form, &ops, 0x3840);
        assert_eq!((c.lane, c.class), (0, MismatchClass::Sign));
        // One e4m3 step above 1.0 in the high element: rounding, 1 step.
        let c = class_of(form, &ops, 0x39c0);
        assert_eq!((c.lane, c.class, c.ulps), (1, MismatchClass::Rounding, Some(1)));
        // A NaN for a number, and far off.
        assert_eq!(class_of(form, &ops, 0x7fc0).class, MismatchClass::NanVsNumber);
        assert_eq!(class_of(form, &ops, 0x50c0).class, MismatchClass::Gross);
        // .satfinite ignored (e5m2 has infinity): 1e6 saturates to 0x7b, not 0x7c.
        let c = class_of("cvt.rn.satfinite.e5m2x2.f32", &[f(1e6), 0], 0x7c00);
        assert_eq!((c.lane, c.class, c.ulps), (1, MismatchClass::Rounding, Some(1)));
        // .relu kept a negative value: sat.
        let c = class_of("cvt.rn.satfinite.relu.e4m3x2.f32", &[f(1.0), f(-2.0)], 0x38c0);
        assert_eq!(c.class, MismatchClass::Sat);
    }

    #[test]
    fn another_modes_result_far_off_in_ulps_is_still_rounding() {
        // (1 - 2^-24)/2 * 2^-125 (1 - 2^-24) is just above 2^-126 - 2^-149: .rn gives that
        // subnormal, which .ftz flushes to +0; .rp gives 2^-126, 2^23 ulps away. The distance
        // alone would say gross; rule 9's evaluation in the other modes says rounding.
        let c = class_of("mul.rn.ftz.f32", &[0x3eff_ffff, 0x00ff_ffff], 0x0080_0000);
        assert_eq!((c.class, c.ulps), (MismatchClass::Rounding, Some(1 << 23)));
    }

    #[test]
    fn far_off_number_is_gross() {
        let c = class_of("add.rn.f32", &[f(1.0), f(2.0)], f(4.0));
        assert_eq!(c.class, MismatchClass::Gross);
        assert_eq!(c.ulps, Some(1 << 22));
    }

    #[test]
    fn unflushed_result_of_ftz_form_is_ftz() {
        // 2^-126 * 0.5 is subnormal: .ftz must give +0.
        let c = class_of("mul.rn.ftz.f32", &[f(2f32.powi(-126)), f(0.5)], 0x0040_0000);
        assert_eq!(c.class, MismatchClass::Ftz);
        // A flushed result where no .ftz is asked for.
        let c = class_of("mul.rn.f32", &[f(2f32.powi(-126)), f(0.5)], 0);
        assert_eq!(c.class, MismatchClass::Ftz);
    }

    /// Classify `got` for `form` on `ops` against the sm_90 profile's answer.
    fn class_on_sm90(form: &str, ops: &[u64], got: u64) -> Classified {
        let i = instr(form);
        let sm90 = ptx::profile::Profile::named("sm_90").unwrap();
        let e = super::super::narrow(&sm90, &i, ops, interp::eval(&i, ops).unwrap());
        assert!(!e.accepts(got), "{form} {ops:x?}: 0x{got:x} is sm_90's");
        classify(Some(&i), ops, &e, got)
    }

    #[test]
    fn a_result_the_spec_allows_but_the_gpu_does_not_give_is_not_ftz_without_a_tiny_value() {
        // cos.approx.f32 of 1.0: the correctly rounded 0x3f0a5140, one ulp below the H100's
        // 0x3f0a5141 (`--judge sm_90`). The `.ftz` form allows it too, as the form itself
        // does, but nothing here is subnormal: the H100's exact answer is what it missed.
        let c = class_on_sm90("cos.approx.f32", &[f(1.0)], 0x3f0a_5140);
        assert_eq!(c.class, MismatchClass::SpecialCaseTable);
        // 0.5 * (2 - 2^-23) 2^-126 = (1 - 2^-24) 2^-126 rounds to 2^-126, which the spec's
        // reading keeps (tininess after rounding) and the H100 flushes to +0 under `.ftz`
        // (before rounding): a result at the smallest normal is flushing at play.
        let c = class_on_sm90("mul.rn.ftz.f32", &[f(0.5), 0x00ff_ffff], 0x0080_0000);
        assert_eq!(c.class, MismatchClass::Ftz);
    }

    #[test]
    fn sat_letting_nan_through_is_sat() {
        let c = class_of("add.rn.sat.f32", &[0x7fc0_0000, f(1.0)], 0x7fc0_0000);
        assert_eq!(c.class, MismatchClass::Sat);
        let c = class_of("add.rn.sat.f32", &[f(1.0), f(1.0)], f(2.0));
        assert_eq!(c.class, MismatchClass::Sat);
    }

    #[test]
    fn nan_for_a_number_and_number_for_nan() {
        let c = class_of("add.rn.f32", &[f(1.0), f(1.0)], 0x7fc0_0000);
        assert_eq!(c.class, MismatchClass::NanVsNumber);
        assert_eq!(c.ulps, None);
        let c = class_of("add.rn.f32", &[0x7f80_0000, 0xff80_0000], f(0.0));
        assert_eq!(c.class, MismatchClass::NanVsNumber);
    }

    #[test]
    fn wrong_f64_payload_is_nan_payload() {
        let qnan1 = 0x7ff8_0000_0000_0001;
        let c = class_of("add.rn.f64", &[qnan1, 1f64.to_bits()], 0x7ff8_0000_0000_0002);
        assert_eq!(c.class, MismatchClass::NanPayload);
    }

    #[test]
    fn another_nan_than_the_profiles_cvt_nan_is_nan_payload_not_ftz() {
        // Under sm_90, cvt.rz.f32.bf16 of a signalling NaN moves the bits (the H200's capture);
        // the quieted NaN differs only in its payload, though cvt.rz.ftz.f32.bf16 allows it too.
        let i = instr("cvt.rz.f32.bf16");
        let profile = ptx::profile::Profile::named("sm_90").unwrap();
        let e = crate::compare::narrow(&profile, &i, &[0x7fbf], interp::eval(&i, &[0x7fbf]).unwrap());
        assert_eq!(e.primary_bits(), 0x7fbf_0000);
        let c = classify(Some(&i), &[0x7fbf], &e, 0x7fff_0000);
        assert_eq!(c.class, MismatchClass::NanPayload);
    }

    #[test]
    fn min_of_two_zeros_returning_the_first_is_signed_zero() {
        // 9.7.3.11: min(+0, -0) is -0.
        let c = class_of("min.f32", &[0, 0x8000_0000], 0);
        assert_eq!(c.class, MismatchClass::SignedZero);
    }

    #[test]
    fn a_number_off_only_in_its_sign_is_sign() {
        let c = class_of("neg.f32", &[f(1.0)], f(1.0));
        assert_eq!(c.class, MismatchClass::Sign);
        // The H100 finding (../shared/hw/h100-sm90/findings/min.NaN.xorsign.abs.f16x2~...):
        // its recorded result, judged on the operands of its min (the neg of its input).
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/hw/h100-sm90/findings/min.NaN.xorsign.abs.f16x2~gross~normal.normal~sm90/repro.json"
        );
        let r: api::Reproducer = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let x = u64::from_str_radix(&r.inputs[0][2..], 16).unwrap();
        let got = u64::from_str_radix(&r.actual[0][2..], 16).unwrap();
        let neg = interp::eval(&instr("neg.f16x2"), &[x]).unwrap().primary_bits();
        let c = class_of("min.NaN.xorsign.abs.f16x2", &[neg, neg], got);
        assert_eq!(c.class, MismatchClass::Sign);
    }

    #[test]
    fn approximate_out_of_bound_and_special_rows() {
        let i = instr("rcp.approx.f32");
        let e = interp::eval(&i, &[f(3.0)]).unwrap();
        let Outcome::Range { hi, .. } = e.lanes[0].primary else { panic!("{e}") };
        let c = classify(Some(&i), &[f(3.0)], &e, hi + 2);
        assert_eq!(c.class, MismatchClass::BoundExceeded);
        assert_eq!(c.excess, Some(2));
        // 9.7.3.13 table: rcp.approx(+inf) = +0.
        let c = class_of("rcp.approx.f32", &[0x7f80_0000], f(1e-30));
        assert_eq!(c.class, MismatchClass::SpecialCaseTable);
    }

    #[test]
    fn packed_lanes_report_the_first_disagreeing_lane() {
        // f16x2: lane 0 right (1+1=2), lane 1 wrong.
        let ops = [0x3c00_3c00, 0x3c00_3c00];
        let c = class_of("add.rn.f16x2", &ops, 0x4400_4000);
        assert_eq!(c.lane, 1);
        assert_eq!(c.class, MismatchClass::Gross);
    }

    #[test]
    fn wrong_predicate_is_gross() {
        let c = class_of("testp.normal.f32", &[f(1.0)], 0);
        assert_eq!(c.class, MismatchClass::Gross);
    }

    #[test]
    fn a_comparisons_other_outcome_is_comparison_and_anything_else_is_not() {
        let (one, two) = (f(1.0), f(2.0));
        assert_eq!(class_of("setp.lt.f32", &[one, two], 0).class, MismatchClass::Comparison);
        // selp: the operand c did not select; a third value is a wrong number, not a choice.
        assert_eq!(class_of("selp.f32", &[one, two, 1], two).class, MismatchClass::Comparison);
        assert_eq!(class_of("selp.f32", &[one, two, 0], one).class, MismatchClass::Comparison);
        assert_eq!(class_of("selp.f32", &[one, two, 1], f(8.0)).class, MismatchClass::Gross);
        // An integer selp the same way: its operands are the register's bits.
        assert_eq!(class_of("selp.s32", &[0xffff_fffe, 7, 1], 7).class, MismatchClass::Comparison);
        assert_ne!(class_of("selp.u16", &[3, 7, 0], 8).class, MismatchClass::Comparison);
        // set: 0.0 for 1.0, lane by lane (lane 1 of the pair inverted here).
        assert_eq!(class_of("set.lt.f16.f32", &[one, two], 0).class, MismatchClass::Comparison);
        let c = class_of("set.lt.f16x2.f16x2", &[0x3c00_3c00, 0x4000_3c00], 0x0000_0000);
        assert_eq!((c.class, c.lane), (MismatchClass::Comparison, 1));
        assert_ne!(class_of("set.lt.f32.f32", &[one, two], f(0.5)).class, MismatchClass::Comparison);
        // An integer .dtype: zero for all ones, each half of a packed source its own lane.
        assert_eq!(class_of("set.lt.s32.f32", &[one, two], 0).class, MismatchClass::Comparison);
        let c = class_of("set.lt.u32.f16x2", &[0x3c00_3c00, 0x4000_3c00], 0xffff_ffff);
        assert_eq!((c.class, c.lane), (MismatchClass::Comparison, 0));
        assert_eq!(class_of("set.lt.u32.f32", &[one, two], 1).class, MismatchClass::Gross);
        // testp's wrong predicate is not a comparison's.
        assert_eq!(class_of("testp.normal.f32", &[one], 0).class, MismatchClass::Gross);
    }

    #[test]
    fn class_names_round_trip() {
        for c in MismatchClass::ALL {
            assert_eq!(MismatchClass::from_name(c.name()), Some(c));
        }
    }
}
