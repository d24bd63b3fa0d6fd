//! The float comparisons as [`Instr`]s: the map both ways between an instruction's fields and
//! [`crate::compare::Compare`], whose table (PTX ISA 9.7.6.1-3, 9.7.7.1-2) decides legality
//! and target and whose evaluation gives the result. Programs then compare computed values
//! (NaN from an overflowing chain, signed zeros, subnormals under `.ftz`), combine the outcome
//! with an earlier predicate, and select on it, like any other form.
//!
//! A program holds the forms whose sources are float values and predicates:
//! `setp.CmpOp{.BoolOp}{.ftz}.{f16,bf16,f32,f64} p, a, b{, c}`,
//! `set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c}` over a float `.stype` with a float
//! `.dtype` (1.0 or 0.0; the `.f16x2`/`.bf16x2` pairs lane by lane) or an integer one (all ones
//! or zero, [`Comparison::int`]: an integer register, as a `cvt` to an integer writes), and
//! `selp.{f32,f64,u16,s16,u32,s32,u64,s64} d, a, b, c` (an integer `selp` chooses between
//! integers a `cvt` or `set` wrote, [`Instr::selp_int`]: `cvt.rzi.s32.f32` on both arms of a
//! branch a compiler made select-free, then `cvt.rn.f32.s32`), and `selp.{b16,b32,b64}`, how
//! a compiler selects halves, half pairs and f32x2 pairs (no `selp.f16` exists): one form per
//! width ([`BITS_SELP`]) whose result is the register it picks. Outside programs (`ptx::form`
//! runs them alone: `ptxfuzz eval`, `capture --forms`): the packed `setp` (two predicates) and
//! comparisons of integer and bit types. A negated source `!c` is an operand modifier, not a
//! form; programs do not spell it.

use super::{AbsMode, Clamp, Comparison, Ftz, Instr, IntType, IsaError, NanMode, Opcode, Precision, Type};
use crate::compare::{Compare, CompareError, Kind, Ty};

/// The instruction type of a compare operand type a program register holds: a float scalar
/// or half pair (`None` for the bit and integer types).
fn float_type(t: Ty) -> Option<Type> {
    match t {
        Ty::Float(s) => Some(Type::of(s, false)),
        Ty::Packed(s) => Some(Type::of(s, true)),
        Ty::Bits(_) | Ty::Int(_) => None,
    }
}

/// The float type of an integer's width, an integer `selp`'s [`Instr::ty`]: `f16` for 16
/// bits, `f32` for 32, `f64` for 64 (`selp` has no 8-bit type, 9.7.6.3).
fn same_width_float(t: IntType) -> Option<Type> {
    match t.bits {
        16 => Some(Type::F16),
        32 => Some(Type::F32),
        64 => Some(Type::F64),
        _ => None,
    }
}

/// A bit-type `selp`'s [`Instr::ty`]: the one float type of each width that has no `selp` of
/// its own (9.7.6.3's types are `.b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64`):
/// `f16` for `.b16`, `f16x2` for `.b32`, `f32x2` for `.b64`. The form reads any register of
/// that class (bf16 and f16, bf16x2 and f16x2, ...) and hands on what it picks: its result
/// has the type of its `a` ([`crate::program::ValType::of_selected`]).
const BITS_SELP: [(u32, Type); 3] = [(16, Type::F16), (32, Type::F16x2), (64, Type::F32x2)];

/// The compare operand type of an instruction type.
fn compare_type(t: Type) -> Ty {
    if t.lanes() == 2 {
        Ty::Packed(t.scalar())
    } else {
        Ty::Float(t.scalar())
    }
}

