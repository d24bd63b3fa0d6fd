//! A form's operand and result words (`crate::form`: `cvt`, `setp`, `set`, `selp`, mixed
//! precision) in decimal, as its registers read them: what `capture-check` and `sweep FORM`
//! print beside the hex. Apart from `form` itself, which `isa` (and so `program`) imports:
//! reading a word through [`ValType`] here adds no import cycle.

use crate::compare::{Kind, Ty};
use crate::cvt::narrow::Direction;
use crate::cvt::AnyCvt;
use crate::form::{Dest, Form, Operand, Reg};
use crate::integer::IntType;
use crate::isa::{Instr, Type};
use crate::program::ValType;
use crate::value::format_narrow_decimal;

/// A result word in decimal, as its destination reads it: the instruction the form spells
/// where there is one (the float and fp8 `cvt`s, mixed precision, the float comparisons), else
/// its destination's register type ([`Form::dest`]) and, for an untyped `.b16`/`.b32` one, the
/// family's element format.
pub fn result_decimal(form: &Form, word: u64) -> String {
    // A `setp`'s word holds p and q (the instruction reads as one predicate): both, `p|q`.
    if let Dest::Predicates { q } = form.dest() {
        return if q { ValType::PredPair } else { ValType::Pred }.format_decimal(word);
    }
    if let Ok(i) = Instr::parse_default(&form.to_string()) {
        return ValType::of_result(&i).format_decimal(word);
    }
    let int = |signed, bits| ValType::Int(IntType { signed, bits }).format_decimal(word);
    let float = |t: Type| ValType::Float(t).format_decimal(word);
    match (form, form.dest()) {
        (_, Dest::Predicates { .. } | Dest::Reg(Reg::Pred)) => ValType::Pred.format_decimal(word),
        (_, Dest::Reg(Reg::F32)) => float(Type::F32),
        (_, Dest::Reg(Reg::F64)) => float(Type::F64),
        (_, Dest::Reg(Reg::Signed(n))) => int(true, n),
        (_, Dest::Reg(Reg::Unsigned(n))) => int(false, n),
        // An integer converted to a half float, in a `.b16` register.
        (Form::Cvt(AnyCvt::Int(c)), _) if !c.to_int => float(Type::of(c.float, false)),
        (Form::Cvt(AnyCvt::StochasticQuad(c)), _) => lanes(c.dst, 4, word),
        // `set`'s destination is its dtype, `selp`'s its operands' type.
        (Form::Compare(c), Dest::Reg(Reg::Bits(n))) => match if let Kind::Set { dtype } = c.kind { dtype } else { c.ty } {
            Ty::Float(s) => float(Type::of(s, false)),
            Ty::Packed(s) => float(Type::of(s, true)),
            _ => int(false, n),
        },
        (_, Dest::Reg(Reg::Bits(n))) => int(false, n),
    }
}

/// Source operand `k`'s word in decimal, as the form reads it ([`Form::operands`]): a float's
/// lanes, an integer's value, a predicate's 0 or 1, an fp8 pair's elements (lane 0 first);
/// untyped bits (`cvt.rs`'s random bits) as an unsigned number. `None` past the last operand.
pub fn operand_decimal(form: &Form, k: usize, word: u64) -> Option<String> {
    let op = *form.operands().get(k)?;
    Some(match op {
        Operand::Float(s) => ValType::Float(Type::of(s, false)).format_decimal(word),
        Operand::Packed(s) => ValType::Float(Type::of(s, true)).format_decimal(word),
        Operand::NarrowPair { .. } => match form {
            Form::Cvt(AnyCvt::Narrow(c)) => match c.dir {
                Direction::Up { src, .. } => lanes(src, 2, word),
                Direction::Down { .. } => unsigned(op.bits(), word),
            },
            _ => unsigned(op.bits(), word),
        },
        Operand::Int(t) => ValType::Int(t).format_decimal(word),
        Operand::Bits(n) => unsigned(n, word),
        Operand::Pred => ValType::Pred.format_decimal(word),
    })
}

/// `n` elements of an fp8/fp6/fp4 format packed from bit 0 up, comma-separated, lane 0 first
/// (as `eval` prints a packed register).
fn lanes(n: crate::narrow_format::Narrow, count: u32, word: u64) -> String {
    let slot = n.slot_bits();
    (0..count).map(|i| format_narrow_decimal(n, word >> (i * slot) & ((1 << slot) - 1))).collect::<Vec<_>>().join(",")
}

fn unsigned(bits: u32, word: u64) -> String {
    ValType::Int(IntType { signed: false, bits }).format_decimal(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(form: &str, w: u64) -> String {
        result_decimal(&Form::parse(form).unwrap(), w)
    }

    fn operand(form: &str, k: usize, w: u64) -> String {
        operand_decimal(&Form::parse(form).unwrap(), k, w).unwrap()
    }

    #[test]
    fn a_result_word_reads_as_its_destination_type() {
        assert_eq!(result("cvt.rni.s32.f32", 0xffff_ffff), "-1");
        assert_eq!(result("cvt.rn.f16.f32", 0x4000), "2");
        assert_eq!(result("cvt.rn.bf16.s8", 0x4000), "2");
        assert_eq!(result("cvt.rni.u8.bf16", 0xff), "255");
        assert_eq!(result("setp.lt.u16", 0b01), "1|0");
        assert_eq!(result("setp.lt.f32", 0b10), "0|1");
        assert_eq!(result("set.lt.f32.u16", 0x3f80_0000), "1");
        assert_eq!(result("selp.s16", 0xffff), "-1");
        assert_eq!(result("cvt.rs.satfinite.e2m1x4.f32", 0x0012), "1,0.5,0,0");
        // 9.7.9.21: the low element is b's; 0x7e is e4m3's 448, 0x38 its 1.0.
        assert_eq!(result("cvt.rn.satfinite.e4m3x2.f32", 0x387e), "448,1");
    }

    #[test]
    fn an_operand_word_reads_as_the_form_reads_it() {
        assert_eq!(operand("cvt.rn.f16.f32", 0, 0x3f80_0000), "1");
        assert_eq!(operand("cvt.rn.f32.s16", 0, 0xffff), "-1");
        assert_eq!(operand("setp.lt.f16x2", 1, 0x4000_3c00), "1,2");
        assert_eq!(operand("cvt.rn.f16x2.e4m3x2", 0, 0x387e), "448,1");
        assert_eq!(operand("selp.f32", 2, 1), "1");
        assert_eq!(operand("cvt.rs.satfinite.e2m1x4.f32", 4, 0xffff_ffff), "4294967295");
        assert_eq!(operand_decimal(&Form::parse("selp.f32").unwrap(), 3, 0), None);
    }
}
