//! A form's result on one case ([`Form::eval`]): the result word an engine returns (the
//! destination's bits, or for `setp` bit 0 = `p` and bit 1 = `q`, as `crate::form_kernel`
//! stores them) and the set of words the spec allows, so that a judge compares a recorded or
//! engine result against the family's own accepted set.

use super::{Dest, Form, FormError};
use crate::compare::{self, Compared};
use crate::cvt::int::Converted;
use crate::cvt::narrow::{self, Narrowed};
use crate::cvt::AnyCvt;
use crate::expect::Expectation;

/// What the spec allows besides the primary word.
#[derive(Clone, Debug, PartialEq)]
pub enum Judged {
    /// The one value (the comparisons, float-to-integer, integer-to-float: "every result is a
    /// single value" in their sections).
    One,
    /// An [`Expectation`] (the float `cvt`s, tf32, `.rs`, mixed precision): NaN payloads and
    /// the readings the family documents.
    Set(Expectation),
    /// Per-lane allowed values of a narrow conversion (`cvt::narrow::Allowed`).
    Narrow(Narrowed),
}

/// One case's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The interpreter's result word (the primary value).
    pub word: u64,
    pub judged: Judged,
}

impl Answer {
    fn one(word: u64) -> Answer {
        Answer { word, judged: Judged::One }
    }

    fn set(e: Expectation) -> Answer {
        Answer { word: e.primary_bits(), judged: Judged::Set(e) }
    }

    /// Whether the spec allows `word` as this case's result.
    pub fn allows(&self, word: u64) -> bool {
        match &self.judged {
            Judged::One => word == self.word,
            Judged::Set(e) => e.accepts(word),
            Judged::Narrow(n) => n.allows(word),
        }
    }
}

impl Form {
    /// The result on `ops` (one value per [`Form::operands`] entry, each within its width).
    pub fn eval(&self, ops: &[u64]) -> Result<Answer, FormError> {
        let kinds = self.operands();
        if ops.len() != kinds.len() {
            return Err(FormError::Operands { form: self.to_string(), want: kinds.len(), got: ops.len() });
        }
        for (index, (&value, k)) in ops.iter().zip(&kinds).enumerate() {
            if k.bits() < 64 && value >> k.bits() != 0 {
                return Err(FormError::Width { form: self.to_string(), index, value, bits: k.bits() });
            }
        }
        Ok(match self {
            Form::Cvt(AnyCvt::Float(c)) => Answer::set(crate::cvt::eval(c, ops).map_err(|e| FormError::Cvt(e.into()))?),
            Form::Cvt(AnyCvt::Int(c)) => match c.eval(ops).map_err(|e| FormError::Cvt(e.into()))? {
                Converted::Int(_, bits) => Answer::one(bits),
                Converted::Float(e) => Answer::set(e),
            },
            Form::Cvt(AnyCvt::Narrow(c)) => {
                let n = narrow::eval(c, ops).map_err(|e| FormError::Cvt(e.into()))?;
                Answer { word: n.bits, judged: Judged::Narrow(n) }
            }
            Form::Cvt(AnyCvt::Tf32(c)) => Answer::set(c.eval(ops).map_err(|e| FormError::Cvt(e.into()))?),
            Form::Cvt(AnyCvt::Stochastic(c)) => Answer::set(c.eval(ops).map_err(|e| FormError::Cvt(e.into()))?),
            Form::Cvt(AnyCvt::StochasticQuad(c)) => Answer::set(c.eval(ops).map_err(|e| FormError::Cvt(e.into()))?),
            Form::Compare(c) => match compare::eval(c, ops)? {
                Compared::Predicates { p, q } => Answer::one(p as u64 | (q.unwrap_or(false) as u64) << 1),
                Compared::Register { bits, .. } => Answer::one(bits),
            },
            Form::Mixed(m) => Answer::set(crate::mixed::eval(m, ops)?),
        })
    }

    /// Whether the result word is a predicate pair (`setp`), printed as a small integer.
    pub fn writes_predicates(&self) -> bool {
        matches!(self.dest(), Dest::Predicates { .. })
    }
}

#[cfg(test)]
mod tests {
    use crate::form::{Form, FormError};

    fn eval(text: &str, ops: &[u64]) -> super::Answer {
        Form::parse(text).unwrap().eval(ops).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn the_word_is_what_the_kernel_stores() {
        assert_eq!(eval("cvt.rn.bf16.f32", &[0x3fc0_0000]).word, 0x3fc0);
        // setp.f16x2: p (low lane) in bit 0, q in bit 1; 1.0 < 2.0 but 2.0 is not < 1.0.
        assert_eq!(eval("setp.lt.f16x2", &[0x4000_3c00, 0x3c00_4000]).word, 0b01);
        assert_eq!(eval("setp.lt.f32", &[0x3f80_0000, 0x4000_0000]).word, 0b01);
        // The scalar half forms have no q.
        assert_eq!(eval("setp.lt.f16", &[0x3c00, 0x4000]).word, 1);
        assert_eq!(eval("selp.f32", &[1, 2, 0]).word, 2);
        assert_eq!(eval("cvt.rzi.s8.f32", &[(-2.5f32).to_bits() as u64]).word, 0xfe);
        assert_eq!(eval("add.rn.f32.f16", &[0x3c00, 0x3f80_0000]).word, 0x4000_0000);
    }

    #[test]
    fn allows_follows_each_family_set() {
        // A float cvt's set is its Expectation: the primary is in it, a number is not.
        let a = eval("cvt.f32.f16", &[0x7e01]);
        assert!(a.allows(a.word) && !a.allows(0x3f80_0000));
        let single = eval("setp.equ.f32", &[0x7fc0_0000, 0]);
        assert_eq!(single.word, 0b01);
        assert!(single.allows(0b01) && !single.allows(0b11));
        let narrow = eval("cvt.rn.satfinite.e4m3x2.f32", &[0x3f80_0000, 0x43fa_0000]);
        assert!(narrow.allows(0x387e) && !narrow.allows(0x387f));
    }

    #[test]
    fn operands_are_checked_against_their_widths() {
        let f = Form::parse("cvt.rn.bf16.f32").unwrap();
        assert!(matches!(f.eval(&[1, 2]), Err(FormError::Operands { want: 1, got: 2, .. })));
        assert!(matches!(f.eval(&[1 << 32]), Err(FormError::Width { index: 0, bits: 32, .. })));
        let f = Form::parse("setp.lt.and.f32").unwrap();
        assert!(matches!(f.eval(&[0, 0, 2]), Err(FormError::Width { index: 2, bits: 1, .. })));
    }
}
