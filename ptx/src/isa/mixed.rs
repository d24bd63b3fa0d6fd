//! A mixed-precision `add`/`sub`/`fma` as an [`Instr`] (PTX ISA 9.7.5.1-3, sm_100, PTX 8.6):
//! the map both ways between the instruction's fields and [`crate::mixed::Mixed`], whose table
//! decides legality and target. [`Instr::ty`] is `.f32` (the type of `d` and `c`) and
//! [`Instr::atype`] the half type of `a` (and `fma`'s `b`), so programs chain them like the
//! other forms: `cvt.rn.bf16.f32 -> fma.rn.f32.bf16 -> add.f32` is a bf16 product accumulated in
//! f32, what ML compilers emit for sm_100. The interpreter widens the halves and runs the `.f32`
//! form (`crate::interp`); the kernels and the VM write the form's text with a `.b16` register
//! for each half source.

use super::{AbsMode, Clamp, Ftz, Instr, IsaError, NanMode, Opcode, Precision, Type};
use crate::format::Scalar;
use crate::mixed::{Mixed, MixedError, Op};

impl Instr {
    /// The instruction of a mixed-precision form.
    pub fn from_mixed(m: &Mixed) -> Instr {
        Instr {
            op: match m.op {
                Op::Add => Opcode::Add,
                Op::Sub => Opcode::Sub,
                Op::Fma => Opcode::Fma,
            },
            testp: None,
            precision: m.rounding.map_or(Precision::Default, Precision::Rounded),
            ftz: Ftz::Preserve,
            clamp: if m.sat { Clamp::Sat } else { Clamp::None },
            nan: NanMode::Number,
            abs: AbsMode::None,
            ty: Type::F32,
            inputs: m.inputs() as u8,
            conv: None,
            cmp: None,
            selp_int: None,
            atype: Some(Type::of(m.half, false)),
        }
    }

    /// The mixed-precision form this instruction is (not whether it is legal: `fma` without a
    /// rounding is refused by [`Instr::validate`]); `None` for every other instruction.
    pub fn as_mixed(&self) -> Option<Mixed> {
        let op = match self.op {
            Opcode::Add => Op::Add,
            Opcode::Sub => Op::Sub,
            Opcode::Fma => Op::Fma,
            _ => return None,
        };
        let half = match self.atype? {
            Type::F16 => Scalar::F16,
            Type::Bf16 => Scalar::BF16,
            _ => return None,
        };
        let rounding = match self.precision {
            Precision::Default => None,
            Precision::Rounded(r) => Some(r),
            _ => return None,
        };
        let m = Mixed { op, rounding, sat: self.clamp == Clamp::Sat, half };
        // Fields no mixed form has (.ftz, .relu, another type or operand count) make it none.
        (Instr::from_mixed(&m) == *self).then_some(m)
    }

    /// The legality of a mixed-precision instruction: the section's rule it breaks, or a
    /// field no mixed form has.
    pub(super) fn validate_mixed(&self) -> Result<Mixed, IsaError> {
        let m = self.as_mixed().ok_or_else(|| IsaError::Illegal {
            form: self.to_string(),
            rule: format!("{SYNTAX}: .f32 then .f16 or .bf16, no .ftz or .relu, two sources for add/sub and three for fma"),
            section: "9.7.5",
        })?;
        // The table's own rules (fma's mandatory rounding) by a round trip through its parser.
        Mixed::parse(&m.to_string()).map_err(mixed_error)
    }
}

/// The syntax lines of 9.7.5.1-3, for the messages that refuse other fields.
const SYNTAX: &str = "add{.rnd}{.sat}.f32.atype d, a, c; sub{.rnd}{.sat}.f32.atype d, a, c; fma.rnd{.sat}.f32.abtype d, a, b, c";

/// A mixed-precision table error as an ISA error: a broken rule with its section.
fn mixed_error(e: MixedError) -> IsaError {
    match e {
        MixedError::Illegal { form, rule, section } => {
            IsaError::Illegal { form, rule: rule.to_string(), section: section.trim_start_matches("PTX ISA ") }
        }
        e => IsaError::Syntax(e.to_string()),
    }
}

