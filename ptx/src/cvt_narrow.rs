//! `cvt` to and from the 8-, 6- and 4-bit formats and `ue8m0` (PTX ISA 9.7.9.21, issue 16
//! point 1): `.e4m3x2 .e5m2x2 .e2m3x2 .e3m2x2 .e2m1x2 .ue8m0x2` from two `.f32` or one
//! `.f16x2`/`.bf16x2`, and back to `.f16x2` (`.bf16x2` for `ue8m0x2`). The formats are a
//! table ([`LAYOUTS`]), the spellings' legality another ([`RULES`]), and the result of each
//! lane comes from one small evaluator (`cvt_narrow_eval.rs`).
//!
//! Not here: the `.rs` (stochastic) forms (`cvt_stochastic.rs`), `.s2f6x2` with its scale
//! factors. Programs hold every form but the `.b8` `e2m1x2` ones (`crate::isa::conversion`).
//!
//! Targets: the section gives the f6/f4/ue8m0 forms to `sm_100a` (and `sm_100f` from PTX 8.8)
//! and the bf16x2/f16x2-sourced f6/f4 and bf16x2-sourced f8 ones to `sm_100f` only; ptxas 13.5
//! agrees (it refuses all of them on plain `sm_100`). ptxas 13.5 parses
//! `cvt.rz.satfinite.e4m3x2.f32` with PTX 9.4 or 9.5 but assembles it for none of its targets
//! ("not supported on .target", sm_90 through sm_121f, checked 2026-12-02), and the 9.1-era
//! text we cite does not document it: refused here, like every other undocumented spelling.

use std::fmt;

use crate::isa::PtxVersion;
use crate::rounding::Rounding;

pub use crate::narrow_format::{decode, Layout, Narrow, LAYOUTS};

#[path = "cvt_narrow_eval.rs"]
mod eval;
pub use eval::{eval, Allowed, Narrowed};
pub(crate) use eval::down;

/// The section every rule cites.
pub const SECTION: &str = "PTX ISA 9.7.9.21 (cvt)";

/// The wide side of the conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wide {
    /// Two `.f32` operands `a`, `b` (only as a source).
    F32,
    F16x2,
    Bf16x2,
}

impl Wide {
    pub fn name(self) -> &'static str {
        match self {
            Wide::F32 => "f32",
            Wide::F16x2 => "f16x2",
            Wide::Bf16x2 => "bf16x2",
        }
    }
}

/// Which way the conversion goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Wide to narrow: `cvt....{narrow}x2.{wide}`.
    Down { dst: Narrow, src: Wide },
    /// Narrow to wide: `cvt....{wide}.{narrow}x2`.
    Up { dst: Wide, src: Narrow },
}

/// One `cvt` form with a narrow type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NarrowCvt {
    pub dir: Direction,
    pub rounding: Option<Rounding>,
    pub relu: bool,
    pub satfinite: bool,
}

/// Architecture-specific targets (the section gives some forms to `sm_100a`, this sm only, or
/// to `sm_100f`, its family) and what a form needs: the instruction table's types
/// (`crate::isa::target`).
pub use crate::isa::target::{Requirement, Variant};

/// Why a spelling is not a documented narrow `cvt`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NarrowError {
    #[error("'{text}': {why} (e.g. cvt.rn.satfinite.e4m3x2.f32, cvt.rn.f16x2.e5m2x2, cvt.rp.satfinite.ue8m0x2.f32)")]
    Spelling { text: String, why: String },
    #[error("{form}: {rule} ({SECTION})")]
    Illegal { form: String, rule: &'static str },
    #[error("{form} takes {want} operand(s), not {got}")]
    Operands { form: String, want: usize, got: usize },
    #[error("{form}: operand 0x{value:x} does not fit the {bits}-bit source register")]
    Width { form: String, value: u64, bits: u32 },
}

