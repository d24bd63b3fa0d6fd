//! Tests of the generator: validity, legality for the target, round trips, knobs.

use super::*;
use crate::isa::Type;
use crate::isa::{PtxVersion, Target};
use crate::rounding::Rounding;

pub(crate) use super::seeded_bytes as bytes;

/// `n` programs from `g`, each from its own 256-byte window of one stream.
fn programs(g: &Generator, seed: u64, n: usize) -> Vec<Program> {
    let data = bytes(seed, 256 * n);
    data.chunks(256).map(|c| g.program(&mut Unstructured::new(c)).unwrap()).collect()
}

fn target(sm: u32, major: u8, minor: u8) -> GenConfig {
    GenConfig::for_target(sm, PtxVersion { major, minor })
}

#[test]
fn generated_programs_are_valid_and_legal_for_their_target() {
    for (sm, major, minor) in [(80, 7, 0), (86, 7, 1), (90, 7, 8), (100, 8, 6), (120, 8, 7)] {
        let cfg = GenConfig { approximate: true, contraction: true, ..target(sm, major, minor) };
        let g = Generator::new(cfg).unwrap();
        for p in programs(&g, sm as u64, 2000) {
            let again = Program::new(p.inputs().to_vec(), p.body().to_vec(), p.outputs().to_vec());
            assert_eq!(again.as_ref(), Ok(&p));
            let t = Target::new(sm, PtxVersion { major, minor });
            assert_eq!(p.check_target(t), Ok(()), "{p}");
        }
    }
}

#[test]
fn generator_never_offers_a_form_the_table_rejects_for_the_target() {
    let cfg = GenConfig { approximate: true, contraction: true, ..target(80, 7, 0) };
    let g = Generator::new(cfg).unwrap();
    let t = Target::new(80, PtxVersion { major: 7, minor: 0 });
    assert!(g.forms().count() > 50);
    for f in g.forms() {
        assert_eq!(f.check_target(t), Ok(()), "{f}");
    }
    // 9.7.3.3: f32x2 needs sm_100, so sm_80 must not see it.
    assert!(g.forms().all(|f| f.ty != Type::F32x2));
    let g100 = Generator::new(GenConfig { approximate: true, ..target(100, 8, 6) }).unwrap();
    assert!(g100.forms().any(|f| f.ty == Type::F32x2));
}

#[test]
fn generated_programs_round_trip_through_json_and_text() {
    let cfg = GenConfig { approximate: true, contraction: true, ..target(100, 8, 6) };
    let g = Generator::new(cfg).unwrap();
    for p in programs(&g, 7, 3000) {
        let json = p.to_json();
        let back = Program::from_json(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
        assert_eq!(back, p);
        assert_eq!(back.to_json(), json);
        let text = p.to_string();
        let back = Program::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, p);
        assert_eq!(back.to_string(), text);
    }
}

#[test]
fn contraction_knob_decides_unrounded_add_sub_mul() {
    let unrounded = |g: &Generator| g.forms().filter(is_contractible).count();
    let off = Generator::new(target(90, 7, 8)).unwrap();
    assert_eq!(unrounded(&off), 0);
    assert!(off.forms().any(|f| f.op == Opcode::Add && f.precision == Precision::Rounded(Rounding::Rn)));
    let on = Generator::new(GenConfig { contraction: true, ..target(90, 7, 8) }).unwrap();
    assert!(unrounded(&on) > 0);
}

#[test]
fn approximate_forms_only_when_asked() {
    let off = Generator::new(target(90, 7, 8)).unwrap();
    assert!(off.forms().all(|f| !f.is_approximate()));
    let on = Generator::new(GenConfig { approximate: true, ..target(90, 7, 8) }).unwrap();
    assert!(on.forms().any(|f| f.is_approximate()));
}

#[test]
fn lengths_and_single_share_are_respected() {
    let cfg = GenConfig { min_len: 3, max_len: 5, single_share: 0.25, ..GenConfig::default() };
    let g = Generator::new(cfg).unwrap();
    let ps = programs(&g, 3, 4000);
    let singles = ps.iter().filter(|p| p.body().len() == 1).count();
    assert!(ps.iter().all(|p| matches!(p.body().len(), 1 | 3..=5)));
    assert!((800..1200).contains(&singles), "{singles} singles of 4000");
}

