//! The exec engine end to end through the real `ptxfuzz exec-reference` process: the smoke
//! check of known results, and generated programs judged clean against the interpreter.

use arbitrary::Unstructured;
use ptx::gen::{GenConfig, Generator};
use worker::compare::{self, CompareOptions};
use worker::smoke::smoke;
use worker::oracles::{open, EngineOptions, Job};

fn reference_spec() -> String {
    format!("exec:{} exec-reference", env!("CARGO_BIN_EXE_ptxfuzz"))
}

#[test]
fn exec_reference_passes_every_known_result() {
    let mut e = open(&reference_spec(), &EngineOptions::default()).unwrap();
    let r = smoke(e.as_mut());
    assert!(r.ok(), "{:#?}", r.failed);
    assert!(r.skipped.is_empty(), "{:?}", r.skipped);
}

#[test]
fn exec_reference_agrees_with_the_interpreter_on_generated_programs() {
    let cfg = GenConfig { approximate: true, ..GenConfig::default() };
    let gen = Generator::new(cfg).unwrap();
    let mut e = open(&reference_spec(), &EngineOptions::default()).unwrap();
    let bytes: Vec<u8> = (0..400_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let mut u = Unstructured::new(&bytes);
    let mut programs = Vec::new();
    let mut cases = Vec::new();
    for _ in 0..200 {
        let p = gen.program(&mut u).unwrap();
        let mut c = Vec::new();
        for _ in 0..20 {
            c.extend(gen.case(&mut u, &p).unwrap());
        }
        programs.push(p);
        cases.push(c);
    }
    for trace in [false, true] {
        let jobs: Vec<Job> = programs.iter().zip(&cases).map(|(p, c)| Job::new(p, c, trace)).collect();
        let results = e.run(&jobs);
        for (job, r) in jobs.iter().zip(results) {
            let out = r.unwrap_or_else(|f| panic!("{}: {f}", job.program));
            let v = compare::check(job, &out, &CompareOptions::default()).unwrap();
            assert!(v.is_clean(), "{}\n{:?}", job.program, v.mismatches.first());
        }
    }
}

#[test]
fn engines_command_lists_every_engine() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxfuzz")).arg("engines").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("interp: ptxfuzz reference interpreter"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("cuda")), "{text}");
    assert!(text.contains("exec:COMMAND"), "{text}");
}

#[test]
fn engines_check_runs_the_smoke_check_on_an_exec_engine() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxfuzz"))
        .args(["engines", "--check", &reference_spec()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(" 0 failed"), "{text}");
}
