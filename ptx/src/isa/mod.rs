//! The instruction model: opcodes, types and modifiers of PTX floating-point instructions.
//!
//! An [`Instr`] is one instruction form (`min.ftz.NaN.xorsign.abs.f32` with 2 inputs), never
//! its operands. Which forms are legal lives in [`rules`], from which `sm_XX` and PTX ISA version
//! in [`requirements`], the API over both in [`table`], every legal form in [`forms`], and the
//! PTX spelling in [`text`]. A float-to-float `cvt` (PTX ISA 9.7.9.21) is an `Instr` too, so
//! that programs carry it like any other form: its legality, target and result are those of
//! [`crate::cvt::Cvt`], to which [`conversion`] maps it. So are the float comparisons a
//! program can hold, `setp` and `set` (with or without `.BoolOp`) and `selp` (9.7.6.1-3,
//! 9.7.7.1-2), through [`comparison`] to [`crate::compare::Compare`], and the mixed-precision
//! `add`/`sub`/`fma` of sm_100 (9.7.5.1-3: `add.rn.f32.bf16 d, a, c`), through [`mixed`] to
//! [`crate::mixed::Mixed`].

#[cfg(test)]
mod census;
pub mod comparison;
pub mod conversion;
mod diagnose;
pub mod forms;
pub mod mixed;
pub mod requirements;
pub mod rules;
pub mod stochastic;
pub mod table;
pub mod target;
pub mod text;

pub use forms::all_forms;
pub use table::IsaError;
pub use target::{Arch, PtxVersion, Requirement, Target, Variant};

pub use crate::compare::{BoolOp, CmpOp};
use crate::format::Scalar;
pub use crate::integer::IntType;
pub use crate::narrow_format::Narrow;
pub use crate::rounding::Tf32Rounding;
use crate::rounding::Rounding;

/// A floating-point opcode of PTX ISA 9.7.3 and 9.7.4, `cvt` between float formats (9.7.9.21),
/// and `setp`, `set` and `selp` on float types (9.7.6.1-3, 9.7.7.1-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Opcode {
    Testp,
    Copysign,
    Add,
    Sub,
    Mul,
    Fma,
    Mad,
    Div,
    Abs,
    Neg,
    Min,
    Max,
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
    Cvt,
    Setp,
    Set,
    Selp,
}

impl Opcode {
    pub const ALL: [Opcode; 24] = [
        Opcode::Testp,
        Opcode::Copysign,
        Opcode::Add,
        Opcode::Sub,
        Opcode::Mul,
        Opcode::Fma,
        Opcode::Mad,
        Opcode::Div,
        Opcode::Abs,
        Opcode::Neg,
        Opcode::Min,
        Opcode::Max,
        Opcode::Rcp,
        Opcode::Sqrt,
        Opcode::Rsqrt,
        Opcode::Sin,
        Opcode::Cos,
        Opcode::Lg2,
        Opcode::Ex2,
        Opcode::Tanh,
        Opcode::Cvt,
        Opcode::Setp,
        Opcode::Set,
        Opcode::Selp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Opcode::Testp => "testp",
            Opcode::Copysign => "copysign",
            Opcode::Add => "add",
            Opcode::Sub => "sub",
            Opcode::Mul => "mul",
            Opcode::Fma => "fma",
            Opcode::Mad => "mad",
            Opcode::Div => "div",
            Opcode::Abs => "abs",
            Opcode::Neg => "neg",
            Opcode::Min => "min",
            Opcode::Max => "max",
            Opcode::Rcp => "rcp",
            Opcode::Sqrt => "sqrt",
            Opcode::Rsqrt => "rsqrt",
            Opcode::Sin => "sin",
            Opcode::Cos => "cos",
            Opcode::Lg2 => "lg2",
            Opcode::Ex2 => "ex2",
            Opcode::Tanh => "tanh",
            Opcode::Cvt => "cvt",
            Opcode::Setp => "setp",
            Opcode::Set => "set",
            Opcode::Selp => "selp",
        }
    }

    pub fn from_name(s: &str) -> Option<Opcode> {
        Opcode::ALL.into_iter().find(|o| o.name() == s)
    }

    /// Whether the structural table of 9.7.3/9.7.4 ([`rules`]) holds this opcode's forms;
    /// `cvt`'s legality is the table of [`crate::cvt`]; `setp`'s, `set`'s and `selp`'s that of
    /// [`crate::compare`].
    pub fn in_arith_table(self) -> bool {
        self != Opcode::Cvt && !self.is_comparison()
    }

    /// `setp`, `set` or `selp`: the forms of [`crate::compare`].
    pub fn is_comparison(self) -> bool {
        matches!(self, Opcode::Setp | Opcode::Set | Opcode::Selp)
    }
}

