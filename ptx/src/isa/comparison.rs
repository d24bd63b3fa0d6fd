//! A scalar float `setp` as an [`Instr`]: the map both ways between the instruction's fields
//! and [`crate::compare::Compare`], whose table (PTX ISA 9.7.6.2, 9.7.7.2) decides legality
//! and target and whose evaluation gives the predicate. Programs then compare computed values
//! (NaN from an overflowing chain, signed zeros, subnormals under `.ftz`) like any other form.
//!
//! Only `setp.CmpOp{.ftz}.{f16,bf16,f32,f64} p, a, b` is an instruction of programs: the
//! packed forms give two predicates, `.BoolOp` and `selp` read one, and `set` writes integers;
//! programs have none of those registers yet (`ptx::form` runs those forms alone).

use super::{AbsMode, Clamp, Ftz, Instr, IsaError, NanMode, Opcode, Precision, Type};
use crate::compare::{Compare, CompareError, Kind, Ty};

impl Instr {
    /// The instruction of a scalar float `setp`, or `None` for a form programs cannot hold
    /// (packed, `.BoolOp`, another kind or operand type).
    pub fn from_setp(c: &Compare) -> Option<Instr> {
        let (Kind::Setp, Some(cmp), None, Ty::Float(s)) = (c.kind, c.cmp, c.bool_op, c.ty) else { return None };
        Some(Instr {
            op: Opcode::Setp,
            testp: None,
            precision: Precision::Default,
            ftz: if c.ftz { Ftz::Flush } else { Ftz::Preserve },
            clamp: Clamp::None,
            nan: NanMode::Number,
            abs: AbsMode::None,
            ty: Type::of(s, false),
            inputs: 2,
            conv: None,
            cmp: Some(cmp),
        })
    }

    /// The `setp` form this instruction is, if its fields are those of one (not whether that
    /// form is legal: [`Compare::check`]); `None` for every other opcode.
    pub fn as_setp(&self) -> Option<Compare> {
        if self.op != Opcode::Setp || self.ty.lanes() != 1 {
            return None;
        }
        let c = Compare { kind: Kind::Setp, cmp: self.cmp, bool_op: None, ftz: self.ftz == Ftz::Flush, ty: Ty::Float(self.ty.scalar()) };
        (Instr::from_setp(&c) == Some(*self)).then_some(c)
    }

    /// The legality of a `setp` instruction: the section's rule it breaks, or a field no
    /// scalar `setp` has.
    pub(super) fn validate_setp(&self) -> Result<Compare, IsaError> {
        let c = self.as_setp().ok_or_else(|| IsaError::Illegal {
            form: self.to_string(),
            rule: "a setp in a program is setp.CmpOp{.ftz}.{f16,bf16,f32,f64} p, a, b: one comparison operator, \
                   two sources, no other modifier (the packed forms, .BoolOp and selp run alone: ptxfuzz eval, capture --forms)"
                .to_string(),
            section: "9.7.6.2",
        })?;
        c.check().map_err(compare_error)?;
        Ok(c)
    }
}

/// A `setp` table error as an ISA error: a broken rule with its section.
fn compare_error(e: CompareError) -> IsaError {
    match e {
        CompareError::Illegal { form, rule, section } => {
            IsaError::Illegal { form, rule: rule.to_string(), section: section.trim_start_matches("PTX ISA ") }
        }
        e => IsaError::Syntax(e.to_string()),
    }
}

/// Parse a `setp` spelling; one programs cannot hold says why.
pub(super) fn parse_setp(text: &str) -> Result<Instr, IsaError> {
    let c = Compare::parse(text).map_err(compare_error)?;
    Instr::from_setp(&c).ok_or_else(|| IsaError::Illegal {
        form: c.to_string(),
        rule: "programs hold the scalar float setp only (two predicates, .BoolOp and selp need predicate registers \
               programs do not have); ptxfuzz eval and capture --forms run this form"
            .to_string(),
        section: "9.7.6.2",
    })
}

/// Every documented scalar float `setp`, as instructions (for the generator and the VM).
pub fn setp_forms() -> Vec<Instr> {
    let mut v: Vec<Instr> = Compare::all().iter().filter_map(Instr::from_setp).collect();
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scalar_float_setp_maps_to_an_instruction_and_back() {
        let forms = setp_forms();
        // 14 float operators on f16, bf16, f32, f64, with .ftz on f16 and f32: 14 x 6.
        assert_eq!(forms.len(), 84);
        for i in &forms {
            let c = i.as_setp().unwrap();
            assert_eq!(i.validate(), Ok(()), "{i}");
            assert_eq!(i.to_string(), c.to_string());
            assert_eq!(Instr::parse(&c.to_string(), 2), Ok(*i), "{c}");
            assert_eq!(i.requirement(), c.requirement(), "{c}");
            assert!(i.dest_is_predicate());
        }
    }

    #[test]
    fn forms_programs_cannot_hold_are_refused_with_the_reason() {
        for text in ["setp.lt.f16x2", "setp.lt.and.f32", "selp.f32", "setp.eq.u32"] {
            let e = Instr::parse(text, 2).unwrap_err().to_string();
            assert!(e.contains("scalar float setp") || e.contains("9.7.6"), "{text}: {e}");
        }
        // A rule of the section, with it: .ftz is for f32 (and the f16 line), not f64.
        let e = Instr::parse("setp.lt.ftz.f64", 2).unwrap_err().to_string();
        assert!(e.contains(".ftz applies only") && e.contains("9.7.6"), "{e}");
    }

    #[test]
    fn setp_evaluates_the_unordered_operators_on_nan() {
        let ltu = Instr::parse("setp.ltu.f32", 2).unwrap();
        let lt = Instr::parse("setp.lt.f32", 2).unwrap();
        let nan = 0x7fc0_0000;
        let p = |i: &Instr, a: u64, b: u64| crate::interp::eval(i, &[a, b]).unwrap().primary_bits();
        assert_eq!((p(&ltu, nan, 0x3f80_0000), p(&lt, nan, 0x3f80_0000)), (1, 0));
        assert_eq!((p(&ltu, 0, 0x3f80_0000), p(&lt, 0x3f80_0000, 0)), (1, 0));
    }
}
