//! A float-to-float `cvt` as an [`Instr`]: the map both ways between the instruction's fields
//! and [`crate::cvt::Cvt`], whose table (PTX ISA 9.7.9.21) decides legality and target and
//! whose evaluation gives the result. Programs, the generator, the VM and kernels then carry a
//! conversion like any other form: `f32 -> bf16 -> fma.bf16 -> f32` is what compilers emit.
//!
//! The float-integer family ([`CvtInt`]) is one too: the integer end is
//! [`Conversion::int`], the float end the form's type, and an integer lives in the `.b16`,
//! `.b32` or `.b64` register of its width (`f32 -> s32 -> f32` is how compilers truncate).
//! So is the tf32 family ([`Tf32Cvt`]): [`RoundTo::Tf32`] carries its rounding (`.rna`
//! included), the result is an f32-layout value in a `.b32` register that f32 sources read
//! (CUDA's `__float_to_tf32` hands it on as a float). So is the narrow family ([`NarrowCvt`]):
//! the fp8 forms of `sm_89` (`cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2}`,
//! `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}`) and the e2m3/e3m2/ue8m0 and bf16x2-sourced ones of
//! `sm_100a`/`sm_100f` (a [`crate::isa::Target`] with that suffix): [`Conversion::narrow`] is
//! the pair's end, held in a `.b16` register (`e2m1x2`'s in a `.b8` one), the other end the
//! form's type (`f32 -> e4m3x2 -> f16x2` is how FP8 kernels quantize and read back). So is the
//! stochastic `.rs` family to f16x2/bf16x2 ([`super::stochastic`]). The `.rs` forms to the x4
//! destinations run alone (`ptx::form`).

use super::{Clamp, Conversion, Finite, Ftz, Instr, IntEnd, IsaError, NanMode, NarrowEnd, AbsMode, Opcode, Precision, RoundTo, Type};
use crate::cvt::narrow::{Direction, NarrowCvt, NarrowError, Wide};
use crate::cvt::stochastic::StochasticCvt;
use crate::cvt::int::CvtInt;
use crate::cvt::tf32::Tf32Cvt;
use crate::format::Scalar;
use crate::cvt::{AnyCvt, AnyCvtError, Cvt, CvtError, CvtRounding, SECTION};

