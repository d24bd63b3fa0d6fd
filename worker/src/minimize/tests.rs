//! Minimization tests: a planted deviation evaluated in process, shrunk to its one instruction.

use super::values::{simpler_values, value_complexity};
use super::*;
use ptx::interp;
use ptx::Scalar;

fn case(text: &str, inputs: &[u64]) -> Case {
    Case { program: Program::parse(text).unwrap(), inputs: inputs.to_vec() }
}

/// A planted deviation evaluated in process: `add.rz.f32` computed as `add.rn.f32`.
/// Fails when some output differs from the faithful interpreter's.
fn rz_as_rn_fails(p: &Program, inputs: &[u64]) -> bool {
    let faithful = p.run(inputs).unwrap();
    let k = p.inputs().len();
    let mut vals: Vec<u64> = inputs.to_vec();
    for s in p.body() {
        let mut i = s.instr;
        if i.op == ptx::isa::Opcode::Add && i.precision == Precision::Rounded(Rounding::Rz) && i.ty == Type::F32 {
            i.precision = Precision::Rounded(Rounding::Rn);
        }
        let ops: Vec<u64> = s.srcs().iter().map(|r| vals[r.0 as usize]).collect();
        vals.push(interp::eval(&i, &ops).unwrap().primary_bits());
    }
    assert_eq!(vals.len(), k + p.body().len());
    p.outputs().iter().zip(&faithful).any(|(r, e)| !e.accepts(vals[r.0 as usize]))
}

const LONG: &str = "// inputs: %f0:f32, %f1:f32, %f2:f32, %fd3:f64\n\
    mul.rn.ftz.f32 %f4, %f0, %f1;\n\
    add.rz.f32 %f5, %f4, %f2;\n\
    sub.rn.sat.f32 %f6, %f5, %f0;\n\
    add.rn.f64 %fd7, %fd3, %fd3;\n\
    testp.finite.f32 %p8, %f6;\n\
    // outputs: %p8, %f6, %fd7\n";

fn long_inputs() -> Vec<u64> {
    let f = |x: f32| x.to_bits() as u64;
    // 0.25 * 3 = 0.75; adding 3.1e-8 (0.52 ulp of 0.75) rounds up to nearest, down toward
    // zero; the difference survives the exact subtraction and the clamp.
    vec![f(0.25), f(3.0), f(3.1e-8), 2.5f64.to_bits()]
}

#[test]
fn planted_rounding_bug_shrinks_to_one_instruction() {
    let c = case(LONG, &long_inputs());
    assert!(rz_as_rn_fails(&c.program, &c.inputs), "the starting case must fail");
    let m = minimize_each(c, &Limits::default(), rz_as_rn_fails);
    let p = &m.case.program;
    assert_eq!(p.body().len(), 1, "{p}");
    assert_eq!(p.body()[0].instr.to_string(), "add.rz.f32");
    assert!(rz_as_rn_fails(p, &m.case.inputs));
    assert!(!m.exhausted && m.steps > 0 && m.probes >= m.steps);
}

#[test]
fn every_accepted_step_still_fails_and_shrinks() {
    let c = case(LONG, &long_inputs());
    let mut last = Size::of(&c);
    let m = minimize(c, &Limits::default(), |cands| {
        cands
            .iter()
            .map(|c| {
                assert!(Size::of(c) < last, "candidate not smaller");
                rz_as_rn_fails(&c.program, &c.inputs)
            })
            .collect()
    });
    last = Size::of(&m.case);
    assert_eq!(last.instructions, 1);
    assert_eq!(last.modifiers, 1, "only the .rz the failure needs");
}

#[test]
fn values_get_simpler_but_keep_failing() {
    let c = case(LONG, &long_inputs());
    let before = Size::of(&c).values;
    let m = minimize_each(c, &Limits::default(), rz_as_rn_fails);
    assert!(Size::of(&m.case).values < before);
    // Fewer significant bits is the only way left: one operand keeps the bits that make
    // the sum inexact; the rest is as plain as the failure allows.
    for (&ty, &v) in m.case.program.inputs().iter().zip(&m.case.inputs) {
        assert!(values::register_complexity(ty, v) < 40, "{v:#x}");
    }
}

#[test]
fn probe_budget_is_respected() {
    let c = case(LONG, &long_inputs());
    let m = minimize_each(c, &Limits { max_probes: 5, deadline: None }, rz_as_rn_fails);
    assert!(m.probes <= 5);
    assert!(m.exhausted);
}

#[test]
fn case_that_never_fails_again_is_returned_unchanged() {
    let c = case(LONG, &long_inputs());
    let m = minimize_each(c.clone(), &Limits::default(), |_, _| false);
    assert_eq!(m.case, c);
    assert_eq!(m.steps, 0);
    assert!(m.probes > 0);
}

