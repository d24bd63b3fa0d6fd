//! Cases compared per second: a target engine and the interpreter run the same jobs, and
//! `compare` judges the target's results (the whole pipeline of a campaign, generation aside).
//! `ptxfuzz bench --compare` reports it; the target is 20 M cases/s for `host` vs
//! `interp` on single-instruction f32 programs on a 2-core machine.

use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use ptx::gen::{GenConfig, Generator};
use ptx::isa::{Opcode, Type};
use ptx::program::Program;
use serde::Serialize;

use super::{check_with_reference, CompareOptions, Verdicts};
use crate::oracles::{Engine, EngineFault, Job, Output};

/// What a measurement found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Throughput {
    pub cases: u64,
    pub seconds: f64,
    pub batches: u64,
    /// Mismatches (by signature key) and faults seen: a faithful target has none.
    pub mismatches: u64,
    pub signatures: Vec<String>,
    pub faults: u64,
    /// Results accepted on the fast path (bits equal to the interpreter's primary).
    pub fast: u64,
    pub results: u64,
    /// Wall seconds in the target engine, the reference engine and the comparison.
    pub target_seconds: f64,
    pub reference_seconds: f64,
    pub compare_seconds: f64,
    /// The fastest batch's seconds (`measure_judge` only; 0 elsewhere): on a shared machine the
    /// batch no other load interrupted shows one undisturbed core, as `ptxfuzz bench` does.
    pub best_batch_seconds: f64,
    /// CPU seconds of the whole process (user + system) over the run: with other load on the
    /// machine, `cases / cpu_seconds * cores` estimates the unloaded figure.
    pub cpu_seconds: f64,
}

impl Throughput {
    pub fn cases_per_second(&self) -> f64 {
        self.cases as f64 / self.seconds.max(1e-9)
    }
}

/// Run `programs` (each with its flat `cases`) on `target` and `reference` (the interp
/// engine), compare, repeat until `duration` has passed; every batch holds every job.
pub fn measure(
    target: &mut dyn Engine,
    reference: &mut dyn Engine,
    jobs_data: &[(Program, Vec<u64>)],
    trace: bool,
    duration: Duration,
) -> Throughput {
    let jobs: Vec<Job> = jobs_data.iter().map(|(p, c)| Job::new(p, c, trace)).collect();
    let opts = CompareOptions::default();
    let mut t = Throughput::default();
    let mut all = Verdicts::default();
    let start = Instant::now();
    let cpu0 = process_cpu_seconds();
    while start.elapsed() < duration {
        let t0 = Instant::now();
        let got = target.run(&jobs);
        let t1 = Instant::now();
        let want = if trace { Vec::new() } else { reference.run(&jobs) };
        let t2 = Instant::now();
        t.target_seconds += (t1 - t0).as_secs_f64();
        t.reference_seconds += (t2 - t1).as_secs_f64();
        for (k, job) in jobs.iter().enumerate() {
            let judged = match (&got[k], want.get(k)) {
                (Ok(out), Some(Ok(r))) => check_with_reference(job, out, r, &opts),
                (Ok(out), None) => super::check(job, out, &opts),
                (Err(f), _) | (_, Some(Err(f))) => Err(f.clone()),
            };
            match judged {
                Ok(v) => all.merge(v, opts.max_per_signature),
                Err(_) => t.faults += 1,
            }
        }
        t.compare_seconds += t2.elapsed().as_secs_f64();
        t.batches += 1;
    }
    t.seconds = start.elapsed().as_secs_f64();
    t.cpu_seconds = process_cpu_seconds() - cpu0;
    t.cases = all.cases;
    t.fast = all.fast;
    t.results = all.results;
    t.mismatches = all.mismatch_count();
    t.signatures = all.signatures.keys().map(|s| s.key()).collect();
    t
}

