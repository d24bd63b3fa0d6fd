//! The catalogue on real H100 (sm_90) cases, from ../shared/hw/h100-sm90/findings/ and the
//! campaign-60s finding folders: operands and hardware result as recorded there.

use super::*;
use crate::profile::Profile;

fn instr(text: &str, inputs: usize) -> Instr {
    Instr::parse(text, inputs).unwrap()
}

fn case(operands: &[u64], got: u64) -> Case {
    Case { operands: operands.to_vec(), got }
}

fn id_of(text: &str, inputs: usize, cases: &[Case]) -> Option<&'static str> {
    let i = instr(text, inputs);
    let e = explain(&i, cases)?;
    assert!(cases.iter().all(|c| e.reproduces(&i, c)), "{e:?}");
    Some(e.id)
}

#[test]
fn catalogue_ids_are_unique_kebab_case_and_documented() {
    let mut ids: Vec<_> = CATALOGUE.iter().map(|e| e.id).collect();
    assert!(ids.iter().all(|id| id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')));
    assert!(CATALOGUE.iter().all(|e| !e.description.is_empty() && !e.spec.is_empty()));
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), CATALOGUE.len());
    let doc = include_str!("../../../docs/triage.md");
    for e in CATALOGUE {
        assert!(doc.contains(&format!("`{}`", e.id)), "docs/triage.md lacks {}", e.id);
    }
}

#[test]
fn bf16_fma_rz_relu_of_ones_is_f16_arithmetic() {
    // findings/fma.rz.relu.bf16~gross: 1.0 (0x3f80 as f16: 1.875) -> 0x4564 = 1.875^2 + 1.875
    let i = instr("fma.rz.relu.bf16", 3);
    let e = explain(&i, &[case(&[0x3f80, 0x3f80, 0x3f80], 0x4564)]).unwrap();
    assert_eq!(e.id, "bf16-as-f16");
    assert_eq!(e.family_key, "fma.bf16");
}

#[test]
fn bf16_fma_rz_with_a_subnormal_is_f16_arithmetic_flushing_it() {
    // findings/fma.rz.bf16~rounding~normal.subnormal.normal
    let i = instr("fma.rz.bf16", 3);
    let e = explain(&i, &[case(&[0xbf80, 0x0010, 0x3f80], 0x3f80)]).unwrap();
    // -1.875 * 2^-20 + 1.875 toward zero in f32 is 1.8749982, to nearest in f16 1.875 (0x3f80):
    // ptxas's lowering (docs/triage.md), no flushing needed.
    assert_eq!((e.id, e.detail.as_str()), ("bf16-as-f16", "read as f16, fma.rz.f32, rounded to f16 to nearest"));
}

#[test]
fn min_xorsign_abs_of_one_register_twice_is_folded_to_it() {
    // findings/min.NaN.xorsign.abs.f16x2~gross: r1 = neg.f16x2(0x00003c00) = 0x8000bc00
    let got = id_of("min.NaN.xorsign.abs.f16x2", 2, &[case(&[0x8000bc00, 0x8000bc00], 0x8000bc00)]);
    assert_eq!(got, Some("folded-to-operand"));
}

#[test]
fn abs_f64_of_a_signalling_nan_quiets_it_keeping_the_sign() {
    // findings/abs.f64~nan-payload and the campaign's abs.f64 folder
    let cases = [case(&[0x7ff4000000000000], 0x7ffc000000000000), case(&[0x7ff0000000000001], 0x7ff8000000000001)];
    assert_eq!(id_of("abs.f64", 1, &cases), Some("nan-operand-quieted"));
}

#[test]
fn ex2_approx_f16_subnormal_result_flushed() {
    // findings/ex2.approx.f16~ftz: 0xce20 -> 0x0000 where 0x0001 is expected
    assert_eq!(id_of("ex2.approx.f16", 1, &[case(&[0xce20], 0x0000)]), Some("result-flushed"));
}

#[test]
fn tanh_bf16_and_cos_f32_exceed_their_bound_by_one_ulp() {
    let i = instr("tanh.approx.bf16", 1);
    let e = explain(&i, &[case(&[0x3f3f], 0x3f21)]).unwrap();
    assert_eq!((e.id, e.model.clone()), ("bound-exceeded", Some(Model::WithinUlps(1))));
    assert!(e.detail.starts_with("1 ulp past the bound"), "{}", e.detail);
    // One input: named once, its bits beside its value.
    assert!(e.detail.ends_with("on the input 0x3f3f (0.746)"), "{}", e.detail);
    assert_eq!(id_of("cos.approx.f32", 1, &[case(&[0x409cdd4b], 0x3e410356)]), Some("bound-exceeded"));
}