type Rule = (fn(&NarrowCvt) -> bool, &'static str);

/// The legality rules, checked in order; each is true when the form breaks it.
const RULES: &[Rule] = &[
    (
        |c| matches!(c.dir, Direction::Down { src: Wide::F16x2, dst: Narrow::Ue8m0 }),
        "\"cvt.frnd3{.satfinite}.ue8m0x2.f32\" and \".ue8m0x2.bf16x2\" are the only ue8m0x2 sources (Syntax)",
    ),
    (
        |c| matches!(c.dir, Direction::Up { dst: Wide::F32, .. }) || matches!(c.dir, Direction::Up { dst: Wide::Bf16x2, src } if src != Narrow::Ue8m0) || matches!(c.dir, Direction::Up { dst: Wide::F16x2, src: Narrow::Ue8m0 }),
        "up-conversions are \"cvt.rn{.relu}.f16x2.{f8x2type, f6x2type, f4x2type}\" and \"cvt.rn.bf16x2.ue8m0x2\" (Syntax)",
    ),
    (
        |c| matches!(c.dir, Direction::Down { dst, .. } if dst != Narrow::Ue8m0) && !c.satfinite,
        "\".satfinite modifier is mandatory for such conversions\" (.e4m3x2, .e5m2x2, .e2m1x2, .e2m3x2, .e3m2x2 destinations)",
    ),
    (
        |c| matches!(c.dir, Direction::Down { dst: Narrow::Ue8m0, .. }) && !matches!(c.rounding, Some(Rounding::Rz | Rounding::Rp)),
        "\".frnd3 = { .rz, .rp }\" for .ue8m0x2 destinations (Syntax; \"Rounding modifier is mandatory ... .ue8m0x2\")",
    ),
    (
        |c| !matches!(c.dir, Direction::Down { dst: Narrow::Ue8m0, .. }) && c.rounding != Some(Rounding::Rn),
        "these forms are written cvt.rn... (Syntax; \"Rounding modifier is mandatory in all conversions involving\" these types; .rs is not covered yet)",
    ),
    (
        |c| c.relu && matches!(c.dir, Direction::Down { dst: Narrow::Ue8m0, .. } | Direction::Up { src: Narrow::Ue8m0, .. }),
        "no .relu on the ue8m0x2 syntax lines (the PTX ISA Notes name one for .ue8m0x2.bf16x2, ptxas 13.5 refuses it: \"Illegal modifier '.relu' ... with type '.ue8m0x2'\")",
    ),
    (
        |c| c.satfinite && matches!(c.dir, Direction::Up { .. }),
        "no .satfinite on the up-conversion syntax lines (.f16x2.f8x2type, .bf16x2.ue8m0x2)",
    ),
];

fn narrow_of(t: &str) -> Option<Narrow> {
    let base = t.strip_suffix("x2")?;
    LAYOUTS.iter().find(|r| r.1 == base).map(|r| r.0)
}

fn wide_of(t: &str) -> Option<Wide> {
    [Wide::F32, Wide::F16x2, Wide::Bf16x2].into_iter().find(|w| w.name() == t)
}

/// Whether `text` is a `cvt` with a narrow type (this module's, not `ptx::cvt`'s).
pub fn is_narrow(text: &str) -> bool {
    text.starts_with("cvt.") && text.split('.').any(|p| narrow_of(p).is_some() || p.ends_with("x4") || p == "s2f6x2")
}

impl NarrowCvt {
    pub fn parse(text: &str) -> Result<NarrowCvt, NarrowError> {
        let bad = |why: String| NarrowError::Spelling { text: text.to_string(), why };
        let mut parts = text.split('.');
        if parts.next() != Some("cvt") {
            return Err(bad("not a cvt".into()));
        }
        let (mut rounding, mut relu, mut satfinite) = (None, false, false);
        let mut types: Vec<&str> = Vec::new();
        for p in parts {
            let twice = match p {
                "relu" => std::mem::replace(&mut relu, true),
                "satfinite" => std::mem::replace(&mut satfinite, true),
                _ => match Rounding::from_name(p) {
                    Some(m) => rounding.replace(m).is_some(),
                    None if narrow_of(p).is_some() || wide_of(p).is_some() => {
                        types.push(p);
                        false
                    }
                    None => return Err(bad(format!("unknown modifier or type '.{p}' (.rs, the x4 destinations and .s2f6x2 are not covered yet)"))),
                },
            };
            if twice {
                return Err(bad(format!("'.{p}' or a second rounding given twice")));
            }
        }
        let [d, s] = types[..] else {
            return Err(bad("needs a destination and a source type".into()));
        };
        let dir = match (narrow_of(d), wide_of(d), narrow_of(s), wide_of(s)) {
            (Some(dst), _, _, Some(src)) => Direction::Down { dst, src },
            (_, Some(dst), Some(src), _) => Direction::Up { dst, src },
            _ => return Err(bad(format!("'.{d}.{s}': one type must be narrow (e4m3x2 ...), the other f32, f16x2 or bf16x2"))),
        };
        let c = NarrowCvt { dir, rounding, relu, satfinite };
        c.check()?;
        Ok(c)
    }

    /// The first documented rule the form breaks, if any.
    pub fn check(&self) -> Result<(), NarrowError> {
        match RULES.iter().find(|(breaks, _)| breaks(self)) {
            Some(&(_, rule)) => Err(NarrowError::Illegal { form: self.to_string(), rule }),
            None => Ok(()),
        }
    }

    /// Source operands: `a`, `b` for two `.f32`, else one register.
    pub fn inputs(&self) -> usize {
        match self.dir {
            Direction::Down { src: Wide::F32, .. } => 2,
            _ => 1,
        }
    }

    /// Width of the destination register.
    pub fn dst_bits(&self) -> u32 {
        match self.dir {
            Direction::Down { dst, .. } => dst.packed_bits(),
            Direction::Up { .. } => 32,
        }
    }

    /// The target each form needs (PTX ISA and Target ISA Notes of 9.7.9.21).
    pub fn needs(&self) -> Requirement {
        let n = |sm, variant, major, minor, section| Requirement { sm, variant, ptx: PtxVersion::new(major, minor), section };
        match self.dir {
            Direction::Down { dst, src: Wide::Bf16x2 } if dst.is_fp8() => n(100, Variant::F, 9, 1, "cvt.rn.satfinite{.relu}{.e5m2x2/.e4m3x2}{.bf16x2}: PTX ISA 9.1, sm_100f"),
            Direction::Down { dst, .. } if dst.is_fp8() => n(89, Variant::Plain, 8, 1, "cvt with .e4m3x2/.e5m2x2 for sm_89: PTX ISA 8.1"),
            Direction::Up { src, .. } if src.is_fp8() => n(89, Variant::Plain, 8, 1, "cvt with .e4m3x2/.e5m2x2 for sm_89: PTX ISA 8.1"),
            Direction::Down { dst: Narrow::Ue8m0, .. } | Direction::Up { src: Narrow::Ue8m0, .. } => n(100, Variant::A, 8, 6, "ue8m0x2 forms: PTX ISA 8.6, sm_100a"),
            Direction::Down { src: Wide::F32, .. } => n(100, Variant::A, 8, 6, "cvt.rn.satfinite{.relu}.{e2m1x2/e2m3x2/e3m2x2}.f32: PTX ISA 8.6, sm_100a"),
            Direction::Down { .. } => n(100, Variant::F, 9, 1, "cvt.rn.satfinite{.relu}{.e2m3x2/.e3m2x2/.e2m1x2}{.f16x2/.bf16x2}: PTX ISA 9.1, sm_100f"),
            Direction::Up { .. } => n(100, Variant::A, 8, 6, "cvt.rn{.relu}.f16x2.{e2m1x2/e2m3x2/e3m2x2}: PTX ISA 8.6, sm_100a"),
        }
    }

    /// The PTX ISA version the form needs on `sm` (at or above [`NarrowCvt::needs`]'s): the
    /// fp8 forms other than those from bf16x2 came to sm_90 in PTX 7.8 and to sm_89 only in
    /// 8.1 (PTX ISA Notes of 9.7.9.21; ptxas 13.5 assembles them with 7.8 on sm_90 and
    /// refuses 8.0 on sm_89: `ptx/tests/ptxas.rs`); every other form needs `needs().ptx`.
    pub fn ptx_on(&self, sm: u32) -> PtxVersion {
        let n = self.needs();
        if n.variant == Variant::Plain && sm >= 90 {
            PtxVersion::new(7, 8)
        } else {
            n.ptx
        }
    }

    /// Every documented form (the grid of types and modifiers, filtered by the rules).
    pub fn all() -> Vec<NarrowCvt> {
        let wides = [Wide::F32, Wide::F16x2, Wide::Bf16x2];
        let mut dirs = Vec::new();
        for n in Narrow::ALL {
            for w in wides {
                dirs.extend([Direction::Down { dst: n, src: w }, Direction::Up { dst: w, src: n }]);
            }
        }
        let mut out = Vec::new();
        for dir in dirs {
            for rounding in [None, Some(Rounding::Rn), Some(Rounding::Rz), Some(Rounding::Rm), Some(Rounding::Rp)] {
                for bits in 0..4u8 {
                    let c = NarrowCvt { dir, rounding, relu: bits & 1 == 1, satfinite: bits & 2 == 2 };
                    if c.check().is_ok() {
                        out.push(c);
                    }
                }
            }
        }
        out
    }
}

impl fmt::Display for NarrowCvt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cvt")?;
        if let Some(m) = self.rounding {
            write!(f, ".{}", m.name())?;
        }
        for (on, name) in [(self.satfinite, "satfinite"), (self.relu, "relu")] {
            if on {
                write!(f, ".{name}")?;
            }
        }
        match self.dir {
            Direction::Down { dst, src } => write!(f, ".{}x2.{}", dst.name(), src.name()),
            Direction::Up { dst, src } => write!(f, ".{}.{}x2", dst.name(), src.name()),
        }
    }
}

#[cfg(test)]
#[path = "cvt_narrow_tests.rs"]
mod tests;
