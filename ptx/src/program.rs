//! Programs: straight-line sequences of floating-point instructions over typed virtual registers.
//!
//! A [`Program`] has declared inputs (floats or integers: `program/input.rs`), one temporary per
//! instruction (SSA: every register is defined once) and declared outputs. Registers are
//! numbered: inputs first (in declaration order), then one per instruction in program order.
//! Their canonical PTX names follow the register type PTX gives the value: `.f32` -> `%f`,
//! `.f64` -> `%fd`, f16/bf16 -> `%h` (`.b16`), f16x2/bf16x2 -> `%r` (`.b32`), f32x2 -> `%rd`
//! (`.b64`), an integer -> the `.bN` register of its width (`%h` for 8 and 16 bits, `%r`,
//! `%rd`), a predicate -> `%p` (`.pred`); the number is the register's index, so `%f0, %f1`
//! are the first two inputs.
//!
//! Forms: [`text`] (the instructions as PTX spells them, inputs and outputs in `//` header
//! comments), [`json`] (`{"types":..,"inputs":..,"body":..,"outputs":..}`), both round-trip
//! exact; [`run`] evaluates a program in the interpreter.

mod input;
pub mod json;
pub mod run;
pub mod text;

use std::fmt;

use crate::integer::IntType;
use crate::isa::{Instr, IsaError, Narrow, Opcode, PtxVersion, Target, Type};

pub use run::{Run, RunError};

/// The PTX register type that holds a value; operands must match it (PTX ISA 5.4.3,
/// "Operand type checking": `.bX` registers serve every X-bit type, `.f32`/`.f64` only floats).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    Pred,
    F32,
    F64,
    /// `.b8`: an `e2m1x2` pair (9.7.9.21: "d is .b8" for `cvt...e2m1x2`; ptxas 13.5 assembles
    /// `.reg .b8`, `ld/st.global.b8` and `cvt.u64.u8` from one for sm_100a).
    B8,
    /// `.b16`: f16 and bf16.
    B16,
    /// `.b32`: f16x2 and bf16x2 (9.7.4: packed halves live in 32-bit registers).
    B32,
    /// `.b64`: f32x2 (9.7.3.3: "operands d, a and b have .b64 type").
    B64,
    /// The two `.pred` registers a packed `setp` writes, `%p3|%q3` (9.7.7.2: `p|q`): `%pN` is
    /// declared with the predicates, `%qN` on its own ([`RegClass::prefix`]). Handed out as
    /// bit 0 (p, the lower halves) and bit 1 (q, the upper).
    PredPair,
}

impl RegClass {
    pub const ALL: [RegClass; 8] = [
        RegClass::Pred,
        RegClass::F32,
        RegClass::F64,
        RegClass::B8,
        RegClass::B16,
        RegClass::B32,
        RegClass::B64,
        RegClass::PredPair,
    ];

    /// The class of registers an instruction of type `ty` reads and writes.
    pub fn of(ty: Type) -> RegClass {
        match ty {
            Type::F16 | Type::Bf16 => RegClass::B16,
            Type::F16x2 | Type::Bf16x2 => RegClass::B32,
            Type::F32 => RegClass::F32,
            Type::F32x2 => RegClass::B64,
            Type::F64 => RegClass::F64,
        }
    }