impl Instr {
    /// The instruction of a `setp`, `set` or `selp` form, or `None` for a form programs cannot
    /// hold (see the module docs).
    pub fn from_compare(c: &Compare) -> Option<Instr> {
        // An integer `selp` takes the float type of its width as its `ty` ([`Instr::selp_int`]).
        let (from, selp_int) = match (c.kind, c.ty) {
            (Kind::Selp, Ty::Int(t)) => (same_width_float(t)?, Some(t)),
            (Kind::Selp, Ty::Bits(n)) => (BITS_SELP.iter().find(|r| r.0 == n)?.1, None),
            (_, t) => (float_type(t)?, None),
        };
        let (op, ty, int) = match c.kind {
            // A packed setp writes two predicates, `p|q` (`crate::program::ValType::PredPair`).
            Kind::Setp => (Opcode::Setp, from, None),
            // The float end is the form's type, as for a float-integer `cvt`.
            Kind::Set { dtype: Ty::Int(t) } => (Opcode::Set, from, Some(t)),
            Kind::Set { dtype } => (Opcode::Set, float_type(dtype)?, None),
            Kind::Selp if from.lanes() == 1 || matches!(c.ty, Ty::Bits(_)) => (Opcode::Selp, from, None),
            _ => return None,
        };
        Some(Instr {
            op,
            testp: None,
            precision: Precision::Default,
            ftz: if c.ftz { Ftz::Flush } else { Ftz::Preserve },
            clamp: Clamp::None,
            nan: NanMode::Number,
            abs: AbsMode::None,
            ty,
            inputs: c.inputs() as u8,
            conv: None,
            cmp: c.cmp.map(|op| Comparison { op, combine: c.bool_op, from, int }),
            selp_int,
            atype: None,
        })
    }

    /// The `setp`, `set` or `selp` form this instruction is, if its fields are those of one
    /// (not whether that form is legal: [`Compare::check`]); `None` for every other opcode.
    pub fn as_compare(&self) -> Option<Compare> {
        let (kind, ty, bool_op) = match (self.op, self.cmp) {
            (Opcode::Setp, Some(c)) => (Kind::Setp, c.from, c.combine),
            (Opcode::Set, Some(c)) => (Kind::Set { dtype: c.int.map_or_else(|| compare_type(self.ty), Ty::Int) }, c.from, c.combine),
            (Opcode::Selp, None) => (Kind::Selp, self.ty, None),
            _ => return None,
        };
        let ty = match (self.selp_int, BITS_SELP.iter().find(|r| r.1 == ty)) {
            (Some(t), _) => Ty::Int(t),
            (None, Some(&(n, _))) if kind == Kind::Selp => Ty::Bits(n),
            (None, _) => compare_type(ty),
        };
        let c = Compare { kind, cmp: self.cmp.map(|c| c.op), bool_op, ftz: self.ftz == Ftz::Flush, ty };
        // Fields the map does not give back (a modifier no comparison has, another operand
        // count) make it none.
        (Instr::from_compare(&c) == Some(*self)).then_some(c)
    }

    /// Whether this is a `selp.b16`/`.b32`/`.b64` ([`BITS_SELP`]): it picks one of two registers
    /// of its class whatever they hold.
    pub fn is_bits_selp(&self) -> bool {
        self.op == Opcode::Selp && self.selp_int.is_none() && BITS_SELP.iter().any(|r| r.1 == self.ty)
    }

    /// The legality of a comparison instruction: the section's rule it breaks, or fields no
    /// form a program holds has.
    pub(super) fn validate_compare(&self) -> Result<Compare, IsaError> {
        let c = self.as_compare().ok_or_else(|| IsaError::Illegal {
            form: self.to_string(),
            rule: format!("{HOLDS}; one comparison operator for setp and set, none for selp, no other modifier, and a third source exactly with .BoolOp or selp"),
            section: "9.7.6",
        })?;
        c.check().map_err(compare_error)?;
        Ok(c)
    }
}

/// What a program's comparison is, for the messages that refuse the others.
const HOLDS: &str = "a program holds setp.CmpOp{.BoolOp}{.ftz}.{f16,bf16,f32,f64} p, a, b{, c}, \
     set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c} over a float .stype (.dtype f32, f16, bf16, f16x2, bf16x2, u16, s16, u32 or s32), \
     and selp.{b16,b32,b64,f32,f64,u16,s16,u32,s32,u64,s64} d, a, b, c";

