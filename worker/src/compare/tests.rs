//! Tests of the comparison policy: fast path, trace vs end-to-end attribution, contraction,
//! undocumented errors, capping.

use super::*;
use crate::oracles::diff_interp::InterpEngine;
use crate::oracles::Engine;

fn f(x: f32) -> u64 {
    x.to_bits() as u64
}

fn prog(text: &str) -> Program {
    Program::parse(text).unwrap()
}

fn interp(job: &Job) -> Output {
    InterpEngine::new().run(&[*job]).pop().unwrap().unwrap()
}

const CHAIN: &str = "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\nmul.rn.f32 %f3, %f2, %f2;\n// outputs: %f3\n";

#[test]
fn faithful_results_are_all_accepted_on_the_fast_path() {
    let p = prog(CHAIN);
    let cases: Vec<u64> = (0..10_000u32).flat_map(|i| [f(i as f32 * 0.37), f(1.5 - i as f32)]).collect();
    for trace in [false, true] {
        let job = Job::new(&p, &cases, trace);
        let v = check(&job, &interp(&job), &CompareOptions::default()).unwrap();
        assert!(v.is_clean(), "{:?}", v.signatures);
        assert_eq!(v.cases, 10_000);
        assert_eq!(v.fast, v.results);
        assert_eq!(v.results, if trace { 3 * 10_000 } else { 10_000 });
    }
}

#[test]
fn one_wrong_result_in_a_chunk_is_found_and_the_rest_counted_fast() {
    // The whole-chunk comparison must fall back to case by case, in every chunk it spans.
    let p = prog(CHAIN);
    let n = 3 * CHUNK + 5;
    let cases: Vec<u64> = (0..n as u32).flat_map(|i| [f(i as f32), f(0.25)]).collect();
    let job = Job::new(&p, &cases, false);
    let reference = interp(&job);
    let mut target = reference.clone();
    for bad in [7, 2 * CHUNK + 1] {
        target.values[bad] ^= 1;
    }
    for v in [check(&job, &target, &CompareOptions::default()), check_with_reference(&job, &target, &reference, &CompareOptions::default())] {
        let v = v.unwrap();
        assert_eq!((v.cases, v.results, v.fast), (n as u64, n as u64, n as u64 - 2));
        assert_eq!(v.mismatch_count(), 2, "{:?}", v.signatures);
        let mut found: Vec<usize> = v.mismatches.iter().map(|m| m.case).collect();
        found.sort();
        assert_eq!(found, [7, 2 * CHUNK + 1]);
    }
    // The interpreter judged against its own output: every result on the fast path.
    let v = check_with_reference(&job, &reference, &reference, &CompareOptions::default()).unwrap();
    assert_eq!((v.results, v.fast, v.mismatch_count()), (n as u64, n as u64, 0));
}

#[test]
fn trace_mode_blames_only_the_instruction_that_went_wrong() {
    let p = prog(CHAIN);
    let cases = [f(1.0), f(2.0)];
    let job = Job::new(&p, &cases, true);
    // The target's add is off (3 -> 4), its mul right on its own operand (4*4 = 16).
    let target = Output { values: vec![f(16.0), f(4.0), f(16.0)], per_case: 3 };
    let v = check(&job, &target, &CompareOptions::default()).unwrap();
    assert_eq!(v.mismatch_count(), 1, "{:?}", v.signatures);
    let m = &v.mismatches[0];
    assert_eq!((m.instr_index, m.slot, m.class()), (Some(0), 1, MismatchClass::Gross));
    assert_eq!(m.signature.key(), "add.rn.f32~gross~normal.normal~sm-");
}

#[test]
fn end_to_end_mode_blames_the_output_instruction_with_reference_operands() {
    let p = prog(CHAIN);
    let cases = [f(1.0), f(2.0)];
    let job = Job::new(&p, &cases, false);
    let target = Output { values: vec![f(16.0)], per_case: 1 };
    let opts = CompareOptions { sm: Some(90), ..CompareOptions::default() };
    let v = check(&job, &target, &opts).unwrap();
    let m = &v.mismatches[0];
    assert_eq!((m.instr_index, m.slot), (Some(1), 0));
    assert_eq!(m.operands.as_slice(), &[f(3.0), f(3.0)]);
    assert_eq!(m.signature.sm, Some(90));
}