    /// Name prefix of canonical registers of this class: what a `.reg` line declares (a pair's
    /// `%q`; its `%p` is the predicates' own, so a module that holds a pair declares both).
    pub fn prefix(self) -> &'static str {
        match self {
            RegClass::Pred => "%p",
            RegClass::PredPair => "%q",
            RegClass::F32 => "%f",
            RegClass::F64 => "%fd",
            // nvcc's name for 8-bit registers.
            RegClass::B8 => "%rc",
            RegClass::B16 => "%h",
            RegClass::B32 => "%r",
            RegClass::B64 => "%rd",
        }
    }

    /// The PTX register declaration type.
    pub fn ptx_type(self) -> &'static str {
        match self {
            RegClass::Pred | RegClass::PredPair => ".pred",
            RegClass::F32 => ".f32",
            RegClass::F64 => ".f64",
            RegClass::B8 => ".b8",
            RegClass::B16 => ".b16",
            RegClass::B32 => ".b32",
            RegClass::B64 => ".b64",
        }
    }

    /// Register width in bits (1 for a predicate).
    pub fn bits(self) -> u32 {
        match self {
            RegClass::Pred => 1,
            RegClass::PredPair => 2,
            RegClass::B8 => 8,
            RegClass::B16 => 16,
            RegClass::F32 | RegClass::B32 => 32,
            RegClass::F64 | RegClass::B64 => 64,
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// What a register holds: a floating-point value of an instruction type, a predicate, the
/// integer a float-integer `cvt` writes or reads (in the `.bN` register of its width), the
/// tf32 a `cvt` to tf32 writes, or the pair of fp8 elements an fp8 `cvt` writes or reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValType {
    Pred,
    /// The two predicates of a packed `setp` (`p|q`, [`RegClass::PredPair`]): an output only,
    /// since `selp` and a `.BoolOp` read one predicate.
    PredPair,
    Float(Type),
    Int(IntType),
    /// A tf32 in the f32 layout (`crate::cvt::tf32`'s reading), in the `.b32` register that
    /// ptxas 13.5 wants for `cvt.rna.tf32.f32` (an `.f32` one is "Arguments mismatch"); f32
    /// sources read it ([`ValType::reads`]).
    Tf32,
    /// Two 8-bit elements (`e4m3x2`, `e5m2x2`) in a `.b16` register: what an fp8 `cvt` writes
    /// and reads (9.7.9.21: "d is .b16"; the up-conversion's "a is .b16").
    Narrow(Narrow),
}

impl ValType {
    /// `pred`, or the type's PTX name (`f32`, `bf16x2`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ValType::Pred => "pred",
            ValType::PredPair => "predx2",
            ValType::Float(t) => t.name(),
            ValType::Int(t) => t.name(),
            ValType::Tf32 => "tf32",
            ValType::Narrow(n) => n.pair_name(),
        }
    }

    pub fn from_name(s: &str) -> Option<ValType> {
        if s == "pred" {
            Some(ValType::Pred)
        } else if s == "predx2" {
            Some(ValType::PredPair)
        } else if s == "tf32" {
            Some(ValType::Tf32)
        } else if let Some(n) = Narrow::from_pair_name(s) {
            Some(ValType::Narrow(n))
        } else {
            Type::from_name(s).map(ValType::Float).or_else(|| IntType::parse(s).map(ValType::Int))
        }
    }

    pub fn class(self) -> RegClass {
        match self {
            ValType::Pred => RegClass::Pred,
            ValType::PredPair => RegClass::PredPair,
            ValType::Float(t) => RegClass::of(t),
            ValType::Int(t) => match t.reg_bits() {
                16 => RegClass::B16,
                32 => RegClass::B32,
                _ => RegClass::B64,
            },
            ValType::Tf32 => RegClass::B32,
            ValType::Narrow(n) => match n.packed_bits() {
                8 => RegClass::B8,
                _ => RegClass::B16,
            },
        }
    }

    /// Whether a source of this type may read a register holding `have`: one of its register
    /// class, or for an f32 source also a tf32 (PTX lets an instruction read a `.b32` register
    /// as `.f32`, and ptxas 13.5 assembles `add.rn.f32 %f3, %r1, %f0` after a `cvt.rna.tf32.f32
    /// %r1`: how CUDA's `__float_to_tf32` hands its result on as a float).
    pub fn reads(self, have: ValType) -> bool {
        have.class() == self.class() || (self == ValType::Float(Type::F32) && have == ValType::Tf32)
    }

    /// Width of the register in bits (1 for a predicate).
    pub fn bits(self) -> u32 {
        self.class().bits()
    }

    /// The type source `pos` of `instr` reads: a predicate (`selp`'s and a `.BoolOp`'s `c`),
    /// or a value of the form's source type at `pos` (a mixed-precision form's halves and
    /// f32: [`Instr::src_type_at`]).
    pub fn of_operand(instr: &Instr, pos: usize) -> ValType {
        if instr.reads_predicate(pos) {
            ValType::Pred
        } else if let Some(t) = instr.int_source_at(pos) {
            ValType::Int(t)
        } else if let Some(n) = instr.narrow_source() {
            ValType::Narrow(n)
        } else {
            ValType::Float(instr.src_type_at(pos))
        }
    }

    /// The type of the register `instr` writes when its first source holds `a`:
    /// [`ValType::of_result`], except that a `selp.b16/.b32/.b64` hands on the register it picks
    /// ([`Instr::is_bits_selp`]), so its result is typed as its `a` (a bf16 stays a bf16, an
    /// `s32` an `s32`).
    pub fn of_selected(instr: &Instr, a: ValType) -> ValType {
        if instr.is_bits_selp() {
            a
        } else {
            ValType::of_result(instr)
        }
    }

    /// The type of the destination of `instr` (a `selp.bN`'s canonical type: use
    /// [`ValType::of_selected`] where its source is known).
    pub fn of_result(instr: &Instr) -> ValType {
        if instr.writes_predicate_pair() {
            ValType::PredPair
        } else if instr.dest_is_predicate() {
            ValType::Pred
        } else if let Some(t) = instr.int_dest() {
            ValType::Int(t)
        } else if instr.writes_tf32() {
            ValType::Tf32
        } else if let Some(n) = instr.narrow_dest() {
            ValType::Narrow(n)
        } else {
            ValType::Float(instr.ty)
        }
    }
}