#[test]
fn programs_reuse_earlier_results_and_outputs_are_the_unread_results() {
    let g = Generator::new(GenConfig { single_share: 0.0, ..GenConfig::default() }).unwrap();
    let ps = programs(&g, 11, 1000);
    let k = |p: &Program| p.inputs().len();
    let chained = ps.iter().filter(|p| p.body().iter().any(|s| s.srcs().iter().any(|r| r.0 as usize >= k(p)))).count();
    assert!(chained > 700, "{chained} of 1000 programs read an earlier result");
    assert_outputs_are_the_unread_results(&ps);
}

fn assert_outputs_are_the_unread_results(ps: &[Program]) {
    for p in ps {
        for (j, _) in p.body().iter().enumerate() {
            let read = p.body().iter().any(|s| s.srcs().contains(&p.dst(j)));
            assert_eq!(p.outputs().contains(&p.dst(j)), !read, "{p}");
        }
    }
}

#[test]
fn contraction_pair_leaves_no_unread_result_off_the_outputs() {
    // The pair's mul replaces one operand of its add; a result that operand had picked is then
    // unread and must be an output (found by the gen_valid fuzz target).
    let cfg = GenConfig { contraction: true, single_share: 0.0, types: vec![Type::F64], ..GenConfig::default() };
    let g = Generator::new(cfg).unwrap();
    assert_outputs_are_the_unread_results(&programs(&g, 17, 3000));
}

#[test]
fn modifier_shares_reach_the_forms() {
    let g = Generator::new(GenConfig {
        ftz_share: 1.0,
        sat_share: 1.0,
        opcodes: vec![Opcode::Add],
        types: vec![Type::F32],
        ..GenConfig::default()
    })
    .unwrap();
    let data = bytes(5, 4096);
    let mut u = Unstructured::new(&data);
    for _ in 0..100 {
        let f = g.form(&mut u).unwrap();
        // add.f32 has .ftz and .sat but no .relu (9.7.3.3).
        assert_eq!((f.ftz, f.clamp), (Ftz::Flush, Clamp::Sat), "{f}");
    }
    let plain = Generator::new(GenConfig { ftz_share: 0.0, sat_share: 0.0, ..GenConfig::default() }).unwrap();
    let mut u = Unstructured::new(&data);
    for _ in 0..100 {
        let f = plain.form(&mut u).unwrap();
        // Only forms that exist solely with a modifier may carry one.
        if f.ftz == Ftz::Flush {
            assert!(!plain.forms().any(|o| o == Instr { ftz: Ftz::Preserve, ..f }), "{f}");
        }
    }
}

#[test]
fn same_bytes_same_program_and_empty_bytes_still_a_program() {
    let g = Generator::new(GenConfig::default()).unwrap();
    let data = bytes(9, 256);
    assert_eq!(g.program(&mut Unstructured::new(&data)).unwrap(), g.program(&mut Unstructured::new(&data)).unwrap());
    let p = g.program(&mut Unstructured::new(&[])).unwrap();
    assert_eq!(p.body().len(), 1);
    assert_eq!(g.case(&mut Unstructured::new(&[]), &p).unwrap().len(), p.inputs().len());
}

#[test]
fn from_bytes_is_program_then_case_of_one_stream_and_deterministic() {
    let cfg = GenConfig { approximate: true, contraction: true, ..GenConfig::default() };
    let g = Generator::new(cfg.clone()).unwrap();
    for seed in 0..200 {
        let data = bytes(seed, (seed as usize * 7) % 300);
        let (p, case) = g.from_bytes(&data);
        let mut u = Unstructured::new(&data);
        assert_eq!(p, g.program(&mut u).unwrap());
        assert_eq!(case, g.case(&mut u, &p).unwrap());
        assert_eq!(from_bytes(&data, &cfg).unwrap(), (p, case));
    }
    let (p, case) = g.from_bytes(&[]);
    assert_eq!((p.body().len(), case.len()), (1, p.inputs().len()));
    let bad = GenConfig { opcodes: vec![], ..GenConfig::default() };
    assert!(matches!(from_bytes(&[], &bad), Err(GenError::NoForms { .. })));
}