#[test]
fn end_to_end_accepts_a_contracted_mul_add() {
    let p = prog("// inputs: %f0:f32, %f1:f32\nmul.f32 %f2, %f0, %f0;\nsub.f32 %f3, %f2, %f1;\n// outputs: %f3\n");
    let a = 1.0f32 + 2f32.powi(-12);
    let cases = [f(a), f(1.0)];
    let job = Job::new(&p, &cases, false);
    let fused = Output { values: vec![f(a.mul_add(a, -1.0))], per_case: 1 };
    let v = check(&job, &fused, &CompareOptions::default()).unwrap();
    assert!(v.is_clean());
    assert_eq!(v.fast, 0);
}

#[test]
fn undocumented_errors_are_recorded_not_reported() {
    // 9.7.3.18: sin.approx.f32 has no documented bound outside [-100pi, 100pi].
    let p = prog("// inputs: %f0:f32\nsin.approx.f32 %f1, %f0;\n// outputs: %f1\n");
    let cases = [f(1000.0)];
    for trace in [false, true] {
        let job = Job::new(&p, &cases, trace);
        let reference = interp(&job).values[0];
        let values = if trace { vec![reference + 5, reference + 5] } else { vec![reference + 5] };
        let v = check(&job, &Output { values, per_case: if trace { 2 } else { 1 } }, &CompareOptions::default())
            .unwrap();
        assert!(v.is_clean());
        let stats = &v.undocumented[&Some(Instr::parse("sin.approx.f32", 1).unwrap())];
        assert_eq!(stats.max_abs_ulps, 5);
        assert_eq!(stats.count, if trace { 2 } else { 1 });
    }
}

#[test]
fn mismatches_are_capped_per_signature_but_all_counted() {
    let p = prog("// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\n// outputs: %f2\n");
    let n = 3 * CHUNK;
    let tiny = f(2f32.powi(-24) + 2f32.powi(-30));
    let cases: Vec<u64> = (0..n).flat_map(|_| [f(1.0), tiny]).collect();
    let job = Job::new(&p, &cases, false);
    // Every case computed as .rn: 1 ulp up.
    let target = Output { values: vec![f(1.0 + 2f32.powi(-23)); n], per_case: 1 };
    let v = check(&job, &target, &CompareOptions::default()).unwrap();
    assert_eq!(v.mismatch_count(), n as u64);
    assert_eq!(v.mismatches.len(), 4);
    assert!(v.mismatches.iter().all(|m| m.class() == MismatchClass::Rounding));
}

#[test]
fn output_that_is_an_input_must_come_back_unchanged() {
    let p = prog("// inputs: %f0:f32\nneg.f32 %f1, %f0;\n// outputs: %f1, %f0\n");
    let cases = [f(2.0)];
    let job = Job::new(&p, &cases, true);
    let target = Output { values: vec![f(-2.0), f(2.5), f(-2.0)], per_case: 3 };
    let v = check(&job, &target, &CompareOptions::default()).unwrap();
    assert_eq!(v.mismatch_count(), 1);
    assert_eq!(v.mismatches[0].instr_index, None);
    assert_eq!(v.mismatches[0].signature.key(), "input~gross~~sm-");
}

#[test]
fn wrongly_shaped_target_output_is_a_protocol_fault() {
    let p = prog(CHAIN);
    let cases = [f(1.0), f(2.0)];
    let job = Job::new(&p, &cases, false);
    let e = check(&job, &Output { values: vec![1, 2], per_case: 1 }, &CompareOptions::default()).unwrap_err();
    assert_eq!(e.kind(), "protocol");
}

#[test]
fn f64_nan_payload_downstream_of_an_unspecified_nan_is_not_a_finding() {
    // inf - inf is any NaN (the interpreter evaluates on with its canonical NaN); the host's
    // default NaN 0xfff8... then propagates through the add: its payload is not a disagreement.
    let p = prog("// inputs: %fd0:f64, %fd1:f64\nsub.rn.f64 %fd2, %fd0, %fd0;\nadd.rn.f64 %fd3, %fd2, %fd1;\n// outputs: %fd3\n");
    let cases = [0x7ff0_0000_0000_0000, 0x3ff0_0000_0000_0000];
    let job = Job::new(&p, &cases, false);
    let target = Output { values: vec![0xfff8_0000_0000_0000], per_case: 1 };
    assert!(check(&job, &target, &CompareOptions::default()).unwrap().is_clean());
    // A number there is still a finding; and a NaN input's payload is still checked.
    let target = Output { values: vec![0x3ff0_0000_0000_0000], per_case: 1 };
    assert_eq!(check(&job, &target, &CompareOptions::default()).unwrap().mismatch_count(), 1);
    let cases = [0x3ff0_0000_0000_0000, 0x7ff8_0000_0000_0005];
    let job = Job::new(&p, &cases, false);
    let target = Output { values: vec![0x7ff8_0000_0000_0006], per_case: 1 };
    let v = check(&job, &target, &CompareOptions::default()).unwrap();
    assert_eq!(v.mismatches[0].class(), MismatchClass::NanPayload);
}

