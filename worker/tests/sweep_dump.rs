//! `ptxfuzz sweep --dump`: a dense file in the recordings' format, checked against the H100's
//! own (`../shared/hw/h100-sm90/dense/`) through an engine that answers with the sm_90 profile.

use std::process::Command;
use worker::sweep::dump;

const PTXFUZZ: &str = env!("CARGO_BIN_EXE_ptxfuzz");
const DENSE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/dense/");

fn sweep(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(PTXFUZZ).arg("sweep").args(args).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn a_dump_through_the_sm_90_profile_engine_is_the_h100_recording() {
    // The first 2^20 inputs of the H100's cos binade [1, 2), recorded again through
    // `exec-reference --profile sm_90` (whose cos is the bit-exact MUFU.COS model).
    let dir = std::env::temp_dir().join(format!("ptxfuzz-dump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let engine = format!("exec:{PTXFUZZ} exec-reference --profile sm_90");
    let (code, out, err) =
        sweep(&["cos.approx.f32", "--target", &engine, "--start", "0x3f800000", "--limit", "1048576", "--dump", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("wrote 1048576 outputs of cos.approx.f32 (inputs 0x3f800000 to 0x3f8fffff)"), "{out}");
    let ours = dump::decode(&std::fs::read(dir.join("cos.approx.f32.3f800000.1048576.dxz")).unwrap()).unwrap();
    let path = format!("{DENSE}cos.approx.f32.3f800000.8388608.dxz");
    let h100 = dump::decode(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).unwrap();
    assert_eq!((ours.instr.as_str(), ours.start), ("cos.approx.f32", 0x3f80_0000));
    assert!(ours.outputs == h100.outputs[..1 << 20], "the dump differs from the recording");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_dump_it_cannot_write_faithfully_is_refused_with_what_to_change() {
    let (code, _, err) = sweep(&["rcp.approx.f32", "--target", "interp", "--dump", "/tmp"]);
    assert_eq!(code, 1);
    assert!(err.contains("give --limit"), "{err}");
    let (code, _, err) = sweep(&["rcp.approx.f32", "--target", "interp", "--limit", "16", "--stride", "3", "--dump", "/tmp"]);
    assert_eq!(code, 1);
    assert!(err.contains("leave --stride at 1"), "{err}");
    let (code, _, err) = sweep(&["ex2.approx.f16", "--target", "interp", "--start", "0xfff0", "--limit", "32", "--dump", "/tmp"]);
    assert_eq!(code, 1);
    assert!(err.contains("past the end"), "{err}");
    let (code, _, err) = sweep(&["ex2.approx.f16", "--target", "interp", "--truth", "x", "--dump", "/tmp"]);
    assert_eq!(code, 2, "clap refuses --dump with --truth: {err}");
}
