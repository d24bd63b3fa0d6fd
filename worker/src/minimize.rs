//! Minimization of a failing case: greedy delta debugging over instructions, operands,
//! modifiers and input values, keeping whatever the caller's oracle calls "the same failure".
//!
//! The minimizer proposes candidate cases (a [`Program`] and one input vector) and asks an
//! oracle which of them still fail; candidates go to the oracle in batches, one batch per
//! transformation group, so an engine can run many of them per launch. A candidate is only
//! proposed when it is strictly smaller than the current case by [`Size`] (instructions, then
//! inputs, outputs, modifiers, and the complexity of the input values), so the search always
//! terminates; the probe budget bounds its cost.
//!
//! Transformation groups, tried in order and restarted after each success:
//! 1. keep one output (the rest become dead code and go);
//! 2. drop an instruction: its uses read a fresh input holding the value the reference
//!    computes for it, or one of its own sources;
//! 3. read an existing input instead of another input or a result (`add a, b` -> `add a, a`);
//! 4. modifiers: drop `.sat`/`.relu`, `.ftz`, `.NaN`; rounding to `.rn`;
//! 5. values: toward zero, one and the special values, fewer significant bits, the exponent
//!    toward 1, the sign cleared; packed registers lane by lane.
//!
//! Programs are rebuilt through [`Program::new`], so every candidate is valid; unused inputs
//! and instructions whose results reach no output are removed on the way.

use ptx::isa::{Clamp, Comparison, Ftz, Instr, NanMode, Precision, Type};
use ptx::program::{Program, Reg, RegClass, Stmt, ValType};
use ptx::Rounding;

/// A program and one input vector (raw register bits, one per input).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Case {
    pub program: Program,
    pub inputs: Vec<u64>,
}

/// How much work minimization may do.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Candidates probed in all (the oracle's batches summed).
    pub max_probes: usize,
    /// No batch of candidates is probed from this instant on: the case reduced so far is the
    /// result (`exhausted`). A campaign sets its `--seconds` end plus a grace, so that a
    /// finding met late does not hold it past its time: on the H200 the compiled campaign of
    /// 12 s ran 99.7 s, minimizing 77 new findings with one JIT per probe.
    pub deadline: Option<std::time::Instant>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_probes: 20_000, deadline: None }
    }
}

/// The result of [`minimize`].
#[derive(Clone, Debug)]
pub struct Minimized {
    pub case: Case,
    /// Candidates probed.
    pub probes: usize,
    /// Candidates accepted (each made the case smaller).
    pub steps: usize,
    /// Whether the probe budget ran out before a fixpoint.
    pub exhausted: bool,
}

/// The size order candidates must decrease in (compared field by field, in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size {
    pub instructions: usize,
    pub inputs: usize,
    pub outputs: usize,
    /// `.ftz`, clamps, `.NaN`, directed rounding, unrounded (contractible) forms, `.BoolOp`.
    pub modifiers: usize,
    /// Sum of [`value_complexity`] over every input lane.
    pub values: u64,
}

impl Size {
    pub fn of(case: &Case) -> Size {
        let p = &case.program;
        Size {
            instructions: p.body().len(),
            inputs: p.inputs().len(),
            outputs: p.outputs().len(),
            modifiers: p.body().iter().map(|s| modifier_count(&s.instr)).sum(),
            values: p
                .inputs()
                .iter()
                .zip(&case.inputs)
                .map(|(&ty, &v)| values::register_complexity(ty, v))
                .sum(),
        }
    }
}

fn modifier_count(i: &Instr) -> usize {
    let rounding = match i.precision {
        Precision::Rounded(Rounding::Rn) | Precision::Approx | Precision::Full => 0,
        // Default is .rn that ptxas may contract: an explicit .rn is the plainer statement.
        Precision::Default | Precision::Rounded(_) => 1,
    };
    rounding
        + (i.ftz == Ftz::Flush) as usize
        + (i.clamp != Clamp::None) as usize
        + (i.nan == NanMode::Propagate) as usize
        + i.cmp.is_some_and(|c| c.combine.is_some()) as usize
}