#[test]
fn results_wider_than_their_register_are_a_protocol_fault() {
    let p = prog("// inputs: %f0:f32\ntestp.normal.f32 %p1, %f0;\nneg.f32 %f2, %f0;\n// outputs: %p1, %f2\n");
    let cases = [f(1.0)];
    for (values, trace) in [(vec![2, f(-1.0)], false), (vec![1, 1 << 32], false), (vec![1, f(-1.0), 1, 1 << 40], true)] {
        let job = Job::new(&p, &cases, trace);
        let per_case = values.len();
        let e = check(&job, &Output { values, per_case }, &CompareOptions::default()).unwrap_err();
        assert_eq!(e.kind(), "protocol", "{e}");
    }
}

#[test]
fn a_result_wider_than_its_register_is_named_by_its_case_in_one_width_and_in_mixed_widths() {
    for text in [
        "// inputs: %f0:f32\nneg.f32 %f1, %f0;\nabs.f32 %f2, %f0;\n// outputs: %f1, %f2\n",
        "// inputs: %f0:f32\ntestp.normal.f32 %p1, %f0;\nneg.f32 %f2, %f0;\n// outputs: %p1, %f2\n",
    ] {
        let p = prog(text);
        let cases = [f(1.0), f(-2.5), f(3.0)];
        let job = Job::new(&p, &cases, false);
        let mut target = interp(&job);
        assert!(check(&job, &target, &CompareOptions::default()).is_ok(), "{text}");
        target.values[5] |= 1 << 32;
        let e = check(&job, &target, &CompareOptions::default()).unwrap_err();
        assert!(e.to_string().contains("case 2"), "{text}: {e}");
    }
}

/// Generated programs (approximate forms on) with their cases and a GPU-like target output:
/// the sm_90 profile's bits, which differ from the primary results where the H100 does.
fn gpu_like_jobs(programs: usize) -> Vec<(Program, Vec<u64>, Output)> {
    use ptx::gen::{GenConfig, Generator};
    let gen = Generator::new(GenConfig { approximate: true, ..GenConfig::default() }).unwrap();
    let hw = Profile::named("sm_90").unwrap();
    let mut out = Vec::new();
    for seed in 0u64.. {
        if out.len() == programs {
            break;
        }
        let bytes: Vec<u8> = (0..256u64).map(|i| (seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i.wrapping_mul(0xbf58_476d)).rotate_left(i as u32 % 61) as u8).collect();
        let Ok(p) = gen.program(&mut arbitrary::Unstructured::new(&bytes)) else { continue };
        let cases = throughput::cases_for(&p, 256, seed);
        let values = profile_outputs(&hw, &p, &cases).unwrap();
        let per_case = p.outputs().len();
        out.push((p, cases, Output { values, per_case }));
    }
    out
}

#[test]
fn reading_the_traced_reference_judges_as_evaluating_each_chain_again() {
    // `check` runs the reference traced and reads each earlier instruction's primary from it
    // (`undetermined::primary_operands`); a plain reference evaluates the chain instead. Both
    // must give the same verdicts, NaN widening included, on results that leave the fast path.
    let opts = CompareOptions::default();
    let (mut off_path, mut mismatches) = (0, 0);
    for (p, cases, out) in gpu_like_jobs(300) {
        let job = Job::new(&p, &cases, false);
        let traced = check(&job, &out, &opts).unwrap();
        let plain = diff_interp::run_job(&job).unwrap();
        assert_eq!(plain.per_case, p.outputs().len());
        assert_eq!(traced, check_with_reference(&job, &out, &plain, &opts).unwrap(), "{p}");
        off_path += traced.results - traced.fast;
        mismatches += traced.mismatch_count();
    }
    assert!(off_path > 1000 && mismatches > 0, "{off_path} results off the fast path, {mismatches} mismatches");
}

#[test]
fn result_lanes_come_from_the_form() {
    use undetermined::ResultLanes;
    let p = prog(
        "// inputs: %h0:f16x2, %f1:f32\nadd.rn.f16x2 %h2, %h0, %h0;\nsetp.lt.f32 %p3, %f1, %f1;\ncvt.rni.s32.f32 %r4, %f1;\nsin.approx.f32 %f5, %f1;\n// outputs: %h2, %p3, %r4, %f5\n",
    );
    assert_eq!(
        ResultLanes::of(&p),
        [
            ResultLanes::Float { scalar: ptx::Scalar::F16, lanes: 2 },
            ResultLanes::NoFloat,
            ResultLanes::NoFloat,
            ResultLanes::Float { scalar: ptx::Scalar::F32, lanes: 1 }
        ]
    );
}