impl From<Type> for ValType {
    fn from(t: Type) -> ValType {
        ValType::Float(t)
    }
}

/// A register: its index in the program (inputs first, then one per instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u16);

/// One instruction with its source registers (the destination is implied: instruction `j`
/// of a program with `k` inputs defines register `k + j`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stmt {
    pub instr: Instr,
    /// Sources; only the first `instr.inputs` are used, the rest are `Reg(0)`.
    src: [Reg; 3],
}

impl Stmt {
    /// An instruction reading `srcs`; fails if their number is not the form's operand count.
    pub fn new(instr: Instr, srcs: &[Reg]) -> Result<Stmt, ProgramError> {
        if srcs.len() != instr.inputs as usize || srcs.len() > 3 {
            return Err(ProgramError::Arity {
                form: instr.to_string(),
                expected: instr.inputs as usize,
                got: srcs.len(),
            });
        }
        let mut src = [Reg(0); 3];
        src[..srcs.len()].copy_from_slice(srcs);
        Ok(Stmt { instr, src })
    }

    /// For builders that already guarantee `instr.inputs` sources are given.
    pub(crate) fn from_parts(instr: Instr, src: [Reg; 3]) -> Stmt {
        Stmt { instr, src }
    }

    pub fn srcs(&self) -> &[Reg] {
        &self.src[..(self.instr.inputs as usize).min(3)]
    }

    pub(crate) fn srcs_mut(&mut self) -> &mut [Reg; 3] {
        &mut self.src
    }
}

/// A canonical register name, printed without allocating (`%f3`, `%rd12`, `%p4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegName {
    pub class: RegClass,
    pub reg: Reg,
}

impl fmt::Display for RegName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.class == RegClass::PredPair {
            // PTX spells the pair `p|q` (9.7.7.2).
            return write!(f, "%p{}|%q{}", self.reg.0, self.reg.0);
        }
        f.write_str(self.class.prefix())?;
        fmt::Display::fmt(&self.reg.0, f)
    }
}