/// Parse a mixed-precision spelling (its operand count is the form's), in the one canonical
/// order (the rounding, `.sat`, then the types), as for the other forms (`crate::isa::text`).
pub(super) fn parse_mixed(text: &str) -> Result<Instr, IsaError> {
    let m = Mixed::parse(text).map_err(mixed_error)?;
    if m.to_string() != text {
        return Err(IsaError::Syntax(format!(
            "`{text}`: write the modifiers in the canonical order, `{m}` (rounding, .sat, then .f32 and the half type)"
        )));
    }
    Ok(Instr::from_mixed(&m))
}

/// Every documented mixed-precision form, as instructions (for the generator and the VM).
pub fn mixed_forms() -> Vec<Instr> {
    let mut v: Vec<Instr> = Mixed::all().iter().map(Instr::from_mixed).collect();
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{PtxVersion, Target};

    #[test]
    fn every_mixed_form_maps_to_an_instruction_and_back() {
        let forms = mixed_forms();
        assert_eq!(forms.len(), Mixed::all().len());
        for m in Mixed::all() {
            let i = Instr::from_mixed(&m);
            assert_eq!(i.as_mixed(), Some(m), "{m}");
            assert_eq!(i.validate(), Ok(()), "{m}");
            assert_eq!(i.to_string(), m.to_string());
            assert_eq!(Instr::parse(&m.to_string(), m.inputs()), Ok(i), "{m}");
            assert_eq!(i.requirement(), m.requirement(), "{m}");
            assert!(i.is_documented(), "{m}");
            // a (and fma's b) are halves in .b16 registers, c and d f32.
            let half = Type::of(m.half, false);
            let want: Vec<Type> = (0..m.inputs()).map(|k| if m.is_half_operand(k) { half } else { Type::F32 }).collect();
            assert_eq!((0..m.inputs()).map(|k| i.src_type_at(k)).collect::<Vec<_>>(), want, "{m}");
            assert_eq!((0..m.inputs()).map(|k| i.src_bits(k)).collect::<Vec<_>>(), want.iter().map(|t| t.bits()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn mixed_forms_need_sm_100_and_ptx_8_6() {
        let i = Instr::parse("fma.rn.sat.f32.bf16", 3).unwrap();
        assert_eq!(i.check_target(Target::new(100, PtxVersion::new(8, 6))), Ok(()));
        let err = i.check_target(Target::new(90, PtxVersion::new(8, 6))).unwrap_err().to_string();
        assert!(err.contains("needs sm_100 and PTX ISA 8.6") && err.contains("9.7.5.3"), "{err}");
    }

    #[test]
    fn fields_no_mixed_form_has_and_other_spellings_are_refused_with_the_rule() {
        let add = Instr::parse("add.rn.f32.f16", 2).unwrap();
        let ftz = Instr { ftz: Ftz::Flush, ..add };
        assert!(ftz.validate().unwrap_err().to_string().contains("9.7.5"), "{ftz}");
        let f64 = Instr { ty: Type::F64, ..add };
        assert!(f64.validate().is_err() && f64.as_mixed().is_none());
        // fma has no default rounding (9.7.5.3), even as fields.
        let fma = Instr { precision: Precision::Default, ..Instr::parse("fma.rn.f32.f16", 3).unwrap() };
        assert!(fma.validate().unwrap_err().to_string().contains("no default"), "{fma}");
        let err = Instr::parse("fma.rz.f32.f16.sat", 3).unwrap_err().to_string();
        assert!(err.contains("canonical order") && err.contains("fma.rz.sat.f32.f16"), "{err}");
        assert!(Instr::parse("add.ftz.f32.f16", 2).unwrap_err().to_string().contains("subnormal numbers are supported"));
        // An .atype no mixed form has is an evaluation error (no half is widened from another
        // format), and the f16 form still widens as f16: 1.0 + 1.0.
        let f32_atype = Instr { atype: Some(Type::F32), ..add };
        assert!(crate::interp::eval(&f32_atype, &[0x3c00, 0]).is_err());
        assert_eq!(crate::interp::eval(&add, &[0x3c00, 0x3f80_0000]).unwrap().primary_bits(), 0x4000_0000);
        // The .f32 forms are unchanged: no atype.
        assert_eq!(Instr::parse("add.rn.f32", 2).unwrap().atype, None);
    }
}