#[test]
fn cases_fit_the_input_registers() {
    let g = Generator::new(GenConfig { approximate: true, ..target(100, 8, 6) }).unwrap();
    let data = bytes(13, 1 << 20);
    let mut u = Unstructured::new(&data);
    for _ in 0..2000 {
        let p = g.program(&mut u).unwrap();
        let c = g.case(&mut u, &p).unwrap();
        for (v, t) in c.iter().zip(p.inputs()) {
            assert!(t.bits() == 64 || v >> t.bits() == 0, "{v:#x} for {}", t.name());
        }
    }
}

#[test]
fn bad_configs_are_explained() {
    let e = Generator::new(GenConfig { types: vec![Type::F32x2], ..target(90, 7, 8) }).unwrap_err();
    assert!(e.to_string().contains("no instruction form"), "{e}");
    let e = Generator::new(GenConfig { min_len: 9, max_len: 3, ..GenConfig::default() }).unwrap_err();
    assert!(matches!(e, GenError::Lengths { min: 9, max: 3 }));
    let e = Generator::new(GenConfig { ftz_share: 1.5, ..GenConfig::default() }).unwrap_err();
    assert!(matches!(e, GenError::Share { name: "ftz_share", .. }));
    assert!(Generator::new(GenConfig { max_len: 0, ..GenConfig::default() }).is_err());
}

#[test]
fn undocumented_forms_follow_their_knob() {
    // docs/isa-table.md: fma.{rz,rm,rp}.bf16 are accepted by ptxas but not in 9.7.4.4.
    let with = Generator::new(GenConfig { undocumented: true, ..target(90, 7, 8) }).unwrap();
    assert!(with.forms().any(|f| !f.is_documented()));
    let without = Generator::new(GenConfig { undocumented: false, ..target(90, 7, 8) }).unwrap();
    assert!(without.forms().all(|f| f.is_documented()));
}

#[test]
fn generated_programs_run_in_the_interpreter_with_contraction_covered() {
    use crate::interp::Reading;
    let cfg = GenConfig { contraction: true, ..target(100, 8, 6) };
    let g = Generator::new(cfg).unwrap();
    // Opcodes are drawn uniformly, so an add/sub fed by a mul is rare among all forms: 10,000
    // programs give some 50 contracted results whatever the form list holds this year.
    let data = bytes(17, 1 << 24);
    let mut u = Unstructured::new(&data);
    let mut contracted = 0;
    for _ in 0..10_000 {
        let p = g.program(&mut u).unwrap();
        for _ in 0..4 {
            let case = g.case(&mut u, &p).unwrap();
            let run = p.trace(&case).unwrap_or_else(|e| panic!("{p}{case:x?}: {e}"));
            assert_eq!(run.outputs.len(), p.outputs().len());
            assert_eq!(run.intermediates.len(), p.body().len());
            for (e, &r) in run.outputs.iter().zip(p.outputs()) {
                assert_eq!(e.width(), p.reg_type(r).bits(), "{p}");
            }
            contracted += run
                .intermediates
                .iter()
                .filter(|e| e.lanes.iter().any(|l| l.alternatives.iter().any(|a| a.1 == Reading::Contracted)))
                .count();
        }
    }
    assert!(contracted > 20, "only {contracted} results with a contracted alternative");
}

#[test]
fn conversions_make_chains_across_formats() {
    // Only cvt and fma: every chain between formats goes through a conversion.
    let cfg = GenConfig { opcodes: vec![Opcode::Cvt, Opcode::Fma], min_len: 4, max_len: 12, ..target(90, 7, 8) };
    let g = Generator::new(cfg).unwrap();
    let t = Target::new(90, PtxVersion::new(7, 8));
    assert!(g.forms().any(|f| f.to_string() == "cvt.rn.bf16.f32") && g.forms().any(|f| f.to_string() == "cvt.f32.bf16"));
    // 9.7.9.21: .satfinite needs PTX 8.1, so PTX 7.8 must not see it, but on the fp8 forms,
    // which always carry it and which sm_90 has from PTX 7.8.
    assert!(g.forms().all(|f| !f.to_string().contains("satfinite") || f.narrow_dest().is_some()));
    assert!(g.forms().any(|f| f.to_string() == "cvt.rn.satfinite.e4m3x2.f32"));
    let (mut cvts, mut fed) = (0, 0);
    for p in programs(&g, 16, 500) {
        assert_eq!(p.check_target(t), Ok(()), "{p}");
        for (j, s) in p.body().iter().enumerate() {
            if s.instr.op != Opcode::Cvt {
                continue;
            }
            cvts += 1;
            for (pos, &r) in s.srcs().iter().enumerate() {
                assert!(ValType::of_operand(&s.instr, pos).reads(p.reg_type(r)), "{p}");
                // A conversion reading an fma's result: the chain crosses formats.
                fed += usize::from(p.definition(r).is_some_and(|d| d < j && p.body()[d].instr.op == Opcode::Fma));
            }
        }
        p.run(&g.case(&mut Unstructured::new(&bytes(3, 64)), &p).unwrap()).unwrap();
    }
    assert!(cvts > 500 && fed > 100, "{cvts} conversions, {fed} reading an fma");
}