/// Why a program is not valid. Messages name the register and instruction and say how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// `place` is `line 3` (text form) or `body[2]` (JSON).
    #[error("{place}: {message}")]
    Syntax { place: String, message: String },
    #[error("program JSON: {0}; expected {{\"types\":{{\"%f0\":\"f32\",..}},\"inputs\":[\"%f0\",..],\"body\":[\"add.rn.f32 %f2, %f0, %f1;\",..],\"outputs\":[\"%f2\",..]}}")]
    Json(String),
    #[error("instruction {index} (`{text}`): {cause}")]
    IllegalForm { index: usize, text: String, cause: IsaError },
    #[error("{form} takes {expected} source operand(s), got {got}")]
    Arity { form: String, expected: usize, got: usize },
    #[error("{place}: register {reg} is not defined: declare it as an input or define it in an earlier instruction")]
    UnknownRegister { place: String, reg: String },
    #[error(
        "instruction {index}: register {reg} is used before the instruction that defines it; move the definition up"
    )]
    UseBeforeDefinition { index: usize, reg: String },
    #[error("instruction {index} (`{form}`): operand {reg} is a {found} register, but {form} needs {expected} (a .{expected_ty} register)")]
    TypeMismatch {
        index: usize,
        form: String,
        reg: String,
        found: &'static str,
        expected: &'static str,
        expected_ty: &'static str,
    },
    #[error("register {reg} is defined twice: programs are in SSA form, give each result its own register")]
    Redefinition { reg: String },
    #[error("register {reg}: unknown type '{name}'; use one of f16, f16x2, bf16, bf16x2, f32, f32x2, f64, pred, u8 .. s64 (an integer input, or a cvt's or set's integer result), tf32 (a cvt to tf32's result), e4m3x2, e5m2x2, e2m3x2, e3m2x2, ue8m0x2 or e2m1x2 (a narrow cvt's)")]
    UnknownType { reg: String, name: String },
    #[error("input {reg} has no type: give it one in \"types\" (JSON) or as {reg}:f32 in the inputs line (text)")]
    MissingInputType { reg: String },
    #[error("input {reg} is declared {name}: inputs are floating-point or integer registers (a predicate is only ever a setp or testp result)")]
    PredicateInput { reg: String, name: String },
    #[error("input {reg} is declared tf32: a tf32 is what a cvt to tf32 writes; declare the input f32 (an f32 source reads either)")]
    Tf32Input { reg: String },
    #[error("input {reg} is declared {name}: inputs are floating-point or integer registers; {advice}")]
    NarrowInput { reg: String, name: String, advice: &'static str },
    #[error("\"types\" says {reg} is {declared}, but instruction {index} defines it as {defined}; fix the type or drop the entry")]
    DeclaredType { reg: String, declared: String, defined: &'static str, index: usize },
    #[error("\"types\" names {reg}, which is neither an input nor defined by an instruction")]
    UntypedName { reg: String },
    #[error("the program has no instructions")]
    NoInstructions,
    #[error("the program has no outputs: list at least one register as output")]
    NoOutputs,
    #[error("the program has {0} registers; at most 65535 are supported")]
    TooManyRegisters(usize),
    #[error("instruction {index}: {cause}")]
    Target { index: usize, cause: IsaError },
}

impl ProgramError {
    /// Operand `reg` of instruction `index` holds a `have` where the form reads a `need`.
    fn mismatch(index: usize, instr: &Instr, reg: String, have: ValType, need: ValType) -> ProgramError {
        ProgramError::TypeMismatch {
            index,
            form: instr.to_string(),
            reg,
            found: have.name(),
            expected: need.name(),
            expected_ty: &need.class().ptx_type()[1..],
        }
    }
}

/// A valid straight-line program (see the module docs for register numbering).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Program {
    /// Floats or integers ([`ValType::is_input`]): an integer input is the operand an
    /// integer-to-float `cvt` or an integer `selp` reads, with the whole range of its type.
    inputs: Vec<ValType>,
    body: Vec<Stmt>,
    outputs: Vec<Reg>,
}

impl Program {
    /// Build and validate: every form legal (for some target), sources defined earlier and of
    /// the register class the form reads, outputs defined.
    pub fn new<T: Into<ValType>>(inputs: Vec<T>, body: Vec<Stmt>, outputs: Vec<Reg>) -> Result<Program, ProgramError> {
        let p = Program { inputs: inputs.into_iter().map(Into::into).collect(), body, outputs };
        p.validate()?;
        Ok(p)
    }

    /// For builders (the generator) whose output is valid by construction; tests check it is.
    pub(crate) fn new_unchecked(inputs: Vec<ValType>, body: Vec<Stmt>, outputs: Vec<Reg>) -> Program {
        let p = Program { inputs, body, outputs };
        debug_assert_eq!(p.validate(), Ok(()));
        p
    }