/// The judge alone (`compare::check` as a campaign judges, end-to-end, or traced with `trace`),
/// over and over until `duration` has passed, on the calling thread's rayon pool: each item is
/// a program, its flat cases and the target's output for them (traced outputs with `trace`),
/// made beforehand (`ptxfuzz bench --judge` makes them a hardware profile's results, a GPU's
/// load on the judge without a GPU). `compare_seconds` is the time in `check`;
/// `target_seconds` and `reference_seconds` stay 0.
pub fn measure_judge(data: &[(Program, Vec<u64>, Output)], trace: bool, opts: &CompareOptions, duration: Duration) -> Throughput {
    let jobs: Vec<Job> = data.iter().map(|(p, c, _)| Job::new(p, c, trace)).collect();
    let mut t = Throughput::default();
    // Counted, not merged: a campaign counts each job's verdicts (`stats::Totals::add`), and
    // merging every job's mismatches here was a sixth of the measured time.
    let mut signatures = std::collections::BTreeSet::new();
    let start = Instant::now();
    let cpu0 = process_cpu_seconds();
    while start.elapsed() < duration || t.batches == 0 {
        let t0 = Instant::now();
        let verdicts: Vec<_> = jobs.iter().zip(data).map(|(job, (_, _, out))| super::check(job, out, opts)).collect();
        let took = t0.elapsed().as_secs_f64();
        t.compare_seconds += took;
        t.best_batch_seconds = if t.batches == 0 { took } else { t.best_batch_seconds.min(took) };
        for v in verdicts {
            match v {
                Ok(v) => {
                    (t.cases, t.results, t.fast) = (t.cases + v.cases, t.results + v.results, t.fast + v.fast);
                    t.mismatches += v.mismatch_count();
                    if t.batches == 0 {
                        signatures.extend(v.signatures.into_keys());
                    }
                }
                Err(_) => t.faults += 1,
            }
        }
        t.batches += 1;
    }
    t.seconds = start.elapsed().as_secs_f64();
    t.cpu_seconds = process_cpu_seconds() - cpu0;
    t.signatures = signatures.iter().map(|s| s.key()).collect();
    t
}

/// User + system CPU seconds of this process (Linux `/proc/self/stat`; 0 elsewhere).
pub fn process_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // Fields after the command name (which may hold spaces, hence the last ')').
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return 0.0 };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command; USER_HZ
    // is 100 on every Linux this runs on.
    (ticks(11) + ticks(12)) / 100.0
}

/// The opcodes and rounding modes of [`host_f32_singles`]: one program each.
const SINGLE_OPS: [&str; 7] = ["add", "sub", "mul", "fma", "div", "rcp", "sqrt"];
const SINGLE_MODES: [&str; 4] = ["rn", "rz", "rm", "rp"];
/// How many programs [`host_f32_singles`] makes.
pub const F32_SINGLES: usize = SINGLE_OPS.len() * SINGLE_MODES.len();

/// Single-instruction f32 programs of the host's subset: add, sub, mul, fma, div, rcp, sqrt in
/// every rounding mode, each with `cases` generated cases (half special values).
pub fn host_f32_singles(cases: usize, seed: u64) -> Vec<(Program, Vec<u64>)> {
    let mut out = Vec::new();
    for op in SINGLE_OPS {
        for mode in SINGLE_MODES {
            let (ins, srcs) = match op {
                "fma" => ("%f0:f32, %f1:f32, %f2:f32", "%f0, %f1, %f2"),
                "rcp" | "sqrt" => ("%f0:f32", "%f0"),
                _ => ("%f0:f32, %f1:f32", "%f0, %f1"),
            };
            let n = srcs.split(',').count();
            let text = format!("// inputs: {ins}\n{op}.{mode}.f32 %f{n}, {srcs};\n// outputs: %f{n}\n");
            let p = Program::parse(&text).expect("valid program");
            let c = cases_for(&p, cases, seed ^ out.len() as u64);
            out.push((p, c));
        }
    }
    out
}

