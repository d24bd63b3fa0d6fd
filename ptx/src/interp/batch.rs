//! Batch evaluation: the primary result of many cases of one form, with one dispatch per batch.
//!
//! Comparing millions of hardware results needs only the primary result in the common case
//! (a result equal to it is accepted; any other goes through [`super::eval`] for the full
//! expectation). [`Kernel`] resolves the form once to a loop monomorphized per lane format and
//! opcode, and for IEEE-rounded forms per rounding mode, `.ftz` and clamp too, so that no
//! modifier is tested per case. The loops call the lane code of `eval` (`arith::primary`,
//! which computes `arith::lane`'s primary outcome without its alternatives; `minmax`, `sign`,
//! `testp` as they are), so the two cannot disagree; `kernel_matches_eval_*` check it.

use super::arith::{self, ArithOp};
use super::expect::{LaneExpectation, Outcome};
use super::minmax::{self, Extremum};
use super::{eval, sign, testp, EvalError, Expectation};
use crate::approx;
use crate::format::{Format, Scalar, BF16, F16, F32, F64};
use crate::isa::{Clamp, Ftz, Instr, Opcode};
use crate::rounding::Rounding;

type Loop = fn(&Instr, Operands, &mut [u64]);

/// The source operands of a chunk of cases, one column per operand (a, b, c), as the CPU
/// engines hold their registers: nothing is gathered into triples per instruction (that
/// gathering, and the triples' reads, were a tenth of an interp campaign's time). A column of
/// an operand the form does not have may hold anything (zeros, say).
#[derive(Clone, Copy)]
pub struct Operands<'a> {
    cols: [&'a [u64]; 3],
}

impl<'a> Operands<'a> {
    /// Columns of one length, one per source operand.
    pub fn new(a: &'a [u64], b: &'a [u64], c: &'a [u64]) -> Operands<'a> {
        assert!(a.len() == b.len() && b.len() == c.len(), "operand columns of one length");
        Operands { cols: [a, b, c] }
    }

    pub fn len(&self) -> usize {
        self.cols[0].len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Operand `k`'s column (0 to 2).
    pub fn column(&self, k: usize) -> &'a [u64] {
        self.cols[k]
    }

    /// Case by case: operands a, b, c.
    #[inline(always)]
    pub fn iter(self) -> impl Iterator<Item = [u64; 3]> + 'a {
        let [a, b, c] = self.cols;
        a.iter().zip(b).zip(c).map(|((&a, &b), &c)| [a, b, c])
    }
}

/// A form resolved for batch evaluation of primary results.
#[derive(Clone, Copy)]
pub struct Kernel {
    instr: Instr,
    run: Loop,
    /// Whether `run` is a dedicated loop (else each case goes through `eval`).
    dedicated: bool,
}

impl Kernel {
    /// Resolve `instr`; fails as [`eval`] would (approximate forms, malformed forms).
    pub fn new(instr: &Instr) -> Result<Kernel, EvalError> {
        // Let `eval` report every error a form can have, on a harmless operand vector.
        eval(instr, &[0, 0, 0][..usize::from(instr.inputs).min(3)])?;
        let run = match arith_op(instr.op) {
            _ if instr.atype.is_some() => Some(mixed_lanes as Loop),
            Some(op) => instr
                .precision
                .rounding()
                .and_then(|mode| arith_loop(op, instr.ty.scalar(), mode, instr.ftz, instr.clamp)),
            None => exact_loop(instr).or_else(|| cvt_loop(instr)).or_else(|| compare_loop(instr)),
        }
        .or_else(|| approx_loop(instr));
        Ok(Kernel { instr: *instr, run: run.unwrap_or(generic_loop), dedicated: run.is_some() })
    }

    pub fn instr(&self) -> &Instr {
        &self.instr
    }

    /// Whether the form has a loop of its own; if not, each case goes through [`eval`],
    /// several times slower (every form has one today: `every_form_has_a_dedicated_loop`).
    pub fn dedicated(&self) -> bool {
        self.dedicated
    }

    /// Write the primary result of `cases[i]` (operands a, b, c; unused slots ignored) to
    /// `out[i]`. Operands must fit the register width (checked in debug builds). For many
    /// cases held column by column, [`Kernel::run_columns`] saves the transposition.
    pub fn run(&self, cases: &[[u64; 3]], out: &mut [u64]) {
        let col = |k: usize| cases.iter().map(|c| c[k]).collect::<Vec<u64>>();
        let (a, b, c) = (col(0), col(1), col(2));
        self.run_columns(Operands::new(&a, &b, &c), out)
    }

