//! `Signature`: what groups findings (one finding folder per signature): the instruction with
//! its modifiers, the mismatch class, the class of each operand, and the target's sm.
//!
//! The string form ([`Signature::key`]) is stable and file-name safe:
//! `add.rz.f32~rounding~normal.subnormal~sm90` (`~sm-` when the target has no sm, `input` as the
//! instruction when a program output is an input register read back). An operand's class is
//! `zero`, `subnormal`, `normal`, `inf` or `nan`; a predicate source's `false` or `true`; an
//! integer source's `zero`, `min`, `max` or `int` (any other value). Its hash
//! ([`Signature::hash64`]) is FNV-1a 64 of the key, stable across runs and platforms.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;
use ptx::format::{FpClass, Scalar};
use ptx::isa::Instr;
use serde::{Deserialize, Serialize};

/// Why a result is not allowed. Stable names (they appear in signatures and folder names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MismatchClass {
    /// A NaN where a number is required, or a number where only NaN is allowed.
    NanVsNumber,
    /// A NaN, but not one of the NaNs allowed (f64 payload rules, canonical NaNs).
    NanPayload,
    /// The right zero with the wrong sign.
    SignedZero,
    /// A nonzero number that is an allowed result with its sign bit flipped (a dropped or
    /// extra negation, `.xorsign`/`.abs` misapplied): the magnitude is right.
    Sign,
    /// The result is what the instruction gives with `.ftz` toggled (flushed vs not).
    Ftz,
    /// The result is what the instruction gives without its `.sat`/`.relu`, or lies outside
    /// the clamp's range.
    Sat,
    /// A number a few ulps off the exact result, or the result of another rounding mode.
    Rounding,
    /// An approximate result outside its documented error bound (by `excess` ulps).
    BoundExceeded,
    /// An approximate form whose special-case table fixes the result exactly, not followed.
    SpecialCaseTable,
    /// A comparison's other outcome: a `setp` predicate or a `set` lane inverted (1.0 for
    /// 0.0), or the operand a `selp` did not select (9.7.6.1-3).
    Comparison,
    /// Anything else: a wrong number far from the right one, a wrong predicate.
    Gross,
}

impl MismatchClass {
    pub const ALL: [MismatchClass; 11] = [
        MismatchClass::NanVsNumber,
        MismatchClass::NanPayload,
        MismatchClass::SignedZero,
        MismatchClass::Sign,
        MismatchClass::Ftz,
        MismatchClass::Sat,
        MismatchClass::Rounding,
        MismatchClass::BoundExceeded,
        MismatchClass::SpecialCaseTable,
        MismatchClass::Comparison,
        MismatchClass::Gross,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MismatchClass::NanVsNumber => "nan-vs-number",
            MismatchClass::NanPayload => "nan-payload",
            MismatchClass::SignedZero => "signed-zero",
            MismatchClass::Sign => "sign",
            MismatchClass::Ftz => "ftz",
            MismatchClass::Sat => "sat",
            MismatchClass::Rounding => "rounding",
            MismatchClass::BoundExceeded => "bound-exceeded",
            MismatchClass::SpecialCaseTable => "special-case-table",
            MismatchClass::Comparison => "comparison",
            MismatchClass::Gross => "gross",
        }
    }

    pub fn from_name(s: &str) -> Option<MismatchClass> {
        MismatchClass::ALL.into_iter().find(|c| c.name() == s)
    }
}

impl fmt::Display for MismatchClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}


/// The IEEE class of one operand lane (sign aside), or a predicate source's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OperandClass {
    Zero,
    Subnormal,
    Normal,
    Inf,
    Nan,
    /// A predicate source (`selp`'s `c`, a `.BoolOp`'s) that is false.
    False,
    /// A predicate source that is true.
    True,
    /// An integer source (`cvt.rn.f32.s32`'s) at its type's minimum (nonzero: signed types).
    IntMin,
    /// An integer source at its type's maximum.
    IntMax,
    /// Any other nonzero integer source (zero is `Zero`).
    Int,
}

