//! ptxas agrees with the legality tables of the forms outside `ptx::isa::Instr`: every
//! documented `cvt` (float-float, float-integer, narrow, tf32, `.rs`), `setp`/`set`/`selp` and
//! mixed-precision form assembles where its table allows it and is refused below.

mod common;

use common::ptxas::{assert_ptxas_agrees, ptxas_or_skip, Job};
use ptx::isa::PtxVersion;
use ptx::kernel;

/// A one-instruction kernel of a `cvt` form (its operands loaded, its result stored).
fn cvt_module(c: &ptx::cvt::Cvt, sm: u32, ptx: PtxVersion) -> String {
    use ptx::format::Scalar;
    let reg = |s: Scalar, packed: bool| match (s, packed) {
        (_, true) => ".b32",
        (Scalar::F16 | Scalar::BF16, _) => ".b16",
        (Scalar::F32, _) => ".f32",
        (Scalar::F64, _) => ".f64",
    };
    let (d, a) = (reg(c.dst, c.packed), reg(c.src, false));
    let operands = if c.packed { "%a, %b" } else { "%a" };
    format!(
        ".version {ptx}\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg {d} %d;\n\t.reg {a} %a;\n\t.reg {a} %b;\n\t.reg .b64 %x;\n\
         \tld.param.u64 %x, [p];\n\tld.global{a} %a, [%x];\n\tld.global{a} %b, [%x+8];\n\t{c} %d, {operands};\n\tst.global{d} [%x], %d;\n\tret;\n}}\n"
    )
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
            jobs.push(Job::new(sm, c, cvt_module(&c, sm, ptx), sm >= r.sm));
        }
    }
    assert!(jobs.len() > 300, "{}", jobs.len());
    assert_ptxas_agrees(&ptxas, "cvt", &jobs);
}

/// A one-instruction kernel of a float-integer `cvt` form, each register of the operand's own
/// type (ptxas 13.5 refuses an 8-bit operand in a 16-bit register when the other type is
/// bf16, though the section's Notes allow wider registers except for bf16 operands).
fn cvt_int_module(c: &ptx::cvt::int::CvtInt, sm: u32, ptx: PtxVersion) -> String {
    use ptx::format::Scalar;
    let float = match c.float {
        Scalar::F16 | Scalar::BF16 => ".b16",
        Scalar::F32 => ".f32",
        Scalar::F64 => ".f64",
    };
    let int = format!(".{}{}", if c.int.signed { 's' } else { 'u' }, c.int.bits);
    let (d, a) = if c.to_int { (int, float.to_string()) } else { (float.to_string(), int) };
    format!(
        ".version {ptx}\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg {d} %d;\n\t.reg {a} %a;\n\t.reg .b64 %x;\n\
         \tld.param.u64 %x, [p];\n\tld.global{a} %a, [%x];\n\t{c} %d, %a;\n\tst.global{d} [%x], %d;\n\tret;\n}}\n"
    )
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
            jobs.push(Job::new(sm, c, cvt_int_module(&c, sm, ptx), sm >= r.sm));
        }
    }
    assert_eq!(jobs.len(), 3 * 576);
    assert_ptxas_agrees(&ptxas, "cvti", &jobs);
}

/// A one-instruction kernel of a `setp`, `set` or `selp` form: sources loaded in registers of
/// the type the section names (`.b16` for `.f16`/`.bf16`, `.b32` for the packed types), `c` a
/// predicate made by a comparison, the result stored.
fn compare_module(c: &ptx::compare::Compare, sm: u32, ptx: PtxVersion) -> String {
    use ptx::compare::{Kind, Ty};
    let reg = |t: Ty| match t {
        Ty::Float(ptx::Scalar::F16 | ptx::Scalar::BF16) => ".b16".to_string(),
        Ty::Packed(_) => ".b32".to_string(),
        t => format!(".{}", t.name()),
    };
    let a = reg(c.ty);
    let (decl, instr, store) = match c.kind {
        Kind::Setp => {
            let dst = if matches!(c.ty, Ty::Float(ptx::Scalar::F16 | ptx::Scalar::BF16)) { "%p" } else { "%p|%q" };
            ("".to_string(), format!("{c} {dst}, %a, %b{};", if c.bool_op.is_some() { ", !%c" } else { "" }), "selp.u32 %r, 1, 0, %p;\n\tst.global.u32 [%x], %r;".to_string())
        }
        Kind::Set { dtype } => {
            let d = reg(dtype);
            (format!("\t.reg {d} %d;\n"), format!("{c} %d, %a, %b{};", if c.bool_op.is_some() { ", %c" } else { "" }), format!("st.global{d} [%x], %d;"))
        }
        Kind::Selp => (format!("\t.reg {a} %d;\n"), format!("{c} %d, %a, %b, %c;"), format!("st.global{a} [%x], %d;")),
    };
    format!(
        ".version {ptx}\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n{decl}\t.reg {a} %a;\n\t.reg {a} %b;\n\
         \t.reg .pred %p, %q, %c;\n\t.reg .u32 %r;\n\t.reg .b64 %x;\n\tld.param.u64 %x, [p];\n\tld.global{a} %a, [%x];\n\tld.global{a} %b, [%x+8];\n\
         \tld.global.u32 %r, [%x+16];\n\tsetp.ne.u32 %c, %r, 0;\n\t{instr}\n\t{store}\n\tret;\n}}\n"
    )
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
                jobs.push(Job::new(sm, &c, compare_module(&c, sm, ptx), sm >= r.sm));
            }
        }
    }
    assert_ptxas_agrees(&ptxas, "cmp", &jobs);
}

