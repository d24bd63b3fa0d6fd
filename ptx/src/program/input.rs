//! What a program input may be (a float or an integer), and an input's value as text: the
//! hex and decimal that reproducers, the dashboard and `repro` print, and what they parse.

use crate::expect::Expectation;
use crate::isa::Type;
use crate::value::{format_register_decimal, parse_hex, parse_operand, ValueError};

use super::{ProgramError, ValType};

impl ValType {
    /// Whether a program input may have this type: a float, or an integer (whose values are
    /// drawn over its whole range, so that `cvt.rn.f32.s32` meets 2^24 + 1 and `selp.s64`
    /// any bits). A predicate, a tf32 or an fp8 pair is only ever an instruction's result.
    pub fn is_input(self) -> bool {
        matches!(self, ValType::Float(_) | ValType::Int(_))
    }

    /// [`ValType::is_input`] as the error that says what to declare instead; `reg` names the
    /// input.
    pub(crate) fn check_input(self, reg: &str) -> Result<(), ProgramError> {
        let reg = reg.to_string();
        match self {
            ValType::Float(_) | ValType::Int(_) => Ok(()),
            ValType::Pred | ValType::PredPair => Err(ProgramError::PredicateInput { reg, name: self.name().to_string() }),
            ValType::Tf32 => Err(ProgramError::Tf32Input { reg }),
            ValType::Narrow(n) => {
                let advice = if n.packed_bits() == 8 {
                    // No other value lives in a `.b8` register (`RegClass::B8`).
                    "an e2m1x2 pair (a .b8 register) is only ever a cvt's result: define it from two f32 \
                     inputs with cvt.rn.satfinite.e2m1x2.f32"
                } else {
                    "a narrow pair's source (cvt.rn.f16x2.e4m3x2, ...) reads the bits of any .b16 register: \
                     declare the input f16"
                };
                Err(ProgramError::NarrowInput { reg, name: self.name().to_string(), advice })
            }
        }
    }

    /// Exactly `bits` in a register of this input type (an input read back unchanged).
    pub fn exact_input(self, bits: u64) -> Expectation {
        match self {
            ValType::Int(t) => Expectation::integer_register(t, bits),
            ValType::Float(t) => Expectation::exact_register(t, bits),
            // Never an input (`check_input`); as a register, its bits.
            ValType::Pred => Expectation::predicate(bits & 1 == 1),
            ValType::PredPair => Expectation::predicate_pair(bits & 1 == 1, bits & 2 == 2),
            ValType::Tf32 => Expectation::exact_register(Type::F32, bits),
            ValType::Narrow(_) => Expectation::exact_register(Type::F16, bits),
        }
    }

    /// A register value of this type in hex, zero-padded to the register.
    pub fn format_hex(self, bits: u64) -> String {
        format!("0x{:0w$x}", bits, w = (self.bits().max(4) / 4) as usize)
    }

    /// A register value of this type in decimal: a float's lanes (`format_register_decimal`),
    /// an integer's signed or unsigned value (its bits above the type's width ignored, as a
    /// `cvt` reading it ignores them).
    pub fn format_decimal(self, bits: u64) -> String {
        match self {
            ValType::Int(t) => t.value(bits).to_string(),
            ValType::Float(t) => format_register_decimal(t, bits),
            ValType::Pred => (bits & 1).to_string(),
            // `p|q`, as `ptxfuzz eval setp.lt.f16x2` prints it.
            ValType::PredPair => format!("{}|{}", bits & 1, (bits >> 1) & 1),
            ValType::Tf32 => format_register_decimal(Type::F32, bits),
            // Two fp8 elements, lane 0 (the low byte) first, as `eval` prints the pair: an f16
            // reading of the `.b16` register would be another number altogether.
            ValType::Narrow(n) => {
                let slot = n.slot_bits();
                let lane = |i: u32| crate::value::format_narrow_decimal(n, bits >> (i * slot) & ((1 << slot) - 1));
                format!("{},{}", lane(0), lane(1))
            }
        }
    }