/// Where an integer source `r` of type `t` in `p` comes from: an input of that type
/// (`true`), or an earlier instruction writing that type (`false`); anything else fails.
fn integer_origin(p: &Program, r: Reg, t: crate::integer::IntType) -> bool {
    assert_eq!(p.reg_type(r), ValType::Int(t), "{p}");
    match p.definition(r) {
        None => true,
        Some(d) => {
            assert_eq!(p.body()[d].instr.int_dest(), Some(t), "{p}");
            false
        }
    }
}

#[test]
fn an_integer_source_reads_a_cvt_to_its_type_or_an_integer_input() {
    // f32 -> s32 -> f32, as compilers truncate, and an s32 input over its whole range: every
    // integer a cvt reads is the result of an earlier cvt to that same type or an input of
    // it, never a float.
    let cfg = GenConfig { opcodes: vec![Opcode::Cvt], types: vec![Type::F32], min_len: 2, max_len: 6, ..target(90, 8, 6) };
    let g = Generator::new(cfg).unwrap();
    assert!(g.forms().any(|f| f.to_string() == "cvt.rni.s32.f32") && g.forms().any(|f| f.to_string() == "cvt.rn.f32.s32"));
    let (mut chained, mut inputs, mut to_int) = (0, 0, 0);
    for p in programs(&g, 17, 400) {
        for s in p.body() {
            to_int += usize::from(s.instr.int_dest().is_some());
            let Some(t) = s.instr.int_source() else { continue };
            if integer_origin(&p, s.srcs()[0], t) {
                inputs += 1;
            } else {
                chained += 1;
            }
        }
        let case = g.case(&mut Unstructured::new(&bytes(5, 64)), &p).unwrap();
        for (&t, &v) in p.inputs().iter().zip(&case) {
            if let ValType::Int(i) = t {
                assert_eq!(i.extend(v, i.reg_bits()), v, "{p}: input 0x{v:x} is not a {}", i.name());
            }
        }
        let out = p.run(&case).unwrap();
        assert_eq!(out.len(), p.outputs().len());
    }
    assert!(chained > 50 && inputs > 50 && to_int > chained, "{chained} chained, {inputs} inputs, {to_int} cvts to an integer");
}

#[test]
fn an_integer_selp_chooses_between_integers_of_its_type_on_an_earlier_predicate() {
    // f32 -> s32 on two arms, a setp, selp.s32, back to f32: both value sources are integers
    // a cvt (or an integer set) wrote or integer inputs, the third a predicate.
    let cfg = GenConfig { opcodes: vec![Opcode::Cvt, Opcode::Selp], types: vec![Type::F32], min_len: 2, max_len: 8, ..target(90, 8, 6) };
    let g = Generator::new(cfg).unwrap();
    assert!(g.forms().any(|f| f.to_string() == "selp.s32") && g.forms().any(|f| f.to_string() == "selp.f32"));
    // Only the 32-bit integers: --types f32 admits the integer types of its width.
    assert!(g.forms().filter(|f| f.selp_int.is_some()).all(|f| f.selp_int.unwrap().bits == 32));
    let (mut selps, mut from_inputs) = (0, 0);
    for p in programs(&g, 31, 400) {
        for s in p.body().iter().filter(|s| s.instr.selp_int.is_some()) {
            selps += 1;
            for &r in &s.srcs()[..2] {
                from_inputs += usize::from(integer_origin(&p, r, s.instr.selp_int.unwrap()));
            }
            assert_eq!(p.reg_type(s.srcs()[2]), ValType::Pred, "{p}");
        }
        p.run(&g.case(&mut Unstructured::new(&bytes(6, 64)), &p).unwrap()).unwrap();
    }
    assert!(selps > 50 && from_inputs > 20, "{selps} integer selps, {from_inputs} sources from inputs");
    // Without any cvt to an integer, an integer selp reads integer inputs alone.
    let g = Generator::new(GenConfig { opcodes: vec![Opcode::Selp], types: vec![Type::F32], ..target(90, 8, 6) }).unwrap();
    let p = programs(&g, 3, 400).into_iter().find(|p| p.body().iter().any(|s| s.instr.selp_int.is_some())).expect("an integer selp");
    assert!(p.inputs().iter().any(|t| matches!(t, ValType::Int(_))), "{p}");
}