/// A kernel that loads the sources of a narrow-format `cvt` and stores its destination.
fn narrow_module(c: &ptx::cvt::narrow::NarrowCvt, target: &str, ptx: PtxVersion) -> String {
    use ptx::cvt::narrow::Direction;
    let reg = |bits: u32| format!(".b{bits}");
    let src_bits = match c.dir {
        Direction::Down { .. } => 32,
        Direction::Up { src, .. } => src.packed_bits(),
    };
    let (s, d) = (reg(src_bits), reg(c.dst_bits()));
    let srcs = if c.inputs() == 2 { "%a, %b" } else { "%a" };
    format!(
        ".version {ptx}\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg {s} %a, %b;\n\t.reg {d} %d;\n\t.reg .b64 %x;\n\
         \tld.param.u64 %x, [p];\n\tld.global{s} %a, [%x];\n\tld.global{s} %b, [%x+8];\n\t{c} %d, {srcs};\n\tst.global{d} [%x], %d;\n\tret;\n}}\n"
    )
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
        jobs.push(Job::new(n.target().trim_start_matches("sm_"), &c, narrow_module(&c, &n.target(), ptx), true));
        let below = if n.variant == Variant::Plain { 80 } else { n.sm };
        jobs.push(Job::new(below, &c, narrow_module(&c, &format!("sm_{below}"), ptx), false));
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
        let srcs = if m.inputs() == 3 { "%h, %h, %f" } else { "%h, %f" };
        for (sm, legal) in [(100u32, true), (90, false)] {
            let module = format!(
                ".version {}\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg .f32 %f, %d;\n\t.reg .b16 %h;\n\t.reg .b64 %x;\n\
                 \tld.param.u64 %x, [p];\n\tld.global.f32 %f, [%x];\n\tld.global.b16 %h, [%x+4];\n\t{m} %d, {srcs};\n\tst.global.f32 [%x], %d;\n\tret;\n}}\n",
                m.requirement().ptx
            );
            jobs.push(Job::new(sm, m, module, legal));
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
    let module = |c: &Tf32Cvt, sm: u32, ptx: PtxVersion| {
        format!(
            ".version {ptx}\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg .f32 %a;\n\t.reg .b32 %d;\n\t.reg .b64 %x;\n\
             \tld.param.u64 %x, [p];\n\tld.global.f32 %a, [%x];\n\t{c} %d, %a;\n\tst.global.b32 [%x], %d;\n\tret;\n}}\n"
        )
    };
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

/// Every `.rs` form (`ptx::cvt::stochastic`) assembles on sm_100a with PTX 8.7 and sm_103a,
/// and is refused on plain sm_100, on sm_100f and with PTX 8.6.
#[test]
fn stochastic_rounding_forms_assemble_on_sm_100a_and_103a_only() {
    let Some(ptxas) = ptxas_or_skip("stochastic_rounding_forms_assemble_on_sm_100a_and_103a_only") else {
        return;
    };
    let mut jobs: Vec<Job> = Vec::new();
    for c in ptx::cvt::stochastic::StochasticCvt::all() {
        let n = c.needs();
        for (target, ptx, legal) in [("100a", n.ptx, true), ("103a", PtxVersion::new(8, 8), true), ("100", n.ptx, false), ("100f", PtxVersion::new(8, 8), false), ("100a", PtxVersion::new(8, 6), false)] {
            let module = format!(
                ".version {ptx}\n.target sm_{target}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\t.reg .f32 %a, %b;\n\t.reg .b32 %d, %r;\n\t.reg .b64 %x;\n\
                 \tld.param.u64 %x, [p];\n\tld.global.f32 %a, [%x];\n\tld.global.f32 %b, [%x+4];\n\tld.global.b32 %r, [%x+8];\n\t{c} %d, %a, %b, %r;\n\tst.global.b32 [%x], %d;\n\tret;\n}}\n"
            );
            jobs.push(Job::new(target, format!("{c} (PTX {ptx})"), module, legal));
        }
    }
    assert_ptxas_agrees(&ptxas, "rs", &jobs);
}
