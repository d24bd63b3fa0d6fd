//! `ptxfuzz bench`: interpreter throughput per instruction form, beside the host's native ops.

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::interp;
use ptx::isa::{Instr, Opcode, Type};
use ptx::{Format, Scalar, BF16, F16, F32, F64};
use worker::cli_values::count_in;

/// The forms measured by default: every IEEE-rounded arithmetic form of f32 and f64 in every
/// rounding mode (the targets of the issue are per mode), the half and packed forms, and one
/// of each sign/compare family. `--all` measures every legal non-approximate form instead.
const DEFAULT_FORMS: &[&str] = &[
    "add.rn.f32", "add.rz.f32", "add.rm.f32", "add.rp.f32",
    "sub.rn.f32", "sub.rz.f32", "sub.rm.f32", "sub.rp.f32",
    "mul.rn.f32", "mul.rz.f32", "mul.rm.f32", "mul.rp.f32",
    "fma.rn.f32", "fma.rz.f32", "fma.rm.f32", "fma.rp.f32",
    "div.rn.f32", "div.rz.f32", "div.rm.f32", "div.rp.f32",
    "rcp.rn.f32", "rcp.rz.f32", "rcp.rm.f32", "rcp.rp.f32",
    "sqrt.rn.f32", "sqrt.rz.f32", "sqrt.rm.f32", "sqrt.rp.f32",
    "add.rn.ftz.f32", "add.rn.sat.f32", "fma.rn.ftz.sat.f32",
    "add.rn.f64", "add.rz.f64", "add.rm.f64", "add.rp.f64",
    "sub.rn.f64", "sub.rz.f64", "sub.rm.f64", "sub.rp.f64",
    "mul.rn.f64", "mul.rz.f64", "mul.rm.f64", "mul.rp.f64",
    "fma.rn.f64", "fma.rz.f64", "fma.rm.f64", "fma.rp.f64",
    "div.rn.f64", "div.rz.f64", "div.rm.f64", "div.rp.f64",
    "rcp.rn.f64", "rcp.rz.f64", "rcp.rm.f64", "rcp.rp.f64",
    "sqrt.rn.f64", "sqrt.rz.f64", "sqrt.rm.f64", "sqrt.rp.f64",
    "add.rn.f16", "sub.rn.f16", "mul.rn.f16", "fma.rn.f16", "add.rn.ftz.sat.f16",
    "add.rn.bf16", "sub.rn.bf16", "mul.rn.bf16", "fma.rn.bf16", "fma.rz.bf16", "fma.rn.relu.bf16",
    "add.rn.f16x2", "mul.rn.f16x2", "fma.rn.f16x2", "fma.rn.relu.f16x2",
    "add.rn.bf16x2", "mul.rn.bf16x2", "fma.rn.bf16x2", "fma.rm.bf16x2",
    "add.rn.f32x2", "add.rz.f32x2", "mul.rm.f32x2", "fma.rp.f32x2",
    "min.f32", "max.NaN.f32", "min.xorsign.abs.f32", "max.f64", "min.f16x2",
    "abs.f32", "neg.f64", "copysign.f32", "testp.normal.f32", "testp.subnormal.f64",
];