/// How a `cvt` rounds, where [`Precision`] cannot say it: to the destination format (`.rn`,
/// `.rz`, `.rm`, `.rp`, in `Precision::Rounded`), or to an integral value in the same format
/// (`.rni`, `.rzi`, `.rmi`, `.rpi`: "Integer rounding is required ... for same-size
/// float-to-float conversions where the value is rounded to an integer", 9.7.9.21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum RoundTo {
    #[default]
    Format,
    Integer,
    /// To the tf32 grid (ten fraction bits, f32's range) with tf32's own rounding (`.rna`
    /// has no [`Rounding`]; [`Instr::precision`] is then `Default`). The result keeps the f32
    /// layout, its 13 low bits zero ([`crate::cvt::tf32`]'s reading), in a `.b32` register.
    Tf32(Tf32Rounding),
    /// Stochastic rounding (`.rs`, 9.7.9.21): toward or away from zero by the carry of random
    /// bits added to the discarded ones; the form's third source is those bits
    /// ([`stochastic`](self::stochastic)).
    Stochastic,
}

/// `.satfinite` (9.7.9.21, `cvt.frnd2{.relu}{.satfinite}.{f16,bf16}{x2}.f32`): an out-of-range
/// result becomes the sign-preserved MAX_NORM instead of infinity. It may come with `.relu`,
/// which is why it is not a [`Clamp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Finite {
    #[default]
    Keep,
    Saturate,
}

/// What a `cvt` form has beyond the fields every form has: its source type (the destination
/// is [`Instr::ty`]), integer rounding and `.satfinite`. `.ftz`, `.sat`/`.relu` and the float
/// rounding are the form's [`Instr::ftz`], [`Instr::clamp`] and [`Instr::precision`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Conversion {
    /// The source type: `f16`, `bf16`, `f32` or `f64` (`f32` for the packed destinations,
    /// which take two sources). For a float-integer `cvt`, its float end (as is
    /// [`Instr::ty`]): [`Conversion::int`] says which end the integer is.
    pub from: Type,
    pub round_to: RoundTo,
    pub finite: Finite,
    /// The integer end of a float-integer `cvt` (9.7.9.21; [`crate::cvt::int`]).
    pub int: Option<IntEnd>,
    /// The packed 8-bit end of an fp8 `cvt` (9.7.9.21; [`crate::cvt::narrow`]):
    /// `cvt.rn.satfinite.e4m3x2.f32` writes an `e4m3x2`, `cvt.rn.f16x2.e4m3x2` reads one. The
    /// other end is the form's type ([`Instr::ty`]), as for a float-integer `cvt`.
    pub narrow: Option<NarrowEnd>,
}

/// Which operand of an fp8 `cvt` is the packed pair of 8-bit elements (a `.b16` register):
/// `Dest` for `cvt.rn.satfinite.e4m3x2.f32`, `Source` for `cvt.rn.f16x2.e4m3x2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NarrowEnd {
    Dest(Narrow),
    Source(Narrow),
}

/// Which operand of a float-integer `cvt` is the integer: `cvt.rni.s32.f32` writes one
/// (`Dest`), `cvt.rn.f32.s32` reads one (`Source`). The other end is the form's float type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntEnd {
    Dest(IntType),
    Source(IntType),
}

/// What a `setp` or `set` form compares, and how (9.7.6.1-2, 9.7.7.1-2): the operator, the
/// `.BoolOp` that combines the outcome with a predicate source `c` (then the form has a third
/// source), and the type of the sources `a` and `b`. A `setp`'s is its type (its destination
/// is a predicate); a `set`'s is its `.stype`, [`Instr::ty`] being its float `.dtype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Comparison {
    pub op: CmpOp,
    pub combine: Option<BoolOp>,
    pub from: Type,
    /// The integer `.dtype` of a `set` (`set.lt.u32.f32`: `u32`, all ones or zero, 9.7.6.1;
    /// `.u16`/`.s16` over the half types, 9.7.7.1); [`Instr::ty`] is then the `.stype`, the
    /// float end, as for a float-integer `cvt`. `None` for every other comparison.
    pub int: Option<IntType>,
}

/// The instruction type suffix (PTX ISA 9.7.3, 9.7.4; `.f32x2` in 9.7.3.3-6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F32x2,
    F64,
}