/// Minimize `case`, which must fail (the oracle is not asked about it). `still_fails` gets a
/// batch of candidates and answers, for each, whether it fails the same way.
pub fn minimize<F>(case: Case, limits: &Limits, mut still_fails: F) -> Minimized
where
    F: FnMut(&[Case]) -> Vec<bool>,
{
    let mut cur = case;
    let mut probes = 0;
    let mut steps = 0;
    let mut exhausted = false;
    'outer: loop {
        let ir = Ir::of(&cur);
        let size = Size::of(&cur);
        let reference = reference_values(&cur);
        for group in GROUPS {
            let mut cands: Vec<(Size, Case)> = group(&ir, reference.as_deref())
                .into_iter()
                .filter_map(|c| c.to_case())
                .map(|c| (Size::of(&c), c))
                .filter(|(s, _)| *s < size)
                .collect();
            if cands.is_empty() {
                continue;
            }
            cands.sort_by_key(|(s, _)| *s);
            cands.dedup_by(|a, b| a.1 == b.1);
            if limits.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                exhausted = true;
                break 'outer;
            }
            if probes + cands.len() > limits.max_probes {
                cands.truncate(limits.max_probes.saturating_sub(probes));
                exhausted = true;
                if cands.is_empty() {
                    break 'outer;
                }
            }
            let batch: Vec<Case> = cands.iter().map(|(_, c)| c.clone()).collect();
            let verdicts = still_fails(&batch);
            probes += batch.len();
            // Sorted by size: the first failing candidate is the smallest.
            if let Some(i) = verdicts.iter().position(|&f| f) {
                cur = batch.into_iter().nth(i).expect("one verdict per candidate");
                steps += 1;
                continue 'outer;
            }
            if exhausted {
                break 'outer;
            }
        }
        break;
    }
    Minimized { case: cur, probes, steps, exhausted }
}

/// [`minimize`] with a one-candidate-at-a-time oracle.
pub fn minimize_each<F>(case: Case, limits: &Limits, mut still_fails: F) -> Minimized
where
    F: FnMut(&Program, &[u64]) -> bool,
{
    minimize(case, limits, |cands| cands.iter().map(|c| still_fails(&c.program, &c.inputs)).collect())
}

/// The reference interpreter's primary result of every instruction on the case's inputs
/// (what an instruction replaced by an input is given); `None` if it cannot run.
fn reference_values(case: &Case) -> Option<Vec<u64>> {
    let run = case.program.trace(&case.inputs).ok()?;
    Some(run.intermediates.iter().map(|e| e.primary_bits()).collect())
}

type Group = fn(&Ir, Option<&[u64]>) -> Vec<Ir>;
const GROUPS: [Group; 5] = [keep_one_output, drop_instruction, reuse_input, simplify_modifiers, simplify_values];

/// Where an operand or output comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    Input(usize),
    Result(usize),
}

/// An editable program: sources by position, inputs with their values.
#[derive(Clone, Debug)]
struct Ir {
    inputs: Vec<(ValType, u64)>,
    body: Vec<(Instr, Vec<Src>)>,
    outputs: Vec<Src>,
}

impl Ir {
    fn of(case: &Case) -> Ir {
        let p = &case.program;
        let src = |r: Reg| match p.definition(r) {
            None => Src::Input(r.0 as usize),
            Some(j) => Src::Result(j),
        };
        Ir {
            inputs: p.inputs().iter().copied().zip(case.inputs.iter().copied()).collect(),
            body: p.body().iter().map(|s| (s.instr, s.srcs().iter().map(|&r| src(r)).collect())).collect(),
            outputs: p.outputs().iter().map(|&r| src(r)).collect(),
        }
    }

    /// The register class a source holds.
    fn class(&self, s: Src) -> RegClass {
        match s {
            Src::Input(i) => self.inputs[i].0.class(),
            Src::Result(j) => ptx::program::ValType::of_result(&self.body[j].0).class(),
        }
    }