#[test]
fn dropping_an_instruction_feeds_its_reference_value() {
    let c = case(
        "// inputs: %f0:f32\nadd.rn.f32 %f1, %f0, %f0;\nadd.rz.f32 %f2, %f1, %f0;\n// outputs: %f2\n",
        &[0x3f80_0001],
    );
    let ir = Ir::of(&c);
    let refs = reference_values(&c).unwrap();
    let cands: Vec<Case> = drop_instruction(&ir, Some(&refs)).iter().filter_map(Ir::to_case).collect();
    let fed = cands.iter().find(|k| k.program.body().len() == 1 && k.inputs.len() == 2).unwrap();
    assert_eq!(fed.program.to_string(), "// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f1, %f0;\n// outputs: %f2\n");
    assert_eq!(fed.inputs, vec![0x3f80_0001, refs[0]]);
}

#[test]
fn simpler_values_are_strictly_simpler_and_sorted() {
    for (s, v) in [
        (Scalar::F32, 0x3fc0_0001u64),
        (Scalar::F64, 0xc00d_5555_5555_5555),
        (Scalar::F16, 0x7e01),
        (Scalar::BF16, 0x0001),
        (Scalar::F32, 0xffff_ffff),
    ] {
        let here = value_complexity(s, v);
        let c = simpler_values(s, v);
        assert!(!c.is_empty(), "{v:#x}");
        assert!(c.iter().all(|&x| value_complexity(s, x) < here && x <= s.mask()), "{v:#x}");
        assert!(c.windows(2).all(|w| value_complexity(s, w[0]) <= value_complexity(s, w[1])));
    }
    assert!(simpler_values(Scalar::F32, 0).is_empty(), "+0 is the simplest value");
}

#[test]
fn complexity_ranks_plain_values_first() {
    let c = |v: u32| value_complexity(Scalar::F32, v as u64);
    assert!(c(0) < c(0x8000_0000));
    assert!(c(0x3f80_0000) < c(0x3fc0_0000), "1 before 1.5");
    assert!(c(0x3fc0_0000) < c(0x3fc0_0001));
    assert!(c(0x4000_0000) < c(0x4b00_0000), "2 before 2^23");
    assert!(c(0x7fff_ffff) < c(0x7fc0_0001), "canonical NaN before a payload");
    assert!(c(0x3f80_0000) < c(0x0000_0001), "normals before subnormals");
}

#[test]
fn modifiers_that_make_illegal_forms_are_not_proposed() {
    // 9.7.4: f16 add has .rn only; dropping .sat is fine, rounding cannot change.
    let c = case("// inputs: %h0:f16\nadd.rn.sat.f16 %h1, %h0, %h0;\n// outputs: %h1\n", &[0x3c00]);
    let cands: Vec<Case> =
        simplify_modifiers(&Ir::of(&c), None).iter().filter_map(Ir::to_case).collect();
    assert_eq!(cands.len(), 1);
    assert_eq!(cands[0].program.body()[0].instr.to_string(), "add.rn.f16");
}

#[test]
fn an_input_standing_for_an_f16_result_read_by_a_bf16_instruction_is_declared_bf16() {
    // As in the H100 finding fma.rz.bf16~rounding: abs.f16's result fed fma.rz.bf16; once abs
    // is dropped, the fresh input holds the bits fma reads as bf16.
    let c = case(
        "// inputs: %h0:bf16, %h1:f16, %h2:bf16\nabs.f16 %h3, %h1;\nfma.rn.bf16 %h4, %h0, %h3, %h2;\n// outputs: %h4\n",
        &[0x3f80, 0x3c00, 0x0000],
    );
    let mut ir = Ir::of(&c);
    ir.replace_uses(Src::Result(0), Src::Input(1));
    let p = ir.to_case().unwrap().program;
    assert_eq!(p.to_string().lines().next().unwrap(), "// inputs: %h0:bf16, %h1:bf16, %h2:bf16");
    // An input also read by an f16 instruction keeps its own type.
    let c = case(
        "// inputs: %h0:bf16, %h1:f16\nabs.f16 %h2, %h1;\nfma.rn.bf16 %h3, %h0, %h1, %h0;\n// outputs: %h2, %h3\n",
        &[0x3f80, 0x3c00],
    );
    let p = Ir::of(&c).to_case().unwrap().program;
    assert_eq!(p.to_string().lines().next().unwrap(), "// inputs: %h0:bf16, %h1:f16");
}

/// A planted deviation: `selp` selecting `b` where `c` is true (its operands swapped).
fn selp_swapped_fails(p: &Program, inputs: &[u64]) -> bool {
    let faithful = p.run(inputs).unwrap();
    let mut vals: Vec<u64> = inputs.to_vec();
    for s in p.body() {
        let mut ops: Vec<u64> = s.srcs().iter().map(|r| vals[r.0 as usize]).collect();
        if s.instr.op == ptx::isa::Opcode::Selp {
            ops.swap(0, 1);
        }
        vals.push(interp::eval(&s.instr, &ops).unwrap().primary_bits());
    }
    p.outputs().iter().zip(&faithful).any(|(r, e)| !e.accepts(vals[r.0 as usize]))
}