impl Type {
    pub const ALL: [Type; 7] =
        [Type::F16, Type::F16x2, Type::Bf16, Type::Bf16x2, Type::F32, Type::F32x2, Type::F64];

    pub fn name(self) -> &'static str {
        match self {
            Type::F16 => "f16",
            Type::F16x2 => "f16x2",
            Type::Bf16 => "bf16",
            Type::Bf16x2 => "bf16x2",
            Type::F32 => "f32",
            Type::F32x2 => "f32x2",
            Type::F64 => "f64",
        }
    }

    pub fn from_name(s: &str) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The type of `scalar` lanes, two of them when `packed` (f16 and bf16 only: f32 and f64
    /// stay scalar, as a `cvt`'s packed destinations and every other operand are): the inverse
    /// of [`Type::scalar`] and [`Type::lanes`] for the half types.
    pub fn of(scalar: Scalar, packed: bool) -> Type {
        match (scalar, packed) {
            (Scalar::F16, false) => Type::F16,
            (Scalar::F16, true) => Type::F16x2,
            (Scalar::BF16, false) => Type::Bf16,
            (Scalar::BF16, true) => Type::Bf16x2,
            (Scalar::F32, _) => Type::F32,
            (Scalar::F64, _) => Type::F64,
        }
    }

    /// The format of one lane.
    pub fn scalar(self) -> Scalar {
        match self {
            Type::F16 | Type::F16x2 => Scalar::F16,
            Type::Bf16 | Type::Bf16x2 => Scalar::BF16,
            Type::F32 | Type::F32x2 => Scalar::F32,
            Type::F64 => Scalar::F64,
        }
    }

    /// Lanes per register: 2 for the packed types (lane 0 in the low bits).
    pub fn lanes(self) -> u32 {
        match self {
            Type::F16x2 | Type::Bf16x2 | Type::F32x2 => 2,
            _ => 1,
        }
    }

    /// Register width in bits (`.b16`, `.b32`, `.b64`).
    pub fn bits(self) -> u32 {
        self.scalar().bits() * self.lanes()
    }

    pub fn is_half(self) -> bool {
        matches!(self, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2)
    }
}

/// How the result is computed: IEEE-rounded, the optimizer's default, or approximate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Precision {
    /// No modifier: `.rn` semantics, but ptxas may contract mul+add into fma (9.7.3.3 notes).
    Default,
    /// An explicit `.rn`/`.rz`/`.rm`/`.rp`.
    Rounded(Rounding),
    /// `.approx` (9.7.3.8, 9.7.3.13 to 9.7.3.22).
    Approx,
    /// `.full` (div.full.f32, 9.7.3.8).
    Full,
}

impl Precision {
    /// The rounding the interpreter applies: `Default` rounds to nearest.
    pub fn rounding(self) -> Option<Rounding> {
        match self {
            Precision::Default => Some(Rounding::Rn),
            Precision::Rounded(r) => Some(r),
            Precision::Approx | Precision::Full => None,
        }
    }
}

/// `.ftz`: flush subnormal inputs and results to sign-preserving zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Ftz {
    #[default]
    Preserve,
    Flush,
}

/// Result clamping: `.sat` clamps to [0, 1] with NaN to +0; `.relu` clamps below at 0 with
/// NaN to the canonical NaN (9.7.4 fma). The two never appear together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Clamp {
    #[default]
    None,
    Sat,
    Relu,
}

/// min/max NaN handling (9.7.3.11): `.NaN` makes any NaN input give the canonical NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum NanMode {
    /// IEEE minNum/maxNum: a NaN operand loses to a number.
    #[default]
    Number,
    /// `.NaN`: a NaN operand wins and the result is the canonical NaN.
    Propagate,
}

/// min/max magnitude modifiers (9.7.3.11): `.abs` (3 inputs) or `.xorsign.abs` (2 inputs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum AbsMode {
    #[default]
    None,
    Abs,
    XorsignAbs,
}

/// The property `testp` tests (9.7.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TestpOp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