#[test]
fn an_fp8_source_reads_a_cvt_to_its_format_which_the_generator_inserts() {
    // f32 -> e4m3x2 -> f16x2, as FP8 kernels quantize and read back: every fp8 pair a cvt
    // reads is the result of an earlier cvt to that same format, never an input.
    let cfg = GenConfig { opcodes: vec![Opcode::Cvt], types: vec![Type::F32, Type::F16x2], min_len: 2, max_len: 6, ..target(90, 8, 6) };
    let g = Generator::new(cfg).unwrap();
    assert!(g.forms().any(|f| f.to_string() == "cvt.rn.satfinite.e5m2x2.f32") && g.forms().any(|f| f.to_string() == "cvt.rn.relu.f16x2.e4m3x2"));
    let (mut reads, mut to_fp8) = (0, 0);
    for p in programs(&g, 23, 1500) {
        for s in p.body() {
            to_fp8 += usize::from(s.instr.narrow_dest().is_some());
            let Some(n) = s.instr.narrow_source() else { continue };
            reads += 1;
            let d = p.definition(s.srcs()[0]).unwrap_or_else(|| panic!("an fp8 input in {p}"));
            assert_eq!(p.body()[d].instr.narrow_dest(), Some(n), "{p}");
            assert_eq!(p.reg_type(s.srcs()[0]), ValType::Narrow(n), "{p}");
        }
        let out = p.run(&g.case(&mut Unstructured::new(&bytes(5, 64)), &p).unwrap()).unwrap();
        assert_eq!(out.len(), p.outputs().len());
    }
    // 12 of the config's ~300 conversions touch fp8: 17 readers per 400 programs at seed 23.
    assert!(reads > 30 && to_fp8 > reads, "{reads} fp8 sources, {to_fp8} cvts to fp8");
    // Below sm_89 there is none.
    let old = Generator::new(GenConfig { opcodes: vec![Opcode::Cvt], types: vec![Type::F32, Type::F16x2], ..target(80, 8, 6) }).unwrap();
    assert!(old.forms().all(|f| f.narrow_dest().is_none() && f.narrow_source().is_none()));
}

#[test]
fn an_sm_100a_target_adds_the_f6_and_ue8m0_cvts_and_reads_each_pair_from_a_cvt_to_its_format() {
    use crate::isa::{Narrow, Variant};
    // MX quantization as a compiler emits it: f32 -> e2m3x2 / ue8m0x2 scales -> back to halves.
    let arch = |variant| GenConfig { opcodes: vec![Opcode::Cvt], types: vec![Type::F32, Type::F16x2, Type::Bf16x2], min_len: 2, max_len: 6, variant, ..target(100, 9, 1) };
    let g = Generator::new(arch(Variant::A)).unwrap();
    let names: Vec<String> = g.forms().map(|f| f.to_string()).collect();
    for form in ["cvt.rn.satfinite.e2m3x2.f32", "cvt.rn.f16x2.e3m2x2", "cvt.rz.satfinite.ue8m0x2.f32", "cvt.rn.bf16x2.ue8m0x2", "cvt.rn.satfinite.e4m3x2.bf16x2"] {
        assert!(names.iter().any(|n| n == form), "{form} missing on sm_100a");
    }
    // FP4 in its .b8 register (RegClass::B8), both ways.
    for form in ["cvt.rn.satfinite.e2m1x2.f32", "cvt.rn.satfinite.relu.e2m1x2.f16x2", "cvt.rn.f16x2.e2m1x2"] {
        assert!(names.iter().any(|n| n == form), "{form} missing on sm_100a");
    }
    let t = g.config().target();
    assert_eq!(t.variant, Variant::A);
    let mut read = std::collections::BTreeSet::new();
    for p in programs(&g, 29, 1500) {
        assert_eq!(p.check_target(t), Ok(()), "{p}");
        for s in p.body() {
            let Some(n) = s.instr.narrow_source() else { continue };
            let d = p.definition(s.srcs()[0]).unwrap_or_else(|| panic!("a narrow input in {p}"));
            assert_eq!(p.body()[d].instr.narrow_dest(), Some(n), "{p}");
            read.insert(n);
        }
        p.run(&g.case(&mut Unstructured::new(&bytes(7, 64)), &p).unwrap()).unwrap();
    }
    for n in [Narrow::E4m3, Narrow::E5m2, Narrow::E2m3, Narrow::E3m2, Narrow::E2m1, Narrow::Ue8m0] {
        assert!(read.contains(&n), "no {} pair read back in 1500 programs", n.name());
    }
    // The plain sm_100 has only the fp8 ones of sm_89; sm_100f has the family's (the bf16x2
    // sources) but not the sm_100a ones (the f32 sources of f6, ue8m0).
    let plain: Vec<String> = Generator::new(arch(Variant::Plain)).unwrap().forms().map(|f| f.to_string()).collect();
    assert!(plain.iter().all(|n| !n.contains("e2m3x2") && !n.contains("ue8m0x2") && !n.contains("e4m3x2.bf16x2")));
    let family: Vec<String> = Generator::new(arch(Variant::F)).unwrap().forms().map(|f| f.to_string()).collect();
    assert!(family.iter().any(|n| n == "cvt.rn.satfinite.e2m3x2.bf16x2") && !family.iter().any(|n| n == "cvt.rn.satfinite.e2m3x2.f32"));
}

