//! The judge's quick look at approximate results off the fast path: accepted without building
//! the expectation where every lane is within its documented bound. Used by `check_impl` in
//! `mod.rs`.

use ptx::approx;
use ptx::interp::{self, Expectation};
use ptx::isa::Instr;
use ptx::program::Program;

use super::CompareOptions;

/// The approximate instructions of a program whose results a quick look may accept: each
/// body instruction's [`approx::Form`], looked up once per job, where the instruction is
/// approximate and the profile leaves it the spec's set (unclaimed: `narrow` keeps the set).
/// On a GPU about one approximate result in ten is not the interpreter's primary (it is
/// another value within the bound); [`approx::Form::unless_documented`] accepts those
/// without building the full expectation, which with its moves and the form's lookups was
/// 40 % of the judge's time against GPU-like results (`perf` of `ptxfuzz bench --judge`,
/// 2026-12-04). Any other result gets the expectation `interp::eval` would give, so the
/// verdicts are the same (`compare::tests`).
pub(super) struct QuickApprox(Vec<Option<approx::Form>>);

impl QuickApprox {
    pub(super) fn of(p: &Program, opts: &CompareOptions) -> QuickApprox {
        QuickApprox(
            p.body().iter().map(|s| approx::Form::of(&s.instr).filter(|_| !opts.claims(&s.instr))).collect(),
        )
    }

    /// No quick look: every result off the fast path gets `interp::eval`.
    #[cfg(test)]
    pub(super) fn none() -> QuickApprox {
        QuickApprox(Vec::new())
    }

    /// The expectation that judges instruction `j` (`instr`)'s result `got` on `operands`, or
    /// `None` where the quick look accepts it with nothing to record.
    pub(super) fn expectation(&self, j: usize, instr: &Instr, operands: &[u64], got: u64) -> Option<Expectation> {
        match self.0.get(j).and_then(Option::as_ref) {
            Some(f) if f.takes(operands) && f.fits(got) => f.unless_documented(operands, got),
            // The batch run evaluated this instruction on these operands, so eval cannot fail.
            _ => Some(interp::eval(instr, operands).unwrap_or_else(|e| unreachable!("{e}"))),
        }
    }
}