impl TestpOp {
    pub const ALL: [TestpOp; 6] = [
        TestpOp::Finite,
        TestpOp::Infinite,
        TestpOp::Number,
        TestpOp::NotANumber,
        TestpOp::Normal,
        TestpOp::Subnormal,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TestpOp::Finite => "finite",
            TestpOp::Infinite => "infinite",
            TestpOp::Number => "number",
            TestpOp::NotANumber => "notanumber",
            TestpOp::Normal => "normal",
            TestpOp::Subnormal => "subnormal",
        }
    }

    pub fn from_name(s: &str) -> Option<TestpOp> {
        TestpOp::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// One instruction form: opcode, modifiers, type, and how many source operands it takes.
///
/// Construct through [`Instr::parse`] or [`Instr::new`] + [`Instr::validate`]; a value that
/// passed validation is legal for some target (whether for *yours* is [`Instr::requirement`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instr {
    pub op: Opcode,
    /// Only for `testp`.
    pub testp: Option<TestpOp>,
    pub precision: Precision,
    pub ftz: Ftz,
    pub clamp: Clamp,
    pub nan: NanMode,
    pub abs: AbsMode,
    pub ty: Type,
    /// Number of source operands: 1, 2 or 3 (3 for fma/mad and 3-input min/max; 2 for a `cvt`
    /// to `.f16x2`/`.bf16x2`).
    pub inputs: u8,
    /// Only for `cvt`.
    pub conv: Option<Conversion>,
    /// Only for `setp` and `set`: the comparison (`.lt`, `.equ`, `.num`, ..., `.and`).
    pub cmp: Option<Comparison>,
    /// Only for `selp` on an integer type (`selp.s32 d, a, b, c`, 9.7.6.3): the type `a`, `b`
    /// and `d` hold. [`Instr::ty`] is then the float type of the same width (`f32` for `.s32`,
    /// `f16` for `.u16`), no operand's type: it only says which `--types` admit the form, as
    /// the float end of a float-integer `cvt` does.
    pub selp_int: Option<IntType>,
    /// Only for the mixed-precision `add`/`sub`/`fma` (9.7.5.1-3, sm_100): `.atype` (`.abtype`
    /// for `fma`), the half type of `a` (and `b`); [`Instr::ty`] is then `.f32`, the type of `d`
    /// and `c` (`add.rn.f32.f16 d, a, c`). Its map to [`crate::mixed::Mixed`] is
    /// [`mixed`](self::mixed)'s.
    pub atype: Option<Type>,
}

impl Instr {
    /// A form with no modifiers and the opcode's usual operand count; set fields, then validate.
    pub fn new(op: Opcode, ty: Type) -> Instr {
        let inputs = match op {
            Opcode::Testp
            | Opcode::Abs
            | Opcode::Neg
            | Opcode::Rcp
            | Opcode::Sqrt
            | Opcode::Rsqrt
            | Opcode::Sin
            | Opcode::Cos
            | Opcode::Lg2
            | Opcode::Ex2
            | Opcode::Tanh
            | Opcode::Cvt => 1,
            Opcode::Fma | Opcode::Mad | Opcode::Selp => 3,
            _ => 2,
        };
        Instr {
            op,
            testp: None,
            precision: Precision::Default,
            ftz: Ftz::Preserve,
            clamp: Clamp::None,
            nan: NanMode::Number,
            abs: AbsMode::None,
            ty,
            inputs,
            // A `cvt` built here converts from its own type: set the source, then validate.
            conv: (op == Opcode::Cvt).then_some(Conversion { from: ty, round_to: RoundTo::Format, finite: Finite::Keep, int: None, narrow: None }),
            // A `setp` or `set` built here compares its own type for equality: set the
            // operator (and a `set`'s source type), then validate.
            cmp: matches!(op, Opcode::Setp | Opcode::Set).then_some(Comparison { op: CmpOp::Eq, combine: None, from: ty, int: None }),
            selp_int: None,
            atype: None,
        }
    }

    /// The type of the value sources: the form's type, except for a `cvt` (its source type)
    /// and a `set` (its `.stype`). A mixed-precision form reads two types: see
    /// [`Instr::src_type_at`].
    pub fn src_type(&self) -> Type {
        match (self.conv, self.cmp) {
            (Some(c), _) => c.from,
            (None, Some(c)) => c.from,
            (None, None) => self.ty,
        }
    }

    /// The type of value source `pos`: [`Instr::src_type`], except for a mixed-precision form,
    /// whose `a` (and `fma`'s `b`) is its `.atype` and whose last source `c` is `.f32`
    /// (9.7.5.1-3: `add.f32.f16 d, a, c`, `fma.rn.f32.bf16 d, a, b, c`).
    pub fn src_type_at(&self, pos: usize) -> Type {
        match self.atype {
            Some(half) if pos + 1 < usize::from(self.inputs) => half,
            _ => self.src_type(),
        }
    }

    /// Whether source `pos` is a predicate: `selp`'s `c` and the `c` that a `.BoolOp`
    /// combines (9.7.6.1-3), always the third source. Every other source is a
    /// [`Instr::src_type`] value.
    pub fn reads_predicate(&self, pos: usize) -> bool {
        pos == 2 && (self.op == Opcode::Selp || self.cmp.is_some_and(|c| c.combine.is_some()))
    }