#[test]
fn conversions_follow_the_type_list_on_both_sides() {
    let cfg = GenConfig { opcodes: vec![Opcode::Cvt], types: vec![Type::F32, Type::Bf16], ..target(90, 7, 8) };
    let g = Generator::new(cfg).unwrap();
    let both = [Type::F32, Type::Bf16];
    assert!(g.forms().all(|f| both.contains(&f.ty) && both.contains(&f.src_type())));
    let forms: Vec<String> = g.forms().map(|f| f.to_string()).collect();
    assert!(forms.contains(&"cvt.rni.f32.f32".to_string()) && forms.contains(&"cvt.rz.bf16.f32".to_string()), "{forms:?}");
}

#[test]
fn comparisons_read_computed_values_and_their_predicates_are_outputs() {
    let cfg = GenConfig { opcodes: vec![Opcode::Setp, Opcode::Mul], min_len: 3, max_len: 8, ..target(90, 7, 8) };
    let g = Generator::new(cfg).unwrap();
    let (mut setps, mut on_results, mut combined) = (0, 0, 0);
    let ps = programs(&g, 17, 300);
    for p in &ps {
        for s in p.body().iter().filter(|s| s.instr.op == Opcode::Setp) {
            setps += 1;
            on_results += s.srcs()[..2].iter().filter(|&&r| p.definition(r).is_some()).count();
            if s.instr.reads_predicate(2) {
                combined += 1;
                assert_eq!(p.reg_type(s.srcs()[2]), ValType::Pred, "{p}");
            }
        }
        p.run(&g.case(&mut Unstructured::new(&bytes(5, 64)), p).unwrap()).unwrap();
    }
    assert_outputs_are_the_unread_results(&ps);
    assert!(setps > 200 && on_results > 50 && combined > 50, "{setps} setp, {on_results} operands from a mul, {combined} .BoolOp");
    // 84 forms and the 42 packed ones (two predicates, outputs only), each alone and with
    // .and, .or, .xor.
    assert_eq!(g.forms().filter(|f| f.op == Opcode::Setp).count(), 4 * (84 + 42));
    assert!(ps.iter().any(|p| p.body().iter().any(|s| s.instr.writes_predicate_pair())));
}