    /// Rebuild a program: only instructions reaching an output and inputs read by them stay.
    fn to_case(&self) -> Option<Case> {
        let mut live = vec![false; self.body.len()];
        let mut read = vec![false; self.inputs.len()];
        let mark = |s: Src, live: &mut Vec<bool>, read: &mut Vec<bool>| match s {
            Src::Input(i) => read[i] = true,
            Src::Result(j) => live[j] = true,
        };
        for &o in &self.outputs {
            mark(o, &mut live, &mut read);
        }
        for j in (0..self.body.len()).rev() {
            if live[j] {
                for &s in &self.body[j].1 {
                    mark(s, &mut live, &mut read);
                }
            }
        }
        let mut input_reg = vec![u16::MAX; self.inputs.len()];
        let mut inputs = Vec::new();
        let mut values = Vec::new();
        for (i, &(ty, v)) in self.inputs.iter().enumerate() {
            if read[i] {
                input_reg[i] = inputs.len() as u16;
                inputs.push(self.consumers_type(i, &live).unwrap_or(ty));
                values.push(v);
            }
        }
        let k = inputs.len();
        let mut result_reg = vec![u16::MAX; self.body.len()];
        let mut n = 0;
        for (j, l) in live.iter().enumerate() {
            if *l {
                result_reg[j] = (k + n) as u16;
                n += 1;
            }
        }
        let reg = |s: Src| {
            Reg(match s {
                Src::Input(i) => input_reg[i],
                Src::Result(j) => result_reg[j],
            })
        };
        let mut body = Vec::with_capacity(n);
        for (j, (instr, srcs)) in self.body.iter().enumerate() {
            if live[j] {
                let regs: Vec<Reg> = srcs.iter().map(|&s| reg(s)).collect();
                body.push(Stmt::new(*instr, &regs).ok()?);
            }
        }
        let outputs = self.outputs.iter().map(|&s| reg(s)).collect();
        let program = Program::new(inputs, body, outputs).ok()?;
        Some(Case { program, inputs: values })
    }

    /// The format every live instruction reading input `i` takes it as, when they agree and it
    /// fits the input's register (same width): an input that replaced an f16 result feeding
    /// only `fma.bf16` is a bf16, not an f16, in the reproducer (the bits are the same; the
    /// declared type and decimal rendering follow the reader).
    fn consumers_type(&self, i: usize, live: &[bool]) -> Option<ValType> {
        // An integer input keeps its type: its readers name it exactly.
        let ValType::Float(own) = self.inputs[i].0 else { return None };
        let mut tys = self
            .body
            .iter()
            .zip(live)
            .filter(|(_, &l)| l)
            .flat_map(|((instr, srcs), _)| {
                // Each reading position's own type (a mixed-precision form reads a half and an f32).
                srcs.iter().enumerate().filter(|(_, s)| **s == Src::Input(i)).map(|(k, _)| instr.src_type_at(k))
            });
        let first = tys.next()?;
        (tys.all(|t| t == first) && first.bits() == own.bits() && RegClass::of(first) == RegClass::of(own))
            .then_some(ValType::Float(first))
    }

    /// Every use of `from` (operands and outputs) reads `to` instead.
    fn replace_uses(&mut self, from: Src, to: Src) {
        for (_, srcs) in &mut self.body {
            for s in srcs.iter_mut().filter(|s| **s == from) {
                *s = to;
            }
        }
        for o in self.outputs.iter_mut().filter(|o| **o == from) {
            *o = to;
        }
    }
}

/// Group 1: one output at a time, and each output's sources as the output (cutting the tail).
fn keep_one_output(ir: &Ir, _: Option<&[u64]>) -> Vec<Ir> {
    let mut out = Vec::new();
    for &o in &ir.outputs {
        let mut c = ir.clone();
        c.outputs = vec![o];
        out.push(c);
        if let Src::Result(j) = o {
            for &s in &ir.body[j].1 {
                if matches!(s, Src::Result(_)) {
                    let mut c = ir.clone();
                    c.outputs = vec![s];
                    out.push(c);
                }
            }
        }
    }
    out
}

