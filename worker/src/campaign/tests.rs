//! The campaign's batch step on an engine with two execution modes: programs are split
//! between them, counted per mode, a finding is minimized and recorded in its own mode, and a
//! batch's mismatches are resolved in one engine call, a compiled program's on the instruction
//! VM first.

use std::path::Path;

use ptx::program::Program;

use super::findings::Findings;
use super::queue::Planned;
use super::source::{Batch, Item};
use super::split::Split;
use super::stats::Totals;
use super::batch::run_batch;
use crate::compare::CompareOptions;
use crate::minimize::Limits;
use crate::oracles::{Engine, EngineFault, Exec, Job, Output};
use crate::repro::{Reproducer, ReproducerExt};
use crate::smoke::tests::RzAsRn;

const BOTH: &[Exec] = &[Exec::Compiled, Exec::Isa];

/// Ten copies of `add.rz.f32` on cases where rounding to nearest differs (0.5 + tiny) and
/// cases where it does not (1 + 1).
fn batch() -> Batch {
    let program = Program::parse("// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\n// outputs: %f2\n").unwrap();
    let cases = vec![0x3f00_0000, 0x3304_0000, 0x3f80_0000, 0x3f80_0000, 0x3f00_0000, 0x3304_0000, 0x4000_0000, 0x3f80_0000];
    Batch { items: (0..10).map(|_| Item { program: program.clone(), cases: cases.clone(), origin: None, done: None }).collect() }
}

/// Run the batch with half the programs compiled on an engine wrong in mode `broken`.
fn campaign_on(out: &Path, broken: &'static [Exec]) -> (Totals, Findings) {
    let _ = std::fs::remove_dir_all(out);
    let mut engine = RzAsRn { inner: Default::default(), modes: BOTH, broken };
    let mut findings = Findings::open(out, Limits::default(), CompareOptions::default(), false, 90).unwrap();
    let mut totals = Totals::default();
    let planned = Planned::new(batch(), &mut Split::new(BOTH, 0.5).unwrap());
    run_batch(&mut engine, planned, &CompareOptions::default(), false, &mut findings, &mut totals).unwrap();
    (totals, findings)
}

#[test]
fn programs_are_split_between_the_modes_and_counted_per_mode() {
    let out = std::env::temp_dir().join(format!("ptxfuzz-split-counts-{}", std::process::id()));
    let (t, _) = campaign_on(&out, &[]);
    assert_eq!((t.programs, t.cases, t.mismatches), (10, 40, 0));
    for exec in BOTH {
        let m = t.by_exec[exec];
        assert_eq!((m.programs, m.cases), (5, 20), "{exec}");
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_finding_is_minimized_and_recorded_in_the_mode_it_was_found_in() {
    for broken in [Exec::Isa, Exec::Compiled] {
        let out = std::env::temp_dir().join(format!("ptxfuzz-split-finding-{}-{broken}", std::process::id()));
        let (t, findings) = campaign_on(&out, if broken == Exec::Isa { &[Exec::Isa] } else { &[Exec::Compiled] });
        // Only the broken mode's programs mismatch: five programs, two wrong cases each.
        assert_eq!(t.mismatches, 10, "{broken}");
        let records: Vec<_> = findings.records().collect();
        assert_eq!(records.len(), 1, "{broken}");
        assert_eq!(records[0].exec, broken);
        let r = Reproducer::load(&records[0].folder).unwrap();
        assert_eq!(r.exec, broken);
        // The reproducer's bits come from a run in that mode: the other mode computes them right.
        assert_eq!(r.failing_outputs, [0], "{broken}: {:?}", r.actual);
        assert_eq!(r.actual, ["0x3f000001"], "{broken}");
        std::fs::remove_dir_all(&out).unwrap();
    }
}

/// An engine (`RzAsRn` unless named) that records, per `run` call, how many jobs it got, how
/// many were traced, and how many of those were compiled; with `vm_faults`, every isa job
/// faults, as on a GPU whose instruction VM did not load.
struct Counting<E = RzAsRn> {
    inner: E,
    calls: Vec<(usize, usize, usize)>,
    vm_faults: bool,
}

impl<E: Engine> Engine for Counting<E> {
    fn info(&self) -> &crate::oracles::EngineInfo {
        self.inner.info()
    }
    fn supports(&self, p: &Program) -> bool {
        self.inner.supports(p)
    }
    fn exec_modes(&self) -> &'static [Exec] {
        self.inner.exec_modes()
    }
    fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        let traced = |exec: Option<Exec>| jobs.iter().filter(|j| j.trace && exec.is_none_or(|e| j.exec == e)).count();
        self.calls.push((jobs.len(), traced(None), traced(Some(Exec::Compiled))));
        let mut out = self.inner.run(jobs);
        for (o, j) in out.iter_mut().zip(jobs) {
            if self.vm_faults && j.exec == Exec::Isa {
                *o = Err(EngineFault::Launch { message: "the VM did not load".into() });
            }
        }
        out
    }
}

