//! The program generator: from an `arbitrary::Unstructured` byte stream, a valid program for
//! a target (only forms legal there, per `Instr::check_target`) whose instructions read inputs
//! and earlier results, plus the inputs to run it on ([`operand`]).
//!
//! The byte stream decides everything, so a fuzzer's mutations steer the program and the same
//! bytes always give the same program. An exhausted stream gives the plainest choices (no
//! modifiers, fresh inputs), never an error.

pub mod config;
pub mod form_case;
pub mod int_operand;
pub mod operand;

use std::collections::BTreeMap;

use arbitrary::{Result, Unstructured};

pub use config::GenConfig;
pub use operand::{case, case_into, operand, operand_for, operand_with, Choices, Draw, Specials};

use crate::isa::{Clamp, Ftz, Instr, Opcode, Precision, Type};
use crate::program::{Program, Reg, RegClass, Stmt, ValType};
use operand::{chance, threshold};

/// Why a config cannot generate programs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GenError {
    #[error("no instruction form is available for {arch} with PTX ISA {ptx} among opcodes [{opcodes}] and types [{types}]{extra}: widen the lists, raise sm/ptx, or enable approximate forms")]
    NoForms { arch: crate::isa::Arch, ptx: String, opcodes: String, types: String, extra: &'static str },
    #[error("min_len {min} is above max_len {max}: set min_len <= max_len")]
    Lengths { min: usize, max: usize },
    #[error("max_len {0} is outside 1..={MAX_LEN}")]
    MaxLen(usize),
    #[error("{name} = {value} is not a share: give a probability between 0 and 1")]
    Share { name: &'static str, value: f64 },
}

/// Longest program the generator builds (keeps register numbers far below 2^15).
pub const MAX_LEN: usize = 4096;

/// Share of fresh-input operands that reuse an existing input of the same register type
/// instead: `x - x`, `x * x` (squares of the near-overflow/underflow specials) and
/// `min(x, x)` exercise exact cancellation and the special products.
const INPUT_REUSE_SHARE: f64 = 0.3;

/// Marks a provisional source in [`Generator::program`] as input number `x & !INPUT`.
const INPUT: u16 = 0x8000;

/// The share of integer sources (`cvt.rn.f32.s32`, `selp.s32`) with no earlier integer of
/// their type that get a `cvt` to it first (f32 -> s32 -> f32, as compilers truncate) rather
/// than an integer input: the chain exercises the float-to-integer rounding, the input the
/// whole range of the type (2^24 + 1 and the other ties a float result never gives).
const INT_CHAIN_SHARE: f64 = 0.5;

/// With contraction on, the share of unrounded add/subs that get an unrounded mul feeding them
/// alone. Left to chance that pattern is rare (about 1 instruction in 500), and it is the one
/// contraction acts on (9.7.3.3 notes).
const CONTRACTION_PAIR_SHARE: f64 = 0.5;

/// A form without its `.ftz` and clamp, with the legal variants of both: `[ftz][clamp]`,
/// indexed `Ftz::Preserve/Flush` x `Clamp::None/Sat/Relu`.
#[derive(Clone, Debug)]
struct Group {
    variants: [[Option<Instr>; 3]; 2],
}

impl Group {
    /// The variant closest to the wanted `.ftz` and clamp (`Some`: `.sat` or `.relu`, the one
    /// named first): the clamp wish is dropped before the `.ftz` wish, and a group whose only
    /// forms need a modifier (`ex2.approx.ftz.bf16`) still yields one.
    fn pick(&self, ftz: bool, clamp: Option<Clamp>) -> Instr {
        let f = ftz as usize;
        let clamps: &[usize] = match clamp {
            None => &[0],
            Some(Clamp::Relu) => &[2, 1, 0],
            Some(_) => &[1, 2, 0],
        };
        [f, 1 - f]
            .iter()
            .flat_map(|&f| clamps.iter().map(move |&c| (f, c)))
            .find_map(|(f, c)| self.variants[f][c])
            .or_else(|| self.variants.iter().flatten().find_map(|v| *v))
            .expect("a group holds at least one form")
    }
}

/// Thresholds out of 65536 for the config's shares (precomputed: generation is hot).
#[derive(Clone, Copy, Debug)]
struct Odds {
    single: u32,
    ftz: u32,
    sat: u32,
    reuse: u32,
    input_reuse: u32,
    special: u32,
    relation: u32,
    pair: u32,
    int_chain: u32,
}

/// Per-thread working lists of [`Generator::program`], kept between calls so that generating
/// allocates nothing but the program itself.
#[derive(Default)]
struct Scratch {
    /// Per register class, the instructions whose results can be read (predicates too: the
    /// third source of `selp` and of a `.BoolOp` reads one).
    results: [Vec<u16>; RegClass::ALL.len()],
    /// Per register class, the inputs that can be read.
    inputs: [Vec<u16>; RegClass::ALL.len()],
    /// Whether each instruction's result is read by a later one.
    used: Vec<bool>,
    /// The [`tagged`] results (integers, fp8 pairs), with their type: such a source reads one
    /// of its own type (they are kept out of `results`, so that float forms do not read
    /// integers or fp8 pairs as bits).
    tagged: Vec<(ValType, u16)>,
    /// The integer inputs, with their type (kept out of `inputs` for the same reason).
    int_inputs: Vec<(ValType, u16)>,
}

impl Scratch {
    fn clear(&mut self) {
        self.results.iter_mut().chain(&mut self.inputs).for_each(Vec::clear);
        self.tagged.clear();
        self.int_inputs.clear();
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// Whether a value is handed on only to a source of exactly its type: an integer (whose width
/// and signedness the reading `cvt` names) or an fp8 pair (whose format the reading `cvt`
/// names). Float sources never read them; an integer may be a program input, an fp8 pair is
/// never one.
fn tagged(t: ValType) -> bool {
    matches!(t, ValType::Int(_) | ValType::Narrow(_))
}

/// The [`tagged`] type `instr`'s value sources read, if any: a form reads at most one such
/// type, at every value source or (a `cvt.rs`'s random bits) at one.
fn tagged_source(instr: &Instr) -> Option<ValType> {
    (0..usize::from(instr.inputs)).map(|k| ValType::of_operand(instr, k)).find(|&t| tagged(t))
}

/// The type of `types` in the register class of `t`: `t` itself if there, else the first
/// (a `selp.b16` in a bf16-only config reads and makes bf16 values).
fn class_type(types: &[Type], t: Type) -> Option<Type> {
    types.contains(&t).then_some(t).or_else(|| types.iter().copied().find(|&u| RegClass::of(u) == RegClass::of(t)))
}

/// Whether a form other than a `selp.bN` writes a `ty` at `target`: a `selp.bN` of that type
/// is offered (and has a VM arm) only then, so no `selp.b64` picks between f32x2 inputs below
/// sm_100, where nothing else reads or writes them.
pub(crate) fn computed_at(ty: Type, target: crate::isa::Target) -> bool {
    legal_forms().iter().any(|g| g.ty == ty && !g.is_bits_selp() && g.check_target(target).is_ok())
}

/// The [`tagged`] type `instr` writes, if any.
fn tagged_result(instr: &Instr) -> Option<ValType> {
    Some(ValType::of_result(instr)).filter(|&t| tagged(t))
}

/// A generator for one config: the legal forms are enumerated once, up front.
#[derive(Clone, Debug)]
pub struct Generator {
    cfg: GenConfig,
    /// Per allowed opcode with at least one legal form, its groups.
    ops: Vec<Vec<Group>>,
    odds: Odds,
    /// The unrounded mul forms on offer (for contraction pairs).
    muls: Vec<Instr>,
    /// The `setp` forms (no `.BoolOp`) of the config's types at its target, whatever its
    /// opcodes: a form that reads a predicate (`selp`, a `.BoolOp`) when no instruction has
    /// defined one gets one of these first (predicates are never program inputs).
    setps: Vec<Instr>,
    /// The config's forms that write a [`tagged`] value from values alone (`cvt` to an
    /// integer or to fp8, `set` to an integer): one defines the integer an integer-to-float
    /// `cvt` reads, or the fp8 pair an fp8-to-f16x2 `cvt` reads, when no earlier instruction
    /// wrote one of its type.
    makers: Vec<Instr>,
}

impl Generator {
    pub fn new(cfg: GenConfig) -> std::result::Result<Generator, GenError> {
        for (name, value) in [
            ("single_share", cfg.single_share),
            ("ftz_share", cfg.ftz_share),
            ("sat_share", cfg.sat_share),
            ("reuse_share", cfg.reuse_share),
            ("special_share", cfg.special_share),
            ("relation_share", cfg.relation_share),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(GenError::Share { name, value });
            }
        }
        if cfg.max_len == 0 || cfg.max_len > MAX_LEN {
            return Err(GenError::MaxLen(cfg.max_len));
        }
        if cfg.min_len > cfg.max_len {
            return Err(GenError::Lengths { min: cfg.min_len, max: cfg.max_len });
        }
        let target = cfg.target();
        let of_config = |f: &Instr| {
            // A `selp.bN` serves every type of its register class (`selp.b16` bf16 as f16) that
            // something at the target computes (no `selp.b64` of f32x2 inputs below sm_100).
            let has = |t: Type| match f.is_bits_selp() {
                true => class_type(&cfg.types, t).is_some_and(|u| computed_at(u, target)),
                false => cfg.types.contains(&t),
            };
            has(f.ty)
                && (0..usize::from(f.inputs)).all(|k| f.reads_predicate(k) || has(f.src_type_at(k)))
                && (cfg.approximate || !f.is_approximate())
                && (cfg.contraction || !is_contractible(f))
                && (cfg.undocumented || f.is_documented())
                && f.check_target(target).is_ok()
        };
        let setps: Vec<Instr> =
            legal_forms().iter().copied().filter(|f| f.op == Opcode::Setp && !f.reads_predicate(2) && !f.writes_predicate_pair() && of_config(f)).collect();
        let makers: Vec<Instr> = legal_forms()
            .iter()
            .copied()
            // A helper reads values only: a `set` to an integer with a `.BoolOp` would need a
            // predicate first, an fp8-to-f16x2 `cvt` an fp8 pair.
            .filter(|f| {
                tagged_result(f).is_some()
                    && tagged_source(f).is_none()
                    && !f.reads_predicate(2)
                    && cfg.opcodes.contains(&f.op)
                    && of_config(f)
            })
            .collect();
        let mut groups: BTreeMap<Opcode, BTreeMap<Instr, Group>> = BTreeMap::new();
        for &f in legal_forms() {
            let wanted = cfg.opcodes.contains(&f.op)
                && of_config(&f)
                && (!f.reads_predicate(2) || !setps.is_empty())
                // An fp8 source needs a cvt to fp8 first; an integer may be an input.
                && tagged_source(&f).is_none_or(|t| {
                    matches!(t, ValType::Int(_)) || makers.iter().any(|h| tagged_result(h) == Some(t))
                });
            if !wanted {
                continue;
            }
            let key = Instr { ftz: Ftz::Preserve, clamp: Clamp::None, ..f };
            let g = groups.entry(f.op).or_default().entry(key).or_insert(Group { variants: [[None; 3]; 2] });
            g.variants[f.ftz as usize][f.clamp as usize] = Some(f);
        }
        if groups.is_empty() {
            let list = |v: Vec<&str>| v.join(", ");
            return Err(GenError::NoForms {
                arch: cfg.arch(),
                ptx: cfg.ptx.to_string(),
                opcodes: list(cfg.opcodes.iter().map(|o| o.name()).collect()),
                types: list(cfg.types.iter().map(|t| t.name()).collect()),
                extra: if cfg.approximate { "" } else { " (approximate forms off)" },
            });
        }
        let ops: Vec<Vec<Group>> = groups.into_values().map(|g| g.into_values().collect()).collect();
        let muls = ops
            .iter()
            .flatten()
            .flat_map(|g| g.variants.iter().flatten().flatten().copied())
            .filter(|f| f.op == Opcode::Mul && f.precision == Precision::Default)
            .collect();
        let odds = Odds {
            single: threshold(cfg.single_share),
            ftz: threshold(cfg.ftz_share),
            sat: threshold(cfg.sat_share),
            reuse: threshold(cfg.reuse_share),
            input_reuse: threshold(INPUT_REUSE_SHARE),
            special: threshold(cfg.special_share),
            relation: threshold(cfg.relation_share),
            pair: threshold(CONTRACTION_PAIR_SHARE),
            int_chain: threshold(INT_CHAIN_SHARE),
        };
        Ok(Generator { cfg, ops, odds, muls, setps, makers })
    }

    pub fn config(&self) -> &GenConfig {
        &self.cfg
    }

    /// Every form this generator may emit: the config's, and the `setp`s that define the
    /// predicate a `selp` or `.BoolOp` reads when `setp` is not among the config's opcodes.
    pub fn forms(&self) -> impl Iterator<Item = Instr> + '_ {
        let own = || self.ops.iter().flatten().flat_map(|g| g.variants.iter().flatten().flatten().copied());
        let helpers = !self.cfg.opcodes.contains(&Opcode::Setp) && own().any(|f| f.reads_predicate(2));
        own().chain(self.setps.iter().copied().filter(move |_| helpers))
    }

    /// One instruction form: opcode uniformly, then one of its forms, then `.ftz`/clamp by share.
    pub fn form(&self, u: &mut Unstructured) -> Result<Instr> {
        let groups = &self.ops[u.choose_index(self.ops.len())?];
        let g = &groups[u.choose_index(groups.len())?];
        let ftz = chance(u, self.odds.ftz)?;
        // `.sat` or `.relu`, whichever the form has (f16 fma has both: pick one).
        let clamp = if chance(u, self.odds.sat)? {
            Some(if u.arbitrary::<bool>()? { Clamp::Relu } else { Clamp::Sat })
        } else {
            None
        };
        Ok(g.pick(ftz, clamp))
    }

    /// One program: 1 instruction with `single_share`, else `min_len..=max_len`. Operands read
    /// an earlier result of their register type (`reuse_share`), an existing input, or a new
    /// input; the outputs are the results nothing else reads. With `contraction`, an unrounded
    /// add/sub is often given an unrounded mul feeding it alone, the pattern ptxas contracts.
    /// A predicate source (`selp`, `.BoolOp`) reads an earlier `setp` or `testp` result; when
    /// there is none, a `setp` of the config's types defines one first. An fp8 source
    /// (`cvt.rn.f16x2.e4m3x2`) likewise reads an earlier fp8 pair, which a `cvt` to it defines
    /// first when there is none (fp8 pairs are never program inputs). An integer source (a
    /// `cvt` from `.s32`, an integer `selp`) reads an earlier integer of its type or an
    /// integer input; with none yet, a `cvt` to it comes first half the time
    /// (`INT_CHAIN_SHARE`).
    pub fn program(&self, u: &mut Unstructured) -> Result<Program> {
        // Asked the other way round so that an exhausted stream gives a single instruction.
        let len = if chance(u, 65536 - self.odds.single)? {
            u.int_in_range(self.cfg.min_len.max(1)..=self.cfg.max_len)?
        } else {
            1
        };
        let mut inputs: Vec<ValType> = Vec::with_capacity(len + 2);
        let mut body: Vec<Stmt> = Vec::with_capacity(len);
        SCRATCH.with_borrow_mut(|sc| -> Result<()> {
            sc.clear();
            while body.len() < len {
                let mut instr = self.form(u)?;
                if instr.reads_predicate(2) && sc.results[RegClass::Pred.index()].is_empty() {
                    // No predicate to read yet: a setp defines one first, or, with no room
                    // left for two instructions, is the instruction.
                    let setp = self.setps[u.choose_index(self.setps.len())?];
                    if body.len() + 2 <= len {
                        let src = self.operands(u, &setp, sc, &mut inputs)?;
                        sc.results[RegClass::Pred.index()].push(body.len() as u16);
                        body.push(Stmt::from_parts(setp, src));
                    } else {
                        instr = setp;
                    }
                }
                if let Some(t) = tagged_source(&instr).filter(|t| !sc.tagged.iter().any(|(i, _)| i == t)) {
                    // No integer or fp8 pair of its type yet: a cvt to it defines one first
                    // (f32 -> s32 -> f32, as compilers truncate; f32 -> e4m3x2 -> f16x2, as
                    // FP8 kernels quantize), or is the instruction. An integer source may
                    // read an integer input instead (always, when no cvt makes its type).
                    let makers = || self.makers.iter().filter(|h| tagged_result(h) == Some(t));
                    let chain = match t {
                        ValType::Int(_) => makers().next().is_some() && chance(u, self.odds.int_chain)?,
                        _ => true,
                    };
                    if chain {
                        let h = *pick(u, makers())?;
                        if body.len() + 2 <= len {
                            let src = self.operands(u, &h, sc, &mut inputs)?;
                            sc.tagged.push((t, body.len() as u16));
                            body.push(Stmt::from_parts(h, src));
                        } else {
                            instr = h;
                        }
                    }
                }
                let mut mul = None;
                if body.len() + 2 <= len && matches!(instr.op, Opcode::Add | Opcode::Sub) {
                    if let Some(m) = self.contraction_mul(&instr) {
                        if chance(u, self.odds.pair)? {
                            // The mul's result is offered to later instructions only after the
                            // add has read it, so the add is its only reader unless a later
                            // instruction also picks it.
                            let src = self.operands(u, &m, sc, &mut inputs)?;
                            mul = Some(body.len() as u16);
                            body.push(Stmt::from_parts(m, src));
                        }
                    }
                }
                let mut src = self.operands(u, &instr, sc, &mut inputs)?;
                if let Some(m) = mul {
                    src[u.int_in_range(0..=1)?] = Reg(m);
                    sc.results[RegClass::of(instr.ty).index()].push(m);
                }
                match tagged_result(&instr) {
                    Some(t) => sc.tagged.push((t, body.len() as u16)),
                    // A tf32 (in a .b32 register) is offered to f32 sources, which read it as
                    // CUDA's __float_to_tf32 does (`ValType::reads`), not to f16x2 or integer
                    // ones.
                    None if instr.writes_tf32() => sc.results[RegClass::F32.index()].push(body.len() as u16),
                    None => sc.results[ValType::of_result(&instr).class().index()].push(body.len() as u16),
                }
                body.push(Stmt::from_parts(instr, src));
            }
            Ok(())
        })?;
        let k = inputs.len() as u16;
        let outputs = SCRATCH.with_borrow_mut(|sc| {
            sc.used.clear();
            sc.used.resize(body.len(), false);
            // Which results are read is taken from the final sources: a contraction pair's mul
            // overwrites an operand that may have picked an earlier result.
            for s in &mut body {
                let n = s.instr.inputs as usize;
                for r in &mut s.srcs_mut()[..n] {
                    if r.0 & INPUT != 0 {
                        r.0 &= !INPUT;
                    } else {
                        sc.used[r.0 as usize] = true;
                        r.0 += k;
                    }
                }
            }
            (0..body.len()).filter(|&j| !sc.used[j]).map(|j| Reg(k + j as u16)).collect()
        });
        Ok(Program::new_unchecked(inputs, body, outputs))
    }

    /// Provisional sources for `instr`: results are instruction numbers, inputs carry `INPUT`.
    fn operands(
        &self,
        u: &mut Unstructured,
        instr: &Instr,
        sc: &mut Scratch,
        inputs: &mut Vec<ValType>,
    ) -> Result<[Reg; 3]> {
        let mut src = [Reg(0); 3];
        for (pos, s) in src.iter_mut().enumerate().take(instr.inputs as usize) {
            if instr.reads_predicate(pos) {
                // An earlier predicate (the caller made sure there is one).
                let preds = &sc.results[RegClass::Pred.index()];
                *s = Reg(preds[u.choose_index(preds.len())?]);
                continue;
            }
            let t = ValType::of_operand(instr, pos);
            if tagged(t) {
                // An earlier integer or fp8 pair of its type (the caller made sure an fp8
                // source has one), or an integer input: an earlier one, or a new one.
                let earlier = sc.tagged.iter().filter(|(i, _)| *i == t);
                let own = sc.int_inputs.iter().filter(|(i, _)| *i == t);
                *s = Reg(if matches!(t, ValType::Narrow(_)) || (earlier.clone().next().is_some() && chance(u, self.odds.reuse)?) {
                    pick(u, earlier)?.1
                } else if own.clone().next().is_some() && chance(u, self.odds.input_reuse)? {
                    pick(u, own)?.1 | INPUT
                } else {
                    let i = inputs.len() as u16;
                    inputs.push(t);
                    sc.int_inputs.push((t, i));
                    i | INPUT
                });
                continue;
            }
            // A `cvt` reads another type than it writes (f32 -> bf16 -> fma.bf16 chains), a
            // mixed-precision form a half and an f32 (bf16 -> fma.rn.f32.bf16 -> f32); a
            // `selp.bN` a value of the config's types in its class (a new input is one).
            let ty = instr.src_type_at(pos);
            let ty = if instr.is_bits_selp() { class_type(&self.cfg.types, ty).unwrap_or(ty) } else { ty };
            let class = RegClass::of(ty).index();
            let res = &sc.results[class];
            let ins = &sc.inputs[class];
            *s = Reg(if !res.is_empty() && chance(u, self.odds.reuse)? {
                res[u.choose_index(res.len())?]
            } else if !ins.is_empty() && chance(u, self.odds.input_reuse)? {
                ins[u.choose_index(ins.len())?] | INPUT
            } else {
                let i = inputs.len() as u16;
                inputs.push(ValType::Float(ty));
                sc.inputs[class].push(i);
                i | INPUT
            });
        }
        Ok(src)
    }

    /// For an unrounded add/sub, the unrounded mul ptxas could contract into it (same type and
    /// `.ftz`), if contraction is on and that mul is among the forms.
    fn contraction_mul(&self, add: &Instr) -> Option<Instr> {
        if !self.cfg.contraction || add.precision != Precision::Default {
            return None;
        }
        let m = Instr { op: Opcode::Mul, clamp: Clamp::None, ..*add };
        self.muls.contains(&m).then_some(m)
    }

    /// Values for every input of `p` (special values and relations by the config's shares).
    pub fn case(&self, u: &mut Unstructured, p: &Program) -> Result<Vec<u64>> {
        let mut out = Vec::with_capacity(p.inputs().len());
        self.case_into(u, p, &mut out)?;
        Ok(out)
    }

    /// As [`Generator::case`], appending to `out` (for packing many cases into one buffer),
    /// with the choices drawn from any [`Draw`] (a byte stream, or a campaign's faster bits).
    pub fn case_into(&self, u: &mut (impl Draw + ?Sized), p: &Program, out: &mut Vec<u64>) -> Result<()> {
        case_into(u, p.inputs(), self.odds.special, self.odds.relation, out)
    }

    /// `n` cases of `p`, appended to `out`: the distribution of `n` calls of
    /// [`Generator::case_into`], drawn column by column (`operand::cases_into`), several times
    /// faster; not the same stream, so not for a byte stream that must decode as it always did.
    pub fn cases_into(&self, u: &mut (impl Draw + ?Sized), p: &Program, n: usize, out: &mut Vec<u64>) -> Result<()> {
        operand::cases_into(u, p.inputs(), n, self.odds.special, self.odds.relation, out)
    }

    /// The program and input case that `data` decodes to: [`Generator::program`], then
    /// [`Generator::case`] from the rest of the same stream. Deterministic (same bytes and
    /// config, same result) and total: every byte string decodes, the empty one included (an
    /// exhausted stream gives the plainest choices). This is how a raw fuzzer input, e.g. a
    /// file of `fuzz/corpus/explore`, becomes a program to replay: decode it with the config
    /// the fuzz target used (`fuzz/explore.json`).
    pub fn from_bytes(&self, data: &[u8]) -> (Program, Vec<u64>) {
        let mut u = Unstructured::new(data);
        // Neither can fail: every choice is among a non-empty list (`new` rejects configs
        // without forms) and an exhausted stream answers with the lowest choice.
        let p = self.program(&mut u).expect("program generation is total");
        let case = self.case(&mut u, &p).expect("case generation is total");
        (p, case)
    }
}

/// [`Generator::from_bytes`] for a one-off decode; to decode many inputs, build the
/// [`Generator`] once (it enumerates the legal forms up front).
pub fn from_bytes(data: &[u8], cfg: &GenConfig) -> std::result::Result<(Program, Vec<u64>), GenError> {
    Ok(Generator::new(cfg.clone())?.from_bytes(data))
}

/// add/sub/mul without rounding modifier: ptxas may fuse them (9.7.3.3-5 notes). Not a
/// mixed-precision add/sub: ptxas 13.5 keeps `mul.f32` + `add.f32.f16` as FMUL + FHADD on
/// sm_100 (`Program::run` does not fuse them either).
fn is_contractible(f: &Instr) -> bool {
    matches!(f.op, Opcode::Add | Opcode::Sub | Opcode::Mul) && f.precision == Precision::Default && f.atype.is_none()
}

/// Deterministic pseudo-random input for [`Generator::from_bytes`]: `n` bytes of a xorshift
/// stream started at `seed`. The tests, benchmarks and the ptxas check draw their programs from
/// it, so a failing seed reproduces anywhere.
pub fn seeded_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

/// One of `items`, uniformly (the callers make sure there is one: `new` keeps an integer
/// source only with a `cvt` to its type, and `program` puts one first).
fn pick<T>(u: &mut Unstructured, items: impl Iterator<Item = T> + Clone) -> Result<T> {
    let k = u.choose_index(items.clone().count())?;
    Ok(items.into_iter().nth(k).expect("k is below the count"))
}

/// Every form a program may hold (for some target), computed once, sorted: the forms of
/// 9.7.3/9.7.4 ([`crate::isa::all_forms`]), every documented float-to-float `cvt`
/// ([`crate::isa::conversion::cvt_forms`]), float `setp`, `set` and `selp`
/// ([`crate::isa::comparison::compare_forms`]) and the mixed-precision `add`/`sub`/`fma`
/// ([`crate::isa::mixed::mixed_forms`]).
pub fn legal_forms() -> &'static [Instr] {
    static FORMS: std::sync::OnceLock<Vec<Instr>> = std::sync::OnceLock::new();
    FORMS.get_or_init(|| {
        let mut v = crate::isa::all_forms();
        v.extend(crate::isa::conversion::cvt_forms());
        v.extend(crate::isa::comparison::compare_forms());
        v.extend(crate::isa::mixed::mixed_forms());
        v.sort_unstable();
        v
    })
}

#[cfg(test)]
mod tests;