impl Instr {
    /// The instruction of a float-to-float `cvt` form.
    pub fn from_cvt(c: &Cvt) -> Instr {
        let (precision, round_to) = rounding_fields(c.rounding);
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
                int: None,
                narrow: None,
            }),
            cmp: None,
            selp_int: None,
            atype: None,
        }
    }

    /// The instruction of a float-integer `cvt` form: its type is the float end.
    pub fn from_cvt_int(c: &CvtInt) -> Instr {
        let ty = Type::of(c.float, false);
        let (precision, round_to) = rounding_fields(c.rounding);
        Instr {
            op: Opcode::Cvt,
            testp: None,
            precision,
            ftz: if c.ftz { Ftz::Flush } else { Ftz::Preserve },
            clamp: if c.sat { Clamp::Sat } else { Clamp::None },
            nan: NanMode::Number,
            abs: AbsMode::None,
            ty,
            inputs: 1,
            conv: Some(Conversion {
                from: ty,
                round_to,
                finite: Finite::Keep,
                int: Some(if c.to_int { IntEnd::Dest(c.int) } else { IntEnd::Source(c.int) }),
                narrow: None,
            }),
            cmp: None,
            selp_int: None,
            atype: None,
        }
    }

    /// The instruction of a `cvt` to tf32: from f32, its rounding in [`RoundTo::Tf32`].
    pub fn from_tf32(c: &Tf32Cvt) -> Instr {
        Instr {
            op: Opcode::Cvt,
            testp: None,
            precision: Precision::Default,
            ftz: Ftz::Preserve,
            clamp: if c.relu { Clamp::Relu } else { Clamp::None },
            nan: NanMode::Number,
            abs: AbsMode::None,
            ty: Type::F32,
            inputs: 1,
            conv: Some(Conversion {
                from: Type::F32,
                round_to: RoundTo::Tf32(c.rounding),
                finite: if c.satfinite { Finite::Saturate } else { Finite::Keep },
                int: None,
                narrow: None,
            }),
            cmp: None,
            selp_int: None,
            atype: None,
        }
    }

    /// The tf32 `cvt` form this instruction is (not whether it is legal: [`Tf32Cvt::check`]);
    /// `None` for every other instruction.
    pub fn as_tf32(&self) -> Option<Tf32Cvt> {
        let conv = self.conv.filter(|_| self.op == Opcode::Cvt)?;
        let RoundTo::Tf32(rounding) = conv.round_to else { return None };
        let c = Tf32Cvt { rounding, relu: self.clamp == Clamp::Relu, satfinite: conv.finite == Finite::Saturate };
        // Fields no tf32 `cvt` has (.ftz, .sat, another type or operand count) are none.
        (Instr::from_tf32(&c) == *self).then_some(c)
    }

    /// The instruction of a narrow-format `cvt` form: its type is the wide end (`f32` for the
    /// two-source form, else the packed half type), [`Conversion::narrow`] the 8-bit pair.
    pub fn from_narrow(c: &NarrowCvt) -> Instr {
        let wide = |w: Wide| match w {
            Wide::F32 => Type::F32,
            Wide::F16x2 => Type::F16x2,
            Wide::Bf16x2 => Type::Bf16x2,
        };
        let (ty, end) = match c.dir {
            Direction::Down { dst, src } => (wide(src), NarrowEnd::Dest(dst)),
            Direction::Up { dst, src } => (wide(dst), NarrowEnd::Source(src)),
        };
        Instr {
            op: Opcode::Cvt,
            testp: None,
            precision: c.rounding.map_or(Precision::Default, Precision::Rounded),
            ftz: Ftz::Preserve,
            clamp: if c.relu { Clamp::Relu } else { Clamp::None },
            nan: NanMode::Number,
            abs: AbsMode::None,
            ty,
            inputs: c.inputs() as u8,
            conv: Some(Conversion {
                from: ty,
                round_to: RoundTo::Format,
                finite: if c.satfinite { Finite::Saturate } else { Finite::Keep },
                int: None,
                narrow: Some(end),
            }),
            cmp: None,
            selp_int: None,
            atype: None,
        }
    }

    /// The narrow-format `cvt` form this instruction is (not whether it is legal:
    /// [`NarrowCvt::check`]); `None` for every other instruction.
    pub fn as_narrow(&self) -> Option<NarrowCvt> {
        let conv = self.conv.filter(|_| self.op == Opcode::Cvt)?;
        let wide = match self.ty {
            Type::F32 => Wide::F32,
            Type::F16x2 => Wide::F16x2,
            Type::Bf16x2 => Wide::Bf16x2,
            _ => return None,
        };
        let dir = match conv.narrow? {
            NarrowEnd::Dest(dst) => Direction::Down { dst, src: wide },
            NarrowEnd::Source(src) => Direction::Up { dst: wide, src },
        };
        let rounding = match self.precision {
            Precision::Default => None,
            Precision::Rounded(r) => Some(r),
            _ => return None,
        };
        let c = NarrowCvt { dir, rounding, relu: self.clamp == Clamp::Relu, satfinite: conv.finite == Finite::Saturate };
        // Fields no narrow `cvt` has (.ftz, .sat, an integer end, ...) are none.
        (Instr::from_narrow(&c) == *self).then_some(c)
    }

    /// The float-integer `cvt` form this instruction is (not whether it is legal:
    /// [`CvtInt::check`]); `None` for every other instruction.
    pub fn as_cvt_int(&self) -> Option<CvtInt> {
        let conv = self.conv.filter(|_| self.op == Opcode::Cvt)?;
        let (int, to_int) = match conv.int? {
            IntEnd::Dest(t) => (t, true),
            IntEnd::Source(t) => (t, false),
        };
        let rounding = cvt_rounding(self.precision, conv.round_to)?;
        let c = CvtInt {
            float: self.ty.scalar(),
            int,
            to_int,
            rounding,
            ftz: self.ftz == Ftz::Flush,
            sat: self.clamp == Clamp::Sat,
        };
        // Fields no float-integer `cvt` has (.relu, .satfinite, a packed type, ...) are none.
        (Instr::from_cvt_int(&c) == *self).then_some(c)
    }

    /// The `cvt` form this instruction is, if it is a `cvt` whose fields a `cvt` can have (not
    /// whether that form is legal: [`Cvt::check`]); `None` for every other opcode.
    pub fn as_cvt(&self) -> Option<Cvt> {
        let conv = self.conv.filter(|_| self.op == Opcode::Cvt)?;
        if self.testp.is_some() || self.cmp.is_some() || self.nan != NanMode::Number || self.abs != AbsMode::None || conv.from.lanes() != 1 {
            return None;
        }
        let rounding = cvt_rounding(self.precision, conv.round_to)?;
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
    pub(super) fn validate_cvt(&self) -> Result<(), IsaError> {
        if self.writes_tf32() {
            let c = self.as_tf32().ok_or_else(|| IsaError::Illegal {
                form: self.to_string(),
                rule: "a cvt to tf32 takes one .f32 source, .rna, .rn or .rz, .satfinite, and .relu (not with .rna), nothing else".into(),
                section: "9.7.9.21",
            })?;
            return c.check().map_err(cvt_error);
        }
        if self.conv.is_some_and(|c| c.narrow.is_some()) {
            return self.validate_narrow();
        }
        if self.is_stochastic() {
            return self.validate_stochastic();
        }
        if self.conv.is_some_and(|c| c.int.is_some()) {
            let c = self.as_cvt_int().ok_or_else(|| IsaError::Illegal {
                form: self.to_string(),
                rule: "a cvt between a float and an integer type takes one source, an integer rounding (.rni, .rzi, .rmi, .rpi) \
                       to an integer or a float rounding (.rn, .rz, .rm, .rp) from one, .ftz and .sat, nothing else"
                    .into(),
                section: "9.7.9.21",
            })?;
            c.check().map_err(cvt_error)?;
            if c.float == Scalar::BF16 && c.int.bits == 8 {
                // Programs hold an 8-bit integer in a .b16 register (PTX has no narrower
                // one that other instructions read); ptxas 13.5 takes that for f16, f32 and
                // f64 but answers "Arguments mismatch for instruction 'cvt'" for bf16
                // (ptx/tests/ptxas.rs), which wants a .u8/.s8 register.
                return Err(IsaError::Illegal {
                    form: self.to_string(),
                    rule: "in a program, an 8-bit integer lives in a .b16 register, which ptxas 13.5 refuses for a cvt \
                           between bf16 and .u8/.s8 (it wants an 8-bit register); `ptxfuzz eval` runs the form alone"
                        .into(),
                    section: "9.7.9.21",
                });
            }
            return Ok(());
        }
        let c = self.as_cvt().ok_or_else(|| IsaError::Illegal {
            form: self.to_string(),
            rule: format!(
                "a cvt between float formats takes one .f16/.bf16/.f32/.f64 source (two .f32 for .f16x2/.bf16x2), \
                 the modifiers .rn/.rz/.rm/.rp/.rni/.rzi/.rmi/.rpi, .ftz, .sat, .relu, .satfinite, and {} source operand(s) here",
                if self.ty.lanes() == 2 { 2 } else { 1 }
            ),
            section: "9.7.9.21",
        })?;
        c.check().map_err(cvt_error)
    }
}