/// A comparison table error as an ISA error: a broken rule with its section.
fn compare_error(e: CompareError) -> IsaError {
    match e {
        CompareError::Illegal { form, rule, section } => {
            IsaError::Illegal { form, rule: rule.to_string(), section: section.trim_start_matches("PTX ISA ") }
        }
        e => IsaError::Syntax(e.to_string()),
    }
}

/// Parse a `setp`, `set` or `selp` spelling (its operand count is the form's); one programs
/// cannot hold says why.
pub(super) fn parse_compare(text: &str) -> Result<Instr, IsaError> {
    let c = Compare::parse(text).map_err(compare_error)?;
    c.check().map_err(compare_error)?;
    if c.to_string() != text {
        // One spelling per form, as for the arithmetic forms (`crate::isa::text`).
        return Err(IsaError::Syntax(format!(
            "`{text}`: write the modifiers in the canonical order, `{c}` (operator, .BoolOp, .ftz, then the types)"
        )));
    }
    Instr::from_compare(&c).ok_or_else(|| IsaError::Illegal {
        form: c.to_string(),
        rule: format!(
            "{HOLDS} (two predicates, integer and bit comparisons need registers programs do not have); \
             ptxfuzz eval and capture --forms run this form"
        ),
        section: "9.7.6",
    })
}

