//! The stochastic-rounding `cvt` as an [`Instr`]: `cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32
//! d, a, b, rbits` (PTX ISA 9.7.9.21, sm_100a/sm_103a, PTX 8.7), mapped both ways to
//! [`StochasticCvt`], whose module holds the carry rule and the result set. [`RoundTo::Stochastic`]
//! marks it; `a` and `b` are f32 sources and `rbits` a `.b32` one, which programs hold as a
//! `u32` integer ([`Instr::int_source_at`]): the generator gives it an integer input (random
//! bits drawn over the whole range) or an earlier `u32`, so `f32 -> cvt.rs.bf16x2.f32 ->
//! fma.rn.bf16x2` is a program (how stochastic rounding feeds low-precision training). The x4
//! destinations ([`crate::cvt::stochastic_quad`]) are not instructions of programs: a
//! four-register source `{a, b, e, f}` has no place in `Stmt`; `eval` and the batched form
//! kernels run them alone (`crate::form`).

use super::{AbsMode, Clamp, Conversion, Finite, Ftz, Instr, IntType, IsaError, NanMode, Opcode, Precision, RoundTo, Type};
use crate::cvt::stochastic::StochasticCvt;
use crate::format::Scalar;

/// The type `rbits` is held as: 32 random bits in a `.b32` register (9.7.9.21: "rbits ...
/// .b32"), unsigned so that its decimal reading is the bits'.
pub const RBITS: IntType = IntType { signed: false, bits: 32 };

impl Instr {
    /// The instruction of a `cvt.rs` form: its type the packed destination.
    pub fn from_stochastic(c: &StochasticCvt) -> Instr {
        Instr {
            op: Opcode::Cvt,
            testp: None,
            precision: Precision::Default,
            ftz: Ftz::Preserve,
            clamp: if c.relu { Clamp::Relu } else { Clamp::None },
            nan: NanMode::Number,
            abs: AbsMode::None,
            ty: Type::of(c.dst, true),
            inputs: c.inputs() as u8,
            conv: Some(Conversion {
                from: Type::F32,
                round_to: RoundTo::Stochastic,
                finite: if c.satfinite { Finite::Saturate } else { Finite::Keep },
                int: None,
                narrow: None,
            }),
            cmp: None,
            selp_int: None,
            atype: None,
        }
    }

    /// The `cvt.rs` form this instruction is; `None` for every other instruction (and for
    /// fields no `cvt.rs` has: `.ftz`, `.sat`, a scalar type, another operand count).
    pub fn as_stochastic(&self) -> Option<StochasticCvt> {
        let conv = self.conv.filter(|c| self.op == Opcode::Cvt && c.round_to == RoundTo::Stochastic)?;
        let dst = match self.ty {
            Type::F16x2 => Scalar::F16,
            Type::Bf16x2 => Scalar::BF16,
            _ => return None,
        };
        let c = StochasticCvt { dst, relu: self.clamp == Clamp::Relu, satfinite: conv.finite == Finite::Saturate };
        (Instr::from_stochastic(&c) == *self).then_some(c)
    }

    /// Whether this is a `cvt.rs`, legal or not (its fields decide its sources' types).
    pub fn is_stochastic(&self) -> bool {
        self.op == Opcode::Cvt && self.conv.is_some_and(|c| c.round_to == RoundTo::Stochastic)
    }

    /// The legality of a `cvt.rs` instruction: every form [`StochasticCvt`] spells is legal
    /// (its target, sm_100a, is [`Instr::requirement`]'s); any other field is refused.
    pub(super) fn validate_stochastic(&self) -> Result<(), IsaError> {
        self.as_stochastic().map(|_| ()).ok_or_else(|| IsaError::Illegal {
            form: self.to_string(),
            rule: "cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits: two .f32 sources and the .b32 random bits, \
                   no other modifier"
                .into(),
            section: "9.7.9.21",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{PtxVersion, Target, Variant};

    #[test]
    fn every_stochastic_form_maps_to_an_instruction_and_back() {
        for c in StochasticCvt::all() {
            let i = Instr::from_stochastic(&c);
            assert_eq!(i.as_stochastic(), Some(c), "{c}");
            assert_eq!(i.validate(), Ok(()), "{c}");
            assert_eq!(i.to_string(), c.to_string());
            assert_eq!(Instr::parse(&c.to_string(), 3), Ok(i), "{c}");
            assert_eq!((i.as_cvt(), i.as_cvt_int(), i.as_tf32(), i.as_narrow()), (None, None, None, None), "{c}");
            // a and b are f32, rbits a u32 in a .b32 register.
            assert_eq!((0..3).map(|k| i.int_source_at(k)).collect::<Vec<_>>(), [None, None, Some(RBITS)]);
            assert_eq!((0..3).map(|k| i.src_bits(k)).collect::<Vec<_>>(), [32, 32, 32]);
            assert_eq!(i.int_source(), None, "{c}");
            let r = i.requirement();
            assert_eq!((r.sm, r.variant, r.ptx), (100, Variant::A, PtxVersion::new(8, 7)), "{c}");
        }
        assert!(crate::isa::conversion::cvt_forms().iter().filter(|i| i.is_stochastic()).count() == 8);
    }

    #[test]
    fn a_stochastic_cvt_needs_sm_100a_and_other_fields_are_refused() {
        let i = Instr::parse("cvt.rs.relu.satfinite.bf16x2.f32", 3).unwrap();
        assert_eq!(i.check_target(Target { sm: 100, variant: Variant::A, ptx: PtxVersion::new(8, 7) }), Ok(()));
        let plain = i.check_target(Target::new(100, PtxVersion::new(9, 1))).unwrap_err().to_string();
        assert!(plain.contains("needs sm_100a"), "{plain}");
        let ftz = Instr { ftz: Ftz::Flush, ..i };
        assert!(ftz.validate().unwrap_err().to_string().contains("rbits"), "{ftz}");
        let scalar = Instr { ty: Type::Bf16, ..i };
        assert!(scalar.validate().is_err() && scalar.as_stochastic().is_none());
        // The x4 destinations stay out, with the reason.
        let x4 = Instr::parse("cvt.rs.satfinite.e4m3x4.f32", 5).unwrap_err().to_string();
        assert!(x4.contains("x4"), "{x4}");
    }
}
