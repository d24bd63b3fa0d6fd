//! The sm_90 profile's approximate-unit models against the H100's dense dumps
//! (`../shared/hw/h100-sm90/dense/`, every output of a half form over all 65,536 inputs, and
//! whole binades of the f32 forms; the tanh binades an H200 recorded are in
//! `docs/hardware/dense-nvidia-h200-2026-11-26/`), input by input: a bit-exact row must
//! reproduce every one.

use super::{eval_profiled, Profile, Resolved};
use crate::isa::Instr;

const DENSE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/dense/");
/// The 14 tanh.approx.f32 binades recorded on an H200 (sm_90, as the H100) by `scripts/gpu-dense`.
const DENSE_H200: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/hardware/dense-nvidia-h200-2026-11-26/");

/// Every output of one dense file of `DENSE` (format: ../shared/hw/h100-sm90/README.md): a
/// JSON header line, the first output as a little-endian i64, then COUNT-1 deltas of the
/// header's type.
fn dense(name: &str) -> Vec<u64> {
    dense_at(DENSE, name)
}

fn dense_at(dir: &str, name: &str) -> Vec<u64> {
    let path = format!("{dir}{name}");
    let file = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}: the H100 recordings must be in ../shared beside the clone"));
    let mut raw = Vec::new();
    lzma_rs::xz_decompress(&mut &file[..], &mut raw).unwrap_or_else(|e| panic!("{path}: not an xz stream: {e:?}"));
    let nl = raw.iter().position(|&b| b == b'\n').expect("a header line");
    let header: serde_json::Value = serde_json::from_slice(&raw[..nl]).unwrap();
    let count = header["count"].as_u64().unwrap() as usize;
    let width = match header["deltas"].as_str().unwrap() {
        "int8" => 1,
        "int16" => 2,
        "int32" => 4,
        "int64" => 8,
        other => panic!("{path}: delta type {other}"),
    };
    let body = &raw[nl + 1..];
    assert_eq!(body.len(), 8 + (count - 1) * width, "{path}: the header's count and delta width do not match the data");
    let mut out = Vec::with_capacity(count);
    let mut v = i64::from_le_bytes(body[..8].try_into().unwrap());
    out.push(v as u64);
    for d in body[8..].chunks_exact(width) {
        let mut b = [0u8; 8];
        b[..width].copy_from_slice(d);
        let shift = 64 - 8 * width as u32;
        v = v.wrapping_add(i64::from_le_bytes(b) << shift >> shift);
        out.push(v as u64);
    }
    out
}

/// Over every input of an x2 dump (lane 0 holds `u`, lane 1 `u ^ 0x8000`): how many lanes the
/// sm_90 profile's model of `form` reproduces, and the first few it does not.
fn reproduced(form: &str) -> (usize, usize, Vec<String>) {
    let profile = Profile::named("sm_90").unwrap();
    let Profile::Hardware(hw) = &profile else { unreachable!() };
    let model = hw.approx_model(form).unwrap_or_else(|| panic!("sm_90 has no model row for {form}"));
    let approx = crate::approx::Form::of(&Instr::parse(form, 1).unwrap()).unwrap();
    let got = dense(&format!("{form}.00000000.65536.dxz"));
    assert_eq!(got.len(), 65536);
    let nan = hw.canonical_nan(approx.scalar);
    let (mut same, mut lanes, mut wrong) = (0, 0, Vec::new());
    for (u, &out) in got.iter().enumerate() {
        for (lane, input) in [(0, u as u64), (1, u as u64 ^ 0x8000)] {
            let hw_bits = (out >> (16 * lane)) & 0xffff;
            let mine = model.lane(&approx, &[input], nan).unwrap();
            lanes += 1;
            if mine == hw_bits {
                same += 1;
            } else if wrong.len() < 8 {
                wrong.push(format!("lane {lane}: {input:#06x} -> {hw_bits:#06x}, model {mine:#06x}"));
            }
        }
    }
    (same, lanes, wrong)
}