/// Group 2: instruction `j` removed: its uses read a fresh input with its reference value, or one
/// of its own sources of the same register class.
fn drop_instruction(ir: &Ir, reference: Option<&[u64]>) -> Vec<Ir> {
    let mut out = Vec::new();
    for j in 0..ir.body.len() {
        let (instr, srcs) = &ir.body[j];
        // A predicate cannot be a program input: such a result is not replaced by a fresh
        // input (a source of its class below may still replace it). An integer result becomes
        // an integer input of its type (f32 -> s32 -> f32 shrinks to the one conversion that
        // fails); a tf32 result an f32 input (`instr.ty`), which its f32 readers take; a narrow
        // pair in a .b16 an f16 input with its bits (its reader reads any .b16 register,
        // 9.7.9.21); an e2m1x2 pair none (no input is a .b8 register, `RegClass::B8`).
        let input_type = match ValType::of_result(instr) {
            ValType::Pred | ValType::PredPair => None,
            t @ ValType::Int(_) => Some(t),
            t @ ValType::Narrow(_) => (t.class() == RegClass::B16).then_some(ValType::Float(Type::F16)),
            ValType::Tf32 | ValType::Float(_) => Some(ValType::Float(instr.ty)),
        };
        if let (Some(values), Some(ty)) = (reference, input_type) {
            let mut c = ir.clone();
            c.inputs.push((ty, values[j]));
            c.replace_uses(Src::Result(j), Src::Input(c.inputs.len() - 1));
            out.push(c);
        }
        let class = ir.class(Src::Result(j));
        for &s in srcs {
            if ir.class(s) == class {
                let mut c = ir.clone();
                c.replace_uses(Src::Result(j), s);
                out.push(c);
            }
        }
    }
    out
}

/// Group 3: an operand reads an existing input of its register class instead (an integer
/// source an integer input of its type, a float source a float input: the bits of one are
/// not a value of the other).
fn reuse_input(ir: &Ir, _: Option<&[u64]>) -> Vec<Ir> {
    let mut out = Vec::new();
    for j in 0..ir.body.len() {
        for pos in 0..ir.body[j].1.len() {
            let cur = ir.body[j].1[pos];
            let class = ir.class(cur);
            let need = ValType::of_operand(&ir.body[j].0, pos);
            for i in 0..ir.inputs.len() {
                let to = Src::Input(i);
                let have = ir.inputs[i].0;
                let kind = match (need, have) {
                    (ValType::Int(a), ValType::Int(b)) => a == b,
                    (ValType::Int(_), _) | (_, ValType::Int(_)) => false,
                    _ => true,
                };
                if to != cur && kind && have.class() == class {
                    let mut c = ir.clone();
                    c.body[j].1[pos] = to;
                    out.push(c);
                }
            }
        }
    }
    out
}

/// Group 4: one modifier dropped (forms that do not exist are rejected by `Program::new`).
fn simplify_modifiers(ir: &Ir, _: Option<&[u64]>) -> Vec<Ir> {
    let mut out = Vec::new();
    for j in 0..ir.body.len() {
        let i = ir.body[j].0;
        let mut variants = Vec::new();
        if i.clamp != Clamp::None {
            variants.push(Instr { clamp: Clamp::None, ..i });
        }
        if i.ftz == Ftz::Flush {
            variants.push(Instr { ftz: Ftz::Preserve, ..i });
        }
        if i.nan == NanMode::Propagate {
            variants.push(Instr { nan: NanMode::Number, ..i });
        }
        if matches!(i.precision, Precision::Default | Precision::Rounded(Rounding::Rz | Rounding::Rm | Rounding::Rp)) {
            variants.push(Instr { precision: Precision::Rounded(Rounding::Rn), ..i });
        }
        for v in variants {
            if v.validate().is_ok() {
                let mut c = ir.clone();
                c.body[j].0 = v;
                out.push(c);
            }
        }
        // A `.BoolOp` dropped with its predicate source: `setp.lt.and.f32 p, a, b, c` becomes
        // `setp.lt.f32 p, a, b`, and `c`'s definition goes if nothing else reads it.
        if let Some(cmp) = i.cmp.filter(|c| c.combine.is_some()) {
            let plain = Instr { cmp: Some(Comparison { combine: None, ..cmp }), inputs: 2, ..i };
            if plain.validate().is_ok() {
                let mut c = ir.clone();
                c.body[j] = (plain, ir.body[j].1[..2].to_vec());
                out.push(c);
            }
        }
    }
    out
}

/// Group 5: one input given a simpler value (a float one lane at a time).
fn simplify_values(ir: &Ir, _: Option<&[u64]>) -> Vec<Ir> {
    let mut out = Vec::new();
    for (i, &(ty, v)) in ir.inputs.iter().enumerate() {
        for nv in values::simpler_registers(ty, v) {
            let mut c = ir.clone();
            c.inputs[i].1 = nv;
            out.push(c);
        }
    }
    out
}

mod values;

#[cfg(test)]
mod tests;