/// Measure interpreter throughput per instruction form.
#[derive(Args, Debug)]
#[command(after_help = "Method. Each form runs `ptx::interp::Kernel::run` (the batch path the \
worker uses to compare results) over one array of --cases operand tuples, in chunks of 4096 \
cases, timed chunk by chunk, pass after pass until --seconds have passed. A chunk's time is \
the fastest of its passes, and ops/s = cases / (sum of the chunks' times): the machine may be \
shared, and a chunk (tens of microseconds) that ran without being preempted shows the \
throughput of one undisturbed core. The host's native f32/f64 operation (add, sub, mul, fma, \
div, sqrt; always round-to-nearest) runs through the same harness on the same operands, one \
operation at a time with `black_box` on each operand so that it cannot be vectorised or \
folded. Single thread.\n\nOperands (per lane, seeded, the same in every run): by default \
'typical' values as in SoftFloat's timesoftfloat: finite normal numbers with random sign \
and fraction and unbiased exponents uniform in [-k, k], k = min(20, EMAX/2) (f16: 7), so \
results stay normal; sqrt operands are positive. --specials PCT replaces PCT% of the lanes \
with special values drawn uniformly from: +-0, the smallest and largest subnormal, the \
smallest normal, the largest finite, +-inf, a quiet and a signalling NaN. \
Figures and targets: docs/benchmarks.md; scripts/bench-table turns --json into its table.")]
pub struct BenchArgs {
    /// Print one JSON object per form instead of a table:
    /// {"form", "ops_per_s", "lane_ops_per_s", "native", "native_ops_per_s"}.
    #[arg(long)]
    json: bool,
    /// Measure every legal non-approximate form instead of the default list.
    #[arg(long)]
    all: bool,
    /// Only forms whose text contains this string (e.g. `.rz.`, `f16x2`).
    #[arg(long)]
    filter: Option<String>,
    /// Measure exactly this form (repeatable; any legal form, e.g. `add.rz.ftz.f32`)
    /// instead of the default list.
    #[arg(long, value_name = "FORM")]
    form: Vec<String>,
    /// Operand cases per array (cycled until the time is up), 1 to 2^24; with --compare, per
    /// program (28, or 256 with --generated), at most 2^24 in all.
    #[arg(long, default_value_t = 1 << 16, value_parser = count_in::<usize>(1, MAX_CASES, MAX_CASES_WHY))]
    cases: usize,
    /// Seconds per form (and as many again for its native op). 0: one pass.
    #[arg(long, default_value_t = 0.3, value_parser = worker::cli_values::seconds)]
    seconds: f64,
    /// Instead: cases compared per second, a target engine against the interpreter through
    /// `compare` (the campaign pipeline), on single-instruction f32 programs of the host's
    /// subset; `--seconds` is the whole run (default 0.3 s is short: try 10).
    #[arg(long)]
    compare: bool,
    /// With --compare: the target engine (host, exec:COMMAND, cuda:N).
    #[arg(long, default_value = "host", requires = "compare")]
    target: String,
    /// With --compare: generated multi-instruction programs of the host's subset instead.
    #[arg(long, requires = "compare")]
    generated: bool,
    /// With --compare or --judge: trace mode (every instruction judged on the target's own
    /// operands; with --judge, the profile's results of every instruction, as a traced isa
    /// campaign gets them from the GPU).
    #[arg(long)]
    trace: bool,
    /// Percentage of operand lanes that are special values (zeros, subnormals, infinities,
    /// NaNs, extreme finite values) instead of typical finite ones.
    #[arg(long, default_value_t = 0.0, value_name = "PCT")]
    specials: f64,
    /// Instead: conversions (`cvt` f32<->f16/bf16, f32<->s32, f32->e4m3x2, f32->tf32, `cvt.rs` to
    /// bf16x2) beside the host's own where it has one (F16C, bf16 and tf32 bit manipulation, Rust
    /// casts).
    #[arg(long, conflicts_with = "compare")]
    cvt: bool,
    /// Instead: the judge alone on a GPU's load, on one thread: default campaign programs
    /// whose results are a hardware profile's bits (`--profile`), judged against the spec as a
    /// GPU campaign's judging threads do; `--seconds` is the whole run (try 10).
    #[arg(long, conflicts_with_all = ["compare", "cvt"])]
    judge: bool,
    /// With --judge: whose results stand for the GPU's (`exec-reference --profile`).
    #[arg(long, default_value = "sm_90", requires = "judge")]
    profile: String,
    /// With --judge: programs (1,024 cases each) judged, pass after pass, 1 to 4096. They are
    /// all generated before the timing starts (about 2 ms each), outside `--seconds`.
    #[arg(long, default_value_t = 400, requires = "judge", value_parser = judge_programs)]
    programs: usize,
    /// Skip the native measurement (e.g. when counting instructions under callgrind).
    #[arg(long)]
    no_native: bool,
}