#[test]
fn the_bit_exact_models_reproduce_every_input_of_the_h100_in_both_lanes() {
    // tanh.approx.f16x2 is the f32 unit's bipartite tables truncated: before the f32 unit was
    // modelled, the smooth part of its error alone missed 44 lanes (0x29c6 -> 0x29c5).
    for form in ["ex2.approx.f16x2", "ex2.approx.ftz.bf16x2", "tanh.approx.bf16x2", "tanh.approx.f16x2"] {
        let (same, lanes, wrong) = reproduced(form);
        eprintln!("{form}: {same} of {lanes}");
        assert_eq!((same, lanes), (131_072, 131_072), "{form}: {wrong:#?}");
    }
}

#[test]
fn the_profile_answers_with_bit_exact_models_only() {
    let profile = Profile::named("sm_90").unwrap();
    // ../shared/hw/h100-sm90/README.md: ex2.approx.f16 0xce20 -> 0x0000 and 0xcd8c -> 0x0003,
    // beyond the documented bound; the model gives both.
    let ex2 = Instr::parse("ex2.approx.f16", 1).unwrap();
    assert!(profile.claims(&ex2));
    assert_eq!(eval_profiled(&ex2, &[0xce20], &profile).unwrap(), Resolved::One(0x0000));
    assert_eq!(eval_profiled(&ex2, &[0xcd8c], &profile).unwrap(), Resolved::One(0x0003));
    let x2 = Instr::parse("ex2.approx.ftz.bf16x2", 1).unwrap();
    // Lane 0 (low half) 128.0 overflows to infinity, lane 1 -2^-25 * 1.4 reads as 0: 1.0.
    assert_eq!(eval_profiled(&x2, &[0xb339_4300], &profile).unwrap(), Resolved::One(0x3f80_7f80));
    // A NaN lane: the H100's canonical 16-bit NaN.
    assert_eq!(eval_profiled(&x2, &[0x7fc0_0000], &profile).unwrap(), Resolved::One(0x7fff_3f80));
    // tanh.approx.bf16 0x3f3f -> 0x3f21, beyond the documented bound: the bf16 model gives it;
    // so does the f16 model its 0x29c6 -> 0x29c5 (the unit's fine structure).
    let tanh = Instr::parse("tanh.approx.bf16", 1).unwrap();
    assert!(profile.claims(&tanh));
    assert_eq!(eval_profiled(&tanh, &[0x3f3f], &profile).unwrap(), Resolved::One(0x3f21));
    let tanh16 = Instr::parse("tanh.approx.f16", 1).unwrap();
    assert!(profile.claims(&tanh16));
    assert_eq!(eval_profiled(&tanh16, &[0x29c6], &profile).unwrap(), Resolved::One(0x29c5));
    // Every f32 unit has a model (rcp, sqrt, rsqrt, ex2, lg2, sin/cos, tanh).
    let ex2_f32 = Instr::parse("ex2.approx.f32", 1).unwrap();
    assert!(profile.claims(&ex2_f32));
    assert_eq!(eval_profiled(&ex2_f32, &[0xbf80_0000], &profile).unwrap(), Resolved::One(0x3f00_0000));
    assert!(profile.claims(&Instr::parse("sin.approx.f32", 1).unwrap()));
    let tanh32 = Instr::parse("tanh.approx.f32", 1).unwrap();
    assert!(profile.claims(&tanh32));
    // sweeps.jsonl's worst input of tanh, -1.2187490 (0xbf9bfff8): 133.95 ulp from tanh there;
    // the model's 0xbf56dbe4 is 134 steps from the correctly rounded 0xbf56db5e, and 0x3f9bfff8
    // gives 0x3f56dbe4 in dense/tanh.approx.f32.3f000000.
    assert_eq!(eval_profiled(&tanh32, &[0xbf9b_fff8], &profile).unwrap(), Resolved::One(0xbf56_dbe4));
    assert!(!Profile::named("spec").unwrap().claims(&ex2));
}