    /// An input value: `0x..` register bits, or a decimal (a float's lanes as
    /// [`parse_operand`] takes them; an integer within its type's range, stored sign- or
    /// zero-extended in its register as a `cvt` to the type writes it).
    pub fn parse_input(self, text: &str) -> Result<u64, ValueError> {
        let not_a_number = || ValueError::NotANumber { text: text.to_string() };
        let hex = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"));
        match (self, hex) {
            (ValType::Float(t), _) => parse_operand(t, text),
            (ValType::Int(t), None) => {
                let v: i128 = text.trim().parse().map_err(|_| not_a_number())?;
                if !(t.min()..=t.max()).contains(&v) {
                    return Err(ValueError::OutOfRange { text: text.to_string(), ty: t.name(), min: t.min(), max: t.max() });
                }
                Ok(t.extend(v as u64, t.reg_bits()))
            }
            (_, None) => Err(not_a_number()),
            (_, Some(h)) => match (parse_hex(h).ok_or_else(not_a_number)?, self.bits()) {
                (v, b) if b < 64 && v >> b != 0 => Err(ValueError::TooWide { text: text.to_string(), bits: b, ty: self.name() }),
                (v, _) => Ok(v),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integer::IntType;

    const S8: ValType = ValType::Int(IntType { signed: true, bits: 8 });
    const U64: ValType = ValType::Int(IntType { signed: false, bits: 64 });
    const S32: ValType = ValType::Int(IntType { signed: true, bits: 32 });

    #[test]
    fn an_fp8_pair_prints_its_two_elements_not_an_f16() {
        // 0x7e is e4m3's 448 and 0x38 its 1.0; the low byte is lane 0. Read as f16, 0x387e
        // would be 0.5615.
        assert_eq!(ValType::Narrow(crate::isa::Narrow::E4m3).format_decimal(0x387e), "448,1");
        assert_eq!(ValType::Narrow(crate::isa::Narrow::E5m2).format_decimal(0x7c00), "0,inf");
    }

    #[test]
    fn integer_inputs_print_in_their_register_and_as_their_value() {
        assert_eq!((S8.format_hex(0xff80), S8.format_decimal(0xff80)), ("0xff80".into(), "-128".into()));
        assert_eq!((S32.format_hex(0x0100_0001), S32.format_decimal(0x0100_0001)), ("0x01000001".into(), "16777217".into()));
        assert_eq!(U64.format_decimal(u64::MAX), "18446744073709551615");
        assert_eq!(ValType::Float(Type::F32).format_decimal(0x3fc0_0000), "1.5");
    }

    #[test]
    fn integer_inputs_parse_as_decimal_within_range_or_register_bits() {
        assert_eq!(S8.parse_input("-128"), Ok(0xff80), "sign-extended into the .b16 register");
        assert_eq!(S8.parse_input("0x0080"), Ok(0x0080), "hex is the register's bits as given");
        assert!(matches!(S8.parse_input("128"), Err(ValueError::OutOfRange { .. })));
        assert!(S8.parse_input("128").unwrap_err().to_string().contains("-128..=127"));
        assert!(matches!(S8.parse_input("0x10000"), Err(ValueError::TooWide { bits: 16, .. })));
        assert_eq!(U64.parse_input("18446744073709551615"), Ok(u64::MAX));
        assert!(matches!(U64.parse_input("1.5"), Err(ValueError::NotANumber { .. })));
        assert_eq!(ValType::Float(Type::F32).parse_input("1.5"), Ok(0x3fc0_0000));
        // A type that is never an input takes hex bits only, and refuses the rest.
        assert_eq!(ValType::Pred.parse_input("0x1"), Ok(1));
        assert!(matches!(ValType::Pred.parse_input("1"), Err(ValueError::NotANumber { .. })));
    }

    #[test]
    fn only_floats_and_integers_are_inputs() {
        assert!(S8.is_input() && ValType::Float(Type::F16).is_input());
        for t in [ValType::Pred, ValType::Tf32] {
            assert!(!t.is_input() && t.check_input("%x").is_err());
        }
    }
}
