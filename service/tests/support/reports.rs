//! Finding reports for the findings, campaigns and auth tests: real reproducers (a program the
//! `ptx` crate parsed, a signature naming a real instruction), varied by a nonce so that each
//! is a distinct report.
#![allow(dead_code)]

use api::campaigns::CampaignStart;
use api::findings::{FindingReport, IngestBatch};
use api::Reproducer;
use uuid::Uuid;

const PROGRAM: &str = "// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\n// outputs: %f2\n";

/// A report of `signature` (its class is taken from the signature), distinct per `nonce`.
pub fn report(signature: &str, nonce: u64, hits: u64) -> FindingReport {
    let program = ptx::program::Program::parse(PROGRAM).expect("test program parses");
    let class = signature.split('~').nth(1).unwrap_or("gross").to_string();
    FindingReport {
        reproducer: Reproducer {
            ptxfuzz_repro: api::repro::FORMAT,
            signature: signature.to_string(),
            class,
            target: "exec:planted".into(),
            device: "test device".into(),
            sm: 90,
            variant: Default::default(),
            program: serde_json::from_str(&program.to_json()).unwrap(),
            program_text: program.to_string(),
            inputs: vec!["0x3f000000".into(), "0x33040000".into()],
            inputs_decimal: vec!["0.5".into(), "3.0733e-8".into()],
            expected: vec!["0x3f000000".into()],
            actual: vec!["0x3f000001".into()],
            failing_outputs: vec![0],
            found_after_cases: nonce,
            original: None,
            probes: 3,
            steps: 1,
            judge: "spec".into(),
            exec: api::Exec::Compiled,
            found_at: None,
        },
        hits,
        ptx: Some(format!("// ptx of case {nonce}\n")),
        sass: None,
    }
}

pub fn batch(campaign_id: Option<Uuid>, findings: Vec<FindingReport>) -> IngestBatch {
    IngestBatch { campaign_id, findings }
}

/// A campaign body with this driver version.
pub fn campaign(driver: &str) -> CampaignStart {
    CampaignStart {
        worker_host: "gpu-box-1".into(),
        target: "cuda:0".into(),
        device: "NVIDIA H100".into(),
        gpu_name: Some("NVIDIA H100 80GB HBM3".into()),
        sm: Some(90),
        driver_version: Some(driver.into()),
        cuda_version: Some("12.4".into()),
        interpreter_commit: "ptxfuzz 0.1.0 (abc1234)".into(),
        seed: Some(u64::MAX - 1),
        started_at: chrono::Utc::now(),
    }
}