#[test]
fn a_result_no_entry_reproduces_stays_unexplained() {
    // add.rn.f32 1 + 1 giving 3.5: no perturbation of the catalogue computes that
    assert_eq!(id_of("add.rn.f32", 2, &[case(&[0x3f800000, 0x3f800000], 0x40600000)]), None);
    // one case explained by bf16-as-f16, one by nothing: the whole finding stays unexplained
    let cases = [case(&[0x3f80, 0x3f80, 0x3f80], 0x4564), case(&[0x3f80, 0x3f80, 0x3f80], 0x1234)];
    assert_eq!(id_of("fma.rz.relu.bf16", 3, &cases), None);
}

#[test]
fn a_result_the_reference_accepts_needs_no_explanation() {
    assert_eq!(id_of("add.rn.f32", 2, &[case(&[0x3f800000, 0x3f800000], 0x40000000)]), None);
}

#[test]
fn bf16_fma_rm_relu_is_f16_read_computed_in_f32_toward_minus_infinity_then_to_nearest() {
    // campaign-60s fma.rm.relu.bf16: 1.0, 1.0, 0x6a80 -> 0x6a82: f16 1.875^2 + 3328 =
    // 3331.515625, exact in f32 (FFMA.RM), 3332 to nearest in f16 (F2FP), where fma.rm.f16
    // gives 3330 (0x6a81)
    let i = instr("fma.rm.relu.bf16", 3);
    let cases = [case(&[0x3f80, 0x3f80, 0x6a80], 0x6a82)];
    let e = explain(&i, &cases).unwrap();
    assert_eq!((e.id, e.detail.as_str()), ("bf16-as-f16", "read as f16, fma.rm.f32, rounded to f16 to nearest"));
    let mut twin = i;
    (twin.ty, twin.clamp) = (crate::isa::Type::F16, crate::isa::Clamp::None);
    assert!(!Model::Form(twin).reproduces(&i, &cases[0].operands, cases[0].got), "not the f16 twin itself");
}

#[test]
fn bf16x2_fma_rz_relu_rounded_to_nearest_is_another_rounding() {
    // campaign-60s fma.rz.relu.bf16x2~rounding~normal.normal.normal: 0x3f81 (1.0078125) three
    // times -> 0x4002, bf16 2.0234985 rounded to nearest where .rz gives 0x4001
    let i = instr("fma.rz.relu.bf16x2", 3);
    let e = explain(&i, &[case(&[0x3f81, 0x3f81, 0x3f81], 0x4002)]).unwrap();
    assert_eq!((e.id, e.detail.as_str()), ("other-rounding", "rounded as fma.rn.relu.bf16x2"));
}

#[test]
fn ftz_flushing_operands_only_keeps_a_subnormal_result() {
    // The planted `ftz-result` engine's rule (worker/tests/planted.rs): 2^-126 * 0.5 + 2^-149
    // with c flushed is 2^-127 (0x00400000), kept; .ftz gives 0, no flushing 0x00400001.
    let cases = [case(&[0x0080_0000, 0x3f00_0000, 0x0000_0001], 0x0040_0000)];
    assert_eq!(id_of("fma.rn.ftz.f32", 3, &cases), Some("ftz-inputs-only"));
}

#[test]
fn ftz_flushing_the_result_only_computes_with_subnormal_operands() {
    // 2^-149 * -1 + 2^-126 = 0x007fffff, flushed to +0; .ftz flushes a first and gives
    // 0x00800000.
    let cases = [case(&[0x0000_0001, 0xbf80_0000, 0x0080_0000], 0x0000_0000)];
    assert_eq!(id_of("fma.rn.ftz.f32", 3, &cases), Some("ftz-result-only"));
}

// The entries no H100 case has shown yet, each on a constructed case that only it (and no
// earlier entry) reproduces: the catalogue's order and models, checked one by one.

#[test]
fn f16_read_as_bf16_is_f16_as_bf16() {
    // 0x3f80 is 1.875 in f16 (sum 0x4380) and 1.0 in bf16 (sum 2.0 = 0x4000)
    assert_eq!(id_of("add.rn.f16", 2, &[case(&[0x3f80, 0x3f80], 0x4000)]), Some("f16-as-bf16"));
}

#[test]
fn packed_f16_read_as_bf16_is_packed_as_other_half() {
    assert_eq!(id_of("add.rn.f16x2", 2, &[case(&[0x3f80_3f80, 0x3f80_3f80], 0x4000_4000)]), Some("packed-as-other-half"));
}