impl Instr {
    /// The legality of a narrow-format `cvt` in a program: the section's rule it breaks, or a
    /// field no narrow `cvt` has. The `sm_100a`/`sm_100f` forms are legal (the `e2m1x2` ones in
    /// `.b8` registers: `crate::program::RegClass::B8`); [`Instr::check_target`] asks for the
    /// suffix.
    fn validate_narrow(&self) -> Result<(), IsaError> {
        let c = self.as_narrow().ok_or_else(|| IsaError::Illegal {
            form: self.to_string(),
            rule: "a narrow-format cvt writes an .e4m3x2/.e5m2x2/.e2m3x2/.e3m2x2/.ue8m0x2 pair from two .f32 or one \
                   .f16x2/.bf16x2, or reads one into .f16x2 (.bf16x2 for ue8m0x2), with the modifiers of the section's table"
                .into(),
            section: "9.7.9.21",
        })?;
        c.check().map_err(|e| match e {
            NarrowError::Illegal { form, rule } => IsaError::Illegal { form, rule: rule.into(), section: "9.7.9.21" },
            e => IsaError::Syntax(e.to_string()),
        })?;
        Ok(())
    }
}

/// A `cvt`'s rounding as the fields of an [`Instr`]: the mode in [`Instr::precision`],
/// whether to an integral value in [`Conversion::round_to`].
fn rounding_fields(r: CvtRounding) -> (Precision, RoundTo) {
    match r {
        CvtRounding::None => (Precision::Default, RoundTo::Format),
        CvtRounding::Float(m) => (Precision::Rounded(m), RoundTo::Format),
        CvtRounding::Integer(m) => (Precision::Rounded(m), RoundTo::Integer),
    }
}

