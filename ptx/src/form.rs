//! The forms outside [`crate::isa::Instr`] as one type (issue 16): every `cvt` family,
//! `setp`/`set`/`selp` and the mixed-precision `add`/`sub`/`fma`. One parse order, one list of
//! every documented form, their operand and register types (one table per family:
//! [`Form::operands`], [`Form::dest`]), the target each needs, and its result on operands
//! ([`Form::eval`], in `form_eval.rs`). The batched kernel (`crate::form_kernel`), the capture of
//! these forms and the engines' `run_forms` all read these.

use std::fmt;

use crate::compare::{Compare, CompareError, Kind, Ty};
use crate::cvt::int::IntType;
use crate::cvt::narrow::{Direction, Requirement, Variant, Wide};
use crate::cvt::{AnyCvt, AnyCvtError};
use crate::isa::PtxVersion;
use crate::mixed::{Mixed, MixedError};
use crate::Scalar;

#[path = "form_eval.rs"]
mod eval;
pub use eval::{Answer, Judged};

/// A form outside `Instr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    Cvt(AnyCvt),
    Compare(Compare),
    Mixed(Mixed),
}

/// Why a spelling is not one of these forms: the family's own error, or no family claims it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormError {
    #[error(transparent)]
    Cvt(#[from] AnyCvtError),
    #[error(transparent)]
    Compare(#[from] CompareError),
    #[error(transparent)]
    Mixed(#[from] MixedError),
    #[error("{form} takes {want} operand(s), not {got}")]
    Operands { form: String, want: usize, got: usize },
    #[error("{form}: operand {index} = 0x{value:x} has more than {bits} bit(s)")]
    Width { form: String, index: usize, value: u64, bits: u32 },
    #[error("'{0}' is not a cvt, setp, set, selp or mixed-precision add/sub/fma form (e.g. cvt.rn.bf16.f32, setp.ltu.f32, fma.rn.f32.bf16)")]
    Unknown(String),
}

/// A PTX register type (`.b16`, `.f32`, `.s8`, `.pred`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reg {
    Bits(u32),
    Unsigned(u32),
    Signed(u32),
    F32,
    F64,
    Pred,
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reg::Bits(n) => write!(f, ".b{n}"),
            Reg::Unsigned(n) => write!(f, ".u{n}"),
            Reg::Signed(n) => write!(f, ".s{n}"),
            Reg::F32 => f.write_str(".f32"),
            Reg::F64 => f.write_str(".f64"),
            Reg::Pred => f.write_str(".pred"),
        }
    }
}

/// What a source operand holds: what values to draw for it and which register carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// One float of this format.
    Float(Scalar),
    /// Two lanes of a half format in 32 bits, lane 0 low.
    Packed(Scalar),
    /// Two narrow-format lanes (`e4m3x2`, `e2m1x2`, ...) in `bits` bits: any bit pattern.
    NarrowPair { bits: u32 },
    /// An integer of this type.
    Int(IntType),
    /// Untyped bits (`.b16`, `.b32`, ...; `cvt.rs`'s random bits).
    Bits(u32),
    /// A predicate, 0 or 1.
    Pred,
}

impl Operand {
    /// Width of the value in its word.
    pub fn bits(self) -> u32 {
        match self {
            Operand::Float(s) => s.bits(),
            Operand::Packed(_) => 32,
            Operand::NarrowPair { bits } | Operand::Bits(bits) => bits,
            Operand::Int(t) => t.bits,
            Operand::Pred => 1,
        }
    }

    /// The register that carries it (PTX ISA 5.2.1: "the f16 and bf16 ... are stored in .b16
    /// registers"; 9.7.6.1-3: the packed types in `.b32`).
    pub fn reg(self) -> Reg {
        match self {
            Operand::Float(Scalar::F16 | Scalar::BF16) => Reg::Bits(16),
            Operand::Float(Scalar::F32) => Reg::F32,
            Operand::Float(Scalar::F64) => Reg::F64,
            Operand::Packed(_) => Reg::Bits(32),
            Operand::NarrowPair { bits } | Operand::Bits(bits) => Reg::Bits(bits),
            Operand::Int(t) if t.signed => Reg::Signed(t.bits),
            Operand::Int(t) => Reg::Unsigned(t.bits),
            Operand::Pred => Reg::Pred,
        }
    }
}

/// What a form writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    Reg(Reg),
    /// `setp`: `p`, and `q` unless the source is a scalar half (its syntax has no `q`).
    Predicates { q: bool },
}