#[test]
fn a_subnormal_operand_and_result_both_kept_under_ftz_is_ftz_ignored() {
    // 2^-127 * 1.0: .ftz gives 0, flushing either side alone gives 0 too
    assert_eq!(id_of("mul.rn.ftz.f32", 2, &[case(&[0x0040_0000, 0x3f80_0000], 0x0040_0000)]), Some("ftz-ignored"));
}

#[test]
fn a_subnormal_flushed_without_ftz_is_ftz_applied() {
    assert_eq!(id_of("mul.rn.f32", 2, &[case(&[0x0040_0000, 0x3f80_0000], 0x0000_0000)]), Some("ftz-applied"));
}

#[test]
fn a_subnormal_addend_dropped_and_a_subnormal_result_kept_is_inputs_flushed() {
    // 0.5 * 2^-126 + 2^-149 = 0x00400001; without the addend 0x00400000, kept
    let cases = [case(&[0x3f00_0000, 0x0080_0000, 0x0000_0001], 0x0040_0000)];
    assert_eq!(id_of("fma.rn.f32", 3, &cases), Some("inputs-flushed"));
}

#[test]
fn packed_lanes_in_the_wrong_order_are_lanes_swapped() {
    // (2, 1) + (1, 1) = (3, 2): 0x40004200; swapped 0x42004000
    assert_eq!(id_of("add.rn.f16x2", 2, &[case(&[0x3c00_4000, 0x3c00_3c00], 0x4200_4000)]), Some("lanes-swapped"));
}

#[test]
fn lane_zero_in_both_lanes_is_lane_broadcast() {
    assert_eq!(id_of("add.rn.f16x2", 2, &[case(&[0x3c00_4000, 0x3c00_3c00], 0x4200_4200)]), Some("lane-broadcast"));
}

#[test]
fn a_nan_operand_payload_lost_is_nan_canonical() {
    // f64 keeps a NaN operand's payload (9.7.3); the canonical NaN loses it
    let cases = [case(&[0x7ff8_0000_0000_0123, 0x3ff0_0000_0000_0000], 0x7fff_ffff_ffff_ffff)];
    assert_eq!(id_of("add.rn.f64", 2, &cases), Some("nan-canonical"));
}

#[test]
fn an_ordered_comparison_answering_true_on_nan_is_other_comparison_with_the_unordered_twin_first() {
    // setp.lt.f32 NaN, 1 is false; true is what setp.ltu gives (and ne, neu, nan, ...).
    let i = instr("setp.lt.f32", 2);
    let e = explain(&i, &[case(&[0x7fc0_0000, 0x3f80_0000], 1)]).unwrap();
    assert_eq!((e.id, e.detail.as_str()), ("other-comparison", "setp.ltu.f32 instead of setp.lt.f32"));
    // set to a float type the same way: 1.0 for NaN < 1.
    let set = instr("set.lt.f32.f32", 2);
    assert_eq!(explain(&set, &[case(&[0x7fc0_0000, 0x3f80_0000], 0x3f80_0000)]).unwrap().id, "other-comparison");
}

#[test]
fn selp_returning_the_unselected_operand_is_selection_inverted() {
    // c true gives b, c false gives a: no single operand fits both, the inverted choice does.
    let cases = [case(&[0x3f80_0000, 0x4000_0000, 1], 0x4000_0000), case(&[0x3f80_0000, 0x4000_0000, 0], 0x3f80_0000)];
    assert_eq!(id_of("selp.f32", 3, &cases), Some("selection-inverted"));
}

#[test]
fn a_packed_setp_with_p_and_q_exchanged_is_predicates_swapped_before_another_operator() {
    // a = (lo 1.0, hi 3.0), b = (2.0, 2.0): lt gives p = 1, q = 0, so 0b01; swapped 0b10.
    // The first alone is also gt's outcome; the swap, one wiring mistake, is named first.
    assert_eq!(id_of("setp.lt.f16x2", 2, &[case(&[0x4200_3c00, 0x4000_4000], 0b10)]), Some("predicates-swapped"));
    let cases = [
        case(&[0x4200_3c00, 0x4000_4000], 0b10),
        case(&[0x3c00_4200, 0x4000_4000], 0b01),
        case(&[0x3c00_3c00, 0x4000_4000], 0b11),
    ];
    assert_eq!(id_of("setp.lt.f16x2", 2, &cases), Some("predicates-swapped"));
    // Another operator is still another operator: le where lt was asked, on equal lower halves.
    assert_eq!(id_of("setp.lt.f16x2", 2, &[case(&[0x4200_4000, 0x4000_4000], 0b01)]), Some("other-comparison"));
    // Both predicates from the lower halves is a broadcast, not a swap.
    let cases = [case(&[0x4200_3c00, 0x4000_4000], 0b11), case(&[0x3c00_4200, 0x4000_4000], 0b00)];
    assert_eq!(id_of("setp.lt.bf16x2", 2, &cases), Some("lane-broadcast"));
}