    /// Write the primary result of case `i` of `ops` to `out[i]`.
    pub fn run_columns(&self, ops: Operands, out: &mut [u64]) {
        assert_eq!(ops.len(), out.len(), "one output slot per case");
        debug_assert!(ops.iter().all(|c| self.fits(&c)), "operand wider than the register");
        (self.run)(&self.instr, ops, out)
    }

    fn fits(&self, c: &[u64; 3]) -> bool {
        c[..usize::from(self.instr.inputs)].iter().enumerate().all(|(k, v)| {
            let bits = self.instr.src_bits(k);
            bits == 64 || v >> bits == 0
        })
    }
}

fn arith_op(op: Opcode) -> Option<ArithOp> {
    Some(match op {
        Opcode::Add => ArithOp::Add,
        Opcode::Sub => ArithOp::Sub,
        Opcode::Mul => ArithOp::Mul,
        Opcode::Fma | Opcode::Mad => ArithOp::Fma,
        Opcode::Div => ArithOp::Div,
        Opcode::Rcp => ArithOp::Rcp,
        Opcode::Sqrt => ArithOp::Sqrt,
        _ => return None,
    })
}

/// Every other form: through `eval`, one case at a time.
fn generic_loop(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let n = usize::from(instr.inputs);
    for (c, o) in ops.iter().zip(out.iter_mut()) {
        *o = eval(instr, &c[..n]).map_or(0, |e: Expectation| e.primary_bits());
    }
}

const RN: u8 = 0;
const RZ: u8 = 1;
const RM: u8 = 2;
const RP: u8 = 3;

const fn mode_of(m: u8) -> Rounding {
    match m {
        RN => Rounding::Rn,
        RZ => Rounding::Rz,
        RM => Rounding::Rm,
        _ => Rounding::Rp,
    }
}

const ADD: u8 = 0;
const SUB: u8 = 1;
const MUL: u8 = 2;
const FMA: u8 = 3;
const DIV: u8 = 4;
const RCP: u8 = 5;
const SQRT: u8 = 6;

const fn op_of(o: u8) -> ArithOp {
    match o {
        ADD => ArithOp::Add,
        SUB => ArithOp::Sub,
        MUL => ArithOp::Mul,
        FMA => ArithOp::Fma,
        DIV => ArithOp::Div,
        RCP => ArithOp::Rcp,
        _ => ArithOp::Sqrt,
    }
}

/// The value modifiers as one const parameter: bit 0 `.ftz`, bits 1-2 the clamp.
const fn mods_code(ftz: Ftz, clamp: Clamp) -> u8 {
    let f = match ftz {
        Ftz::Preserve => 0,
        Ftz::Flush => 1,
    };
    let c = match clamp {
        Clamp::None => 0,
        Clamp::Sat => 1,
        Clamp::Relu => 2,
    };
    f | c << 1
}

const fn ftz_of(m: u8) -> Ftz {
    if m & 1 == 0 {
        Ftz::Preserve
    } else {
        Ftz::Flush
    }
}

const fn clamp_of(m: u8) -> Clamp {
    match m >> 1 {
        0 => Clamp::None,
        1 => Clamp::Sat,
        _ => Clamp::Relu,
    }
}

