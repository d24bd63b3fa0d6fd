//! Running a program column-wise on the CPU: each instruction over a whole chunk of cases at
//! once, chunks spread over the rayon pool. Shared by the CPU engines (interp, host), which
//! differ only in how one instruction runs on a column of operands.

pub use ptx::interp::batch::Operands;
use ptx::program::Program;
use rayon::prelude::*;

use super::engine::{EngineFault, Job, Output};

/// Cases per chunk: the register columns of a chunk stay in cache.
pub const CHUNK: usize = 2048;

/// One instruction on columns: case i's operands (a, b, c) are row i of `ops`, `out[i]`
/// gets its result.
pub trait ColumnOp: Sync {
    fn run(&self, ops: Operands, out: &mut [u64]);
}

/// Run `job` with `ops[j]` computing instruction j: every output (then, in trace mode, every
/// instruction's result) per case, as `Output` lays them out.
pub fn run_job<K: ColumnOp>(job: &Job, ops: &[K]) -> Result<Output, EngineFault> {
    let per_case = job.per_case();
    let n_in = job.n_in();
    let mut values = vec![0u64; job.n_cases() * per_case];
    values.par_chunks_mut(CHUNK * per_case).zip(job.cases.par_chunks(CHUNK * n_in)).for_each(|(out, cases)| {
        SCRATCH.with(|s| match s.try_borrow_mut() {
            Ok(mut s) => run_chunk(job.program, ops, job.trace, cases, out, &mut s),
            // Only if a column op ever ran a job itself (none does): a scratch of its own.
            Err(_) => run_chunk(job.program, ops, job.trace, cases, out, &mut Scratch::default()),
        })
    });
    Ok(Output { values, per_case })
}

thread_local! {
    /// Each thread's columns, kept from job to job: a default job is one chunk, so a scratch
    /// per rayon task was a fresh allocation, zero-filled, per program (3% of an interp
    /// campaign was allocation, `perf`, docs/benchmarks.md).
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// Working columns of one chunk, reused across chunks of a rayon task.
#[derive(Default)]
struct Scratch {
    /// Register-major: register `r` of case `i` at `regs[r * n + i]`.
    regs: Vec<u64>,
    /// The column of an operand an instruction does not have.
    zeros: Vec<u64>,
}

fn run_chunk<K: ColumnOp>(p: &Program, ops: &[K], trace: bool, cases: &[u64], out: &mut [u64], s: &mut Scratch) {
    let n_in = p.inputs().len();
    let n = cases.len() / n_in;
    // Every register is written before it is read (inputs here, then each instruction's
    // destination), so the scratch is grown but never cleared: zeroing it every chunk was a
    // sixth of this function's time in the interp campaign's profile.
    let need = p.reg_count() * n;
    if s.regs.len() < need {
        s.regs.resize(need, 0);
    }
    if s.zeros.len() < n {
        s.zeros.resize(n, 0);
    }
    let regs = &mut s.regs[..need];
    let zeros = &s.zeros[..n];
    // Case-major to register-major, one register at a time: sequential stores.
    for (r, col) in regs.chunks_exact_mut(n).take(n_in).enumerate() {
        for (v, case) in col.iter_mut().zip(cases.chunks_exact(n_in)) {
            *v = case[r];
        }
    }
    for (j, (stmt, op)) in p.body().iter().zip(ops).enumerate() {
        // Sources are registers defined earlier (`Program` rejects a use before its
        // definition), so they lie below the destination: read and write halves apart.
        let dst = p.dst(j).0 as usize;
        let (read, write) = regs.split_at_mut(dst * n);
        let col = |k: usize| stmt.srcs().get(k).map_or(zeros, |r| &read[r.0 as usize * n..][..n]);
        op.run(Operands::new(col(0), col(1), col(2)), &mut write[..n]);
    }
    let per_case = out.len() / n;
    let traced = if trace { p.body().len() } else { 0 };
    let slots = p.outputs().iter().map(|r| r.0 as usize).chain((0..traced).map(|j| p.dst(j).0 as usize));
    for (slot, r) in slots.enumerate() {
        for (case, &v) in out.chunks_exact_mut(per_case).zip(&regs[r * n..][..n]) {
            case[slot] = v;
        }
    }
}
