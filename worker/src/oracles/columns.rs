//! Running a program column-wise on the CPU: each instruction over a whole chunk of cases at
//! once, chunks spread over the rayon pool. Shared by the CPU engines (interp, host), which
//! differ only in how one instruction runs on a column of operands.

use ptx::program::Program;
use rayon::prelude::*;

use super::engine::{EngineFault, Job, Output};

/// Cases per chunk: the register columns of a chunk stay in cache.
pub const CHUNK: usize = 2048;

/// One instruction on a column: `ops[i]` holds case i's operands (a, b, c), `out[i]` gets its result.
pub trait ColumnOp: Sync {
    fn run(&self, ops: &[[u64; 3]], out: &mut [u64]);
}

/// Run `job` with `ops[j]` computing instruction j: every output (then, in trace mode, every
/// instruction's result) per case, as `Output` lays them out.
pub fn run_job<K: ColumnOp>(job: &Job, ops: &[K]) -> Result<Output, EngineFault> {
    let per_case = job.per_case();
    let n_in = job.n_in();
    let mut values = vec![0u64; job.n_cases() * per_case];
    values
        .par_chunks_mut(CHUNK * per_case)
        .zip(job.cases.par_chunks(CHUNK * n_in))
        .for_each_init(Scratch::default, |s, (out, cases)| run_chunk(job.program, ops, job.trace, cases, out, s));
    Ok(Output { values, per_case })
}

/// Working columns of one chunk, reused across chunks of a rayon task.
#[derive(Default)]
struct Scratch {
    /// Register-major: register `r` of case `i` at `regs[r * n + i]`.
    regs: Vec<u64>,
    ops: Vec<[u64; 3]>,
}

fn run_chunk<K: ColumnOp>(p: &Program, ops: &[K], trace: bool, cases: &[u64], out: &mut [u64], s: &mut Scratch) {
    let n_in = p.inputs().len();
    let n = cases.len() / n_in;
    s.regs.clear();
    s.regs.resize(p.reg_count() * n, 0);
    for (i, case) in cases.chunks_exact(n_in).enumerate() {
        for (r, &v) in case.iter().enumerate() {
            s.regs[r * n + i] = v;
        }
    }
    s.ops.clear();
    s.ops.resize(n, [0; 3]);
    for (j, (stmt, op)) in p.body().iter().zip(ops).enumerate() {
        for (k, src) in stmt.srcs().iter().enumerate() {
            let col = &s.regs[src.0 as usize * n..][..n];
            for (o, &v) in s.ops.iter_mut().zip(col) {
                o[k] = v;
            }
        }
        let dst = p.dst(j).0 as usize;
        op.run(&s.ops, &mut s.regs[dst * n..][..n]);
    }
    let per_case = out.len() / n;
    let traced = if trace { p.body().len() } else { 0 };
    let slots = p.outputs().iter().map(|r| r.0 as usize).chain((0..traced).map(|j| p.dst(j).0 as usize));
    for (slot, r) in slots.enumerate() {
        for (i, &v) in s.regs[r * n..][..n].iter().enumerate() {
            out[i * per_case + slot] = v;
        }
    }
}
