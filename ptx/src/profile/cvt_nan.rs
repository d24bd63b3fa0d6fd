//! Which NaN a float-to-float or tf32 `cvt` writes on one GPU: the profile's `cvt_nan` table.
//!
//! The `cvt` section (PTX ISA 9.7.9.21) does not say which NaN a conversion of a NaN writes, so
//! the interpreter allows any NaN (`Reading::NanUnspecified`) beside the payload-keeping one.
//! A profile row picks the one the GPU writes; the rows of `sm_90.json` come from the H200's
//! capture of every sm_90 `cvt` form (`docs/hardware/nvidia-h200-2026-11-29/forms.txt.gz`).

use serde::Deserialize;

use crate::cvt::tf32::{Tf32Cvt, DROPPED};
use crate::cvt::{nan_moved, Cvt};
use crate::format::Scalar;
use crate::isa::Instr;

/// What a `cvt` of a NaN operand writes.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CvtNan {
    /// The profile's canonical NaN of the destination format (`canonical_nan`).
    Canonical,
    /// The operand's sign and payload (its top bits where the destination is narrower), quieted:
    /// the interpreter's primary answer.
    Payload,
    /// The operand's bits moved unchanged, a signalling NaN staying signalling: same-format moves
    /// and the bf16 -> f32 widening (a shift on the hardware).
    Copy,
    /// The source format's canonical NaN, then [`CvtNan::Payload`] (the f32 canonical NaN widened
    /// to f64 is 0x7fffffffe0000000).
    SourceCanonical,
    /// `cvt.rna{.satfinite}.tf32.f32`: the integer code ptxas emits ([`Tf32Cvt::via_integer`]).
    IntegerCode,
}

/// A conversion a `cvt_nan` row can apply to.
#[derive(Clone, Copy, Debug)]
pub enum Site {
    Float(Cvt),
    /// An f32-layout result with the 13 low bits zero.
    Tf32(Tf32Cvt),
}

impl Site {
    pub fn of(instr: &Instr) -> Option<Site> {
        instr.as_cvt().map(Site::Float).or_else(|| instr.as_tf32().map(Site::Tf32))
    }

    /// Source and destination formats, and whether two sources pack into one register.
    pub fn formats(&self) -> (Scalar, Scalar, bool) {
        match self {
            Site::Float(c) => (c.src, c.dst, c.packed),
            Site::Tf32(_) => (Scalar::F32, Scalar::F32, false),
        }
    }
}

/// One decision: for the `cvt` forms matching `forms` (globs, as the rule table's), a NaN
/// operand gives `result`.
#[derive(Clone, Debug, Deserialize)]
pub struct CvtNanRow {
    pub id: String,
    pub forms: Vec<String>,
    pub result: CvtNan,
    pub hardware: String,
    /// Recorded cases, `INSTR OPS -> RESULT`, from `source`.
    pub evidence: Vec<String>,
    pub source: String,
    pub spec: String,
}

impl CvtNan {
    /// The destination's bits for the NaN `x` (one source lane); `canonical` is the profile's
    /// canonical NaN of a format. `None` where the row's rule gives no NaN: a result the spec
    /// does not allow (the tf32 integer code's infinity) stays a finding, never the profile's
    /// answer.
    pub fn result(self, site: &Site, x: u64, canonical: impl Fn(Scalar) -> u64) -> Option<u64> {
        let (src, dst, _) = site.formats();
        let bits = match self {
            CvtNan::Canonical => canonical(dst),
            CvtNan::Payload => nan_moved(src, dst, x, true),
            CvtNan::Copy => nan_moved(src, dst, x, false),
            CvtNan::SourceCanonical => nan_moved(src, dst, canonical(src), true),
            CvtNan::IntegerCode => match site {
                Site::Tf32(c) => u64::from(c.via_integer(x as u32)?),
                Site::Float(_) => return None,
            },
        };
        // A tf32 result keeps sign, exponent and 10 fraction bits of its f32 layout.
        let bits = if matches!(site, Site::Tf32(_)) { bits & !u64::from(DROPPED) } else { bits };
        dst.is_nan(bits).then_some(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cvt(text: &str) -> Site {
        match crate::cvt::AnyCvt::parse(text).unwrap() {
            crate::cvt::AnyCvt::Float(c) => Site::Float(c),
            crate::cvt::AnyCvt::Tf32(c) => Site::Tf32(c),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn canonical(s: Scalar) -> u64 {
        s.mask() >> 1
    }

    #[test]
    fn payload_keeps_the_sign_and_the_top_payload_bits_and_sets_the_quiet_bit() {
        // H200 capture: cvt.rz.bf16.f64 0xfff6dc0bf0000001 -> 0xfff6, cvt.rn.f64.bf16 0x7fa0 -> 0x7ffc000000000000.
        assert_eq!(CvtNan::Payload.result(&cvt("cvt.rz.bf16.f64"), 0xfff6dc0bf0000001, canonical), Some(0xfff6));
        assert_eq!(CvtNan::Payload.result(&cvt("cvt.rn.f64.bf16"), 0x7fa0, canonical), Some(0x7ffc000000000000));
    }

    #[test]
    fn copy_leaves_a_signalling_nan_signalling() {
        // H200 capture: cvt.f32.bf16 0x7fbf -> 0x7fbf0000, cvt.f64.f64 0xfff52415ffa62779 -> itself.
        assert_eq!(CvtNan::Copy.result(&cvt("cvt.f32.bf16"), 0x7fbf, canonical), Some(0x7fbf0000));
        assert_eq!(CvtNan::Copy.result(&cvt("cvt.f64.f64"), 0xfff52415ffa62779, canonical), Some(0xfff52415ffa62779));
    }

    #[test]
    fn source_canonical_forgets_the_operand_and_widens_the_source_formats_canonical_nan() {
        // H200 capture: cvt.ftz.f64.f32 0xffc00000 -> 0x7fffffffe0000000.
        assert_eq!(CvtNan::SourceCanonical.result(&cvt("cvt.ftz.f64.f32"), 0xffc00000, canonical), Some(0x7fffffffe0000000));
        assert_eq!(CvtNan::Canonical.result(&cvt("cvt.rn.f16.f32"), 0xffc00000, canonical), Some(0x7fff));
    }

    #[test]
    fn a_tf32_nan_keeps_19_bits_and_the_integer_codes_infinity_is_no_answer() {
        // H200 capture: cvt.rn.tf32.f32 0xff800001 -> 0x7fffe000, cvt.rna.tf32.f32 0x7f9fffff ->
        // 0x7f9fe000, cvt.rna.satfinite.tf32.f32 0x7fffffff -> 0x7fffc000; 0x7f800001 -> 0x7f800000
        // (an infinity: the spec allows only a NaN, so the profile gives no answer of its own).
        assert_eq!(CvtNan::Canonical.result(&cvt("cvt.rn.tf32.f32"), 0xff800001, canonical), Some(0x7fffe000));
        assert_eq!(CvtNan::IntegerCode.result(&cvt("cvt.rna.tf32.f32"), 0x7f9fffff, canonical), Some(0x7f9fe000));
        assert_eq!(CvtNan::IntegerCode.result(&cvt("cvt.rna.satfinite.tf32.f32"), 0x7fffffff, canonical), Some(0x7fffc000));
        assert_eq!(CvtNan::IntegerCode.result(&cvt("cvt.rna.tf32.f32"), 0x7f800001, canonical), None);
        assert_eq!(CvtNan::IntegerCode.result(&cvt("cvt.rn.f16.f32"), 0x7f800001, canonical), None);
    }
}