/// A comparison operand (9.7.6.1-3: each `Ty` its own kind of value).
fn compare_operand(t: Ty) -> Operand {
    match t {
        Ty::Float(s) => Operand::Float(s),
        Ty::Packed(s) => Operand::Packed(s),
        Ty::Bits(n) => Operand::Bits(n),
        Ty::Int(i) => Operand::Int(i),
    }
}

/// A `cvt` wide operand of the narrow family: one f32, or a packed half pair.
fn wide_operand(w: Wide) -> Operand {
    match w {
        Wide::F32 => Operand::Float(Scalar::F32),
        Wide::F16x2 => Operand::Packed(Scalar::F16),
        Wide::Bf16x2 => Operand::Packed(Scalar::BF16),
    }
}

impl Form {
    /// Parse `text` in the family that claims it (`cvt.` the `cvt` families, `setp.`/`set.`/
    /// `selp.` the comparisons, an `add`/`sub`/`fma` with `.f32` then a half type the mixed ones).
    pub fn parse(text: &str) -> Result<Form, FormError> {
        if text.starts_with("cvt.") {
            Ok(Form::Cvt(AnyCvt::parse(text)?))
        } else if ["setp.", "set.", "selp."].iter().any(|p| text.starts_with(p)) {
            Ok(Form::Compare(Compare::parse(text)?))
        } else if crate::mixed::is_mixed(text) {
            Ok(Form::Mixed(Mixed::parse(text)?))
        } else {
            Err(FormError::Unknown(text.to_string()))
        }
    }

    /// Every documented form, in family order.
    pub fn all() -> Vec<Form> {
        let cvt = AnyCvt::all().into_iter().map(Form::Cvt);
        let compare = Compare::all().into_iter().map(Form::Compare);
        cvt.chain(compare).chain(Mixed::all().into_iter().map(Form::Mixed)).collect()
    }

    /// The source operands, in operand order.
    pub fn operands(&self) -> Vec<Operand> {
        match self {
            Form::Cvt(AnyCvt::Float(c)) => vec![Operand::Float(c.src); c.inputs()],
            Form::Cvt(AnyCvt::Int(c)) if c.to_int => vec![Operand::Float(c.float)],
            Form::Cvt(AnyCvt::Int(c)) => vec![Operand::Int(c.int)],
            Form::Cvt(AnyCvt::Narrow(c)) => match c.dir {
                Direction::Down { src, .. } => vec![wide_operand(src); c.inputs()],
                Direction::Up { src, .. } => vec![Operand::NarrowPair { bits: src.packed_bits() }],
            },
            Form::Cvt(AnyCvt::Tf32(_)) => vec![Operand::Float(Scalar::F32)],
            // a, b (and e, f for an x4 destination), then the random bits (9.7.9.21: "rbits ...
            // .b32").
            Form::Cvt(c @ (AnyCvt::Stochastic(_) | AnyCvt::StochasticQuad(_))) => {
                let mut r = vec![Operand::Float(Scalar::F32); c.inputs() - 1];
                r.push(Operand::Bits(32));
                r
            }
            Form::Compare(c) => {
                let mut r = vec![compare_operand(c.ty); 2];
                if c.bool_op.is_some() || c.kind == Kind::Selp {
                    r.push(Operand::Pred);
                }
                r
            }
            Form::Mixed(m) => (0..m.inputs())
                .map(|i| Operand::Float(if m.is_half_operand(i) { m.half } else { Scalar::F32 }))
                .collect(),
        }
    }

    /// The source registers, in operand order. The narrow family's wide sources are `.b32`
    /// (9.7.9.21's syntax: "cvt.frnd2{.relu}{.satfinite}.f8x2type.f32 d, a, b" with `.b32`-typed
    /// a and b, as ptxas 13.5 takes them).
    pub fn sources(&self) -> Vec<Reg> {
        match self {
            Form::Cvt(AnyCvt::Narrow(c)) => match c.dir {
                Direction::Down { .. } => vec![Reg::Bits(32); c.inputs()],
                Direction::Up { src, .. } => vec![Reg::Bits(src.packed_bits())],
            },
            _ => self.operands().into_iter().map(Operand::reg).collect(),
        }
    }

