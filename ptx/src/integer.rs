//! Integer types (`.u8` .. `.s64`) where floating-point instructions meet them: the
//! float-integer `cvt` (PTX ISA 9.7.9.21), a `set` with an integer destination (9.7.6.2), and
//! integer registers of programs. Below `cvt`, `expect` and `program`, which all name it.

/// An integer type of `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IntType {
    pub signed: bool,
    /// 8, 16, 32 or 64.
    pub bits: u32,
}

impl IntType {
    pub const ALL: [IntType; 8] = [
        IntType { signed: false, bits: 8 },
        IntType { signed: false, bits: 16 },
        IntType { signed: false, bits: 32 },
        IntType { signed: false, bits: 64 },
        IntType { signed: true, bits: 8 },
        IntType { signed: true, bits: 16 },
        IntType { signed: true, bits: 32 },
        IntType { signed: true, bits: 64 },
    ];

    /// `u8` .. `s64` (the PTX names without the dot).
    pub fn parse(name: &str) -> Option<IntType> {
        let (signed, bits) = name.split_at_checked(1)?;
        let signed = match signed {
            "s" => true,
            "u" => false,
            _ => return None,
        };
        let bits: u32 = bits.parse().ok()?;
        matches!(bits, 8 | 16 | 32 | 64).then_some(IntType { signed, bits })
    }

    pub fn name(self) -> &'static str {
        match (self.signed, self.bits) {
            (false, 8) => "u8",
            (false, 16) => "u16",
            (false, 32) => "u32",
            (false, 64) => "u64",
            (true, 8) => "s8",
            (true, 16) => "s16",
            (true, 32) => "s32",
            (true, 64) => "s64",
            _ => "int?",
        }
    }

    pub fn mask(self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// The value of `bits` (the low `self.bits` of them), sign-extended for a signed type.
    pub fn value(self, bits: u64) -> i128 {
        let b = bits & self.mask();
        if self.signed && b >> (self.bits - 1) & 1 == 1 {
            b as i128 - (1i128 << self.bits)
        } else {
            b as i128
        }
    }
}

impl IntType {
    /// The narrowest register that holds the type: `.b16` for the 8-bit types ("the .u8,
    /// .s8 and .b8 types are restricted to ld, st and cvt instructions", PTX ISA 5.2.2, and
    /// no register is narrower than 16 bits), else its own width.
    pub fn reg_bits(self) -> u32 {
        self.bits.max(16)
    }

    /// `bits` (a value of this type) as a register of `reg_bits` holds it: "if the
    /// corresponding instruction type is signed integer, the data is sign-extended;
    /// otherwise, the data is zero-extended" (PTX ISA, "Operand Size Exceeding
    /// Instruction-Type Size", destination operands).
    pub fn extend(self, bits: u64, reg_bits: u32) -> u64 {
        let v = self.value(bits) as u64;
        if reg_bits >= 64 {
            v
        } else {
            v & ((1u64 << reg_bits) - 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_8_bit_value_is_sign_or_zero_extended_into_a_16_bit_register() {
        let s8 = IntType { signed: true, bits: 8 };
        let u8 = IntType { signed: false, bits: 8 };
        assert_eq!(s8.reg_bits(), 16);
        assert_eq!(s8.extend(0xff, 16), 0xffff);
        assert_eq!(u8.extend(0xff, 16), 0x00ff);
        assert_eq!(s8.extend(0x7f, 16), 0x007f);
        let s64 = IntType { signed: true, bits: 64 };
        assert_eq!(s64.extend(u64::MAX, 64), u64::MAX);
        assert_eq!(IntType::parse("s32"), Some(IntType { signed: true, bits: 32 }));
        assert_eq!(IntType::parse("f32"), None);
    }
}