/// The loop for an IEEE-rounded form, monomorphized on everything that selects code (format,
/// opcode, mode, `.ftz`, clamp), so that no modifier is tested per case. Only the
/// combinations PTX has are instantiated (9.7.3: f32 `.ftz`/`.sat`, f64 neither; 9.7.4:
/// half-precision add/sub/mul/fma only, `.ftz`/`.sat`/`.relu` on f16, `.relu` on bf16);
/// `None` for any other, which then goes through `eval`.
fn arith_loop(op: ArithOp, scalar: Scalar, mode: Rounding, ftz: Ftz, clamp: Clamp) -> Option<Loop> {
    macro_rules! by_mode {
        ($f:ty, $op:expr, $m:expr) => {
            match mode {
                Rounding::Rn => arith_lanes::<$f, $op, RN, $m> as Loop,
                Rounding::Rz => arith_lanes::<$f, $op, RZ, $m> as Loop,
                Rounding::Rm => arith_lanes::<$f, $op, RM, $m> as Loop,
                Rounding::Rp => arith_lanes::<$f, $op, RP, $m> as Loop,
            }
        };
    }
    macro_rules! by_op {
        ($f:ty, $m:expr, all) => {
            match op {
                ArithOp::Add => by_mode!($f, ADD, $m),
                ArithOp::Sub => by_mode!($f, SUB, $m),
                ArithOp::Mul => by_mode!($f, MUL, $m),
                ArithOp::Fma => by_mode!($f, FMA, $m),
                ArithOp::Div => by_mode!($f, DIV, $m),
                ArithOp::Rcp => by_mode!($f, RCP, $m),
                ArithOp::Sqrt => by_mode!($f, SQRT, $m),
            }
        };
        ($f:ty, $m:expr, half) => {
            match op {
                ArithOp::Add => by_mode!($f, ADD, $m),
                ArithOp::Sub => by_mode!($f, SUB, $m),
                ArithOp::Mul => by_mode!($f, MUL, $m),
                ArithOp::Fma => by_mode!($f, FMA, $m),
                ArithOp::Div | ArithOp::Rcp | ArithOp::Sqrt => return None,
            }
        };
    }
    macro_rules! by_mods {
        ($f:ty, $ops:ident, [$($m:literal),*]) => {
            match mods_code(ftz, clamp) {
                $($m => by_op!($f, $m, $ops),)*
                _ => return None,
            }
        };
    }
    // mods_code: 0 none, 1 ftz, 2 sat, 3 ftz.sat, 4 relu, 5 ftz.relu.
    Some(match scalar {
        Scalar::F16 => by_mods!(F16, half, [0, 1, 2, 3, 4, 5]),
        Scalar::BF16 => by_mods!(BF16, half, [0, 4]),
        Scalar::F32 => by_mods!(F32, all, [0, 1, 2, 3]),
        Scalar::F64 => by_mods!(F64, all, [0]),
    })
}

fn arith_lanes<F: Format, const OP: u8, const MODE: u8, const MODS: u8>(
    instr: &Instr,
    ops: Operands,
    out: &mut [u64],
) {
    debug_assert_eq!(MODS, mods_code(instr.ftz, instr.clamp));
    let mods = arith::Mods { mode: mode_of(MODE), ftz: ftz_of(MODS), clamp: clamp_of(MODS) };
    let op = op_of(OP);
    let lane = |c: [u64; 3], shift: u32| {
        let x = [(c[0] >> shift) & F::MASK, (c[1] >> shift) & F::MASK, (c[2] >> shift) & F::MASK];
        arith::primary::<F>(op, mods, x)
    };
    // Two loops, so that the scalar one carries no lane test (f64 is never packed).
    if F::BITS < 64 && instr.ty.lanes() == 2 {
        for (c, o) in ops.iter().zip(out.iter_mut()) {
            *o = lane(c, 0) | lane(c, F::BITS) << F::BITS;
        }
    } else {
        for (c, o) in ops.iter().zip(out.iter_mut()) {
            *o = lane(c, 0);
        }
    }
}

/// The loop for min, max, abs, neg, copysign and testp (monomorphized on the lane format and
/// the opcode; their modifiers are cheap run-time tests). `None` for the arithmetic and
/// approximate forms.
fn exact_loop(instr: &Instr) -> Option<Loop> {
    macro_rules! by_scalar {
        ($l:ident) => {
            match instr.ty.scalar() {
                Scalar::F16 => $l::<F16> as Loop,
                Scalar::BF16 => $l::<BF16> as Loop,
                Scalar::F32 => $l::<F32> as Loop,
                Scalar::F64 => $l::<F64> as Loop,
            }
        };
    }
    Some(match instr.op {
        Opcode::Min => by_scalar!(min_lanes),
        Opcode::Max => by_scalar!(max_lanes),
        Opcode::Abs => by_scalar!(abs_lanes),
        Opcode::Neg => by_scalar!(neg_lanes),
        Opcode::Copysign => by_scalar!(copysign_lanes),
        Opcode::Testp => by_scalar!(testp_lanes),
        _ => return None,
    })
}

/// A float-to-float `cvt`: `crate::cvt::Primary`, its lane function chosen once per call; a
/// float-integer one: `crate::cvt::int`, an integer result extended to its register; one to
/// tf32: `crate::cvt::tf32`'s primary; fp8: `crate::cvt::narrow`'s.
fn cvt_loop(instr: &Instr) -> Option<Loop> {
    instr
        .as_cvt()
        .map(|_| cvt_lanes as Loop)
        .or_else(|| instr.as_cvt_int().map(|_| cvt_int_lanes as Loop))
        .or_else(|| instr.as_tf32().map(|_| tf32_lanes as Loop))
        .or_else(|| instr.as_narrow().map(|_| narrow_lanes as Loop))
        .or_else(|| instr.as_stochastic().map(|_| stochastic_lanes as Loop))
}