    /// The destination.
    pub fn dest(&self) -> Dest {
        let float = |s: Scalar| Operand::Float(s).reg();
        match self {
            Form::Cvt(AnyCvt::Float(c)) if c.packed => Dest::Reg(Reg::Bits(32)),
            Form::Cvt(AnyCvt::Float(c)) => Dest::Reg(float(c.dst)),
            Form::Cvt(AnyCvt::Int(c)) if c.to_int => Dest::Reg(Operand::Int(c.int).reg()),
            Form::Cvt(AnyCvt::Int(c)) => Dest::Reg(float(c.float)),
            Form::Cvt(AnyCvt::Narrow(c)) => Dest::Reg(Reg::Bits(c.dst_bits())),
            Form::Cvt(AnyCvt::Tf32(_) | AnyCvt::Stochastic(_)) => Dest::Reg(Reg::Bits(32)),
            // "d has .b32 type" (".b16" for .e2m1x4), 9.7.9.21.
            Form::Cvt(AnyCvt::StochasticQuad(c)) => Dest::Reg(Reg::Bits(c.dst_bits())),
            Form::Compare(c) => match c.kind {
                Kind::Setp => Dest::Predicates { q: !matches!(c.ty, Ty::Float(Scalar::F16 | Scalar::BF16)) },
                Kind::Set { dtype } => Dest::Reg(compare_operand(dtype).reg()),
                Kind::Selp => Dest::Reg(compare_operand(c.ty).reg()),
            },
            Form::Mixed(_) => Dest::Reg(Reg::F32),
        }
    }

    /// Width of the result word's meaningful bits (`setp`: 2, p and q).
    pub fn result_bits(&self) -> u32 {
        match self.dest() {
            Dest::Predicates { .. } => 2,
            Dest::Reg(Reg::Bits(n) | Reg::Unsigned(n) | Reg::Signed(n)) => n,
            Dest::Reg(Reg::F32) => 32,
            Dest::Reg(Reg::F64) => 64,
            Dest::Reg(Reg::Pred) => 1,
        }
    }

    /// The target the form needs (each family's table: sm, the `a`/`f` variant, PTX version).
    pub fn needs(&self) -> Requirement {
        match self {
            Form::Cvt(AnyCvt::Float(c)) => c.requirement(),
            Form::Cvt(AnyCvt::Int(c)) => c.requirement(),
            Form::Cvt(AnyCvt::Tf32(c)) => c.requirement(),
            Form::Cvt(AnyCvt::Narrow(c)) => c.needs(),
            Form::Cvt(AnyCvt::Stochastic(c)) => c.needs(),
            Form::Cvt(AnyCvt::StochasticQuad(c)) => c.needs(),
            Form::Compare(c) => c.requirement(),
            Form::Mixed(m) => m.requirement(),
        }
    }

    /// The lowest `.target` and PTX ISA version the form's table allows (`sm_100a` where a
    /// form is architecture-specific).
    pub fn minimal_target(&self) -> (String, PtxVersion) {
        let n = self.needs();
        (n.target(), n.ptx)
    }

    /// Whether the form needs an architecture-specific target (`sm_XXXa`/`f`): such a module
    /// loads only on that sm (family), never on a later one.
    pub fn is_arch_specific(&self) -> bool {
        self.needs().variant != Variant::Plain
    }

    /// The `.target` to compile the form for on an sm_`sm` GPU, or `None` where it cannot run
    /// there: a plain form from its sm on; an `a` form on exactly its sm (PTX ISA 5.1,
    /// "architecture-specific features ... not forward compatible"); an `f` form on its sm
    /// and later ones of the same family (the same tens digit: sm_100f runs on sm_103).
    pub fn target_on(&self, sm: u32) -> Option<String> {
        let n = self.needs();
        // The rule is `Target::has`'s; the first suffix that has the form, `f` before `a` (an
        // `f` form on sm_103 is compiled for sm_103f, which the whole family loads).
        [Variant::Plain, Variant::F, Variant::A]
            .into_iter()
            .map(|variant| crate::isa::Target { sm, variant, ptx: n.ptx })
            .find(|t| t.has(&n))
            .map(|t| t.arch().to_string())
    }