/// The most operand cases `bench` holds at once: 2^24. The table's array is 24 bytes a case
/// (three operand words), 384 MiB at the bound, far past any cache (the default, 2^16, is
/// 1.5 MiB: the point is the interpreter's speed, not memory's); `--compare` holds --cases for
/// each of its programs, with inputs and both engines' outputs, and is held to 2^24 in all.
/// `--cases 99999999999` asked for 2.4 TB and aborted with a backtrace.
pub(crate) const MAX_CASES: u64 = 1 << 24;
const MAX_CASES_WHY: &str = "the operand array is held in memory (24 bytes a case), so 2^24 keeps it under 400 MiB, and measuring the interpreter needs no more than the default 65536";

/// The most `--judge --programs`: 4096. Every program (1,024 cases and the profile's results)
/// is generated before the timing starts, about 2 ms each (20,000 took 38 s), so 4096 is about
/// 8 s of setup and 4 M cases (well under 1 GiB); `--programs 99999999999` never started timing.
const MAX_JUDGE_PROGRAMS: u64 = 4096;
const MAX_JUDGE_PROGRAMS_WHY: &str = "every program is generated before the timing starts (about 2 ms each, outside --seconds), so 4096 is already 8 s of setup";

/// `--programs`: 1 to [`MAX_JUDGE_PROGRAMS`]; 0 passes, to meet `run`'s own "--programs must
/// be at least 1" (exit 1, the answer it always had).
fn judge_programs(s: &str) -> Result<usize, String> {
    match s.trim() {
        "0" => Ok(0),
        _ => count_in::<usize>(1, MAX_JUDGE_PROGRAMS, MAX_JUDGE_PROGRAMS_WHY)(s),
    }
}

/// The options that pick instruction forms, refused beside a mode that measures its own list
/// (`--cvt` its conversions, `--compare` and `--judge` their programs): they were silently
/// ignored, so the table measured something other than what was asked.
fn check_form_options(args: &BenchArgs) -> Result<()> {
    let mode = match (args.cvt, args.compare, args.judge) {
        (true, _, _) => "--cvt measures its own list of conversions (cvt.rn.f16.f32, cvt.f32.bf16, ...; --filter picks among them)",
        (_, true, _) => "--compare runs its own f32 programs (--generated: generated ones)",
        (_, _, true) => "--judge judges generated campaign programs (--programs says how many)",
        _ => return Ok(()),
    };
    if !args.form.is_empty() {
        bail!("--form {} cannot be measured here: {mode}; leave --form out, or leave the mode out to measure the form", args.form.join(" --form "));
    }
    if args.all {
        bail!("--all cannot be measured here: {mode}; --all measures every non-approximate instruction form without it");
    }
    Ok(())
}

