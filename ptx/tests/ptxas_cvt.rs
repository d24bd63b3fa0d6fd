//! ptxas agrees with the legality tables of the forms outside `ptx::isa::Instr`: every
//! documented `cvt` (float-float, float-integer, narrow, tf32, `.rs`), `setp`/`set`/`selp` and
//! mixed-precision form assembles where its table allows it and is refused below. The module
//! of each form is its batched kernel (`ptx::form_kernel`), what a GPU capture of it runs.

mod common;

use common::ptxas::{assert_ptxas_agrees, ptxas_or_skip, Job};
use ptx::cvt::AnyCvt;
use ptx::form::Form;
use ptx::form_kernel;
use ptx::isa::PtxVersion;
use ptx::kernel;

/// The batched kernel of `form` (`ptx::form_kernel`) for `sm_{target}` and PTX `ptx`.
fn kernel_of(form: Form, target: impl std::fmt::Display, ptx: PtxVersion) -> String {
    form_kernel::module(&form, &format!("sm_{target}"), ptx)
}

/// Every documented float-to-float `cvt` form (`ptx::cvt`, issue 16) assembles on sm_80, 90
/// and 100 at its required PTX version when its requirement allows the sm, and ptxas refuses
/// it on sm_80 when the table says it needs sm_90 (so the requirements are not too strict
/// either).
#[test]
fn documented_cvt_forms_assemble_exactly_where_their_requirement_allows() {
    let Some(ptxas) = ptxas_or_skip("documented_cvt_forms_assemble_exactly_where_their_requirement_allows") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for c in ptx::cvt::Cvt::all() {
        let r = c.requirement();
        for sm in [80u32, 90, 100] {
            let ptx = kernel::min_ptx_for_sm(sm).unwrap().max(r.ptx);
            jobs.push(Job::new(sm, c, kernel_of(Form::Cvt(AnyCvt::Float(c)), sm, ptx), sm >= r.sm));
        }
    }
    assert!(jobs.len() > 300, "{}", jobs.len());
    assert_ptxas_agrees(&ptxas, "cvt", &jobs);
}

/// Every documented float-integer `cvt` form (`ptx::cvt::int`, issue 16) assembles on sm_80,
/// 90 and 100 when its requirement allows the sm, and ptxas refuses it on sm_80 when the
/// table says sm_90.
#[test]
fn documented_float_integer_cvt_forms_assemble_exactly_where_their_requirement_allows() {
    let Some(ptxas) = ptxas_or_skip("documented_float_integer_cvt_forms_assemble_exactly_where_their_requirement_allows") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for c in ptx::cvt::int::CvtInt::all() {
        let r = c.requirement();
        for sm in [80u32, 90, 100] {
            let ptx = kernel::min_ptx_for_sm(sm).unwrap().max(r.ptx);
            jobs.push(Job::new(sm, c, kernel_of(Form::Cvt(AnyCvt::Int(c)), sm, ptx), sm >= r.sm));
        }
    }
    assert_eq!(jobs.len(), 3 * 576);
    assert_ptxas_agrees(&ptxas, "cvti", &jobs);
}

/// Every documented `setp`, `set` and `selp` form (`ptx::compare`, issue 16) assembles on
/// sm_90, and ptxas refuses it on sm_80 when the table says sm_90; one form in seven is also
/// assembled for sm_80 and sm_100 (legality does not depend on the sm otherwise; all 4,000 on
/// three sms took 108 s on 2 cores).
#[test]
fn documented_comparison_forms_assemble_exactly_where_their_requirement_allows() {
    let Some(ptxas) = ptxas_or_skip("documented_comparison_forms_assemble_exactly_where_their_requirement_allows") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for (i, c) in ptx::compare::Compare::all().into_iter().enumerate() {
        let r = c.requirement();
        for (sm, due) in [(90u32, true), (80, r.sm > 80 || i % 7 == 0), (100, i % 7 == 3)] {
            if due {
                let ptx = kernel::min_ptx_for_sm(sm).unwrap().max(r.ptx);
                jobs.push(Job::new(sm, &c, kernel_of(Form::Compare(c), sm, ptx), sm >= r.sm));
            }
        }
    }
    assert_ptxas_agrees(&ptxas, "cmp", &jobs);
}