/// A `cvt.rs`: `crate::cvt::stochastic`'s primary register (a, b and the random bits).
fn stochastic_lanes(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let Some(c) = instr.as_stochastic() else { return generic_loop(instr, ops, out) };
    for (x, o) in ops.iter().zip(out.iter_mut()) {
        // The operands fit (`Kernel::fits`): three of them, so the only error cannot occur.
        *o = c.eval(&x).map_or(0, |e| e.primary_bits());
    }
}

/// An fp8 `cvt`: `crate::cvt::narrow`'s primary register (two f32 sources, or one pair).
fn narrow_lanes(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let Some(c) = instr.as_narrow() else { return generic_loop(instr, ops, out) };
    let n = c.inputs();
    for (x, o) in ops.iter().zip(out.iter_mut()) {
        // The operands fit (`Kernel::fits`), so the only error, a wrong count, cannot occur.
        *o = crate::cvt::narrow::eval(&c, &x[..n]).map_or(0, |r| r.bits);
    }
}

fn tf32_lanes(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let Some(c) = instr.as_tf32() else { return generic_loop(instr, ops, out) };
    for (x, o) in ops.iter().zip(out.iter_mut()) {
        *o = c.primary(x[0] as u32);
    }
}

fn cvt_int_lanes(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let Some(c) = instr.as_cvt_int() else { return generic_loop(instr, ops, out) };
    for (x, o) in ops.iter().zip(out.iter_mut()) {
        let bits = c.eval_bits(x[0]);
        *o = if c.to_int { c.int.extend(bits, c.int.reg_bits()) } else { bits };
    }
}

fn cvt_lanes(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let Some(c) = instr.as_cvt() else { return generic_loop(instr, ops, out) };
    let p = crate::cvt::Primary::new(&c);
    for (x, o) in ops.iter().zip(out.iter_mut()) {
        *o = p.bits(x[0], x[1]);
    }
}

/// A mixed-precision `add`/`sub`/`fma` (`eval`'s `mixed`): the half columns widened to f32
/// (exact), then the `.f32` form's own loop.
fn mixed_lanes(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let Some(half) = instr.atype else { return generic_loop(instr, ops, out) };
    let f32_form = Instr { atype: None, ..*instr };
    let Ok(k) = Kernel::new(&f32_form) else { return generic_loop(instr, ops, out) };
    let Some(table) = super::widened_halves(half) else { return generic_loop(instr, ops, out) };
    let widen = |col: &[u64]| col.iter().map(|&x| table[x as usize & 0xffff] as u64).collect::<Vec<u64>>();
    let [a, b, c] = ops.cols;
    // `a`, and `fma`'s `b`, are halves; the last source `c` is an f32.
    let a = widen(a);
    let wide_b;
    let b = if instr.inputs == 3 {
        wide_b = widen(b);
        &wide_b[..]
    } else {
        b
    };
    k.run_columns(Operands::new(&a, b, c), out)
}

/// A comparison (`setp`, `set`, `selp`): `crate::compare::eval`'s predicate or register,
/// without building the expectation.
fn compare_loop(instr: &Instr) -> Option<Loop> {
    instr.as_compare().map(|_| compare_lanes as Loop)
}

fn compare_lanes(instr: &Instr, ops: Operands, out: &mut [u64]) {
    use crate::compare::Compared;
    let Some(c) = instr.as_compare() else { return generic_loop(instr, ops, out) };
    // The form decoded once for the whole batch (the lane order, widths, true value).
    let (n, pair, cmp) = (c.inputs(), instr.writes_predicate_pair(), crate::compare::Comparator::new(&c));
    for (x, o) in ops.iter().zip(out.iter_mut()) {
        *o = match cmp.compared(&x[..n]) {
            // A packed setp's `p|q` as `Expectation::predicate_pair` packs it.
            Compared::Predicates { p, q: Some(q) } if pair => p as u64 | (q as u64) << 1,
            Compared::Predicates { p, .. } => p as u64,
            Compared::Register { bits, .. } => bits,
        };
    }
}

/// Approximate forms: the primary result per lane from [`approx::Form::primary`] (the
/// reference, without the accepted range `eval` builds around it), the form's tables looked
/// up once per call instead of once per case.
fn approx_loop(instr: &Instr) -> Option<Loop> {
    approx::Form::of(instr).map(|_| approx_lanes as Loop)
}