pub fn run(args: BenchArgs) -> Result<()> {
    check_form_options(&args)?;
    if args.compare {
        return crate::bench_compare::run(&args.target, args.generated, args.trace, args.cases, args.seconds, args.json);
    }
    if args.judge {
        anyhow::ensure!(args.programs > 0, "--programs must be at least 1");
        return crate::bench_compare::run_judge(&args.profile, args.programs, args.trace, args.seconds, args.json);
    }
    anyhow::ensure!(!args.trace, "--trace goes with --compare or --judge (it says how their results are judged)");
    if args.cvt {
        anyhow::ensure!(args.cases > 0, "--cases must be at least 1");
        return crate::bench_cvt::run(args.cases, Duration::from_secs_f64(args.seconds), args.json, args.filter.as_deref());
    }
    if !(0.0..=100.0).contains(&args.specials) {
        bail!("--specials takes a percentage between 0 and 100, got {}", args.specials);
    }
    if args.cases == 0 {
        bail!("--cases must be at least 1");
    }
    let forms: Vec<Instr> = if args.all {
        ptx::isa::all_forms().into_iter().filter(|i| !i.is_approximate()).collect()
    } else {
        let texts: Vec<&str> = if args.form.is_empty() {
            DEFAULT_FORMS.to_vec()
        } else {
            args.form.iter().map(String::as_str).collect()
        };
        texts
            .iter()
            .map(|t| Instr::parse_default(t).with_context(|| format!("bench form {t}")))
            .collect::<Result<_>>()?
    };
    // Filtered before the header: a filter that matches nothing is a typo to name, not an
    // empty table.
    let forms: Vec<Instr> = forms.into_iter().filter(|i| args.filter.as_deref().is_none_or(|f| i.to_string().contains(f))).collect();
    if let (true, Some(f)) = (forms.is_empty(), &args.filter) {
        bail!("no form measured here contains '{f}' (--filter): the default list is `ptxfuzz bench`'s, --all measures every non-approximate form, --cvt the conversions");
    }
    let time = Duration::from_secs_f64(args.seconds);
    if !args.json {
        println!(
            "{:<24} {:>9} {:>13}   {:<9} {:>9} {:>8}",
            "form", "M ops/s", "M lane-ops/s", "native", "M ops/s", "native/x"
        );
    }
    for instr in forms {
        let text = instr.to_string();
        let cases = operands(&instr, args.cases, args.specials / 100.0);
        let kernel = interp::Kernel::new(&instr).with_context(|| format!("bench form {text}"))?;
        let ops = measure(&cases, time, |chunk, out| kernel.run(chunk, out));
        let native = if args.no_native { None } else { native(&instr, &cases, time) };
        let lanes = instr.ty.lanes() as f64;
        if args.json {
            let mut obj = serde_json::json!({
                "form": text,
                "ops_per_s": ops.round(),
                "lane_ops_per_s": (ops * lanes).round(),
            });
            if let Some((name, nops)) = native {
                obj["native"] = name.into();
                obj["native_ops_per_s"] = nops.round().into();
            }
            println!("{obj}");
        } else {
            let (nname, nops, ratio) = native.map_or((String::new(), String::new(), String::new()), |(n, o)| {
                (n, format!("{:.1}", o / 1e6), format!("{:.2}", o / ops))
            });
            println!(
                "{:<24} {:>9.1} {:>13.1}   {:<9} {:>9} {:>8}",
                text,
                ops / 1e6,
                ops * lanes / 1e6,
                nname,
                nops,
                ratio
            );
        }
    }
    Ok(())
}

/// Cases per timed chunk: long enough that reading the timer (~25 ns) costs at most ~0.6% (at
/// 1 ns an op, the fastest forms), short enough (4 to 50 microseconds) that most chunks run
/// without being preempted.
const CHUNK: usize = 4096;

/// Operations per second of `f` over `cases`. The array is processed in chunks of [`CHUNK`]
/// cases, each writing its results to a buffer; passes repeat until `time` has passed (at
/// least one). Each chunk counts with its fastest pass, and every case counts once:
/// ops/s = cases / sum of the chunks' best times.
///
/// The interpreter runs as the worker runs it, a whole batch per call (`Kernel::run`).
pub(crate) fn measure(cases: &[[u64; 3]], time: Duration, mut f: impl FnMut(&[[u64; 3]], &mut [u64])) -> f64 {
    let mut out = vec![0u64; CHUNK];
    let chunks: Vec<&[[u64; 3]]> = cases.chunks(CHUNK).collect();
    let mut best = vec![f64::INFINITY; chunks.len()];
    let mut acc = 0u64;
    let start = Instant::now();
    loop {
        for (chunk, best) in chunks.iter().zip(best.iter_mut()) {
            let out = &mut out[..chunk.len()];
            let t = Instant::now();
            f(chunk, out);
            let dt = t.elapsed().as_secs_f64();
            acc ^= black_box(&*out)[0];
            *best = best.min(dt);
        }
        if start.elapsed() >= time {
            break;
        }
    }
    black_box(acc);
    cases.len() as f64 / best.iter().sum::<f64>()
}