#[test]
fn tf32_rna_of_a_nan_with_only_low_payload_bits_is_ptxas_integer_code() {
    // H200 capture of 2026-11-29 (docs/hardware): the NaN came out as +inf, with .satfinite as
    // MAX_NORM; the 14th session predicted both from ptxas 13.5's SASS.
    assert_eq!(id_of("cvt.rna.tf32.f32", 1, &[case(&[0x7f80_1001], 0x7f80_0000), case(&[0x7f80_0001], 0x7f80_0000)]), Some("tf32-via-integer"));
    assert_eq!(
        id_of("cvt.rna.satfinite.tf32.f32", 1, &[case(&[0xff80_0001], 0xff7f_e000), case(&[0x7f80_0001], 0x7f7f_e000)]),
        Some("tf32-via-integer")
    );
    // Not for the other tf32 roundings, which are one F2FP instruction.
    assert_ne!(id_of("cvt.rn.tf32.f32", 1, &[case(&[0x7f80_1001], 0x7f80_0000)]), Some("tf32-via-integer"));
}

#[test]
fn the_tf32_integer_model_is_rna_on_every_number() {
    // So it explains NaN cases only by what ptxas does to NaNs, not by a rounding of its own.
    let plain = instr("cvt.rna.tf32.f32", 1);
    let sat = instr("cvt.rna.satfinite.tf32.f32", 1);
    let mut x: u32 = 0x1234_5678;
    for _ in 0..200_000 {
        x = x.wrapping_mul(0x9e37_79b1).wrapping_add(0x7f4a_7c15);
        for (i, v) in [(&plain, x), (&sat, x), (&plain, x | 0x7f7f_f000), (&sat, x | 0x7f7f_f000)] {
            let v = u64::from(v);
            if crate::Scalar::F32.is_nan(v) {
                continue;
            }
            let model = super::model::tf32_via_integer(i, v).unwrap();
            assert!(crate::interp::eval(i, &[v]).unwrap().accepts(model), "{i} {v:#x} -> {model:#x}");
        }
    }
}

#[test]
fn a_result_the_spec_allows_and_the_gpu_does_not_give_is_spec_allowed_under_a_profile_only() {
    let sm90 = Profile::named("sm_90").unwrap();
    // (1 - 2^-24) 2^-126 in .rp: the interpreter's 2^-126, which the H100 flushes to +0.
    let fma = instr("fma.rp.ftz.sat.f32", 3);
    let kept = [case(&[0x3f00_0000, 0x00ff_ffff, 0x0000_0001], 0x0080_0000)];
    let e = explain_judged(&sm90, &fma, &kept).expect("explained against sm_90");
    assert_eq!((e.id, e.family_key.as_str()), ("spec-allowed", "fma.f32"));
    assert_eq!(e.detail, "sm_90 gives 0x00000000 (0) where the target gave 0x00800000 (1.1754944e-38)");
    assert!(kept.iter().all(|c| e.reproduces(&fma, c)));
    // Against the spec there is nothing to explain, and the GPU's own result needs nothing.
    assert_eq!(explain(&fma, &kept), None);
    assert_eq!(explain_judged(&Profile::Spec, &fma, &kept), None);
    assert_eq!(explain_judged(&sm90, &fma, &[case(&kept[0].operands, 0)]), None);
    // A result the spec rejects is the catalogue's, under a profile as under the spec.
    let add = instr("add.rz.f32", 2);
    let rn = [case(&[0x3f00_0000, 0x3304_0000], 0x3f00_0001)];
    assert_eq!(explain_judged(&sm90, &add, &rn).map(|e| e.id), Some("other-rounding"));
    // An approximate form the profile models bit for bit: the correctly rounded cos(1.0),
    // one ulp from the H100's 0x3f0a5141, is within the bound.
    let cos = instr("cos.approx.f32", 1);
    let e = explain_judged(&sm90, &cos, &[case(&[0x3f80_0000], 0x3f0a_5140)]).unwrap();
    assert_eq!((e.id, e.family_key.as_str()), ("spec-allowed", "cos.f32"));
}