/// Every documented narrow-format form assembles on the target its requirement names and is
/// refused one step below it: sm_80 for the sm_89 forms, plain sm_100 for the sm_100a/f ones.
#[test]
fn documented_narrow_format_cvt_forms_assemble_on_their_target_and_not_below() {
    use ptx::cvt::narrow::{NarrowCvt, Variant};
    let Some(ptxas) = ptxas_or_skip("documented_narrow_format_cvt_forms_assemble_on_their_target_and_not_below") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for c in NarrowCvt::all() {
        let n = c.needs();
        let ptx = kernel::min_ptx_for_sm(n.sm).unwrap().max(n.ptx);
        let target = n.target();
        let target = target.trim_start_matches("sm_");
        jobs.push(Job::new(target, &c, kernel_of(Form::Cvt(AnyCvt::Narrow(c)), target, ptx), true));
        let below = if n.variant == Variant::Plain { 80 } else { n.sm };
        jobs.push(Job::new(below, &c, kernel_of(Form::Cvt(AnyCvt::Narrow(c)), below, ptx), false));
    }
    assert_ptxas_agrees(&ptxas, "narrow", &jobs);
}

/// Every mixed-precision form (9.7.5) assembles on sm_100 with PTX 8.6 and is refused on sm_90.
#[test]
fn mixed_precision_forms_assemble_on_sm_100_and_not_on_sm_90() {
    let Some(ptxas) = ptxas_or_skip("mixed_precision_forms_assemble_on_sm_100_and_not_on_sm_90") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for m in ptx::mixed::Mixed::all() {
        for (sm, legal) in [(100u32, true), (90, false)] {
            jobs.push(Job::new(sm, m, kernel_of(Form::Mixed(m), sm, m.requirement().ptx), legal));
        }
    }
    assert_ptxas_agrees(&ptxas, "mixed", &jobs);
}

/// Every tf32 form (`ptx::cvt::tf32`) assembles on sm_80, 90 and 100 when its requirement
/// allows the sm and is refused otherwise; at its own sm it is also refused one PTX ISA
/// version below its requirement (where that version can target the sm).
#[test]
fn tf32_forms_assemble_exactly_where_their_requirement_allows() {
    use ptx::cvt::tf32::Tf32Cvt;
    let Some(ptxas) = ptxas_or_skip("tf32_forms_assemble_exactly_where_their_requirement_allows") else {
        return;
    };
    let module = |c: &Tf32Cvt, sm: u32, ptx: PtxVersion| kernel_of(Form::Cvt(AnyCvt::Tf32(*c)), sm, ptx);
    let mut jobs: Vec<Job> = Vec::new();
    for c in Tf32Cvt::all() {
        let r = c.requirement();
        for sm in [80u32, 90, 100] {
            let ptx = kernel::min_ptx_for_sm(sm).unwrap().max(r.ptx);
            jobs.push(Job::new(sm, c, module(&c, sm, ptx), sm >= r.sm));
        }
        let below = PtxVersion::new(r.ptx.major, r.ptx.minor.wrapping_sub(1));
        if r.ptx.minor > 0 && below >= kernel::min_ptx_for_sm(r.sm).unwrap() {
            jobs.push(Job::new(r.sm, format!("{c} (PTX {below})"), module(&c, r.sm, below), false));
        }
    }
    assert_ptxas_agrees(&ptxas, "tf32", &jobs);
}

/// Every `.rs` form, to f16x2/bf16x2 (`ptx::cvt::stochastic`) and to the x4 destinations with
/// their braced four-register source (`ptx::cvt::stochastic_quad`), assembles on sm_100a with
/// PTX 8.7 and sm_103a, and is refused on plain sm_100, on sm_100f, on sm_120a and with PTX 8.6.
#[test]
fn stochastic_rounding_forms_assemble_on_sm_100a_and_103a_only() {
    let Some(ptxas) = ptxas_or_skip("stochastic_rounding_forms_assemble_on_sm_100a_and_103a_only") else {
        return;
    };
    let pairs = ptx::cvt::stochastic::StochasticCvt::all().into_iter().map(AnyCvt::Stochastic);
    let quads = ptx::cvt::stochastic_quad::QuadCvt::all().into_iter().map(AnyCvt::StochasticQuad);
    let mut jobs: Vec<Job> = Vec::new();
    for c in pairs.chain(quads) {
        let n = Form::Cvt(c).needs();
        for (target, ptx, legal) in [
            ("100a", n.ptx, true),
            ("103a", PtxVersion::new(8, 8), true),
            ("100", n.ptx, false),
            ("100f", PtxVersion::new(8, 8), false),
            ("120a", PtxVersion::new(8, 7), false),
            ("100a", PtxVersion::new(8, 6), false),
        ] {
            let module = kernel_of(Form::Cvt(c), target, ptx);
            jobs.push(Job::new(target, format!("{c} (PTX {ptx})"), module, legal));
        }
    }
    assert_eq!(jobs.len(), 6 * (8 + 10));
    assert_ptxas_agrees(&ptxas, "rs", &jobs);
}