/// The host's own operation for the same scalar computation, where it has one (always
/// round-to-nearest), measured like the interpreter on the same cases: its name and ops/s.
///
/// One operation per case, inlined into the loop, with `black_box` on each case's operands:
/// the compiler can neither vectorise the loop nor fold the operation, so this is the cost of
/// one scalar host instruction in a loop that loads its operands and stores its result.
fn native(instr: &Instr, cases: &[[u64; 3]], time: Duration) -> Option<(String, f64)> {
    use Opcode::*;
    macro_rules! native {
        ($name:literal, |$c:ident| $e:expr) => {
            ($name.to_string(), measure(cases, time, |chunk, out| {
                for (c, o) in chunk.iter().zip(out.iter_mut()) {
                    let $c: [u64; 3] = black_box(*c);
                    *o = $e;
                }
            }))
        };
    }
    let s = |x: u64| f32::from_bits(x as u32);
    let d = f64::from_bits;
    Some(match (instr.op, instr.ty) {
        (Add, Type::F32) => native!("f32 add", |c| (s(c[0]) + s(c[1])).to_bits() as u64),
        (Sub, Type::F32) => native!("f32 sub", |c| (s(c[0]) - s(c[1])).to_bits() as u64),
        (Mul, Type::F32) => native!("f32 mul", |c| (s(c[0]) * s(c[1])).to_bits() as u64),
        (Fma | Mad, Type::F32) => native!("f32 fma", |c| s(c[0]).mul_add(s(c[1]), s(c[2])).to_bits() as u64),
        (Div, Type::F32) => native!("f32 div", |c| (s(c[0]) / s(c[1])).to_bits() as u64),
        (Rcp, Type::F32) => native!("f32 div", |c| (1.0 / s(c[0])).to_bits() as u64),
        (Sqrt, Type::F32) => native!("f32 sqrt", |c| s(c[0]).sqrt().to_bits() as u64),
        (Add, Type::F64) => native!("f64 add", |c| (d(c[0]) + d(c[1])).to_bits()),
        (Sub, Type::F64) => native!("f64 sub", |c| (d(c[0]) - d(c[1])).to_bits()),
        (Mul, Type::F64) => native!("f64 mul", |c| (d(c[0]) * d(c[1])).to_bits()),
        (Fma | Mad, Type::F64) => native!("f64 fma", |c| d(c[0]).mul_add(d(c[1]), d(c[2])).to_bits()),
        (Div, Type::F64) => native!("f64 div", |c| (d(c[0]) / d(c[1])).to_bits()),
        (Rcp, Type::F64) => native!("f64 div", |c| (1.0 / d(c[0])).to_bits()),
        (Sqrt, Type::F64) => native!("f64 sqrt", |c| d(c[0]).sqrt().to_bits()),
        _ => return None,
    })
}

/// Operand tuples for a form (see the `--help` text): per lane, with probability `specials`
/// a special value, otherwise a typical finite one; sqrt operands are positive.
fn operands(instr: &Instr, n: usize, specials: f64) -> Vec<[u64; 3]> {
    let lane: fn(&mut SplitMix, f64, bool) -> u64 = match instr.ty.scalar() {
        Scalar::F16 => lane::<F16>,
        Scalar::BF16 => lane::<BF16>,
        Scalar::F32 => lane::<F32>,
        Scalar::F64 => lane::<F64>,
    };
    let positive = instr.op == Opcode::Sqrt;
    let w = instr.ty.scalar().bits();
    let mut rng = SplitMix(0x2545_f491_4f6c_dd1d);
    (0..n)
        .map(|_| {
            let mut c = [0u64; 3];
            for v in c.iter_mut() {
                for l in 0..instr.ty.lanes() {
                    *v |= lane(&mut rng, specials, positive) << (l * w);
                }
            }
            c
        })
        .collect()
}

