//! Exhaustive pass over all 2^32 f32 inputs of an approximate form's acceptance computation,
//! timed (issue 4: at most 5 minutes on 2 cores for ex2/lg2/rcp/sqrt/rsqrt). Ignored by
//! default; run with
//! `cargo test --release -p ptx --lib approx::exhaustive -- --ignored --nocapture`
//! (`APPROX_FORMS=rcp.approx.f32,ex2.approx.f32` to choose forms, `APPROX_THREADS=2`,
//! `APPROX_LIMIT=24` for a 2^24-input sample).

use std::time::Instant;

use super::eval;
use crate::expect::Outcome;
use crate::isa::Instr;

#[derive(Default, Clone, Copy)]
struct Stats {
    bits: u64,
    ranges: u64,
    unbounded: u64,
    nans: u64,
    widest: i64,
    checksum: u64,
    cpu_ns: u64,
}

/// CPU time of the calling thread in ns (Linux schedstat), to tell the computation's cost
/// from time lost to other processes on a shared machine.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn pass(instr: &Instr, lo: u64, hi: u64) -> Stats {
    let cpu0 = thread_cpu_ns();
    let mut s = Stats::default();
    for x in lo..hi {
        let e = eval(instr, &[x]).expect("f32 operand");
        let p = e.primary_bits();
        // The recorded reference is always accepted (a real invariant of accept.rs).
        assert!(e.accepts(p), "{instr} on {x:#x}: rejects its own reference");
        match e.lanes[0].primary {
            Outcome::Bits(_) => s.bits += 1,
            Outcome::AnyNan => s.nans += 1,
            Outcome::Unbounded { .. } => s.unbounded += 1,
            Outcome::Range { lo, hi, .. } => {
                s.ranges += 1;
                let key = |b: u64| <crate::format::F32 as crate::format::Format>::order_key(b);
                s.widest = s.widest.max(key(hi) - key(lo));
            }
        }
        s.checksum = s.checksum.wrapping_add(p);
    }
    s.cpu_ns = thread_cpu_ns() - cpu0;
    s
}

#[test]
#[ignore = "exhaustive over 2^32 inputs per form: minutes"]
fn exhaustive_f32_acceptance_pass_timing() {
    let forms = std::env::var("APPROX_FORMS").unwrap_or_else(|_| {
        "rcp.approx.f32,ex2.approx.f32,lg2.approx.f32,sqrt.approx.f32,rsqrt.approx.f32".into()
    });
    let threads: u64 = std::env::var("APPROX_THREADS").ok().and_then(|v| v.parse().ok()).unwrap_or(2);
    let limit: u32 = std::env::var("APPROX_LIMIT").ok().and_then(|v| v.parse().ok()).unwrap_or(32);
    let total = 1u64 << limit;
    for m in forms.split(',') {
        let instr = Instr::parse_default(m).unwrap();
        let start = Instant::now();
        let chunk = total.div_ceil(threads);
        let parts: Vec<Stats> = std::thread::scope(|sc| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let instr = &instr;
                    sc.spawn(move || pass(instr, t * chunk, ((t + 1) * chunk).min(total)))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let secs = start.elapsed().as_secs_f64();
        let s = parts.iter().fold(Stats::default(), |a, b| Stats {
            bits: a.bits + b.bits,
            ranges: a.ranges + b.ranges,
            unbounded: a.unbounded + b.unbounded,
            nans: a.nans + b.nans,
            widest: a.widest.max(b.widest),
            checksum: a.checksum.wrapping_add(b.checksum),
            cpu_ns: a.cpu_ns + b.cpu_ns,
        });
        println!(
            "{m}: 2^{limit} inputs, {threads} threads: wall {secs:.1} s ({:.1} ns/input/thread), \
             cpu {:.1} ns/input (2^32 on 2 idle cores: {:.0} s); \
             exact {}, ranges {} (widest {} steps), unbounded {}, nan {}; checksum {:#x}",
            secs * 1e9 * threads as f64 / total as f64,
            s.cpu_ns as f64 / total as f64,
            s.cpu_ns as f64 / total as f64 * (1u64 << 32) as f64 / 2e9,
            s.bits,
            s.ranges,
            s.widest,
            s.unbounded,
            s.nans,
            s.checksum
        );
        assert_eq!(s.bits + s.ranges + s.unbounded + s.nans, total);
    }
}

/// Where the time of one evaluation goes (rcp.approx.f32, CPU ns per input, one thread):
/// the lane computation itself, the whole-register `Expectation`, and `eval`'s checks.
#[test]
#[ignore = "timing probe"]
fn acceptance_cost_split() {
    let instr = Instr::parse_default("rcp.approx.f32").unwrap();
    let form = super::Form::of(&instr).unwrap();
    let n = 1u64 << 24;
    let t = |name: &str, f: &dyn Fn(u64) -> u64| {
        let c0 = thread_cpu_ns();
        let mut acc = 0u64;
        for x in 0..n {
            acc = acc.wrapping_add(f(x * 255));
        }
        println!("{name}: {:.1} ns ({acc})", (thread_cpu_ns() - c0) as f64 / n as f64);
    };
    t("form_of", &|_x| super::Form::of(&instr).map_or(0, |f| f.arity as u64));
    t("lane", &|x| match form.lane([x & 0xffff_ffff, 0]).primary { Outcome::Range { lo, .. } => lo, _ => 1 });
    t("form.eval", &|x| form.eval(&[x & 0xffff_ffff]).primary_bits());
    t("eval", &|x| eval(&instr, &[x & 0xffff_ffff]).unwrap().primary_bits());
    t("eval+accepts", &|x| { let e = eval(&instr, &[x & 0xffff_ffff]).unwrap(); e.accepts(e.primary_bits()) as u64 });
    t("cr only", &|x| (1.0f32 / f32::from_bits(x as u32)).to_bits() as u64);
}