/// Over every input of an f32 dump (`FORM.START.COUNT.dxz`, inputs START, START + 1, ...): how
/// many the sm_90 profile's model reproduces, and the first few it does not.
fn reproduced_f32(file: &str) -> (usize, usize, Vec<String>) {
    reproduced_f32_at(DENSE, file)
}

fn reproduced_f32_at(dir: &str, file: &str) -> (usize, usize, Vec<String>) {
    let mut parts = file.trim_end_matches(".dxz").rsplitn(3, '.');
    let (_count, start, form) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap().to_string());
    let start = u64::from_str_radix(start, 16).unwrap();
    let profile = Profile::named("sm_90").unwrap();
    let Profile::Hardware(hw) = &profile else { unreachable!() };
    let model = hw.exact_model(&form).unwrap_or_else(|| panic!("sm_90 has no bit-exact model of {form}"));
    let approx = crate::approx::Form::of(&Instr::parse(&form, 1).unwrap()).unwrap();
    let nan = hw.canonical_nan(approx.scalar);
    let got = dense_at(dir, file);
    let (mut same, mut wrong) = (0, Vec::new());
    for (k, &out) in got.iter().enumerate() {
        let x = start + k as u64;
        let mine = model.lane(&approx, &[x], nan).unwrap();
        if mine == out {
            same += 1;
        } else if wrong.len() < 8 {
            wrong.push(format!("{x:#010x} -> {out:#010x}, model {mine:#010x}"));
        }
    }
    (same, got.len(), wrong)
}

#[test]
fn the_f32_unit_models_reproduce_every_recorded_output_of_their_binades() {
    // Every output of rcp over [1, 2), of rsqrt and sqrt over [1, 4), of ex2 over [0.5, 1) and
    // [-1, -0.5), of lg2 over [0.5, 2) (fitted on [1, 2)), of sin and cos over [1, 2)
    // radians (47 of the sin table's 64 segments): the inputs each
    // segment table was fitted on (so a check that the tables in the profile file are the ones
    // the search found); the other binades are the fingerprint test's (worker, sweep::tests).
    for (file, n) in [
        ("rcp.approx.f32.3f800000.8388608.dxz", 8_388_608),
        ("rsqrt.approx.f32.3f800000.16777216.dxz", 16_777_216),
        ("sqrt.approx.f32.3f800000.16777216.dxz", 16_777_216),
        ("ex2.approx.f32.3f000000.8388608.dxz", 8_388_608),
        ("ex2.approx.f32.bf000000.8388608.dxz", 8_388_608),
        ("lg2.approx.f32.3f000000.16777216.dxz", 16_777_216),
        ("sin.approx.f32.3f800000.8388608.dxz", 8_388_608),
        ("cos.approx.f32.3f800000.8388608.dxz", 8_388_608),
    ] {
        let (same, count, wrong) = reproduced_f32(file);
        assert_eq!((same, count), (n, n), "{file}: {wrong:#?}");
    }
}

#[test]
fn the_tanh_f32_model_reproduces_every_recorded_output_from_2_to_the_minus_12_to_16() {
    // The tables were fitted on these 134,217,728 inputs (scripts/approx-tanh-fit), so this
    // checks that the embedded tables are the ones the fit wrote and that the evaluator reads
    // them as the fit did: the identity below 2^-8 and 1.0 from 8 on included. Negative
    // operands and the rest of the range are the fingerprint test's (worker, sweep::tests).
    let mut files: Vec<String> = std::fs::read_dir(DENSE_H200)
        .unwrap_or_else(|e| panic!("{DENSE_H200}: {e}"))
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("tanh.approx.f32.") && n.ends_with(".dxz"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 14);
    let mut total = 0;
    for file in &files {
        let (same, count, wrong) = reproduced_f32_at(DENSE_H200, file);
        assert_eq!(same, count, "{file}: {wrong:#?}");
        total += count;
    }
    let (same, count, wrong) = reproduced_f32("tanh.approx.f32.3f000000.16777216.dxz");
    assert_eq!((same, count), (16_777_216, 16_777_216), "{wrong:#?}");
    assert_eq!(total + count, 134_217_728);
}