#[test]
fn a_predicate_source_reads_an_earlier_predicate_which_a_setp_defines_when_none_exists() {
    // selp alone: every program needs a setp it did not ask for; one instruction is that setp.
    let cfg = GenConfig { opcodes: vec![Opcode::Selp], types: vec![Type::F32], min_len: 2, max_len: 6, ..target(90, 7, 8) };
    let g = Generator::new(cfg).unwrap();
    let (mut selps, mut singles) = (0, 0);
    // The helper setps are forms the generator may emit (found by the gen_valid fuzz target).
    let forms: std::collections::BTreeSet<Instr> = g.forms().collect();
    for p in programs(&g, 23, 400) {
        assert!(p.body().iter().all(|s| forms.contains(&s.instr)), "{p}");
        let first = &p.body()[0].instr;
        assert_eq!((first.op, first.ty), (Opcode::Setp, Type::F32), "{p}");
        singles += (p.body().len() == 1) as usize;
        assert!(p.body().len() <= 6, "{p}");
        for s in p.body().iter().filter(|s| s.instr.op == Opcode::Selp) {
            selps += 1;
            assert_eq!(p.reg_type(s.srcs()[2]), ValType::Pred, "{p}");
        }
        p.run(&g.case(&mut Unstructured::new(&bytes(3, 64)), &p).unwrap()).unwrap();
    }
    assert!(selps > 400 && singles > 100, "{selps} selp, {singles} single setp");
}

#[test]
fn set_writes_its_destination_type_from_its_source_type() {
    let cfg = GenConfig { opcodes: vec![Opcode::Set, Opcode::Add], min_len: 3, max_len: 8, ..target(90, 7, 8) };
    let g = Generator::new(cfg).unwrap();
    let mut mixed = 0;
    for p in programs(&g, 29, 300) {
        for s in p.body().iter().filter(|s| s.instr.op == Opcode::Set) {
            mixed += (s.instr.src_type() != s.instr.ty) as usize;
            assert_eq!(p.reg_type(s.srcs()[0]).class(), RegClass::of(s.instr.src_type()), "{p}");
        }
        p.run(&g.case(&mut Unstructured::new(&bytes(4, 64)), &p).unwrap()).unwrap();
    }
    assert!(mixed > 50, "{mixed} set with .dtype != .stype");
}

/// The mixed-precision `add`/`sub`/`fma` (9.7.5) are drawn from sm_100 on, with both their
/// types in the list: `a` (and `fma`'s `b`) read a half, `c` an f32, so a bf16 computed by a
/// `cvt` or an fma feeds an f32 accumulation.
#[test]
fn mixed_precision_forms_read_a_half_and_an_f32_from_sm_100_on() {
    let cfg = |sm, types: Vec<Type>| GenConfig { opcodes: vec![Opcode::Add, Opcode::Sub, Opcode::Fma, Opcode::Cvt], types, min_len: 3, max_len: 10, ..target(sm, 8, 6) };
    let mixed = |g: &Generator| g.forms().filter(|f| f.atype.is_some()).count();
    let g = Generator::new(cfg(100, vec![Type::F32, Type::Bf16, Type::F16])).unwrap();
    assert_eq!(mixed(&g), crate::isa::mixed::mixed_forms().len());
    assert_eq!(mixed(&Generator::new(cfg(90, vec![Type::F32, Type::Bf16, Type::F16])).unwrap()), 0);
    // Both of a form's types must be listed: f32 alone has none, f32 and bf16 the bf16 ones.
    assert_eq!(mixed(&Generator::new(cfg(100, vec![Type::F32])).unwrap()), 0);
    let bf16 = Generator::new(cfg(100, vec![Type::F32, Type::Bf16])).unwrap();
    assert!(bf16.forms().filter(|f| f.atype.is_some()).all(|f| f.atype == Some(Type::Bf16)) && mixed(&bf16) > 0);
    let t = Target::new(100, PtxVersion::new(8, 6));
    let (mut seen, mut from_cvt) = (0, 0);
    for p in programs(&g, 21, 400) {
        assert_eq!(p.check_target(t), Ok(()), "{p}");
        for s in p.body().iter().filter(|s| s.instr.atype.is_some()) {
            seen += 1;
            for (pos, &r) in s.srcs().iter().enumerate() {
                let want = if pos + 1 < s.srcs().len() { s.instr.atype.unwrap() } else { Type::F32 };
                assert_eq!(ValType::of_operand(&s.instr, pos), ValType::Float(want), "{p}");
                assert!(ValType::Float(want).reads(p.reg_type(r)), "{p}");
                from_cvt += usize::from(pos == 0 && p.definition(r).is_some_and(|d| p.body()[d].instr.op == Opcode::Cvt));
            }
        }
        p.run(&g.case(&mut Unstructured::new(&bytes(5, 64)), &p).unwrap()).unwrap();
    }
    assert!(seen > 200 && from_cvt > 20, "{seen} mixed-precision instructions, {from_cvt} reading a cvt's half");
}