/// Generated programs (1 to 8 instructions) that the host engine runs: f32/f64 add, sub, mul,
/// fma, mad, div, rcp, sqrt, no `.ftz`/`.sat`, contraction on (the host's unfused result is
/// the primary), each with `cases` cases.
pub fn host_generated(programs: usize, cases: usize, seed: u64, host: &dyn Engine) -> Vec<(Program, Vec<u64>)> {
    let cfg = GenConfig {
        opcodes: vec![Opcode::Add, Opcode::Sub, Opcode::Mul, Opcode::Fma, Opcode::Mad, Opcode::Div, Opcode::Rcp, Opcode::Sqrt],
        types: vec![Type::F32, Type::F64],
        ftz_share: 0.0,
        sat_share: 0.0,
        contraction: true,
        ..GenConfig::default()
    };
    let gen = Generator::new(cfg).expect("a valid config");
    let bytes = noise(1 << 20, seed);
    let mut u = Unstructured::new(&bytes);
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < programs && tries < 100 * programs {
        tries += 1;
        if u.is_empty() {
            u = Unstructured::new(&bytes[tries % 997..]);
        }
        let Ok(p) = gen.program(&mut u) else { continue };
        if host.supports(&p) {
            let c = cases_for(&p, cases, seed.wrapping_add(tries as u64));
            out.push((p, c));
        }
    }
    out
}

/// `n` cases of `p` from the generator's operand distribution (specials and random bits).
pub fn cases_for(p: &Program, n: usize, seed: u64) -> Vec<u64> {
    let gen = Generator::new(GenConfig::default()).expect("default config");
    let bytes = noise(n * p.inputs().len() * 12 + 64, seed);
    let mut u = Unstructured::new(&bytes);
    let mut out = Vec::with_capacity(n * p.inputs().len());
    for _ in 0..n {
        if gen.case_into(&mut u, p, &mut out).is_err() {
            break;
        }
    }
    // An exhausted stream gives plain values; top up deterministically if it ran dry.
    while out.len() < n * p.inputs().len() {
        let k = out.len();
        out.push(out[k % p.inputs().len().max(1)]);
    }
    out
}

/// Deterministic pseudo-random bytes (splitmix64).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut s = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// A fault summary line for a failed batch (for the CLI).
pub fn describe_fault(f: &EngineFault) -> String {
    format!("{} fault: {f}", f.kind())
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::oracles::{open, EngineOptions};

    #[test]
    fn host_agrees_with_interp_on_generated_programs() {
        let opts = EngineOptions::default();
        let mut host = open("host", &opts).unwrap();
        let mut interp = open("interp", &opts).unwrap();
        let data = host_generated(400, 2000, 7, host.as_ref());
        assert_eq!(data.len(), 400);
        for trace in [false, true] {
            let t = measure(host.as_mut(), interp.as_mut(), &data, trace, Duration::from_millis(300));
            assert_eq!((t.mismatches, t.faults), (0, 0), "{:?}", t.signatures);
            assert!(t.cases >= 800_000, "{t:?}");
        }
    }

    #[test]
    fn a_planted_difference_is_found_by_the_same_pipeline() {
        // The interp engine judged against itself is clean; against the host on .rz programs
        // relabelled .rn it is not.
        let opts = EngineOptions::default();
        let mut host = open("host", &opts).unwrap();
        let mut interp = open("interp", &opts).unwrap();
        let rz = host_f32_singles(1000, 1).into_iter().filter(|(p, _)| p.to_string().contains(".rz.")).collect::<Vec<_>>();
        let t = measure(interp.as_mut(), host.as_mut(), &rz, false, Duration::from_millis(50));
        assert_eq!(t.mismatches, 0);
        let relabelled: Vec<(Program, Vec<u64>)> = rz
            .iter()
            .map(|(p, c)| (Program::parse(&p.to_string().replace(".rz.", ".rn.")).unwrap(), c.clone()))
            .collect();
        // The host computes .rn, the interpreter is asked about .rz: judge host output on .rz jobs.
        let jobs: Vec<Job> = rz.iter().map(|(p, c)| Job::new(p, c, false)).collect();
        let rn_jobs: Vec<Job> = relabelled.iter().map(|(p, c)| Job::new(p, c, false)).collect();
        let outs = host.run(&rn_jobs);
        let mismatches: u64 = jobs
            .iter()
            .zip(outs)
            .map(|(j, o)| super::super::check(j, &o.unwrap(), &CompareOptions::default()).unwrap().mismatch_count())
            .sum();
        assert!(mismatches > 100, "{mismatches}");
    }
}