/// Every documented comparison a program can hold, as instructions (for the generator and
/// the VM).
pub fn compare_forms() -> Vec<Instr> {
    let mut v: Vec<Instr> = Compare::all().iter().filter_map(Instr::from_compare).collect();
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::BoolOp;

    #[test]
    fn every_comparison_a_program_holds_maps_to_an_instruction_and_back() {
        let forms = compare_forms();
        let count = |op: Opcode, combined: bool| {
            forms.iter().filter(|i| i.op == op && i.cmp.is_some_and(|c| c.combine.is_some()) == combined).count()
        };
        // setp: 14 float operators on f16, bf16, f32, f64, .ftz on f16 and f32 (14 x 6), and on
        // f16x2 (with and without .ftz) and bf16x2 (14 x 3), each alone and with .and/.or/.xor.
        assert_eq!((count(Opcode::Setp, false), count(Opcode::Setp, true)), (84 + 42, 3 * (84 + 42)));
        // selp.f32 and selp.f64, on the six integer types (9.7.6.3 has no 8-bit one) and the
        // three bit types.
        assert_eq!(count(Opcode::Selp, false), 2 + 6 + 3);
        assert!(count(Opcode::Set, false) > 100 && count(Opcode::Set, true) == 3 * count(Opcode::Set, false));
        for i in &forms {
            let c = i.as_compare().unwrap();
            assert_eq!(i.validate(), Ok(()), "{i}");
            assert_eq!(i.to_string(), c.to_string());
            assert_eq!(Instr::parse(&c.to_string(), c.inputs()), Ok(*i), "{c}");
            assert_eq!(i.requirement(), c.requirement(), "{c}");
            assert_eq!(i.dest_is_predicate(), i.op == Opcode::Setp);
            assert_eq!(i.reads_predicate(2), c.inputs() == 3, "{c}");
            assert!(!i.reads_predicate(0) && !i.reads_predicate(1));
        }
        // set's destination is its .dtype, its sources its .stype.
        let set = Instr::parse("set.lt.f16.f32", 2).unwrap();
        assert_eq!((set.ty, set.src_type()), (Type::F16, Type::F32));
        let and = Instr::parse("setp.lt.and.f32", 3).unwrap();
        assert_eq!(and.cmp.unwrap().combine, Some(BoolOp::And));
        // An integer .dtype is the integer end; the form's type is its .stype, the float end.
        let s32 = IntType { signed: true, bits: 32 };
        for text in ["set.lt.s32.f32", "set.ltu.and.s32.f32", "set.gt.ftz.u16.f16", "set.eq.s32.bf16x2"] {
            let i = forms.iter().find(|i| i.to_string() == text).unwrap_or_else(|| panic!("{text} is a program's form"));
            assert_eq!(i.ty, i.src_type(), "{text}");
            assert!(i.int_dest().is_some() && i.int_source().is_none(), "{text}");
        }
        assert_eq!(Instr::parse("set.lt.s32.f32", 2).unwrap().int_dest(), Some(s32));
        // Every integer .dtype of 9.7.6.1 and 9.7.7.1 over every float .stype.
        let int_sets = forms.iter().filter(|i| i.op == Opcode::Set && i.int_dest().is_some()).count();
        assert!(int_sets > 100, "{int_sets}");
    }

    #[test]
    fn an_integer_selp_reads_and_writes_its_integer_and_keeps_a_float_type_of_its_width() {
        for (text, ty) in [("selp.u16", Type::F16), ("selp.s16", Type::F16), ("selp.s32", Type::F32), ("selp.u64", Type::F64)] {
            let i = Instr::parse(text, 3).unwrap_or_else(|e| panic!("{text}: {e}"));
            let t = IntType::parse(&text[5..]).unwrap();
            assert_eq!((i.op, i.ty, i.selp_int, i.int_dest(), i.int_source()), (Opcode::Selp, ty, Some(t), Some(t), Some(t)), "{text}");
            assert_eq!(i.src_bits(0), t.bits, "{text}");
            assert!(i.reads_predicate(2) && !i.reads_predicate(0) && !i.dest_is_predicate(), "{text}");
            assert_eq!(i.to_string(), text);
        }
        // The field belongs to selp alone: on another opcode, or with a comparison, no form.
        let add = Instr { selp_int: Some(IntType { signed: true, bits: 32 }), ..Instr::parse("add.rn.f32", 2).unwrap() };
        assert!(add.validate().is_err() && add.as_compare().is_none());
        let setp = Instr { selp_int: Some(IntType { signed: true, bits: 32 }), ..Instr::parse("setp.lt.f32", 2).unwrap() };
        assert!(setp.validate().is_err());
        // selp.s32 picks the register bits as they are: c ? a : b.
        let i = Instr::parse("selp.s32", 3).unwrap();
        let e = crate::interp::eval(&i, &[0xffff_fffe, 7, 1]).unwrap();
        assert_eq!((e.primary_bits(), e.integer), (0xffff_fffe, Some(IntType { signed: true, bits: 32 })));
        assert_eq!(crate::interp::eval(&i, &[0xffff_fffe, 7, 0]).unwrap().primary_bits(), 7);
        // A value wider than the type is an operand error, not a silent truncation.
        assert!(crate::interp::eval(&i, &[1 << 32, 7, 0]).is_err());
    }

    #[test]
    fn a_bits_selp_is_one_form_per_width_typed_by_the_float_type_without_a_selp_of_its_own() {
        for (text, ty) in [("selp.b16", Type::F16), ("selp.b32", Type::F16x2), ("selp.b64", Type::F32x2)] {
            let i = Instr::parse(text, 3).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!((i.op, i.ty, i.selp_int, i.int_dest()), (Opcode::Selp, ty, None, None), "{text}");
            assert!(i.is_bits_selp() && i.reads_predicate(2) && !i.reads_predicate(1), "{text}");
            assert_eq!((i.to_string(), i.src_bits(0)), (text.to_string(), ty.bits()), "{text}");
            assert_eq!(i.validate(), Ok(()), "{text}");
        }
        // A bf16 or f32 type on a selp is no bits form: bf16 has no selp, selp.f32 is the float one.
        let b16 = Instr::parse("selp.b16", 3).unwrap();
        assert!(Instr { ty: Type::Bf16, ..b16 }.validate().is_err());
        assert!(!Instr::parse("selp.f32", 3).unwrap().is_bits_selp());
        // It picks bits: c ? a : b, NaN payloads and all.
        let e = crate::interp::eval(&b16, &[0x7e01, 0x3c00, 1]).unwrap();
        assert_eq!(e.primary_bits(), 0x7e01);
        assert_eq!(crate::interp::eval(&b16, &[0x7e01, 0x3c00, 0]).unwrap().primary_bits(), 0x3c00);
    }

    #[test]
    fn forms_programs_cannot_hold_are_refused_with_the_reason() {
        for (text, n) in [("setp.eq.u32", 2), ("set.lt.u32.u32", 2), ("set.eq.f32.b32", 2)] {
            let e = Instr::parse(text, n).unwrap_err().to_string();
            assert!(e.contains("a program holds") && e.contains("ptxfuzz eval"), "{text}: {e}");
        }
        // The operand count is the form's: .BoolOp and selp read a third, a predicate.
        let e = Instr::parse("setp.lt.and.f32", 2).unwrap_err().to_string();
        assert!(e.contains("a third source exactly with .BoolOp or selp"), "{e}");
        assert!(Instr::parse("selp.f32", 2).is_err() && Instr::parse("setp.lt.f32", 3).is_err());
        // A rule of the section, with it: .ftz is for f32 (and the f16 line), not f64.
        let e = Instr::parse("setp.lt.ftz.f64", 2).unwrap_err().to_string();
        assert!(e.contains(".ftz applies only") && e.contains("9.7.6"), "{e}");
        // One spelling per form (found by the text_roundtrip fuzz target).
        let e = Instr::parse("set.ftz.f16.f16.eq.and", 3).unwrap_err().to_string();
        assert!(e.contains("`set.eq.and.ftz.f16.f16`"), "{e}");
    }

    #[test]
    fn comparisons_evaluate_the_unordered_operators_the_combination_and_the_selection() {
        let p = |text: &str, ops: &[u64]| {
            let i = Instr::parse(text, ops.len()).unwrap();
            crate::interp::eval(&i, ops).unwrap().primary_bits()
        };
        let (nan, one, two) = (0x7fc0_0000, 0x3f80_0000, 0x4000_0000);
        assert_eq!((p("setp.ltu.f32", &[nan, one]), p("setp.lt.f32", &[nan, one])), (1, 0));
        assert_eq!((p("setp.ltu.f32", &[0, one]), p("setp.lt.f32", &[one, 0])), (1, 0));
        // (a < b) BoolOp c.
        assert_eq!((p("setp.lt.and.f32", &[0, one, 0]), p("setp.lt.or.f32", &[one, 0, 1])), (0, 1));
        assert_eq!(p("setp.lt.xor.f32", &[0, one, 1]), 0);
        // set writes 1.0 or 0.0 of its .dtype; a pair lane by lane.
        assert_eq!((p("set.lt.f32.f32", &[0, one]), p("set.lt.f16.f32", &[0, one])), (one, 0x3c00));
        assert_eq!(p("set.ge.f16x2.f16x2", &[0x3c00_0000, 0x0000_3c00]), 0x3c00_0000);
        // An integer .dtype: all ones or zero, as the integer register holds it (9.7.7.1:
        // "0xffffffff is written for destination types .u32/.s32"); 0xffff for .u16/.s16, and
        // a pair's halves lane by lane.
        assert_eq!((p("set.lt.u32.f32", &[0, one]), p("set.lt.s32.f32", &[one, 0])), (0xffff_ffff, 0));
        assert_eq!((p("set.ltu.u16.f16", &[0x7e00, 0x3c00]), p("set.lt.s16.bf16", &[0x3f80, 0])), (0xffff, 0));
        assert_eq!(p("set.ge.u32.f16x2", &[0x3c00_0000, 0x0000_3c00]), 0xffff_0000);
        let e = crate::interp::eval(&Instr::parse("set.lt.s32.f32", 2).unwrap(), &[0, one]).unwrap();
        assert_eq!(e.integer, Some(IntType { signed: true, bits: 32 }));
        // selp: c ? a : b.
        assert_eq!((p("selp.f32", &[one, two, 1]), p("selp.f32", &[one, two, 0])), (one, two));
    }
}