    fn validate(&self) -> Result<(), ProgramError> {
        if self.body.is_empty() {
            return Err(ProgramError::NoInstructions);
        }
        if self.outputs.is_empty() {
            return Err(ProgramError::NoOutputs);
        }
        let n = self.inputs.len() + self.body.len();
        if n > u16::MAX as usize {
            return Err(ProgramError::TooManyRegisters(n));
        }
        let k = self.inputs.len();
        for (i, &t) in self.inputs.iter().enumerate().filter(|(_, t)| !t.is_input()) {
            t.check_input(&self.name(Reg(i as u16)).to_string())?;
        }
        for (j, s) in self.body.iter().enumerate() {
            s.instr.validate().map_err(|e| ProgramError::IllegalForm {
                index: j,
                text: s.instr.to_string(),
                cause: e,
            })?;
            for (pos, &r) in s.srcs().iter().enumerate() {
                let need = ValType::of_operand(&s.instr, pos);
                let i = r.0 as usize;
                if i >= n {
                    return Err(ProgramError::UnknownRegister {
                        place: format!("instruction {j} (`{}`)", s.instr),
                        reg: format!("register #{i}"),
                    });
                }
                if i >= k + j {
                    return Err(ProgramError::UseBeforeDefinition { index: j, reg: self.name(r).to_string() });
                }
                let have = self.reg_type(r);
                if !need.reads(have) {
                    return Err(ProgramError::mismatch(j, &s.instr, self.name(r).to_string(), have, need));
                }
            }
        }
        for &r in &self.outputs {
            if r.0 as usize >= n {
                return Err(ProgramError::UnknownRegister {
                    place: "outputs".to_string(),
                    reg: format!("register #{}", r.0),
                });
            }
        }
        Ok(())
    }

    /// Input types, in register order (register `i` is input `i`): floats and integers.
    pub fn inputs(&self) -> &[ValType] {
        &self.inputs
    }

    pub fn body(&self) -> &[Stmt] {
        &self.body
    }

    pub fn outputs(&self) -> &[Reg] {
        &self.outputs
    }

    /// The same program with every instruction's destination appended to its outputs, in
    /// program order: its outputs are what a trace returns (`outputs + instructions` values
    /// per case), so an engine that stores outputs only (the instruction VM) runs a trace.
    pub fn traced(&self) -> Program {
        let outputs = self.outputs.iter().copied().chain((0..self.body.len()).map(|j| self.dst(j))).collect();
        Program { inputs: self.inputs.clone(), body: self.body.clone(), outputs }
    }

    /// Number of registers: inputs plus one per instruction.
    pub fn reg_count(&self) -> usize {
        self.inputs.len() + self.body.len()
    }

    /// The register instruction `j` defines.
    pub fn dst(&self, j: usize) -> Reg {
        Reg((self.inputs.len() + j) as u16)
    }

    /// The instruction that defines `r`, or `None` for an input.
    pub fn definition(&self, r: Reg) -> Option<usize> {
        (r.0 as usize).checked_sub(self.inputs.len())
    }

    pub fn reg_type(&self, r: Reg) -> ValType {
        let mut r = r;
        loop {
            let Some(j) = self.definition(r) else { return self.inputs[r.0 as usize] };
            let s = &self.body[j];
            // A `selp.bN` is typed as its `a` (`ValType::of_selected`), an earlier register in
            // a valid program; a later one (a program being refused) stops the walk.
            match s.srcs().first() {
                Some(&a) if s.instr.is_bits_selp() && a < r => r = a,
                _ => return ValType::of_result(&s.instr),
            }
        }
    }

    /// The canonical name of `r` (`%f3`).
    pub fn name(&self, r: Reg) -> RegName {
        RegName { class: self.reg_type(r).class(), reg: r }
    }

    /// Whether every instruction is available on `target` (form, sm and PTX ISA version).
    pub fn check_target(&self, target: Target) -> Result<(), ProgramError> {
        for (j, s) in self.body.iter().enumerate() {
            s.instr.check_target(target).map_err(|e| ProgramError::Target { index: j, cause: e })?;
        }
        Ok(())
    }

    /// The lowest sm and PTX ISA version that every instruction is available from.
    pub fn requirement(&self) -> (u32, PtxVersion) {
        self.body.iter().fold((0, PtxVersion::new(1, 0)), |(sm, ptx), s| {
            let r = s.instr.requirement();
            (sm.max(r.sm), ptx.max(r.ptx))
        })
    }

    /// Whether some instruction is a mul, add or sub without rounding modifier, which ptxas
    /// may contract into an fma (9.7.3.3-5 notes).
    pub fn has_contractible(&self) -> bool {
        self.body.iter().any(|s| {
            matches!(s.instr.op, Opcode::Add | Opcode::Sub | Opcode::Mul)
                && s.instr.precision == crate::isa::Precision::Default
                // A mixed-precision add/sub is not contracted (`run`'s `fusion_choices`).
                && s.instr.atype.is_none()
        })
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod cvt_tests;
#[cfg(test)]
mod select_tests;