    /// The integer a float-integer `cvt` writes (`cvt.rni.s32.f32`: `s32`), a `set` with an
    /// integer `.dtype` (`set.lt.u32.f32`: `u32`), or an integer `selp` (`selp.s32`: `s32`).
    pub fn int_dest(&self) -> Option<IntType> {
        match self.conv.and_then(|c| c.int) {
            Some(IntEnd::Dest(t)) => Some(t),
            Some(IntEnd::Source(_)) => None,
            None => self.cmp.and_then(|c| c.int).or(self.selp_int),
        }
    }

    /// Whether this is a `cvt` to tf32 (`cvt.rna.tf32.f32`): an f32-layout value in a `.b32`
    /// register ([`crate::program::ValType::Tf32`]).
    pub fn writes_tf32(&self) -> bool {
        self.op == Opcode::Cvt && self.conv.is_some_and(|c| matches!(c.round_to, RoundTo::Tf32(_)))
    }

    /// The pair of 8-bit elements an fp8 `cvt` writes (`cvt.rn.satfinite.e4m3x2.f32`: `e4m3`).
    pub fn narrow_dest(&self) -> Option<Narrow> {
        match self.conv?.narrow? {
            NarrowEnd::Dest(n) => Some(n),
            NarrowEnd::Source(_) => None,
        }
    }

    /// The pair of 8-bit elements an fp8 `cvt` reads (`cvt.rn.f16x2.e4m3x2`: `e4m3`); its
    /// [`Instr::src_type`] is then the float end, which no operand has.
    pub fn narrow_source(&self) -> Option<Narrow> {
        match self.conv?.narrow? {
            NarrowEnd::Source(n) => Some(n),
            NarrowEnd::Dest(_) => None,
        }
    }

    /// The integer a float-integer `cvt` reads (`cvt.rn.f32.s32`: `s32`), or an integer
    /// `selp` its `a` and `b` (`selp.s32`: `s32`; its `c` is a predicate,
    /// [`Instr::reads_predicate`]); the [`Instr::src_type`] is then a float type no operand
    /// has.
    pub fn int_source(&self) -> Option<IntType> {
        match self.conv.and_then(|c| c.int) {
            Some(IntEnd::Source(t)) => Some(t),
            Some(IntEnd::Dest(_)) => None,
            None => self.selp_int,
        }
    }

    /// The integer source `pos` reads: [`Instr::int_source`] for every value source, except a
    /// `cvt.rs`, whose `a` and `b` are f32 and whose third source, `rbits`, is a `u32`
    /// ([`stochastic::RBITS`]).
    pub fn int_source_at(&self, pos: usize) -> Option<IntType> {
        if self.is_stochastic() {
            return (pos == 2).then_some(stochastic::RBITS);
        }
        self.int_source()
    }

    /// The width of the register source `pos` reads: 1 for a predicate, else
    /// [`Instr::src_type_at`]'s, or for an integer source the register that holds it (16 bits
    /// for an 8-bit integer), for an fp8 pair its `.b16`.
    pub fn src_bits(&self, pos: usize) -> u32 {
        match (self.reads_predicate(pos), self.int_source_at(pos), self.narrow_source()) {
            (true, _, _) => 1,
            (false, Some(t), _) => t.reg_bits(),
            (false, None, Some(n)) => n.packed_bits(),
            (false, None, None) => self.src_type_at(pos).bits(),
        }
    }

    /// The register type of the destination (`pred` for testp and setp; `p|q` for a packed
    /// setp, [`Instr::writes_predicate_pair`]).
    pub fn dest_is_predicate(&self) -> bool {
        matches!(self.op, Opcode::Testp | Opcode::Setp)
    }

    /// Whether this is a `setp` on `.f16x2`/`.bf16x2`: two predicates, `p` for the lower
    /// halves and `q` for the upper (9.7.7.2: `setp.CmpOp.f16x2 p|q, a, b`).
    pub fn writes_predicate_pair(&self) -> bool {
        self.op == Opcode::Setp && self.ty.lanes() == 2
    }

    /// Whether the result is approximate (issue 4's acceptance model) rather than IEEE-exact.
    pub fn is_approximate(&self) -> bool {
        matches!(self.precision, Precision::Approx | Precision::Full)
            || matches!(self.op, Opcode::Rsqrt | Opcode::Sin | Opcode::Cos | Opcode::Lg2 | Opcode::Ex2 | Opcode::Tanh)
    }
}
