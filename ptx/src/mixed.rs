//! Mixed-precision arithmetic (PTX ISA 9.7.5, issue 16 point 3): `add{.rnd}{.sat}.f32.atype
//! d, a, c`, `sub{.rnd}{.sat}.f32.atype d, a, c` and `fma.rnd{.sat}.f32.abtype d, a, b, c`
//! with `.atype = .abtype = { .f16, .bf16 }`, sm_100 and PTX ISA 8.6.
//!
//! Each section's Semantics is `d = convert(a) + c` (`- c`; `convert(a) * convert(b) + c`):
//! the f16/bf16 operands widen to f32 exactly (every f16 and bf16 is an f32), and the rest is
//! the f32 instruction with the same rounding and `.sat` (9.7.5.3's Notes: "computes the
//! product of a and b to infinite precision and then adds c ... then rounded to single
//! precision"). So the result set is the f32 form's ([`crate::interp::eval`]) on the widened
//! operands; the widening is `cvt.f32.{f16,bf16}` ([`crate::cvt`]), which keeps a NaN's
//! payload. There is no `.ftz` on these syntax lines: "By default, subnormal numbers are
//! supported". In programs each form is an [`Instr`] ([`crate::isa::mixed`]), evaluated by
//! `crate::interp`; this module is the family's table (spelling, forms, requirement).

use std::fmt;

use crate::expect::Expectation;
use crate::format::Scalar;
use crate::isa::{Instr, PtxVersion, Requirement};
use crate::rounding::Rounding;

/// The mixed-precision operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Add,
    Sub,
    Fma,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Fma => "fma",
        }
    }
    fn section(self) -> &'static str {
        match self {
            Op::Add => "PTX ISA 9.7.5.1 (mixed-precision add)",
            Op::Sub => "PTX ISA 9.7.5.2 (mixed-precision sub)",
            Op::Fma => "PTX ISA 9.7.5.3 (mixed-precision fma)",
        }
    }
}

/// One mixed-precision form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mixed {
    pub op: Op,
    /// `None`: add/sub's default, `.rn` ("The default value of rounding modifier is .rn").
    pub rounding: Option<Rounding>,
    pub sat: bool,
    /// `.atype`/`.abtype`: f16 or bf16.
    pub half: Scalar,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MixedError {
    #[error("'{text}': {why} (e.g. add.rn.f32.f16, sub.f32.bf16, fma.rz.sat.f32.bf16)")]
    Spelling { text: String, why: String },
    #[error("{form}: {rule} ({section})")]
    Illegal { form: String, rule: &'static str, section: &'static str },
    #[error("{form} takes {want} operand(s) ({names}), not {got}")]
    Operands { form: String, want: usize, names: &'static str, got: usize },
    #[error("{form}: operand 0x{value:x} does not fit a .{ty} register")]
    Width { form: String, value: u64, ty: &'static str },
    #[error("{0}")]
    Eval(String),
}

/// Whether `text` spells a mixed-precision form: two types, `.f32` then a half type.
pub fn is_mixed(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    matches!(parts.first(), Some(&("add" | "sub" | "fma"))) && parts.windows(2).any(|w| w[0] == "f32" && matches!(w[1], "f16" | "bf16"))
}

impl Mixed {
    pub fn parse(text: &str) -> Result<Mixed, MixedError> {
        let bad = |why: String| MixedError::Spelling { text: text.to_string(), why };
        let mut parts = text.split('.');
        let op = match parts.next() {
            Some("add") => Op::Add,
            Some("sub") => Op::Sub,
            Some("fma") => Op::Fma,
            _ => return Err(bad("not add, sub or fma".into())),
        };
        let (mut rounding, mut sat, mut types) = (None, false, Vec::new());
        for p in parts {
            let twice = match (p, Rounding::from_name(p)) {
                (_, Some(m)) => rounding.replace(m).is_some(),
                // Twice is allowed: 9.7.5.3's example writes `fma.rz.sat.f32.f16.sat`, and
                // ptxas 13.5 assembles it.
                ("sat", _) => {
                    sat = true;
                    false
                }
                ("f32" | "f16" | "bf16", _) => {
                    types.push(p);
                    false
                }
                ("ftz", _) => {
                    let rule = "no .ftz on the syntax line (\"By default, subnormal numbers are supported.\")";
                    return Err(MixedError::Illegal { form: text.to_string(), rule, section: op.section() });
                }
                _ => return Err(bad(format!("unknown modifier or type '.{p}'"))),
            };
            if twice {
                return Err(bad(format!("'.{p}' or a second rounding given twice")));
            }
        }
        let half = match types[..] {
            ["f32", "f16"] => Scalar::F16,
            ["f32", "bf16"] => Scalar::BF16,
            _ => return Err(bad("the types are .f32 then .f16 or .bf16".into())),
        };
        let m = Mixed { op, rounding, sat, half };
        if op == Op::Fma && rounding.is_none() {
            return Err(MixedError::Illegal { form: m.to_string(), rule: "\"Rounding modifiers(no default)\": fma.rnd is mandatory", section: op.section() });
        }
        Ok(m)
    }

    /// Every documented form: 3 operations x 2 half types x roundings x `.sat`.
    pub fn all() -> Vec<Mixed> {
        let mut out = Vec::new();
        for op in [Op::Add, Op::Sub, Op::Fma] {
            for half in [Scalar::F16, Scalar::BF16] {
                for rounding in std::iter::once(None).chain(Rounding::ALL.map(Some)) {
                    for sat in [false, true] {
                        if op != Op::Fma || rounding.is_some() {
                            out.push(Mixed { op, rounding, sat, half });
                        }
                    }
                }
            }
        }
        out
    }

    /// "requires sm_100 or higher", "introduced in PTX ISA version 8.6" (each section).
    pub fn requirement(&self) -> Requirement {
        Requirement::plain(100, PtxVersion::new(8, 6), self.op.section())
    }

    pub fn inputs(&self) -> usize {
        if self.op == Op::Fma {
            3
        } else {
            2
        }
    }

    /// Whether operand `i` is a half (`a`, and `b` for fma) rather than the f32 `c`.
    pub fn is_half_operand(&self, i: usize) -> bool {
        i + 1 < self.inputs()
    }

}

impl fmt::Display for Mixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.op.name())?;
        if let Some(m) = self.rounding {
            write!(f, ".{}", m.name())?;
        }
        if self.sat {
            f.write_str(".sat")?;
        }
        write!(f, ".f32.{}", self.half.name())
    }
}

/// The allowed results of `m` on `ops` (`a, c` or `a, b, c`; halves in their 16 bits): the
/// interpreter's, which widens the halves and runs the `.f32` form ([`Instr::from_mixed`]).
pub fn eval(m: &Mixed, ops: &[u64]) -> Result<Expectation, MixedError> {
    let names = if m.op == Op::Fma { "a, b: half; c: f32" } else { "a: half, c: f32" };
    if ops.len() != m.inputs() {
        return Err(MixedError::Operands { form: m.to_string(), want: m.inputs(), names, got: ops.len() });
    }
    for (i, &x) in ops.iter().enumerate() {
        let (ty, bits) = if m.is_half_operand(i) { (m.half, 16) } else { (Scalar::F32, 32) };
        if x >> bits != 0 {
            return Err(MixedError::Width { form: m.to_string(), value: x, ty: ty.name() });
        }
    }
    crate::interp::eval(&Instr::from_mixed(m), ops).map_err(|e| MixedError::Eval(e.to_string()))
}

#[cfg(test)]
#[path = "mixed_tests.rs"]
mod tests;