impl OperandClass {
    pub const ALL: [OperandClass; 10] = [
        OperandClass::Zero,
        OperandClass::Subnormal,
        OperandClass::Normal,
        OperandClass::Inf,
        OperandClass::Nan,
        OperandClass::False,
        OperandClass::True,
        OperandClass::IntMin,
        OperandClass::IntMax,
        OperandClass::Int,
    ];

    /// A predicate source's class.
    pub fn of_predicate(bits: u64) -> OperandClass {
        if bits & 1 == 1 {
            OperandClass::True
        } else {
            OperandClass::False
        }
    }

    /// An integer source's class: zero, the type's edges, or another integer.
    pub fn of_int(t: ptx::integer::IntType, bits: u64) -> OperandClass {
        match t.value(bits) {
            0 => OperandClass::Zero,
            v if v == t.max() => OperandClass::IntMax,
            v if v == t.min() => OperandClass::IntMin,
            _ => OperandClass::Int,
        }
    }

    /// An element of an fp8 pair (`e4m3x2`, ...), by its format's class.
    pub fn of_narrow(n: ptx::narrow_format::Narrow, bits: u64) -> OperandClass {
        OperandClass::of_fp_class(ptx::narrow_format::classify(n, bits))
    }

    pub fn of(scalar: Scalar, lane_bits: u64) -> OperandClass {
        OperandClass::of_fp_class(scalar.classify(lane_bits))
    }

    fn of_fp_class(class: FpClass) -> OperandClass {
        match class {
            FpClass::Zero => OperandClass::Zero,
            FpClass::Subnormal => OperandClass::Subnormal,
            FpClass::Normal => OperandClass::Normal,
            FpClass::Infinite => OperandClass::Inf,
            FpClass::Nan => OperandClass::Nan,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            OperandClass::Zero => "zero",
            OperandClass::Subnormal => "subnormal",
            OperandClass::Normal => "normal",
            OperandClass::Inf => "inf",
            OperandClass::Nan => "nan",
            OperandClass::False => "false",
            OperandClass::True => "true",
            OperandClass::IntMin => "min",
            OperandClass::IntMax => "max",
            OperandClass::Int => "int",
        }
    }

    pub fn from_name(s: &str) -> Option<OperandClass> {
        OperandClass::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// What groups findings. See the module docs for the string form.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// The instruction whose result disagreed; `None`: an output that is an input register.
    pub instr: Option<Instr>,
    pub class: MismatchClass,
    /// Per source operand, the class of its lane that disagreed.
    pub operands: ArrayVec<OperandClass, 3>,
    /// The target's sm (`None` for engines without one: host, exec).
    pub sm: Option<u32>,
}

impl Signature {
    /// The stable string form (a file name: no `/`, no spaces).
    pub fn key(&self) -> String {
        self.to_string()
    }

    /// FNV-1a 64 of [`Signature::key`].
    pub fn hash64(&self) -> u64 {
        fnv1a(self.key().as_bytes())
    }
}

/// FNV-1a, 64 bits: stable by definition (std's hashers are not).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.instr {
            Some(i) => write!(f, "{i}")?,
            None => f.write_str("input")?,
        }
        write!(f, "~{}~", self.class.name())?;
        for (k, c) in self.operands.iter().enumerate() {
            if k > 0 {
                f.write_str(".")?;
            }
            f.write_str(c.name())?;
        }
        match self.sm {
            Some(sm) => write!(f, "~sm{sm}"),
            None => f.write_str("~sm-"),
        }
    }
}

/// Parsing the key back (reproducers name their signature).
impl FromStr for Signature {
    type Err = String;

