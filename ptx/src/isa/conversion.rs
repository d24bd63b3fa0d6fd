//! A float-to-float `cvt` as an [`Instr`]: the map both ways between the instruction's fields
//! and [`crate::cvt::Cvt`], whose table (PTX ISA 9.7.9.21) decides legality and target and
//! whose evaluation gives the result. Programs, the generator, the VM and kernels then carry a
//! conversion like any other form: `f32 -> bf16 -> fma.bf16 -> f32` is what compilers emit.
//!
//! Only the float-to-float family is an instruction of programs: the integer, tf32, 8-bit and
//! `.rs` families need register classes programs do not have yet (`ptx::form` runs them alone).

use super::{Clamp, Conversion, Finite, Ftz, Instr, IsaError, NanMode, AbsMode, Opcode, Precision, RoundTo, Type};
use crate::cvt::{Cvt, CvtError, CvtRounding, SECTION};

impl Instr {
    /// The instruction of a float-to-float `cvt` form.
    pub fn from_cvt(c: &Cvt) -> Instr {
        let (precision, round_to) = match c.rounding {
            CvtRounding::None => (Precision::Default, RoundTo::Format),
            CvtRounding::Float(m) => (Precision::Rounded(m), RoundTo::Format),
            CvtRounding::Integer(m) => (Precision::Rounded(m), RoundTo::Integer),
        };
        Instr {
            op: Opcode::Cvt,
            testp: None,
            precision,
            ftz: if c.ftz { Ftz::Flush } else { Ftz::Preserve },
            clamp: if c.sat {
                Clamp::Sat
            } else if c.relu {
                Clamp::Relu
            } else {
                Clamp::None
            },
            nan: NanMode::Number,
            abs: AbsMode::None,
            ty: Type::of(c.dst, c.packed),
            inputs: c.inputs() as u8,
            conv: Some(Conversion {
                from: Type::of(c.src, false),
                round_to,
                finite: if c.satfinite { Finite::Saturate } else { Finite::Keep },
            }),
            cmp: None,
        }
    }

    /// The `cvt` form this instruction is, if it is a `cvt` whose fields a `cvt` can have (not
    /// whether that form is legal: [`Cvt::check`]); `None` for every other opcode.
    pub fn as_cvt(&self) -> Option<Cvt> {
        let conv = self.conv.filter(|_| self.op == Opcode::Cvt)?;
        if self.testp.is_some() || self.cmp.is_some() || self.nan != NanMode::Number || self.abs != AbsMode::None || conv.from.lanes() != 1 {
            return None;
        }
        let rounding = match (self.precision, conv.round_to) {
            (Precision::Default, RoundTo::Format) => CvtRounding::None,
            (Precision::Rounded(m), RoundTo::Format) => CvtRounding::Float(m),
            (Precision::Rounded(m), RoundTo::Integer) => CvtRounding::Integer(m),
            _ => return None,
        };
        let c = Cvt {
            dst: self.ty.scalar(),
            packed: self.ty.lanes() == 2,
            src: conv.from.scalar(),
            rounding,
            ftz: self.ftz == Ftz::Flush,
            sat: self.clamp == Clamp::Sat,
            relu: self.clamp == Clamp::Relu,
            satfinite: conv.finite == Finite::Saturate,
        };
        // A form the map does not give back (f32x2, an operand count of another form) is none.
        (Instr::from_cvt(&c) == *self).then_some(c)
    }

    /// The legality of a `cvt` instruction: the section's rule it breaks, or a field no `cvt`
    /// has (`.NaN`, `.abs`, a packed source, the wrong operand count).
    pub(super) fn validate_cvt(&self) -> Result<Cvt, IsaError> {
        let c = self.as_cvt().ok_or_else(|| IsaError::Illegal {
            form: self.to_string(),
            rule: format!(
                "a cvt between float formats takes one .f16/.bf16/.f32/.f64 source (two .f32 for .f16x2/.bf16x2), \
                 the modifiers .rn/.rz/.rm/.rp/.rni/.rzi/.rmi/.rpi, .ftz, .sat, .relu, .satfinite, and {} source operand(s) here",
                if self.ty.lanes() == 2 { 2 } else { 1 }
            ),
            section: "9.7.9.21",
        })?;
        c.check().map_err(cvt_error)?;
        Ok(c)
    }
}

/// A `cvt` table error as an ISA error: a broken rule with its section; a spelling the table
/// does not know as a syntax error that lists what it takes.
pub(super) fn cvt_error(e: CvtError) -> IsaError {
    match e {
        CvtError::Illegal { form, rule } => IsaError::Illegal { form, rule: rule.to_string(), section: "9.7.9.21" },
        e => IsaError::Syntax(format!("{e} ({SECTION})")),
    }
}

/// Parse a `cvt` spelling of the float-to-float family (its operand count is the form's).
pub(super) fn parse_cvt(text: &str) -> Result<Instr, IsaError> {
    Cvt::parse(text).map(|c| Instr::from_cvt(&c)).map_err(cvt_error)
}

/// Every documented float-to-float `cvt`, as instructions (for the generator and the VM).
pub fn cvt_forms() -> Vec<Instr> {
    let mut v: Vec<Instr> = Cvt::all().iter().map(Instr::from_cvt).collect();
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_cvt_maps_to_an_instruction_and_back() {
        let all = Cvt::all();
        assert!(all.len() > 100, "{}", all.len());
        for c in &all {
            let i = Instr::from_cvt(c);
            assert_eq!(i.as_cvt(), Some(*c), "{c}");
            assert_eq!(i.validate(), Ok(()), "{c}");
            assert_eq!(i.to_string(), c.to_string());
            assert_eq!(Instr::parse(&c.to_string(), c.inputs()), Ok(i), "{c}");
            assert_eq!(i.requirement(), c.requirement(), "{c}");
        }
        let forms = cvt_forms();
        assert_eq!(forms.len(), all.len());
        assert!(forms.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn the_source_type_is_the_conversion_source_and_fields_no_cvt_has_are_illegal() {
        let i = Instr::parse("cvt.f32.f16", 1).unwrap();
        assert_eq!((i.ty, i.src_type(), i.inputs), (Type::F32, Type::F16, 1));
        let packed = Instr::parse("cvt.rn.relu.satfinite.bf16x2.f32", 2).unwrap();
        assert_eq!((packed.ty, packed.src_type(), packed.inputs), (Type::Bf16x2, Type::F32, 2));
        let nan = Instr { nan: NanMode::Propagate, ..i };
        assert!(matches!(nan.validate(), Err(IsaError::Illegal { section: "9.7.9.21", .. })));
        let one_input = Instr { inputs: 1, ..packed };
        assert!(one_input.validate().is_err());
        // A rule of the section, named with it: .ftz needs an f32 operand.
        let e = Instr::parse("cvt.rn.ftz.f16.f64", 1).unwrap_err().to_string();
        assert!(e.contains(".ftz can only be specified") && e.contains("9.7.9.21"), "{e}");
    }

    #[test]
    fn a_cvt_needs_what_the_cvt_table_says() {
        let i = Instr::parse("cvt.rn.bf16.f16", 1).unwrap();
        assert_eq!(i.requirement().sm, 90);
        let e = i.check_target(crate::isa::Target::new(80, crate::isa::PtxVersion::new(8, 0))).unwrap_err();
        assert!(e.to_string().contains("sm_90"), "{e}");
    }
}