#[test]
fn the_quick_look_at_approximate_results_gives_the_full_expectations_verdicts() {
    // `QuickApprox` accepts an approximate result within its documented bound without building
    // the expectation; with it off, each such result takes the full path. Same verdicts (counts,
    // mismatches, undocumented errors), in both modes, under the spec and a hardware profile.
    let spec = CompareOptions::default();
    let sm90 = CompareOptions { profile: Arc::new(Profile::named("sm_90").unwrap()), ..CompareOptions::default() };
    let (mut quick, mut near) = (0, 0);
    for (p, cases, out) in gpu_like_jobs(200) {
        for opts in [&spec, &sm90] {
            let job = Job::new(&p, &cases, false);
            let traced = Job { trace: true, ..job };
            let reference = diff_interp::run_job(&traced).unwrap();
            let with = check_impl(&job, &out, Some(&reference), opts, QuickApprox::of(&p, opts)).unwrap();
            let without = check_impl(&job, &out, Some(&reference), opts, QuickApprox::none()).unwrap();
            assert_eq!(with, without, "{p}");
            // Trace mode, on the interpreter's trace with each output slot the GPU-like value.
            let mut target = diff_interp::run_job(&traced).unwrap();
            for (c, case) in out.values.chunks_exact(out.per_case).enumerate() {
                target.values[c * target.per_case..][..case.len()].copy_from_slice(case);
            }
            let with = check_impl(&traced, &target, None, opts, QuickApprox::of(&p, opts)).unwrap();
            let without = check_impl(&traced, &target, None, opts, QuickApprox::none()).unwrap();
            assert_eq!(with, without, "{p} traced");
        }
        let q = QuickApprox::of(&p, &spec);
        let job = Job::new(&p, &cases, false);
        let reference = diff_interp::run_job(&Job { trace: true, ..job }).unwrap();
        for (c, case) in out.values.chunks_exact(out.per_case).enumerate() {
            for (k, &got) in case.iter().enumerate() {
                let Some(j) = p.definition(p.outputs()[k]) else { continue };
                let ops = undetermined::primary_operands(&p, job.case(c), None, j, &mut Vec::new());
                let (instr, prim) = (&p.body()[j].instr, reference.case(c)[k]);
                if got != prim && matches!(q.look(j, instr, &ops, got, prim), quick::Look::Accepted(_)) {
                    quick += 1;
                    near += ptx::approx::Form::of(instr).is_some_and(|f| f.accepted_near(&ops, got, prim).is_some()) as usize;
                }
            }
        }
    }
    // Most accepted without the reference function (`Form::documented_near`).
    assert!(quick > 1000 && 2 * near > quick, "the quick look accepted {quick} results, {near} near the primary");
}

#[test]
fn trace_mode_reads_each_chunks_own_cases_and_results() {
    // Three chunks of `CHUNK` cases: each instruction's sources are gathered per chunk as
    // columns (an input, an earlier traced result). One wrong traced result in the last chunk
    // is the one mismatch, named by its case, and every other result takes the fast path.
    let p = prog("// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\nmul.rn.f32 %f3, %f2, %f0;\nsub.rn.f32 %f4, %f3, %f1;\n// outputs: %f4, %f2\n");
    let n = 2 * CHUNK + 1000;
    let cases: Vec<u64> = (0..n).flat_map(|i| [f(1.0 + i as f32 / 8.0), f(0.5 - i as f32)]).collect();
    let job = Job::new(&p, &cases, true);
    let mut target = interp(&job);
    assert_eq!(target.per_case, 2 + 3);
    let v = check(&job, &target, &CompareOptions::default()).unwrap();
    assert_eq!((v.cases, v.results, v.fast, v.mismatch_count()), (n as u64, 5 * n as u64, 5 * n as u64, 0));
    // The mul's traced result (slot 2 + 1) of case n - 7, one ulp off.
    let bad = n - 7;
    target.values[bad * 5 + 3] += 1;
    let v = check(&job, &target, &CompareOptions::default()).unwrap();
    assert_eq!(v.mismatch_count(), 1, "{:?}", v.signatures);
    let m = &v.mismatches[0];
    assert_eq!((m.case, m.slot, m.instr_index), (bad, 3, Some(1)));
    // The sub is judged on the target's own (wrong) mul result: here the ulp is lost in its
    // rounding, so its result is that primary too.
    assert_eq!(v.fast, 5 * n as u64 - 1, "only the wrong result leaves the fast path");
}
