//! The driver of the oracle suite: [`CASES`] special-biased random cases per family x type
//! (x operand count), forms taken in turn, a printed seed per run.

use std::time::Instant;

use ptx::isa::{Opcode, Type};
use ptx::{FpClass, Scalar, BF16, F16, F32, F64};

use crate::agree::check_case;
use crate::apf::OracleFormat;
use crate::forms::{arities, tested, types};
use crate::model::{oracle, Out, Verdict};
use crate::operands::{Rng, Shape};

/// Cases per family and type (and per operand count for min/max). `ORACLE_CASES` raises it.
pub const CASES: usize = 1_000_000;
/// Base seed; each family x type x arity derives its own. `ORACLE_SEED` replaces it.
pub const BASE_SEED: u64 = 0x05ee_d0f0_ac1e;
/// A family stops after this many failures.
pub const MAX_FAILURES: usize = 10;

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

pub fn cases() -> usize {
    env_u64("ORACLE_CASES").map_or(CASES, |n| (n as usize).max(CASES))
}

pub fn seed(op: Opcode, ty: Type, inputs: u8) -> u64 {
    let base = env_u64("ORACLE_SEED").unwrap_or(BASE_SEED);
    base ^ ((op as u64) << 40) ^ ((ty as u64) << 24) ^ ((inputs as u64) << 8)
}

pub fn shape(op: Opcode) -> Shape {
    match op {
        Opcode::Add | Opcode::Sub => Shape::Sum,
        Opcode::Mul => Shape::Product,
        Opcode::Fma | Opcode::Mad => Shape::MulAdd,
        Opcode::Div => Shape::Quotient,
        Opcode::Rcp => Shape::Reciprocal,
        Opcode::Sqrt => Shape::Root,
        Opcode::Min | Opcode::Max | Opcode::Copysign => Shape::Compare,
        _ => Shape::Unary,
    }
}

/// Operand registers: each lane drawn independently, lane 0 in the low bits.
fn gen_regs<F: OracleFormat>(rng: &mut Rng, shape: Shape, lanes: u32, regs: &mut [u64]) {
    regs.iter_mut().for_each(|r| *r = 0);
    let mut lane = [0u64; 3];
    for l in 0..lanes {
        rng.operands::<F>(shape, &mut lane[..regs.len()]);
        for (r, v) in regs.iter_mut().zip(lane) {
            *r |= v << (l * F::BITS);
        }
    }
}

type GenFn = fn(&mut Rng, Shape, u32, &mut [u64]);

fn generator(s: Scalar) -> GenFn {
    match s {
        Scalar::F16 => gen_regs::<F16>,
        Scalar::BF16 => gen_regs::<BF16>,
        Scalar::F32 => gen_regs::<F32>,
        Scalar::F64 => gen_regs::<F64>,
    }
}

/// What the oracle's results were, lane by lane: evidence that the cases reach the hard spots.
#[derive(Default)]
pub struct Coverage {
    lanes: usize,
    nan: usize,
    inf: usize,
    zero: usize,
    subnormal: usize,
    /// Lanes where the spec allows more than one reading (.ftz before rounding, .sat of -0, ...).
    ambiguous: usize,
}

impl Coverage {
    fn add(&mut self, s: Scalar, v: &Verdict) {
        let Verdict::Lanes(lanes) = v else { return };
        for l in lanes {
            self.lanes += 1;
            self.ambiguous += !l.alts.is_empty() as usize;
            match l.primary {
                Out::AnyNan => self.nan += 1,
                Out::Bits(b) => match s.classify(b) {
                    FpClass::Nan => self.nan += 1,
                    FpClass::Infinite => self.inf += 1,
                    FpClass::Zero => self.zero += 1,
                    FpClass::Subnormal => self.subnormal += 1,
                    FpClass::Normal => {}
                },
            }
        }
    }
}

impl std::fmt::Display for Coverage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.lanes == 0 {
            return Ok(());
        }
        let pc = |n: usize| 100.0 * n as f64 / self.lanes as f64;
        write!(
            f,
            "results: nan {:.1}% inf {:.1}% zero {:.1}% subnormal {:.1}% ambiguous {:.2}%",
            pc(self.nan),
            pc(self.inf),
            pc(self.zero),
            pc(self.subnormal),
            pc(self.ambiguous)
        )
    }
}

/// Run `cases` cases of `op` on `ty` with `inputs` operands, forms taken in turn; failures
/// are appended to `failures` (at most [`MAX_FAILURES`] in all).
pub fn run(op: Opcode, ty: Type, inputs: u8, cases: usize, seed: u64, failures: &mut Vec<String>) -> Coverage {
    let mut cov = Coverage::default();
    let forms = tested(op, ty, inputs);
    let gen = generator(ty.scalar());
    let shape = shape(op);
    let mut rng = Rng::new(seed);
    let mut regs = [0u64; 3];
    let regs = &mut regs[..inputs as usize];
    for i in 0..cases {
        let instr = &forms[i % forms.len()];
        gen(&mut rng, shape, ty.lanes(), regs);
        match check_case(instr, regs) {
            Ok(v) => cov.add(ty.scalar(), &v),
            Err(msg) => {
                failures.push(format!("[seed {seed:#x}, case {i}] {msg}"));
                if failures.len() >= MAX_FAILURES {
                    break;
                }
            }
        }
    }
    cov
}

/// The whole family: every type and operand count, then a panic listing any failures.
pub fn family(op: Opcode) {
    let n = cases();
    let mut failures = Vec::new();
    let mut total = 0;
    let t0 = Instant::now();
    for ty in types(op) {
        for inputs in arities(op, ty) {
            let seed = seed(op, ty, inputs);
            let t = Instant::now();
            let cov = run(op, ty, inputs, n, seed, &mut failures);
            total += n;
            println!(
                "oracle {}.{} ({inputs} inputs): {n} cases over {} forms, seed {seed:#x}, {:.2}s; {cov}",
                op.name(),
                ty.name(),
                tested(op, ty, inputs).len(),
                t.elapsed().as_secs_f64()
            );
            if failures.len() >= MAX_FAILURES {
                break;
            }
        }
    }
    println!("oracle {}: {total} cases in {:.2}s", op.name(), t0.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "{} disagrees with the oracle:\n{}", op.name(), failures.join("\n"));
}

/// The oracle's own cost, without the interpreter (for the time budget):
/// `cargo test --release -p ptx --test oracle oracle_alone -- --ignored --nocapture`.
#[test]
#[ignore]
fn oracle_alone_throughput() {
    use crate::forms::FAMILIES;
    let t0 = Instant::now();
    let mut total = 0usize;
    for op in FAMILIES {
        let t = Instant::now();
        for ty in types(op) {
            for inputs in arities(op, ty) {
                let forms = tested(op, ty, inputs);
                let gen = generator(ty.scalar());
                let mut rng = Rng::new(seed(op, ty, inputs));
                let mut regs = [0u64; 3];
                let regs = &mut regs[..inputs as usize];
                let mut sink = 0usize;
                for i in 0..CASES {
                    gen(&mut rng, shape(op), ty.lanes(), regs);
                    if let Verdict::Lanes(l) = oracle(&forms[i % forms.len()], regs) {
                        sink += l.len();
                    }
                }
                std::hint::black_box(sink);
                total += CASES;
            }
        }
        println!("{}: {:.2}s", op.name(), t.elapsed().as_secs_f64());
    }
    println!("oracle alone: {total} cases in {:.2}s", t0.elapsed().as_secs_f64());
}