/// The inverse of [`rounding_fields`]; `None` for fields no `cvt` has (`.approx`, ...).
fn cvt_rounding(precision: Precision, round_to: RoundTo) -> Option<CvtRounding> {
    match (precision, round_to) {
        (Precision::Default, RoundTo::Format) => Some(CvtRounding::None),
        (Precision::Rounded(m), RoundTo::Format) => Some(CvtRounding::Float(m)),
        (Precision::Rounded(m), RoundTo::Integer) => Some(CvtRounding::Integer(m)),
        _ => None,
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

/// Parse a `cvt` spelling of any family (its operand count is the form's). The families are
/// told apart as `ptxfuzz eval` tells them ([`AnyCvt::parse`]).
pub(super) fn parse_cvt(text: &str) -> Result<Instr, IsaError> {
    match AnyCvt::parse(text) {
        Ok(AnyCvt::Float(c)) => Ok(Instr::from_cvt(&c)),
        Ok(AnyCvt::Int(c)) => Ok(Instr::from_cvt_int(&c)),
        Ok(AnyCvt::Tf32(c)) => Ok(Instr::from_tf32(&c)),
        Ok(AnyCvt::Narrow(c)) => Ok(Instr::from_narrow(&c)),
        Ok(AnyCvt::Stochastic(c)) => Ok(Instr::from_stochastic(&c)),
        Ok(AnyCvt::StochasticQuad(c)) => Err(IsaError::Syntax(format!(
            "{c} d, {{a, b, e, f}}, rbits: an x4 destination has a four-register source, which programs do not hold; \
             `ptxfuzz eval` and `ptxfuzz capture` run it alone ({SECTION})"
        ))),
        Err(AnyCvtError::Cvt(e)) => Err(cvt_error(e)),
        Err(e) => Err(IsaError::Syntax(format!("{e} ({SECTION})"))),
    }
}

/// Every documented float-to-float, float-integer, tf32, narrow-format and stochastic (`.rs`,
/// f16x2/bf16x2) `cvt`, as instructions (for the generator and the VM).
pub fn cvt_forms() -> Vec<Instr> {
    let ints = CvtInt::all().into_iter().map(|c| Instr::from_cvt_int(&c)).filter(|i| i.validate().is_ok());
    let tf32 = Tf32Cvt::all().into_iter().map(|c| Instr::from_tf32(&c));
    let fp8 = NarrowCvt::all().into_iter().map(|c| Instr::from_narrow(&c));
    let rs = StochasticCvt::all().into_iter().map(|c| Instr::from_stochastic(&c));
    let mut v: Vec<Instr> = Cvt::all().iter().map(Instr::from_cvt).chain(ints).chain(tf32).chain(fp8).chain(rs).collect();
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
        // The float-integer forms less the 8 bf16 <-> .u8/.s8 ones x 4 roundings x (.ftz no),
        // the 10 tf32 forms, the 12 sm_89 fp8 ones and the 29 of sm_100a/sm_100f with 16-bit
        // pairs, the 8 e2m1x2 ones (.b8 pairs: from f32, f16x2 or bf16x2, and back to f16x2,
        // each with and without .relu) and the 8 .rs ones to f16x2/bf16x2.
        let ints = CvtInt::all().len();
        assert_eq!(forms.len(), all.len() + ints - 16 + 10 + 12 + 29 + 8 + 8, "{ints}");
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
    fn every_float_integer_cvt_maps_to_an_instruction_and_back_but_bf16_with_8_bits() {
        let mut refused = 0;
        for c in CvtInt::all() {
            let i = Instr::from_cvt_int(&c);
            assert_eq!(i.as_cvt_int(), Some(c), "{c}");
            assert_eq!(i.as_cvt(), None, "{c}");
            assert_eq!(i.to_string(), c.to_string());
            assert_eq!(i.requirement(), c.requirement(), "{c}");
            assert_eq!((i.int_dest(), i.int_source()), if c.to_int { (Some(c.int), None) } else { (None, Some(c.int)) });
            match Instr::parse(&c.to_string(), 1) {
                Ok(p) => assert_eq!(p, i, "{c}"),
                Err(e) => {
                    assert!(c.float == crate::format::Scalar::BF16 && c.int.bits == 8, "{c}: {e}");
                    assert!(e.to_string().contains("ptxas 13.5 refuses"), "{e}");
                    refused += 1;
                }
            }
        }
        assert_eq!(refused, 16);
        // Fields a float-integer cvt cannot have are illegal, with the section.
        let i = Instr::parse("cvt.rni.s32.f32", 1).unwrap();
        let relu = Instr { clamp: Clamp::Relu, ..i };
        assert!(matches!(relu.validate(), Err(IsaError::Illegal { section: "9.7.9.21", .. })), "{relu}");
        let e = Instr::parse("cvt.rn.s32.f32", 1).unwrap_err().to_string();
        assert!(e.contains("Integer rounding is required"), "{e}");
        // The stochastic family is one too (`super::stochastic`), its x4 forms not.
        assert!(Instr::parse("cvt.rs.satfinite.f16x2.f32", 3).unwrap().is_stochastic());
        let e = Instr::parse("cvt.rs.satfinite.e5m2x4.f32", 5).unwrap_err().to_string();
        assert!(e.contains("x4") && e.contains("9.7.9.21"), "{e}");
    }

    #[test]
    fn every_narrow_cvt_maps_to_an_instruction_and_programs_hold_it_in_b16_or_b8_registers() {
        use crate::isa::{PtxVersion, Target, Variant};
        let (mut held, mut arch_specific) = (0, 0);
        for c in NarrowCvt::all() {
            let i = Instr::from_narrow(&c);
            assert_eq!(i.as_narrow(), Some(c), "{c}");
            assert_eq!((i.as_cvt(), i.as_cvt_int(), i.as_tf32()), (None, None, None), "{c}");
            assert_eq!(i.to_string(), c.to_string());
            assert_eq!(i.validate(), Ok(()), "{c}");
            assert_eq!(Instr::parse(&c.to_string(), c.inputs()), Ok(i), "{c}");
            assert_eq!(i.requirement(), c.needs(), "{c}");
            let pair = crate::program::ValType::Narrow(i.narrow_dest().or(i.narrow_source()).unwrap());
            let (src, dst) = (crate::program::ValType::of_operand(&i, 0), crate::program::ValType::of_result(&i));
            // 9.7.9.21: "d is .b8" for e2m1x2, a .b16 for every other pair.
            let class = if c.to_string().contains("e2m1x2") { crate::program::RegClass::B8 } else { crate::program::RegClass::B16 };
            assert!((src == pair) != (dst == pair) && pair.class() == class, "{c}");
            held += 1;
            let need = c.needs();
            let plain = Target::new(need.sm, PtxVersion::new(9, 1));
            match need.variant {
                Variant::Plain => assert_eq!((need.sm, need.ptx), (89, PtxVersion::new(8, 1)), "{c}"),
                // sm_100a / sm_100f: the plain sm refuses it, naming the suffix; sm_100a has it.
                v => {
                    arch_specific += 1;
                    let e = i.check_target(plain).unwrap_err().to_string();
                    assert!(e.contains(&format!("needs sm_100{v}")) && e.contains("target is sm_100 "), "{e}");
                    assert_eq!(i.check_target(Target { variant: Variant::A, ..plain }), Ok(()), "{c}");
                }
            }
        }
        // fp8: .rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2} and .rn{.relu}.f16x2.{e4m3x2,e5m2x2};
        // the rest need sm_100a or sm_100f.
        assert_eq!(held - arch_specific, 12);
        assert!(arch_specific > 20, "{arch_specific}");
        let e4m3 = Instr::parse("cvt.rn.satfinite.e4m3x2.f32", 2).unwrap();
        assert_eq!((e4m3.ty, e4m3.inputs, e4m3.narrow_dest(), e4m3.src_bits(0)), (Type::F32, 2, Some(crate::isa::Narrow::E4m3), 32));
        let up = Instr::parse("cvt.rn.f16x2.e5m2x2", 1).unwrap();
        assert_eq!((up.ty, up.narrow_source(), up.src_bits(0)), (Type::F16x2, Some(crate::isa::Narrow::E5m2), 16));
        // The section's rules still speak: .satfinite is mandatory, .ftz no narrow cvt has.
        let e = Instr::parse("cvt.rn.e4m3x2.f32", 2).unwrap_err().to_string();
        assert!(e.contains("mandatory"), "{e}");
        let ftz = Instr { ftz: Ftz::Flush, ..e4m3 };
        assert!(matches!(ftz.validate(), Err(IsaError::Illegal { section: "9.7.9.21", .. })), "{ftz}");
    }

    #[test]
    fn every_tf32_cvt_maps_to_an_instruction_and_back_and_writes_a_b32_register() {
        let all = Tf32Cvt::all();
        assert_eq!(all.len(), 10);
        for c in all {
            let i = Instr::from_tf32(&c);
            assert_eq!(i.as_tf32(), Some(c), "{c}");
            assert_eq!((i.as_cvt(), i.as_cvt_int()), (None, None), "{c}");
            assert_eq!(i.validate(), Ok(()), "{c}");
            assert_eq!(i.to_string(), c.to_string());
            assert_eq!(Instr::parse(&c.to_string(), 1), Ok(i), "{c}");
            assert_eq!(i.requirement(), c.requirement(), "{c}");
            assert!(i.writes_tf32() && i.int_dest().is_none(), "{c}");
            assert_eq!(crate::program::ValType::of_result(&i), crate::program::ValType::Tf32);
        }
        // Fields no tf32 cvt has are illegal, with the section; .rna takes no .relu.
        let i = Instr::parse("cvt.rn.tf32.f32", 1).unwrap();
        let ftz = Instr { ftz: Ftz::Flush, ..i };
        assert!(matches!(ftz.validate(), Err(IsaError::Illegal { section: "9.7.9.21", .. })), "{ftz}");
        let rna_relu = Instr { conv: Some(Conversion { round_to: RoundTo::Tf32(crate::isa::Tf32Rounding::Rna), ..i.conv.unwrap() }), clamp: Clamp::Relu, ..i };
        assert!(rna_relu.validate().unwrap_err().to_string().contains("no .relu"), "{rna_relu}");
        assert_eq!(Instr::parse("cvt.rna.tf32.f32", 1).unwrap().requirement().sm, 80);
    }

    #[test]
    fn an_fp8_cvt_needs_ptx_8_1_on_sm_89_and_7_8_from_sm_90() {
        // ptxas 13.5 on the two-cvt kernel: sm_89 with 8.0 "requires .target sm_90 or higher",
        // 8.1 assembles; sm_90 with 7.7 "requires PTX ISA .version 7.8 or later", 7.8 assembles.
        use crate::isa::{PtxVersion, Target};
        let t = |sm, major, minor| Target::new(sm, PtxVersion::new(major, minor));
        for text in ["cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.f16x2.e5m2x2"] {
            let i = Instr::parse(text, if text.ends_with("f32") { 2 } else { 1 }).unwrap();
            assert!(i.check_target(t(89, 8, 1)).is_ok() && i.check_target(t(89, 8, 0)).is_err(), "{text}");
            assert!(i.check_target(t(90, 7, 8)).is_ok() && i.check_target(t(80, 9, 0)).is_err(), "{text}");
            let e = i.check_target(t(90, 7, 7)).unwrap_err().to_string();
            assert!(e.contains("7.8"), "{e}");
        }
    }

    #[test]
    fn a_cvt_needs_what_the_cvt_table_says() {
        let i = Instr::parse("cvt.rn.bf16.f16", 1).unwrap();
        assert_eq!(i.requirement().sm, 90);
        let e = i.check_target(crate::isa::Target::new(80, crate::isa::PtxVersion::new(8, 0))).unwrap_err();
        assert!(e.to_string().contains("sm_90"), "{e}");
    }
}
