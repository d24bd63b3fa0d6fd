//! Issue requirement 2: exhaustive tests against the oracle (oracle/*.rs).
//!
//! In CI: every f16 and bf16 input of abs and neg, all modifier variants, scalar and packed;
//! testp (which PTX has for .f32 and .f64 only, 9.7.3.1) on every sign/exponent/leading-fraction
//! pattern of both.
//!
//! `#[ignore]`d, run by hand (both threads, several minutes each):
//! every f16 and every bf16 operand pair of add.rn (2^32 each):
//!     cargo test --release -p ptx --test exhaustive -- --ignored --nocapture

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use ptx::isa::{Instr, Opcode, Precision, Type};
use ptx::Rounding;

/// The shared oracle modules' unit tests run in the oracle binary, not here.
macro_rules! self_tests {
    ($($t:tt)*) => {};
}

#[path = "oracle/agree.rs"]
#[allow(dead_code)]
mod agree;
#[path = "oracle/apf.rs"]
#[allow(dead_code)]
mod apf;
#[path = "oracle/exact.rs"]
#[allow(dead_code)]
mod exact;
#[path = "oracle/forms.rs"]
#[allow(dead_code)]
mod forms;
#[path = "oracle/model.rs"]
#[allow(dead_code)]
mod model;

use agree::check_case;

const MAX_FAILURES: usize = 10;

/// Check `regs_of(form, i)` for every `i` in `0..n` on every form, failing with the first
/// few disagreements.
fn sweep(forms: &[Instr], n: u64, regs_of: impl Fn(&Instr, u64) -> u64) -> usize {
    let mut failures = Vec::new();
    let mut count = 0;
    'outer: for f in forms {
        for i in 0..n {
            count += 1;
            if let Err(m) = check_case(f, &[regs_of(f, i)]) {
                failures.push(m);
                if failures.len() >= MAX_FAILURES {
                    break 'outer;
                }
            }
        }
    }
    assert!(failures.is_empty(), "disagreements with the oracle:\n{}", failures.join("\n"));
    count
}

/// A bijection of u16, so that the high lane of a packed register also sees every value.
fn other_lane(v: u64) -> u64 {
    (v.wrapping_mul(0x9e37) ^ 0x5a5a) & 0xffff
}

fn half_forms(op: Opcode) -> Vec<Instr> {
    [Type::F16, Type::F16x2, Type::Bf16, Type::Bf16x2]
        .into_iter()
        .flat_map(|ty| forms::forms(op, ty, 1))
        .collect()
}

fn every_half_input(op: Opcode) {
    let t = Instant::now();
    let forms = half_forms(op);
    let n = sweep(&forms, 1 << 16, |f, v| if f.ty.lanes() == 2 { v | (other_lane(v) << 16) } else { v });
    println!("{}: {} forms, {n} cases in {:.2}s", op.name(), forms.len(), t.elapsed().as_secs_f64());
}

#[test]
fn abs_every_f16_and_bf16_input() {
    every_half_input(Opcode::Abs);
}

#[test]
fn neg_every_f16_and_bf16_input() {
    every_half_input(Opcode::Neg);
}

/// testp has no half forms; every sign, exponent and leading fraction bits of f32 (16 bits,
/// like a bf16) and f64 (sign, exponent, 4 fraction bits), with the rest of the fraction
/// 0, 1, its top bit, or all ones.
#[test]
fn testp_every_leading_bit_pattern() {
    let half_testp = ptx::isa::all_forms().into_iter().filter(|i| i.op == Opcode::Testp && i.ty.is_half()).count();
    assert_eq!(half_testp, 0, "ptx::isa now lists half-precision testp forms: test every f16/bf16 input here");
    let t = Instant::now();
    let f32_forms = forms::forms(Opcode::Testp, Type::F32, 1);
    let f64_forms = forms::forms(Opcode::Testp, Type::F64, 1);
    let lows32 = [0u64, 1, 0x8000, 0xffff];
    let lows64 = [0u64, 1, 1 << 47, (1 << 48) - 1];
    let mut n = sweep(&f32_forms, 4 << 16, |_, i| ((i >> 2) << 16) | lows32[(i & 3) as usize]);
    n += sweep(&f64_forms, 4 << 16, |_, i| ((i >> 2) << 48) | lows64[(i & 3) as usize]);
    println!("testp: {n} cases in {:.2}s", t.elapsed().as_secs_f64());
}

/// Every (a, b) pair of `ty` for add.rn, split over the available threads.
fn every_add_rn_pair(ty: Type) {
    let mut instr = Instr::new(Opcode::Add, ty);
    instr.precision = Precision::Rounded(Rounding::Rn);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).max(1) as u64;
    let failures = Mutex::new(Vec::new());
    let done = AtomicUsize::new(0);
    let t = Instant::now();
    std::thread::scope(|s| {
        for k in 0..threads {
            let (failures, done, instr) = (&failures, &done, &instr);
            s.spawn(move || {
                let mut a = k;
                while a < 1 << 16 {
                    if failures.lock().unwrap().len() >= MAX_FAILURES {
                        return;
                    }
                    for b in 0..1u64 << 16 {
                        if let Err(m) = check_case(instr, &[a, b]) {
                            failures.lock().unwrap().push(m);
                        }
                    }
                    let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if d % 4096 == 0 {
                        println!("  {}: {d}/65536 a-values, {:.0}s", forms::spell(instr), t.elapsed().as_secs_f64());
                    }
                    a += threads;
                }
            });
        }
    });
    let secs = t.elapsed().as_secs_f64();
    let pairs = done.load(Ordering::Relaxed) as f64 * 65536.0;
    let failures = failures.into_inner().unwrap();
    println!(
        "{}: {pairs:.0} pairs in {secs:.1}s on {threads} threads ({:.1} M pairs/s), {} disagreements",
        forms::spell(&instr),
        pairs / secs / 1e6,
        failures.len()
    );
    assert!(failures.is_empty(), "disagreements with the oracle:\n{}", failures.join("\n"));
}

#[test]
#[ignore = "2^32 cases: cargo test --release -p ptx --test exhaustive -- --ignored --nocapture"]
fn add_rn_every_f16_pair() {
    every_add_rn_pair(Type::F16);
}

#[test]
#[ignore = "2^32 cases: cargo test --release -p ptx --test exhaustive -- --ignored --nocapture"]
fn add_rn_every_bf16_pair() {
    every_add_rn_pair(Type::Bf16);
}