    /// Whether the form's spelling starts with `prefix` at a `.` boundary: `cvt` and
    /// `cvt.rn.bf16` select `cvt.rn.bf16.f32`, `set` does not select `setp.lt.f32`.
    pub fn matches(&self, prefix: &str) -> bool {
        let name = self.to_string();
        name == prefix || name.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('.'))
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Form::Cvt(c) => c.fmt(f),
            Form::Compare(c) => c.fmt(f),
            Form::Mixed(m) => m.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(text: &str) -> Form {
        Form::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn every_documented_form_parses_back_to_itself() {
        let all = Form::all();
        assert!(all.len() > 1000, "{} forms", all.len());
        for f in all {
            assert_eq!(Form::parse(&f.to_string()), Ok(f), "{f}");
        }
    }

    #[test]
    fn parse_names_the_family_rule_or_says_no_family_claims_it() {
        assert!(matches!(form("cvt.rn.bf16.f32"), Form::Cvt(_)));
        assert!(matches!(form("setp.ltu.f32"), Form::Compare(_)));
        assert!(matches!(form("fma.rn.f32.bf16"), Form::Mixed(_)));
        assert!(matches!(Form::parse("add.rn.f32"), Err(FormError::Unknown(_))));
        assert!(matches!(Form::parse("setp.xx.f32"), Err(FormError::Compare(_))));
    }

    #[test]
    fn registers_follow_each_family_table() {
        let f = form("cvt.rn.f16x2.f32");
        assert_eq!((f.sources(), f.dest()), (vec![Reg::F32, Reg::F32], Dest::Reg(Reg::Bits(32))));
        let f = form("cvt.rni.s8.bf16");
        assert_eq!((f.sources(), f.dest()), (vec![Reg::Bits(16)], Dest::Reg(Reg::Signed(8))));
        let f = form("cvt.rn.satfinite.e2m1x2.f32");
        assert_eq!((f.sources(), f.dest()), (vec![Reg::Bits(32), Reg::Bits(32)], Dest::Reg(Reg::Bits(8))));
        assert_eq!(f.operands(), vec![Operand::Float(Scalar::F32); 2]);
        let f = form("cvt.rn.f16x2.e2m1x2");
        assert_eq!((f.operands(), f.result_bits()), (vec![Operand::NarrowPair { bits: 8 }], 32));
        let f = form("cvt.rs.bf16x2.f32");
        assert_eq!(f.sources(), vec![Reg::F32, Reg::F32, Reg::Bits(32)]);
        // An x4 destination: a, b, e, f and rbits in, a .b32 out (.b16 for e2m1x4).
        let f = form("cvt.rs.relu.satfinite.e3m2x4.f32");
        assert_eq!((f.sources(), f.dest()), (vec![Reg::F32, Reg::F32, Reg::F32, Reg::F32, Reg::Bits(32)], Dest::Reg(Reg::Bits(32))));
        assert_eq!(form("cvt.rs.satfinite.e2m1x4.f32").result_bits(), 16);
        assert_eq!(form("setp.lt.f16x2").dest(), Dest::Predicates { q: true });
        assert_eq!(form("setp.lt.f16").dest(), Dest::Predicates { q: false });
        assert_eq!(form("setp.lt.and.f32").sources(), vec![Reg::F32, Reg::F32, Reg::Pred]);
        assert_eq!(form("selp.s16").sources(), vec![Reg::Signed(16), Reg::Signed(16), Reg::Pred]);
        let f = form("fma.rn.f32.bf16");
        assert_eq!((f.sources(), f.dest()), (vec![Reg::Bits(16), Reg::Bits(16), Reg::F32], Dest::Reg(Reg::F32)));
    }

    #[test]
    fn targets_follow_the_variant_rules() {
        assert_eq!(form("cvt.rs.bf16x2.f32").minimal_target(), ("sm_100a".to_string(), PtxVersion::new(8, 7)));
        assert!(form("cvt.rs.bf16x2.f32").is_arch_specific() && !form("cvt.rn.bf16.f32").is_arch_specific());
        // A plain form from its sm on; an `a` form only on its own sm.
        assert_eq!(form("cvt.rn.bf16.f32").target_on(90).as_deref(), Some("sm_90"));
        assert_eq!(form("cvt.rn.bf16.f32").target_on(70), None);
        assert_eq!(form("cvt.rs.bf16x2.f32").target_on(100).as_deref(), Some("sm_100a"));
        assert_eq!(form("cvt.rs.bf16x2.f32").target_on(90), None);
        assert_eq!(form("cvt.rs.bf16x2.f32").target_on(120), None);
        // An f form: its family, with the f suffix.
        let f = form("cvt.rn.satfinite.e2m3x2.bf16x2");
        assert_eq!((f.target_on(100).as_deref(), f.target_on(103).as_deref()), (Some("sm_100f"), Some("sm_103f")));
        assert_eq!((f.target_on(90), f.target_on(110)), (None, None));
        assert_eq!(form("fma.rn.f32.bf16").target_on(90), None);
    }

    #[test]
    fn a_prefix_selects_at_a_dot_boundary() {
        assert!(form("cvt.rn.bf16.f32").matches("cvt") && form("cvt.rn.bf16.f32").matches("cvt.rn.bf16"));
        assert!(!form("setp.lt.f32").matches("set") && form("set.lt.u32.f32").matches("set"));
        assert!(form("cvt.rn.bf16.f32").matches("cvt.rn.bf16.f32") && !form("cvt.rn.bf16.f32").matches("cvt.rn.bf"));
    }
}