    fn from_str(s: &str) -> Result<Signature, String> {
        let bad = |why: &str| format!("signature '{s}': {why}; expected INSTR~CLASS~OPERANDS~smXX");
        let parts: Vec<&str> = s.split('~').collect();
        let [instr, class, ops, sm] = parts[..] else { return Err(bad("not four '~'-separated fields")) };
        let class = MismatchClass::from_name(class).ok_or_else(|| bad("unknown class"))?;
        let operands = ops
            .split('.')
            .filter(|o| !o.is_empty())
            .map(|o| OperandClass::from_name(o).ok_or_else(|| bad("unknown operand class")))
            .collect::<Result<Vec<_>, _>>()?;
        if operands.len() > 3 {
            return Err(bad("more than 3 operands"));
        }
        let instr = if instr == "input" {
            None
        } else {
            let n = operands.len();
            Some(Instr::parse(instr, n).map_err(|e| bad(&e.to_string()))?)
        };
        let sm = match sm {
            "sm-" => None,
            _ => Some(sm.strip_prefix("sm").and_then(|n| n.parse().ok()).ok_or_else(|| bad("bad sm"))?),
        };
        Ok(Signature { instr, class, operands: operands.into_iter().collect(), sm })
    }
}

impl Serialize for Signature {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key())
    }
}

impl<'de> Deserialize<'de> for Signature {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Signature, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig() -> Signature {
        Signature {
            instr: Some(Instr::parse_default("add.rz.ftz.f32").unwrap()),
            class: MismatchClass::Rounding,
            operands: [OperandClass::Normal, OperandClass::Subnormal].into_iter().collect(),
            sm: Some(90),
        }
    }

    #[test]
    fn key_is_stable_and_parses_back() {
        let s = sig();
        assert_eq!(s.key(), "add.rz.ftz.f32~rounding~normal.subnormal~sm90");
        assert_eq!(s.key().parse::<Signature>().unwrap(), s);
        // FNV-1a of the key, pinned: folder names must not change between releases.
        assert_eq!(s.hash64(), fnv1a(b"add.rz.ftz.f32~rounding~normal.subnormal~sm90"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        let host = Signature { sm: None, instr: None, operands: ArrayVec::new(), ..s };
        assert_eq!(host.key(), "input~rounding~~sm-");
        assert_eq!(host.key().parse::<Signature>().unwrap(), host);
    }

    #[test]
    fn three_operand_forms_parse_back() {
        let s = Signature {
            instr: Some(Instr::parse("min.abs.f32", 3).unwrap()),
            class: MismatchClass::SignedZero,
            operands: [OperandClass::Zero, OperandClass::Zero, OperandClass::Nan].into_iter().collect(),
            sm: Some(100),
        };
        assert_eq!(s.key().parse::<Signature>().unwrap(), s);
        assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{}\"", s.key()));
    }

    #[test]
    fn an_integer_source_has_its_own_classes_and_parses_back() {
        let s32 = ptx::integer::IntType { signed: true, bits: 32 };
        let classes: Vec<OperandClass> = [0, 0x8000_0000, 0x7fff_ffff, 5].map(|v| OperandClass::of_int(s32, v)).into();
        assert_eq!(classes, [OperandClass::Zero, OperandClass::IntMin, OperandClass::IntMax, OperandClass::Int]);
        let s = Signature {
            instr: Some(Instr::parse("cvt.rn.f32.s32", 1).unwrap()),
            class: MismatchClass::Rounding,
            operands: [OperandClass::IntMin].into_iter().collect(),
            sm: Some(90),
        };
        assert_eq!(s.key(), "cvt.rn.f32.s32~rounding~min~sm90");
        assert_eq!(s.key().parse::<Signature>().unwrap(), s);
    }

    #[test]
    fn garbage_keys_are_errors() {
        for k in ["", "a~b", "add.rn.f32~nope~normal~sm90", "add.rn.f32~gross~normal.normal~smx"] {
            assert!(k.parse::<Signature>().is_err(), "{k}");
        }
    }
}