fn approx_lanes(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let Some(form) = approx::Form::of(instr) else {
        return generic_loop(instr, ops, out); // `approx_loop` checked it already
    };
    let (w, mask) = (form.scalar.bits(), form.scalar.mask());
    if let Some(t) = form.half_table() {
        let lane = |x: u64| t[(x & 0xffff) as usize] as u64;
        for (c, o) in ops.iter().zip(out.iter_mut()) {
            *o = if form.lanes == 2 { lane(c[0]) | lane(c[0] >> 16) << 16 } else { lane(c[0]) };
        }
        return;
    }
    if form.primaries(ops.column(0), out) {
        return;
    }
    if form.lanes == 2 {
        for (c, o) in ops.iter().zip(out.iter_mut()) {
            let lo = form.primary([c[0] & mask, c[1] & mask]);
            let hi = form.primary([(c[0] >> w) & mask, (c[1] >> w) & mask]);
            *o = lo | hi << w;
        }
    } else {
        for (c, o) in ops.iter().zip(out.iter_mut()) {
            *o = form.primary([c[0], c[1]]);
        }
    }
}

/// The primary outcome of a lane as bits (a NaN "any" as the canonical NaN, as
/// [`Expectation::primary_bits`] gives it).
#[inline(always)]
fn primary_bits<F: Format>(lane: LaneExpectation) -> u64 {
    match lane.primary {
        Outcome::Bits(b) => b,
        Outcome::AnyNan => F::CANONICAL_NAN,
        Outcome::Range { reference, .. } | Outcome::Unbounded { reference, .. } => reference,
    }
}

/// Run `f` on each lane of each case (lane 1 above lane 0 for packed types) and store the
/// primary results.
#[inline(always)]
fn each_lane<F: Format>(instr: &Instr, ops: Operands, out: &mut [u64], f: impl Fn([u64; 3]) -> LaneExpectation) {
    let lane = |c: [u64; 3], shift: u32| {
        primary_bits::<F>(f([(c[0] >> shift) & F::MASK, (c[1] >> shift) & F::MASK, (c[2] >> shift) & F::MASK]))
    };
    if F::BITS < 64 && instr.ty.lanes() == 2 {
        for (c, o) in ops.iter().zip(out.iter_mut()) {
            *o = lane(c, 0) | lane(c, F::BITS) << F::BITS;
        }
    } else {
        for (c, o) in ops.iter().zip(out.iter_mut()) {
            *o = lane(c, 0);
        }
    }
}

#[inline(always)]
fn extremum_lanes<F: Format>(which: Extremum, instr: &Instr, ops: Operands, out: &mut [u64]) {
    // As `eval` (through `arity`): three inputs only for the three-input form.
    let inputs = if instr.inputs == 3 { 3 } else { 2 };
    let mods = minmax::Mods { which, ftz: instr.ftz, nan: instr.nan, abs: instr.abs, inputs };
    each_lane::<F>(instr, ops, out, |x| minmax::lane::<F>(mods, x));
}

fn min_lanes<F: Format>(instr: &Instr, ops: Operands, out: &mut [u64]) {
    extremum_lanes::<F>(Extremum::Min, instr, ops, out)
}

fn max_lanes<F: Format>(instr: &Instr, ops: Operands, out: &mut [u64]) {
    extremum_lanes::<F>(Extremum::Max, instr, ops, out)
}

fn abs_lanes<F: Format>(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let ftz = instr.ftz;
    each_lane::<F>(instr, ops, out, |x| sign::abs::<F>(ftz, x[0]));
}

fn neg_lanes<F: Format>(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let ftz = instr.ftz;
    each_lane::<F>(instr, ops, out, |x| sign::neg::<F>(ftz, x[0]));
}

fn copysign_lanes<F: Format>(instr: &Instr, ops: Operands, out: &mut [u64]) {
    each_lane::<F>(instr, ops, out, |x| sign::copysign::<F>(x[0], x[1]));
}

/// testp: a predicate, 1 or 0 (never packed: 9.7.3.1 has f32 and f64 only).
fn testp_lanes<F: Format>(instr: &Instr, ops: Operands, out: &mut [u64]) {
    let Some(op) = instr.testp else {
        return generic_loop(instr, ops, out); // rejected by `Kernel::new` already
    };
    for (c, o) in ops.iter().zip(out.iter_mut()) {
        *o = u64::from(testp::test::<F>(op, c[0] & F::MASK));
    }
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;
