//! Explanations of findings: the simplest alternative semantics of one instruction under which
//! the reference interpreter reproduces the hardware's result on every recorded case.
//!
//! [`catalogue::CATALOGUE`] is the one table of named perturbations (a format read as another,
//! a modifier dropped, another rounding mode, the instruction folded away, a NaN rule, an
//! approximate bound exceeded), simplest first; each is computed by [`crate::interp::eval`] on
//! a changed form, changed operands or a changed result ([`model::Model`]). [`explain`] returns
//! the first that reproduces every case, or `None`: a finding is never forced into an
//! explanation that does not reproduce it. `docs/triage.md` lists the catalogue.
//! [`explain_judged`] does the same for a finding judged against a hardware profile, where a
//! result the spec allows and the GPU does not give is the catalogue's last row, `spec-allowed`.
//!
//! [`program::REWRITES`] are the compiler's whole-program rewrites (two statements compiled as
//! one), which a compiled program's finding can show and no one-instruction model reproduces;
//! [`program::explain_statement`] tries them around the catalogue.

pub mod catalogue;
pub mod model;
pub mod program;
#[cfg(test)]
mod tests;

pub use catalogue::{Entry, CATALOGUE};
pub use model::Model;

use crate::interp::eval;
use crate::isa::Instr;
use crate::profile::{eval_profiled, Profile, Resolved};

/// One recorded case: the operands as register bits and the hardware's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub operands: Vec<u64>,
    pub got: u64,
}

/// Why the hardware gave what it gave, as far as the catalogue can tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The catalogue entry's stable id (`bf16-as-f16`).
    pub id: &'static str,
    /// The entry's one-line description.
    pub description: &'static str,
    /// The spec section the behaviour departs from.
    pub spec: &'static str,
    /// What the explanation applies to: opcode and lane format (`fma.bf16`), the same for
    /// every rounding mode, clamp, packing and operand class of the family.
    pub family_key: String,
    /// The model that reproduces the cases; `None` for a whole-program rewrite
    /// ([`program::REWRITES`]), which needs the statement feeding this one to reproduce.
    pub model: Option<Model>,
    /// This finding's particulars (the form computed instead, ulps past a bound).
    pub detail: String,
}

impl Explanation {
    /// Whether the explanation's model reproduces `case` on `instr` (never for a rewrite,
    /// which the instruction alone cannot reproduce).
    pub fn reproduces(&self, instr: &Instr, case: &Case) -> bool {
        self.model.as_ref().is_some_and(|m| m.reproduces(instr, &case.operands, case.got))
    }
}

/// The family an explanation of `instr` applies to: opcode and lane format.
pub fn family_key(instr: &Instr) -> String {
    format!("{}.{}", instr.op.name(), instr.ty.scalar().name())
}

/// Every catalogue entry (in catalogue order) some model of which reproduces the hardware's
/// result on every case: the first is [`explain`]'s answer, the rest fit the cases as well (a
/// minimized case is often too small to tell two causes apart). Empty when [`explain`] is
/// `None`.
pub fn fitting(instr: &Instr, cases: &[Case]) -> Vec<&'static str> {
    if explain(instr, cases).is_none() {
        return vec![];
    }
    CATALOGUE
        .iter()
        .filter(|entry| {
            (entry.candidates)(instr, cases)
                .iter()
                .any(|(model, _)| cases.iter().all(|c| model.reproduces(instr, &c.operands, c.got)))
        })
        .map(|entry| entry.id)
        .collect()
}

/// The simplest catalogue entry whose model reproduces the hardware's result on every case;
/// `None` when there are no cases, when the reference already accepts every result (nothing
/// to explain), or when no entry reproduces them all.
pub fn explain(instr: &Instr, cases: &[Case]) -> Option<Explanation> {
    if cases.is_empty() {
        return None;
    }
    let rejected = cases
        .iter()
        .any(|c| eval(instr, &c.operands).map_or(true, |e| !e.accepts(c.got)));
    if !rejected {
        return None;
    }
    for entry in CATALOGUE {
        for (model, detail) in (entry.candidates)(instr, cases) {
            if cases.iter().all(|c| model.reproduces(instr, &c.operands, c.got)) {
                return Some(Explanation {
                    id: entry.id,
                    description: entry.description,
                    spec: entry.spec,
                    family_key: family_key(instr),
                    model: Some(model),
                    detail,
                });
            }
        }
    }
    None
}

/// [`explain`] for a finding judged against `profile` (`campaign --judge sm_90`). Where the
/// spec allows every case's result and the profile rejects one, the answer is the
/// `spec-allowed` entry, its detail the GPU's bits for that case: the target is faithful to
/// the spec and differs from the hardware, which no perturbation of the spec explains better.
/// Otherwise, as [`explain`]: the catalogue against the spec.
pub fn explain_judged(profile: &Profile, instr: &Instr, cases: &[Case]) -> Option<Explanation> {
    let spec_allows = |c: &Case| Model::SpecAllowed.reproduces(instr, &c.operands, c.got);
    if matches!(profile, Profile::Spec) || cases.is_empty() || !cases.iter().all(spec_allows) {
        return explain(instr, cases);
    }
    // The first case the profile rejects, and what the GPU gives there.
    let gpu = cases.iter().find_map(|c| match eval_profiled(instr, &c.operands, profile).ok()? {
        Resolved::One(bits) => (bits != c.got).then(|| (c, bits)),
        // No bit-exact claim: the profile's set is the spec's, which allows the result.
        Resolved::Set(_) => None,
    });
    let (case, bits) = gpu?;
    // The catalogue's last row; without it (a test would fail) nothing is explained.
    let entry = CATALOGUE.iter().find(|e| e.id == "spec-allowed")?;
    let ty = crate::program::ValType::of_result(instr);
    let shown = |v: u64| format!("{} ({})", ty.format_hex(v), ty.format_decimal(v));
    Some(Explanation {
        id: entry.id,
        description: entry.description,
        spec: entry.spec,
        family_key: family_key(instr),
        model: Some(Model::SpecAllowed),
        detail: format!("{} gives {} where the target gave {}", profile.name(), shown(bits), shown(case.got)),
    })
}