/// One lane of format `F`: a special value with probability `specials`, else a finite normal
/// number with unbiased exponent uniform in [-k, k], k = min(20, EMAX / 2) (f16: 7), random
/// fraction and sign (positive when `positive`).
fn lane<F: Format>(rng: &mut SplitMix, specials: f64, positive: bool) -> u64 {
    let r = rng.next();
    let sign = if positive { 0 } else { (r >> 63) << (F::BITS - 1) };
    if specials > 0.0 && rng.unit() < specials {
        let table = [
            0,
            1,                       // smallest subnormal
            F::MIN_NORMAL - 1,       // largest subnormal
            F::MIN_NORMAL,           // smallest normal
            F::MAX_FINITE,           // largest finite
            F::INF,                  // infinity
            F::INF | F::QUIET_BIT,   // quiet NaN
            F::INF | 1,              // signalling NaN
        ];
        return sign | table[(r % table.len() as u64) as usize];
    }
    let k = 20.min(F::EMAX as i64 / 2);
    let e = (F::BIAS as i64 + ((r >> 32) % (2 * k as u64 + 1)) as i64 - k) as u64;
    sign | e << F::FRAC_BITS | (rng.next() & F::FRAC_MASK)
}

/// SplitMix64 (Steele, Lea, Flood 2014): a small seeded generator, so every run measures the
/// same operands.
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(text: &str) -> Instr {
        Instr::parse_default(text).unwrap()
    }

    #[test]
    fn default_forms_all_parse_and_build_kernels() {
        for t in DEFAULT_FORMS {
            let i = form(t);
            assert!(interp::Kernel::new(&i).is_ok(), "{t}");
        }
    }

    #[test]
    fn typical_operands_are_finite_normal_with_moderate_exponents() {
        for (t, scalar) in [("fma.rn.f32", Scalar::F32), ("fma.rn.f64", Scalar::F64), ("fma.rn.f16x2", Scalar::F16)] {
            let i = form(t);
            let w = scalar.bits();
            for c in operands(&i, 4000, 0.0) {
                for v in c {
                    for l in 0..i.ty.lanes() {
                        let x = (v >> (l * w)) & scalar.mask();
                        assert_eq!(scalar.classify(x), ptx::FpClass::Normal, "{t} {x:#x}");
                        let m = scalar.to_f64(x).abs();
                        let k = if scalar == Scalar::F16 { 7 } else { 20 };
                        assert!(m >= 2f64.powi(-k) && m < 2f64.powi(k + 1), "{t} {x:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn sqrt_operands_are_positive_and_others_take_both_signs() {
        let negative = |t: &str| operands(&form(t), 1000, 0.0).iter().filter(|c| c[0] >> 31 & 1 == 1).count();
        assert_eq!(negative("sqrt.rn.f32"), 0);
        let n = negative("add.rn.f32");
        assert!((400..600).contains(&n), "{n} negative of 1000");
    }

    #[test]
    fn specials_percentage_is_respected() {
        let i = form("add.rn.f64");
        let count = |pct: f64| {
            operands(&i, 10_000, pct)
                .iter()
                .flat_map(|c| c[..2].to_vec())
                .filter(|&x| Scalar::F64.classify(x) != ptx::FpClass::Normal || F64::abs(x) == F64::MAX_FINITE || F64::abs(x) == F64::MIN_NORMAL)
                .count()
        };
        assert_eq!(count(0.0), 0);
        let n = count(0.25);
        assert!((4500..5500).contains(&n), "{n} specials of 20000 lanes at 25%");
        assert_eq!(count(1.0), 20_000);
    }

    #[test]
    fn measure_counts_every_case_once() {
        let cases = vec![[0u64; 3]; 5000];
        let mut seen = 0usize;
        let rate = measure(&cases, Duration::ZERO, |chunk, out| {
            seen += chunk.len();
            out.fill(1);
        });
        assert_eq!(seen, 5000, "one pass when time is zero");
        assert!(rate > 0.0 && rate.is_finite());
    }
}
