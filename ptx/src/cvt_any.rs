//! Any `cvt` spelling, parsed by the one dispatch order of the families (the `.rs` forms, tf32,
//! the narrow formats, float-integer, float-float), so that `eval`, `bench` and later programs
//! agree on which family a spelling belongs to and which rule refuses it.

use std::fmt;

use super::int::CvtInt;
use super::narrow::{NarrowCvt, NarrowError};
use super::stochastic::StochasticCvt;
use super::stochastic_quad::QuadCvt;
use super::tf32::Tf32Cvt;
use super::{Cvt, CvtError};

/// One parsed `cvt` form of any family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyCvt {
    Float(Cvt),
    Int(CvtInt),
    Narrow(NarrowCvt),
    Tf32(Tf32Cvt),
    Stochastic(StochasticCvt),
    /// `.rs` to an x4 destination, four f32 sources in braces.
    StochasticQuad(QuadCvt),
}

/// Why a spelling is not a documented `cvt`: the family's own error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnyCvtError {
    #[error(transparent)]
    Cvt(#[from] CvtError),
    #[error(transparent)]
    Narrow(#[from] NarrowError),
}

impl AnyCvt {
    /// Parse `text` in the family that claims it. The order matters where two could:
    /// `cvt.rs.satfinite.e4m3x4.f32` names a narrow type but is a `.rs` form, of the x4 family.
    pub fn parse(text: &str) -> Result<AnyCvt, AnyCvtError> {
        Ok(if QuadCvt::claims(text) {
            AnyCvt::StochasticQuad(QuadCvt::parse(text)?)
        } else if StochasticCvt::claims(text) {
            AnyCvt::Stochastic(StochasticCvt::parse(text)?)
        } else if Tf32Cvt::claims(text) {
            AnyCvt::Tf32(Tf32Cvt::parse(text)?)
        } else if super::narrow::is_narrow(text) {
            AnyCvt::Narrow(NarrowCvt::parse(text)?)
        } else if CvtInt::claims(text) {
            AnyCvt::Int(CvtInt::parse(text)?)
        } else {
            AnyCvt::Float(Cvt::parse(text)?)
        })
    }

    /// Every documented form of every family, in the families' order.
    pub fn all() -> Vec<AnyCvt> {
        Cvt::all()
            .into_iter()
            .map(AnyCvt::Float)
            .chain(CvtInt::all().into_iter().map(AnyCvt::Int))
            .chain(NarrowCvt::all().into_iter().map(AnyCvt::Narrow))
            .chain(Tf32Cvt::all().into_iter().map(AnyCvt::Tf32))
            .chain(StochasticCvt::all().into_iter().map(AnyCvt::Stochastic))
            .chain(QuadCvt::all().into_iter().map(AnyCvt::StochasticQuad))
            .collect()
    }

    /// Source operands: one, two (two f32 into a packed destination), three (`.rs`: rbits) or
    /// five (`.rs` to an x4 destination: a, b, e, f and rbits).
    pub fn inputs(&self) -> usize {
        match self {
            AnyCvt::Float(c) => c.inputs(),
            AnyCvt::Narrow(c) => c.inputs(),
            AnyCvt::Int(_) | AnyCvt::Tf32(_) => 1,
            AnyCvt::Stochastic(c) => c.inputs(),
            AnyCvt::StochasticQuad(c) => c.inputs(),
        }
    }

    /// The primary result on `ops` (the destination register's bits), as a judge compares it.
    pub fn primary(&self, ops: &[u64]) -> Result<u64, AnyCvtError> {
        Ok(match self {
            AnyCvt::Float(c) => super::eval(c, ops)?.primary_bits(),
            AnyCvt::Int(c) => match ops {
                [x] => c.eval_bits(*x),
                _ => return Err(CvtError::Operands { form: c.to_string(), want: 1, got: ops.len() }.into()),
            },
            AnyCvt::Narrow(c) => super::narrow::eval(c, ops)?.bits,
            AnyCvt::Tf32(c) => c.eval(ops)?.primary_bits(),
            AnyCvt::Stochastic(c) => c.eval(ops)?.primary_bits(),
            AnyCvt::StochasticQuad(c) => c.eval(ops)?.primary_bits(),
        })
    }
}

impl fmt::Display for AnyCvt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyCvt::Float(c) => c.fmt(f),
            AnyCvt::Int(c) => c.fmt(f),
            AnyCvt::Narrow(c) => c.fmt(f),
            AnyCvt::Tf32(c) => c.fmt(f),
            AnyCvt::Stochastic(c) => c.fmt(f),
            AnyCvt::StochasticQuad(c) => c.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_claims_its_own_spellings() {
        let family = |s: &str| match AnyCvt::parse(s).unwrap_or_else(|e| panic!("{s}: {e}")) {
            AnyCvt::Float(_) => "float",
            AnyCvt::Int(_) => "int",
            AnyCvt::Narrow(_) => "narrow",
            AnyCvt::Tf32(_) => "tf32",
            AnyCvt::Stochastic(_) => "rs",
            AnyCvt::StochasticQuad(_) => "rs-x4",
        };
        assert_eq!(family("cvt.rn.bf16.f32"), "float");
        assert_eq!(family("cvt.rni.s32.f32"), "int");
        assert_eq!(family("cvt.rn.satfinite.e4m3x2.f32"), "narrow");
        assert_eq!(family("cvt.rna.tf32.f32"), "tf32");
        assert_eq!(family("cvt.rs.bf16x2.f32"), "rs");
        // An x4 narrow destination is a .rs form of its own family, which wants .satfinite.
        assert_eq!(family("cvt.rs.satfinite.e4m3x4.f32"), "rs-x4");
        assert_eq!(family("cvt.rs.relu.satfinite.e2m1x4.f32"), "rs-x4");
        assert!(AnyCvt::parse("cvt.rs.e4m3x4.f32").unwrap_err().to_string().contains("mandatory"));
        assert!(AnyCvt::parse("cvt.rn.satfinite.e4m3x4.f32").unwrap_err().to_string().contains("only by cvt.rs"));
    }

    #[test]
    fn every_documented_form_parses_back_to_itself() {
        for c in AnyCvt::all() {
            assert_eq!(AnyCvt::parse(&c.to_string()), Ok(c), "{c}");
        }
    }

    #[test]
    fn primary_is_the_family_result() {
        let p = |s: &str, ops: &[u64]| AnyCvt::parse(s).unwrap().primary(ops).unwrap();
        assert_eq!(p("cvt.rn.bf16.f32", &[0x3fc0_0000]), 0x3fc0);
        assert_eq!(p("cvt.rzi.s32.f32", &[(-2.5f32).to_bits() as u64]), (-2i32) as u32 as u64);
        assert_eq!(p("cvt.rn.satfinite.e4m3x2.f32", &[0x3f80_0000, 0x43fa_0000]), 0x387e);
        assert_eq!(p("cvt.rz.tf32.f32", &[0x3f80_1fff]), 0x3f80_0000);
        assert!(AnyCvt::parse("cvt.rzi.s32.f32").unwrap().primary(&[1, 2]).is_err());
        // 1.0, 2.0, -0.5, 448.0 to e4m3x4, exact: a in the top byte.
        let ops = [0x3f80_0000, 0x4000_0000, 0xbf00_0000, 0x43e0_0000, 0];
        assert_eq!(p("cvt.rs.satfinite.e4m3x4.f32", &ops), 0x3840_b07e);
    }
}