#[test]
fn a_batchs_mismatches_are_resolved_in_one_traced_engine_call() {
    let out = std::env::temp_dir().join(format!("ptxfuzz-resolve-batch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    // Every program in isa, where add.rz is computed as add.rn: ten jobs, each with the same
    // new signature.
    let mut engine = Counting { inner: RzAsRn { inner: Default::default(), modes: BOTH, broken: &[Exec::Isa] }, calls: Vec::new(), vm_faults: false };
    let mut findings = Findings::open(&out, Limits::default(), CompareOptions::default(), false, 90).unwrap();
    let mut totals = Totals::default();
    let isa = || Planned::new(batch(), &mut Split::new(BOTH, 0.0).unwrap());
    run_batch(&mut engine, isa(), &CompareOptions::default(), false, &mut findings, &mut totals).unwrap();
    assert_eq!(totals.mismatches, 20);
    assert_eq!(findings.records().count(), 1);
    // The batch itself, then one call with a traced run for each mismatch the findings
    // stage may need (a new signature: up to EXPLAIN_CHECKS), then minimization's probes.
    let checks = super::findings::EXPLAIN_CHECKS as usize;
    assert_eq!(engine.calls[0], (10, 0, 0));
    assert_eq!(engine.calls[1], (checks, checks, 0), "{:?}", engine.calls);
    assert_eq!((totals.resolved, totals.resolve_calls, totals.resolved_compiled), (checks as u64, 1, 0));
    // A second batch: the signature is known, no traced run at all.
    let n = engine.calls.len();
    run_batch(&mut engine, isa(), &CompareOptions::default(), false, &mut findings, &mut totals).unwrap();
    assert_eq!(engine.calls[n..], [(10, 0, 0)]);
    std::fs::remove_dir_all(&out).unwrap();
}

/// Every program of [`batch`] compiled, on `RzAsRn` broken in `broken`: the engine's calls,
/// the totals and the one finding's mode.
fn all_compiled(name: &str, broken: &'static [Exec]) -> (Vec<(usize, usize, usize)>, Totals, Exec) {
    let out = std::env::temp_dir().join(format!("ptxfuzz-resolve-compiled-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut engine = Counting { inner: RzAsRn { inner: Default::default(), modes: BOTH, broken }, calls: Vec::new(), vm_faults: false };
    let mut findings = Findings::open(&out, Limits::default(), CompareOptions::default(), false, 90).unwrap();
    let mut totals = Totals::default();
    let planned = Planned::new(batch(), &mut Split::new(BOTH, 1.0).unwrap());
    run_batch(&mut engine, planned, &CompareOptions::default(), false, &mut findings, &mut totals).unwrap();
    let records: Vec<_> = findings.records().collect();
    assert_eq!(records.len(), 1, "{name}");
    let exec = records[0].exec;
    assert_eq!(Reproducer::load(&records[0].folder).unwrap().exec, exec, "{name}");
    std::fs::remove_dir_all(&out).unwrap();
    (engine.calls, totals, exec)
}

#[test]
fn a_compiled_programs_mismatch_is_traced_on_the_instruction_vm_first_and_compiled_only_where_the_vm_differs() {
    let checks = super::findings::EXPLAIN_CHECKS as usize;
    // Wrong in compiled mode only (a compiler effect): the VM's traced run shows every
    // instruction right and another output, so the compiled traced run decides, as before.
    let (calls, t, exec) = all_compiled("effect", &[Exec::Compiled]);
    assert_eq!(calls[0], (10, 0, 0));
    assert_eq!(calls[1..3], [(checks, checks, 0), (checks, checks, checks)], "{calls:?}");
    assert_eq!((t.resolved, t.resolve_calls, t.resolved_compiled), (checks as u64, 2, checks as u64));
    assert_eq!(exec, Exec::Compiled);
    // Wrong in both (the hardware's instruction): the VM's traced run shows the root, and the
    // finding is minimized and recorded in isa without compiling a traced program.
    let (calls, t, exec) = all_compiled("hardware", &[Exec::Compiled, Exec::Isa]);
    assert_eq!(calls[1], (checks, checks, 0), "{calls:?}");
    assert!(calls[1..].iter().all(|c| c.2 == 0), "{calls:?}");
    assert_eq!((t.resolved, t.resolve_calls, t.resolved_compiled), (checks as u64, 1, 0));
    assert_eq!(exec, Exec::Isa);
}

#[test]
fn a_compiled_programs_mismatch_the_vm_cannot_trace_is_traced_compiled() {
    let out = std::env::temp_dir().join(format!("ptxfuzz-resolve-vm-faults-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let inner = RzAsRn { inner: Default::default(), modes: BOTH, broken: &[Exec::Compiled] };
    let mut engine = Counting { inner, calls: Vec::new(), vm_faults: true };
    let mut findings = Findings::open(&out, Limits::default(), CompareOptions::default(), false, 90).unwrap();
    let mut totals = Totals::default();
    let planned = Planned::new(batch(), &mut Split::new(BOTH, 1.0).unwrap());
    run_batch(&mut engine, planned, &CompareOptions::default(), false, &mut findings, &mut totals).unwrap();
    let checks = super::findings::EXPLAIN_CHECKS as usize;
    assert_eq!(engine.calls[1..3], [(checks, checks, 0), (checks, checks, checks)], "{:?}", engine.calls);
    assert_eq!(totals.resolved_compiled, checks as u64);
    let records: Vec<_> = findings.records().collect();
    assert_eq!((records.len(), records[0].exec), (1, Exec::Compiled));
    std::fs::remove_dir_all(&out).unwrap();
}

/// The sm_90 profile's answers (the H100's recorded bits where it has them, the interpreter's
/// primary elsewhere) in each of `modes`: a GPU whose compiler adds nothing, whose approximate
/// results leave the interpreter's primary as the H100's do, so that end-to-end differences
/// downstream of them need resolving.
struct Sm90 {
    interp: crate::oracles::diff_interp::InterpEngine,
    modes: &'static [Exec],
}

impl Engine for Sm90 {
    fn info(&self) -> &crate::oracles::EngineInfo {
        self.interp.info()
    }
    fn supports(&self, p: &Program) -> bool {
        self.interp.supports(p)
    }
    fn exec_modes(&self) -> &'static [Exec] {
        self.modes
    }
    fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        let hw = ptx::profile::Profile::named("sm_90").unwrap();
        jobs.iter().map(|j| crate::compare::profile_output(&hw, j).map_err(|e| EngineFault::Invalid { message: e.to_string() })).collect()
    }
}

#[test]
fn resolving_on_the_instruction_vm_finds_and_explains_what_compiled_traced_runs_do_without_compiling_one() {
    use ptx::gen::{GenConfig, Generator};
    let gen = Generator::new(GenConfig { approximate: true, ..GenConfig::default() }).unwrap();
    let items: Vec<Item> = (0..400).filter_map(|i| super::source::random_item(&gen, 7, i, 256)).take(200).collect();
    let base = std::env::temp_dir().join(format!("ptxfuzz-resolve-vm-{}", std::process::id()));
    let run = |modes: &'static [Exec]| {
        let out = base.join(modes.len().to_string());
        let _ = std::fs::remove_dir_all(&out);
        let mut engine = Counting { inner: Sm90 { interp: Default::default(), modes }, calls: Vec::new(), vm_faults: false };
        let mut findings = Findings::open(&out, Limits::default(), CompareOptions::default(), false, 90).unwrap();
        let mut totals = Totals::default();
        // Every program compiled, in two batches (the second meets the first's signatures).
        for half in items.chunks(100) {
            let planned = Planned::new(Batch { items: half.to_vec() }, &mut Split::new(BOTH, 1.0).unwrap());
            run_batch(&mut engine, planned, &CompareOptions::default(), false, &mut findings, &mut totals).unwrap();
        }
        let records: Vec<(String, Exec)> = findings.records().map(|r| (r.key.clone(), r.exec)).collect();
        (totals, records, engine.calls.iter().map(|c| c.2).sum::<usize>())
    };
    // Compiled only (no VM): every resolution is a compiled traced run, as before.
    let (before, before_records, before_compiled) = run(&[Exec::Compiled]);
    let (now, now_records, now_compiled) = run(BOTH);
    std::fs::remove_dir_all(&base).unwrap();
    assert!(before.explained > 0 && before.resolved > 0 && !before_records.is_empty(), "{before:?}");
    assert!(before_compiled >= before.resolved as usize, "{before_compiled} {before:?}");
    // The same verdicts, explanations and findings: this engine's compiled outputs are what
    // its instructions give one by one, so the VM's traced run decides each as the compiled
    // one did; the roots are hardware ones, recorded in isa.
    let counts = |t: &Totals| (t.cases, t.mismatches, t.explained, t.signatures, t.resolved);
    assert_eq!(counts(&now), counts(&before));
    assert_eq!(now_records.iter().map(|r| &r.0).collect::<Vec<_>>(), before_records.iter().map(|r| &r.0).collect::<Vec<_>>());
    assert!(before_records.iter().all(|r| r.1 == Exec::Compiled), "{before_records:?}");
    assert!(now_records.iter().all(|r| r.1 == Exec::Isa), "{now_records:?}");
    assert_eq!((now_compiled, now.resolved_compiled), (0, 0));
}

#[test]
fn judging_a_batch_while_the_next_runs_counts_and_finds_what_one_at_a_time_does() {
    let base = std::env::temp_dir().join(format!("ptxfuzz-overlap-{}", std::process::id()));
    let run = |overlap: bool| {
        let out = base.join(if overlap { "overlap" } else { "serial" });
        let _ = std::fs::remove_dir_all(&out);
        let mut engine = RzAsRn { inner: Default::default(), modes: BOTH, broken: &[Exec::Compiled] };
        let mut findings = Findings::open(&out, Limits::default(), CompareOptions::default(), false, 90).unwrap();
        let mut totals = Totals::default();
        let mut split = Split::new(BOTH, 0.5).unwrap();
        let copts = CompareOptions::default();
        let mut pending = None;
        for _ in 0..3 {
            let planned = Planned::new(batch(), &mut split);
            match overlap {
                true => pending = Some(super::batch::overlapped(&mut engine, planned, pending.take(), &copts, false, &mut findings, &mut totals).unwrap()),
                false => run_batch(&mut engine, planned, &copts, false, &mut findings, &mut totals).unwrap(),
            }
        }
        super::batch::finish(&mut engine, pending, &copts, &mut findings, &mut totals).unwrap();
        let keys: Vec<String> = findings.records().map(|r| r.key.clone()).collect();
        (totals.programs, totals.cases, totals.mismatches, totals.by_exec.clone(), keys)
    };
    let (serial, overlapped) = (run(false), run(true));
    assert_eq!(serial.0, 30);
    assert_eq!(serial.2, 30, "15 compiled programs, two wrong cases each");
    assert_eq!(serial, overlapped);
    std::fs::remove_dir_all(&base).unwrap();
}

/// `RzAsRn` in one mode, broken in it, with per-job functions: a CPU engine whose programs a
/// campaign runs and judges where it generates them (`campaign::fused`).
struct FusedRzAsRn(RzAsRn);

fn rz_as_rn(job: &Job) -> Result<Output, EngineFault> {
    let p = crate::smoke::tests::rz_as_rn(job.program);
    crate::oracles::diff_interp::run_job(&Job { program: &p, ..*job })
}

impl Engine for FusedRzAsRn {
    fn info(&self) -> &crate::oracles::EngineInfo {
        self.0.info()
    }
    fn supports(&self, p: &Program) -> bool {
        self.0.supports(p)
    }
    fn exec_modes(&self) -> &'static [Exec] {
        self.0.exec_modes()
    }
    fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        self.0.run(jobs)
    }
    fn per_job(&self) -> Option<crate::oracles::PerJob> {
        Some(crate::oracles::PerJob { supports: |p| crate::oracles::diff_interp::kernels(p).is_ok(), run: rz_as_rn })
    }
}

#[test]
fn programs_judged_where_generated_count_and_find_what_the_batch_path_does() {
    let base = std::env::temp_dir().join(format!("ptxfuzz-fused-{}", std::process::id()));
    // The host FPU has no approximate forms: one program per batch is unsupported there.
    let rcp = Program::parse("// inputs: %f0:f32\nrcp.approx.f32 %f1, %f0;\n// outputs: %f1\n").unwrap();
    let engines = |which: usize| -> Box<dyn Engine> {
        match which {
            0 => Box::new(FusedRzAsRn(RzAsRn { inner: Default::default(), modes: &[Exec::Isa], broken: &[Exec::Isa] })),
            1 => Box::new(crate::oracles::diff_host::HostEngine::new().unwrap()),
            _ => Box::new(crate::oracles::diff_interp::InterpEngine::new()),
        }
    };
    for which in 0..3 {
        let run = |fuse: bool| {
            let out = base.join(format!("{which}-{fuse}"));
            let _ = std::fs::remove_dir_all(&out);
            let mut engine = engines(which);
            let copts = CompareOptions::default();
            let finisher = super::fused::Finisher::new(&*engine, false, &copts).expect("a CPU engine runs per job");
            let mut findings = Findings::open(&out, Limits::default(), copts.clone(), false, 90).unwrap();
            let mut totals = Totals::default();
            let mut split = Split::new(&[Exec::Isa], 0.1).unwrap();
            let mut pending = None;
            for _ in 0..3 {
                let mut b = batch();
                b.items.push(Item { program: rcp.clone(), cases: vec![0x4000_0000], origin: None, done: None });
                if fuse {
                    b.items.iter_mut().for_each(|i| i.done = Some(finisher.finish(&i.program, &i.cases)));
                }
                let planned = Planned::new(b, &mut split);
                pending = Some(super::batch::overlapped(&mut *engine, planned, pending.take(), &copts, false, &mut findings, &mut totals).unwrap());
            }
            super::batch::finish(&mut *engine, pending, &copts, &mut findings, &mut totals).unwrap();
            let keys: Vec<String> = findings.records().map(|r| r.key.clone()).collect();
            std::fs::remove_dir_all(&out).unwrap();
            (totals.programs, totals.cases, totals.mismatches, totals.unsupported, totals.by_exec.clone(), keys)
        };
        let (batched, fused) = (run(false), run(true));
        assert_eq!(batched, fused, "engine {which}");
        let expected = match which {
            // Ten add.rz programs per batch, two wrong cases each; the rcp program runs.
            0 => (33, 123, 60, 0, 1),
            // The host computes add.rz right and has no rcp.approx.
            1 => (30, 120, 0, 3, 0),
            _ => (33, 123, 0, 0, 0),
        };
        assert_eq!((fused.0, fused.1, fused.2, fused.3, fused.5.len()), expected, "engine {which}");
    }
}

#[test]
fn without_jobs_a_gpu_campaign_on_eight_cores_or_more_leaves_the_packing_threads_their_cores() {
    use crate::oracles::EngineSpec;
    let cuda = EngineSpec::Cuda { gpu: 0 };
    // The H200's 16 cores: 4 packing threads, 12 judging ones (the measured better split).
    assert_eq!(super::default_jobs(&cuda, 16), 12);
    assert_eq!(super::default_jobs(&cuda, 64), 56);
    assert_eq!(super::default_jobs(&cuda, 4), 4);
    assert_eq!(super::default_jobs(&EngineSpec::Interp, 16), 16);
}
