//! End-to-end judging under a hardware profile: the program's chain evaluated on the
//! profile's values (one register value per instruction), each output against the one result
//! of its instruction on those operands.

use std::ops::Range;

use arrayvec::ArrayVec;
use ptx::interp::{self, Expectation};
use ptx::profile::Profile;
use ptx::program::Program;

use super::{Ctx, Verdicts};
use crate::oracles::{Job, Output};

impl Ctx<'_> {
    /// Whether this program's outputs can be judged on the profile's chain: the profile claims
    /// one result for every instruction, and no mul + add pair may have been contracted
    /// (contraction is the compiler's choice, outside any profile). Otherwise the spec's
    /// end-to-end path judges it.
    pub(super) fn profiled_chain(&self) -> bool {
        let p = self.p();
        !matches!(*self.opts.profile, Profile::Spec)
            && !self.contractible
            && p.body().iter().all(|s| self.opts.claims(&s.instr))
    }

    /// End-to-end mode under a hardware profile: outputs against the profiled chain.
    pub(super) fn end_to_end_profiled(&self, range: Range<usize>) -> Verdicts {
        let p = self.p();
        let profile = &*self.opts.profile;
        let mut v = Verdicts { cases: range.len() as u64, ..Verdicts::default() };
        let mut vals: Vec<u64> = Vec::with_capacity(p.reg_count());
        for i in range {
            let inputs = self.job.case(i);
            // Each instruction's one result on the profile's values of its sources (the interp
            // engine ran every instruction of the job).
            let mut expected = Vec::with_capacity(p.body().len());
            chain(profile, p, inputs, &mut vals, |ops, e| expected.push((ops, e)));
            for (k, (&got, &r)) in self.target.case(i).iter().zip(p.outputs()).enumerate() {
                v.results += 1;
                if got == vals[r.0 as usize] {
                    continue;
                }
                match p.definition(r) {
                    Some(j) => {
                        let (ops, e) = &expected[j];
                        self.judge(&mut v, i, k, Some(j), ops, got, e);
                    }
                    None => {
                        let e = p.inputs()[r.0 as usize].exact_input(inputs[r.0 as usize]);
                        self.judge(&mut v, i, k, None, &[], got, &e);
                    }
                }
            }
        }
        v
    }
}

/// The profile's one answer for every output of every case of `cases` (flat, `p`'s inputs per
/// case), case after case: what an engine that follows the profile returns
/// (`exec-reference --profile`), the primary of [`expected_outputs`].
pub fn profile_outputs(profile: &Profile, p: &Program, cases: &[u64]) -> Result<Vec<u64>, ptx::program::RunError> {
    let n = p.inputs().len().max(1);
    let mut values = Vec::with_capacity(cases.len() / n * p.outputs().len());
    for case in cases.chunks(n) {
        values.extend(expected_outputs(profile, p, case)?.iter().map(|e| e.primary_bits()));
    }
    Ok(values)
}

/// The profile's chain on one case: `vals` (cleared) gets `inputs`, then each instruction's one
/// result under `profile` on the values before it, and `each` sees each instruction's operands
/// and narrowed expectation. The caller has run the program on `inputs` (`Program::run`
/// checks them), so every `eval` here succeeds.
fn chain(profile: &Profile, p: &Program, inputs: &[u64], vals: &mut Vec<u64>, mut each: impl FnMut(ArrayVec<u64, 3>, Expectation)) {
    vals.clear();
    vals.extend_from_slice(inputs);
    for stmt in p.body() {
        let ops: ArrayVec<u64, 3> = stmt.srcs().iter().map(|s| vals[s.0 as usize]).collect();
        let e = interp::eval(&stmt.instr, &ops).unwrap_or_else(|e| unreachable!("{e}"));
        let e = super::narrow(profile, &stmt.instr, &ops, e);
        vals.push(e.primary_bits());
        each(ops, e);
    }
}

/// The allowed results of `p`'s outputs on `inputs` as judged under `profile`: the profile's
/// chain where [`Ctx::profiled_chain`] holds, else `Program::run` (the spec's sets). What a
/// reproducer records as `expected` and `ptxfuzz repro` checks.
pub fn expected_outputs(profile: &Profile, p: &Program, inputs: &[u64]) -> Result<Vec<Expectation>, ptx::program::RunError> {
    // The spec's run first: it checks the inputs, and is the answer where the chain is not claimed.
    let spec = p.run(inputs)?;
    let all_claimed = p.body().iter().all(|s| profile.claims(&s.instr));
    if matches!(profile, Profile::Spec) || p.has_contractible() || !all_claimed {
        return Ok(spec);
    }
    let mut per_instr = Vec::with_capacity(p.body().len());
    chain(profile, p, inputs, &mut Vec::with_capacity(p.reg_count()), |_, e| per_instr.push(e));
    Ok(p.outputs()
        .iter()
        .map(|&r| match p.definition(r) {
            Some(j) => per_instr[j].clone(),
            None => p.inputs()[r.0 as usize].exact_input(inputs[r.0 as usize]),
        })
        .collect())
}

/// What a GPU that follows `profile` returns for a traced job of `p` on `cases`: per case the
/// outputs, then every instruction's result, each instruction on the values the profile gave
/// its sources (the instruction VM runs each instruction alone: no contraction, and an
/// approximate form the profile does not claim gives the interpreter's primary). `ptxfuzz
/// bench --judge --trace` judges it as a traced campaign judges a GPU's results.
fn profile_trace_outputs(profile: &Profile, p: &Program, cases: &[u64]) -> Result<Vec<u64>, ptx::program::RunError> {
    let n = p.inputs().len().max(1);
    let mut values = Vec::with_capacity(cases.len() / n * (p.outputs().len() + p.body().len()));
    let mut vals: Vec<u64> = Vec::with_capacity(p.reg_count());
    for case in cases.chunks(n) {
        // The spec's run checks the inputs; the chain below cannot fail after it.
        p.run(case)?;
        chain(profile, p, &case[..p.inputs().len()], &mut vals, |_, _| {});
        values.extend(p.outputs().iter().map(|r| vals[r.0 as usize]));
        values.extend_from_slice(&vals[p.inputs().len()..]);
    }
    Ok(values)
}

/// What an engine that follows `profile` returns for `job`: its outputs
/// ([`profile_outputs`]), or with `job.trace` every instruction's result after them
/// ([`profile_trace_outputs`]). `ptxfuzz bench --judge` judges these as a GPU's.
pub fn profile_output(profile: &Profile, job: &Job) -> Result<Output, ptx::program::RunError> {
    let p = job.program;
    Ok(if job.trace {
        Output { values: profile_trace_outputs(profile, p, job.cases)?, per_case: p.outputs().len() + p.body().len() }
    } else {
        Output { values: profile_outputs(profile, p, job.cases)?, per_case: p.outputs().len() }
    })
}