/// `cvt.rs` (9.7.9.21, sm_100a): `a` and `b` read f32 values, `rbits` a `u32`, an integer input
/// (random bits over the whole range) or a `cvt` to `.u32`; plain sm_100 has none.
#[test]
fn a_stochastic_cvt_reads_two_floats_and_its_random_bits_as_a_u32_on_sm_100a() {
    use crate::isa::Variant;
    let cfg = |variant| GenConfig { opcodes: vec![Opcode::Cvt, Opcode::Fma], types: vec![Type::F32, Type::Bf16x2, Type::F16x2], min_len: 2, max_len: 8, variant, ..target(100, 9, 1) };
    let g = Generator::new(cfg(Variant::A)).unwrap();
    assert_eq!(g.forms().filter(|f| f.is_stochastic()).count(), 8);
    assert_eq!(Generator::new(cfg(Variant::Plain)).unwrap().forms().filter(|f| f.is_stochastic()).count(), 0);
    let t = g.config().target();
    let rbits = ValType::Int(crate::isa::stochastic::RBITS);
    let (mut seen, mut from_input, mut from_cvt) = (0, 0, 0);
    for p in programs(&g, 31, 1500) {
        assert_eq!(p.check_target(t), Ok(()), "{p}");
        for s in p.body().iter().filter(|s| s.instr.is_stochastic()) {
            seen += 1;
            let r = s.srcs();
            assert!(ValType::Float(Type::F32).reads(p.reg_type(r[0])) && ValType::Float(Type::F32).reads(p.reg_type(r[1])), "{p}");
            assert_eq!(p.reg_type(r[2]), rbits, "{p}");
            match p.definition(r[2]) {
                None => from_input += 1,
                Some(d) => {
                    assert_eq!(ValType::of_result(&p.body()[d].instr), rbits, "{p}");
                    from_cvt += 1;
                }
            }
        }
        p.run(&g.case(&mut Unstructured::new(&bytes(9, 64)), &p).unwrap()).unwrap();
    }
    assert!(seen > 50 && from_input > 20 && from_cvt > 5, "{seen} cvt.rs, rbits {from_input} inputs and {from_cvt} cvts");
}

#[test]
fn a_bf16_only_config_selects_bf16_values_with_selp_b16_and_no_f16_appears() {
    // selp has no .bf16 type (9.7.6.3): selp.b16 is how bf16 values are selected.
    let cfg = GenConfig { opcodes: vec![Opcode::Setp, Opcode::Selp, Opcode::Add], types: vec![Type::Bf16], min_len: 3, max_len: 6, ..target(90, 7, 8) };
    let g = Generator::new(cfg).unwrap();
    let selps: Vec<String> = g.forms().filter(|f| f.op == Opcode::Selp).map(|f| f.to_string()).collect();
    assert_eq!(selps, ["selp.b16"]);
    let mut picked = 0;
    for p in programs(&g, 31, 400) {
        assert!(p.inputs().iter().all(|&t| t == ValType::Float(Type::Bf16)), "{p}");
        for (j, s) in p.body().iter().enumerate().filter(|(_, s)| s.instr.is_bits_selp()) {
            assert_eq!(p.reg_type(p.dst(j)), ValType::Float(Type::Bf16), "{p}");
            picked += s.srcs()[..2].iter().filter(|&&r| p.definition(r).is_some()).count();
        }
        p.run(&g.case(&mut Unstructured::new(&bytes(3, 64)), &p).unwrap()).unwrap();
    }
    assert!(picked > 20, "{picked} selp.b16 operands were computed bf16 values");
    // f32x2 has no selp.b64 below sm_100, where nothing computes one.
    let ops = vec![Opcode::Setp, Opcode::Selp, Opcode::Add];
    let old = Generator::new(GenConfig { opcodes: ops.clone(), types: vec![Type::F32x2, Type::F32], ..target(90, 7, 8) }).unwrap();
    assert!(old.forms().all(|f| f.ty != Type::F32x2));
    let new = Generator::new(GenConfig { opcodes: ops, types: vec![Type::F32x2, Type::F32], ..target(100, 8, 6) }).unwrap();
    assert!(new.forms().any(|f| f.to_string() == "selp.b64"));
}