#[test]
fn a_selection_bug_shrinks_to_the_selp_and_the_setp_it_needs_without_the_bool_op() {
    let text = "// inputs: %f0:f32, %f1:f32, %f2:f32\n\
        setp.lt.f32 %p3, %f0, %f1;\n\
        setp.gt.and.f32 %p4, %f1, %f2, %p3;\n\
        mul.rn.f32 %f5, %f0, %f2;\n\
        selp.f32 %f6, %f5, %f1, %p4;\n\
        add.rn.f32 %f7, %f6, %f2;\n\
        // outputs: %f7\n";
    let f = |x: f32| x.to_bits() as u64;
    let c = case(text, &[f(1.0), f(2.0), f(1.0)]);
    assert!(selp_swapped_fails(&c.program, &c.inputs), "the starting case must fail");
    let m = minimize_each(c, &Limits::default(), selp_swapped_fails);
    let p = &m.case.program;
    // A predicate is never an input, so the selp keeps one setp; the .and, its second setp,
    // the mul and the add go.
    let ops: Vec<ptx::isa::Opcode> = p.body().iter().map(|s| s.instr.op).collect();
    assert_eq!(ops, [ptx::isa::Opcode::Setp, ptx::isa::Opcode::Selp], "{p}");
    assert!(p.body().iter().all(|s| !s.instr.reads_predicate(2) || s.instr.op == ptx::isa::Opcode::Selp), "{p}");
    assert!(selp_swapped_fails(p, &m.case.inputs));
}

/// A planted deviation: `cvt.rn.f32.s32` computed as `cvt.rz.f32.s32` (truncating the
/// integer's low bits instead of rounding them to nearest).
fn int_rn_as_rz_fails(p: &Program, inputs: &[u64]) -> bool {
    let faithful = p.run(inputs).unwrap();
    let mut vals: Vec<u64> = inputs.to_vec();
    for s in p.body() {
        let mut i = s.instr;
        if i.to_string() == "cvt.rn.f32.s32" {
            i = ptx::isa::Instr::parse("cvt.rz.f32.s32", 1).unwrap();
        }
        let ops: Vec<u64> = s.srcs().iter().map(|r| vals[r.0 as usize]).collect();
        vals.push(interp::eval(&i, &ops).unwrap().primary_bits());
    }
    p.outputs().iter().zip(&faithful).any(|(r, e)| !e.accepts(vals[r.0 as usize]))
}

#[test]
fn an_integer_chain_shrinks_to_the_one_conversion_with_an_integer_input() {
    // An f32 -> s32 -> f32 chain on 1.5 (exact either way) times an s32 input converted
    // alone: only the input fails (20808771 is odd above 2^24: rn and rz part at its last bit).
    let text = "// inputs: %f0:f32, %r1:s32\n\
        cvt.rzi.s32.f32 %r2, %f0;\n\
        cvt.rn.f32.s32 %f3, %r2;\n\
        cvt.rn.f32.s32 %f4, %r1;\n\
        mul.rn.f32 %f5, %f3, %f4;\n\
        // outputs: %f5\n";
    let c = case(text, &[1.5f32.to_bits() as u64, 0x013d_8443]);
    // 1.5 truncates to 1: the product is the second conversion, exactly.
    assert!(int_rn_as_rz_fails(&c.program, &c.inputs), "the starting case must fail");
    let m = minimize_each(c, &Limits::default(), int_rn_as_rz_fails);
    let p = &m.case.program;
    assert_eq!(p.to_string().lines().nth(1), Some("cvt.rn.f32.s32 %f1, %r0;"), "{p}");
    assert_eq!(p.inputs(), [ValType::Int(ptx::integer::IntType { signed: true, bits: 32 })]);
    // The simplest failing integer: 2^24 + 3 (rn gives 2^24 + 4, rz 2^24 + 2).
    assert_eq!(m.case.inputs, [(1 << 24) + 3]);
}

#[test]
fn an_integer_result_dropped_becomes_an_integer_input() {
    // The cvt to s32 goes; its reference value (300) feeds the cvt back as an s32 input.
    let c = case("// inputs: %f0:f32\ncvt.rni.s32.f32 %r1, %f0;\ncvt.rn.f32.s32 %f2, %r1;\n// outputs: %f2\n", &[300.25f32.to_bits() as u64]);
    let reference = reference_values(&c).unwrap();
    let ir = Ir::of(&c);
    let dropped = drop_instruction(&ir, Some(&reference)).into_iter().filter_map(|i| i.to_case()).find(|c| c.program.body().len() == 1).unwrap();
    assert_eq!(dropped.program.to_string(), "// inputs: %r0:s32\ncvt.rn.f32.s32 %f1, %r0;\n// outputs: %f1\n");
    assert_eq!(dropped.inputs, [300]);
}

#[test]
fn a_passed_deadline_stops_minimization_before_any_probe_and_keeps_the_case() {
    let c = case("// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\nmul.rn.f32 %f3, %f2, %f2;\n// outputs: %f3\n", &[0x3f80_0001, 0x4000_0000]);
    let limits = Limits { max_probes: 1000, deadline: Some(std::time::Instant::now()) };
    let m = minimize_each(c.clone(), &limits, |_, _| panic!("no probe after the deadline"));
    assert_eq!((m.case, m.probes, m.exhausted), (c, 0, true));
}
