//! `ptxfuzz math-check FUNC`: a CUDA math-library function on the GPU against the correctly
//! rounded reference and the documented bound (the `mathlib` crate: the appendix tables of
//! the CUDA C++ Programming Guide, CORE-MATH and MPFR references).
//!
//! A kernel calling FUNC once per thread is generated ([`kernel_source`]), compiled by NVRTC
//! (cudarc `nvrtc`) for the GPU's compute capability with the chosen nvcc-style flags, and run
//! on sampled inputs (or all 2^32 of a one-argument single-precision function). Each result
//! is judged by `mathlib::allowed_for` (the row the flags and arguments select) and its
//! distance to the correctly rounded result measured in ulps.
//!
//! `--exhaustive` of a function with a plain ulp bound and a Table 8 double counterpart runs
//! pre-filtered ([`prefilter`]): the GPU decides most inputs against a double reference and
//! the CPU judges the rest and an audit sample (`--no-prefilter`: every input on the CPU).
//!
//! Without a GPU nothing runs on one: the command says so. `--print-source` shows the kernel
//! and `--reference-only` runs the reference side alone (it must accept its own correctly
//! rounded results), both without a GPU. The GPU path has NOT run in this project's CI (no
//! GPU there); `scripts/gpu-check` is where it runs on hardware.

use std::sync::atomic::Ordering;

use anyhow::{bail, Result};
use clap::Args;
use mathlib::op::Ty;
use mathlib::{Build, Cc, Flags};

use crate::cli_values::count_in;
use crate::campaign::source::Rng;
use crate::progress::Progress;
pub use kernel::{arg_types, filtered_kernel_source, kernel_source};
use prefilter::{Filter, Tallies};
use report::{merge, print_report};
pub use report::{judge, judge_filtered, PrefilterReport, Report};

/// Check a CUDA math function on the GPU against the correctly rounded result and its bound.
#[derive(Args, Debug, Clone)]
#[command(after_help = "FUNC is a name of the appendix tables (`ptxfuzz math list` where available): \
sinf, expf, __sinf, __fadd_rz, sin, pow, ... ; the operators of Tables 7 and 8 are fadd, fmul, \
fdiv, frcp (x+y, x*y, x/y, 1/x in float) and dadd, dmul, ddiv, drcp (double); 1/sqrtf is \
Table 7's 1/sqrtf(x).\n\n\
Needs an NVIDIA GPU and driver (NVRTC too): without them it says so and runs nothing; \
--print-source and --reference-only work anywhere.\n\n\
Examples:\n  ptxfuzz math-check sinf --samples 10000000\n  ptxfuzz math-check __expf --exhaustive\n  \
ptxfuzz math-check sinf --fast-math       (Table 9: sinf becomes __sinf)\n\n\
Ctrl-C or SIGTERM stops at the chunk of inputs in flight and prints the report of the inputs \
checked so far, marked interrupted; the exit status is then 130 (a second signal ends it at \
once, also with 130).")]
pub struct MathCheckArgs {
    /// The function (see below).
    pub func: String,
    /// Random inputs (about one in eight a special value: zeros, infinities, NaN, subnormal and
    /// normal bounds, 1, 2, 0.5).
    /// 1 to 2^40. Not with --exhaustive, which checks every input.
    #[arg(long, default_value_t = 1_000_000, conflicts_with = "exhaustive", value_parser = count_in::<u64>(1, MAX_SAMPLES, MAX_SAMPLES_WHY))]
    pub samples: u64,
    /// Every input (one-argument single-precision functions only: 2^32 inputs).
    #[arg(long)]
    pub exhaustive: bool,
    /// Seed of the random inputs (decimal or 0x hex): the same seed draws the same inputs.
    /// Unused with --exhaustive.
    #[arg(long, default_value_t = 1, value_parser = crate::cli_values::seed)]
    pub seed: u64,
    /// GPU ordinal.
    #[arg(long, default_value_t = 0)]
    pub gpu: u32,
    /// Compile with -use_fast_math (Table 9 replaces functions by intrinsics; their bounds apply).
    #[arg(long)]
    pub fast_math: bool,
    /// Compile with -prec-div=false.
    #[arg(long)]
    pub no_prec_div: bool,
    /// Compile with -prec-sqrt=false.
    #[arg(long)]
    pub no_prec_sqrt: bool,
    /// Elements passed to norm/normf/rnorm/rnormf(dim, arr), 1 to 1024 [default: 3]; only for
    /// those functions.
    #[arg(long, value_parser = count_in::<usize>(1, MAX_DIM, MAX_DIM_WHY))]
    pub dim: Option<usize>,
    /// Print the kernel source and exit (no GPU needed).
    #[arg(long)]
    pub print_source: bool,
    /// No GPU: compute the references and allowed sets of the sampled inputs and check that
    /// each allowed set holds its correctly rounded result.
    #[arg(long)]
    pub reference_only: bool,
    /// Mismatching inputs printed, 0 to 10000.
    #[arg(long, default_value_t = 10, value_parser = count_in::<usize>(0, MAX_EXAMPLES, MAX_EXAMPLES_WHY))]
    pub examples: usize,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// With --exhaustive, judge every input on the CPU instead of pre-filtering on the GPU
    /// (slower; for when the pre-filter itself is in doubt).
    #[arg(long)]
    pub no_prefilter: bool,
    #[command(flatten)]
    pub post: crate::sweep::post::PostArgs,
}

/// The most `--samples`: 2^40 (about 10^12), 256 times an exhaustive single-precision check.
/// Inputs are made and judged a chunk at a time ([`chunk_of`]), so memory does not grow with
/// it; time does (the CPU judges every result, some 10^7 a second), and 2^40 is already days.
/// 0 ran nothing and exited 0 with no report.
const MAX_SAMPLES: u64 = 1 << 40;
const MAX_SAMPLES_WHY: &str = "every sample is judged on the CPU (about 10^7 a second), so 2^40 is already days; 0 would check nothing";

/// The most `--dim`: 1024. The kernel declares one variable per element and an `arr[dim]` per
/// thread (a longer array only spills to local memory and slows NVRTC), and each sample is
/// `dim` words. `--dim 4294967296` asked for 32 GiB; `--dim 0` checked nothing and exited 0.
const MAX_DIM: u64 = 1024;
const MAX_DIM_WHY: &str = "the kernel holds the dim elements per thread (one variable each) and every sample is dim words; 0 elements is no call of norm";

/// The most `--examples`: 10,000. Each is a line printed, kept in memory until the end.
const MAX_EXAMPLES: u64 = 10_000;
const MAX_EXAMPLES_WHY: &str = "each example is a printed line kept until the report; more is not read";

/// `--dim` when not given: norm3d's three elements.
const DEFAULT_DIM: usize = 3;

/// Inputs (rows of `k` words) made, run and judged at once: 2^22 words, 32 MiB of inputs
/// (at least one row). The whole of an exhaustive check (2^32 inputs, 32 GiB) or a `--dim 1024`
/// sampling was once allocated up front, and aborted out of memory.
fn chunk_of(k: usize) -> u64 {
    ((1u64 << 22) / k.max(1) as u64).max(1)
}

/// Special values of a float format (each with both signs).
fn specials(t: Ty) -> &'static [u64] {
    match t {
        Ty::F32 => &[0, 0x7f80_0000, 0x7fff_ffff, 1, 0x007f_ffff, 0x0080_0000, 0x7f7f_ffff, 0x3f80_0000, 0x4000_0000, 0x3f00_0000],
        Ty::F64 => &[
            0,
            0x7ff0_0000_0000_0000,
            0x7fff_ffff_ffff_ffff,
            1,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0x3ff0_0000_0000_0000,
            0x4000_0000_0000_0000,
            0x3fe0_0000_0000_0000,
        ],
        _ => &[],
    }
}

/// One random argument of type `t`.
pub fn sample(rng: &mut Rng, t: Ty) -> u64 {
    let r = rng.next_u64();
    let sign_bit = match t {
        Ty::F32 => 1u64 << 31,
        _ => 1u64 << 63,
    };
    match t {
        Ty::Int | Ty::Long => {
            // Mostly small (exponents, Bessel orders), sometimes anything.
            let v = if r & 1 == 0 { ((r >> 8) % 257) as i64 - 128 } else { (r >> 1) as i32 as i64 };
            let v = if t == Ty::Int { v as i32 as i64 } else { v };
            v as u64
        }
        _ if r.is_multiple_of(8) => {
            let s = specials(t);
            s[(r >> 8) as usize % s.len()] | if (r >> 40) & 1 == 1 { sign_bit } else { 0 }
        }
        Ty::F32 if r % 8 < 4 => {
            // |x| in [2^-16, 2^16): where most functions do their interesting work.
            let e = 127 - 16 + (r >> 8) % 32;
            (e << 23) | (r >> 20) & 0x7f_ffff | if (r >> 63) == 1 { sign_bit } else { 0 }
        }
        Ty::F64 if r % 8 < 4 => {
            let e = 1023 - 32 + (r >> 4) % 64;
            (e << 52) | (rng.next_u64() & 0xf_ffff_ffff_ffff) | if (r >> 63) == 1 { sign_bit } else { 0 }
        }
        Ty::F32 => r >> 32,
        _ => r,
    }
}

const NO_GPU: &str = "math-check runs FUNC on an NVIDIA GPU, and no NVIDIA driver was found (libcuda.so cannot be \
loaded): nothing was run. On a machine with a GPU, its driver and NVRTC (libnvrtc.so) it compiles and runs the \
kernel; here, --print-source shows that kernel and --reference-only runs the reference side alone";

/// nvcc-style flags of the check.
fn build_flags(args: &MathCheckArgs) -> Flags {
    if args.fast_math {
        Flags::FAST_MATH
    } else {
        Flags { prec_div: !args.no_prec_div, prec_sqrt: !args.no_prec_sqrt, fast_math: false }
    }
}

fn flags_text(f: &Flags) -> String {
    if f.fast_math {
        "-use_fast_math".into()
    } else {
        format!("-prec-div={} -prec-sqrt={}", f.prec_div, f.prec_sqrt)
    }
}

/// Flag combinations that would be silently ignored: refused with what to do instead.
/// (`--samples` with `--exhaustive` is refused by clap: `conflicts_with`.)
fn check_flags(args: &MathCheckArgs, row: &mathlib::MathFn) -> Result<()> {
    if args.no_prefilter && !args.exhaustive {
        bail!("--no-prefilter applies to --exhaustive only (a sampled check judges every input on the CPU already): drop --no-prefilter or add --exhaustive");
    }
    if let Some(dim) = args.dim {
        if row.op.kernel.args() != mathlib::op::Args::Array {
            bail!(
                "--dim {dim} ({dim:#x}) applies to the array functions norm, normf, rnorm and rnormf only; {} takes {} argument(s) of its own: drop --dim",
                args.func,
                row.op.arg_types(0).len()
            );
        }
    }
    Ok(())
}

pub fn run(args: MathCheckArgs) -> Result<()> {
    let row = mathlib::reference::row(&args.func)?;
    check_flags(&args, row)?;
    let dim = args.dim.unwrap_or(DEFAULT_DIM);
    let client = args.post.client()?;
    let flags = build_flags(&args);
    // The module: `check`, and with a pre-filter `check_filtered` (which needs the compute
    // capability: the rows' conditions depend on it).
    let filter_for = |cc: Cc| -> Option<Filter> {
        if !args.exhaustive || args.no_prefilter {
            return None;
        }
        Filter::of(&args.func, &Build { flags, cc })
            .map_err(|why| eprintln!("math-check: no GPU pre-filter for {} ({why}): every input is judged on the CPU", args.func))
            .ok()
    };
    let source = |filter: Option<&Filter>| {
        let mut src = kernel_source(row, "check", dim);
        if let Some(f) = filter {
            src.push_str(prefilter::DECIDE_C);
            src.push_str(&filtered_kernel_source(f, "check_filtered"));
        }
        src
    };
    if args.print_source {
        print!("{}", source(filter_for(Build::default().cc).as_ref()));
        return Ok(());
    }
    let types = arg_types(row, dim);
    if args.exhaustive && types != [Ty::F32] {
        bail!("--exhaustive needs a one-argument single-precision function ({} takes {:?}); use --samples", args.func, types);
    }
    let k = types.len();
    let m = row.op.result_types().len();
    let n: u64 = if args.exhaustive { 1 << 32 } else { args.samples };
    let mut rng = Rng::new(args.seed);
    let gen_inputs = |start: u64, count: u64, rng: &mut Rng| -> Vec<u64> {
        if args.exhaustive {
            (start..start + count).collect()
        } else {
            (0..count * k as u64).map(|j| sample(rng, types[j as usize % k])).collect()
        }
    };
    // Every input a chunk at a time (drawn in the same order whatever the chunk, so the report
    // is the one of a single pass), computed by `exec` (the GPU, or the reference on the CPU)
    // and judged; progress on stderr, as an exhaustive check is 1024 chunks.
    // Ctrl-C/SIGTERM: the chunk in flight finishes and the report covers the inputs done
    // (`interrupt::stop_flag`, as sweep and campaign do).
    let stop = crate::interrupt::stop_flag()?;
    let mut checked = |label: String, build: &Build, exec: &mut dyn FnMut(&[u64]) -> Result<Vec<u64>>| -> Result<Report> {
        let (chunk, mut done, mut report) = (chunk_of(k), 0u64, None::<Report>);
        let mut progress = Progress::new(label, n as u128);
        while done < n && !stop.load(Ordering::Relaxed) {
            progress.update(done as u128);
            let count = chunk.min(n - done);
            let inputs = gen_inputs(done, count, &mut rng);
            let results = exec(&inputs)?;
            let r = judge(&args.func, row, build, &inputs, &results, (k, m), args.examples);
            report = Some(match report {
                None => r,
                Some(acc) => merge(acc, r, args.examples),
            });
            done += count;
        }
        progress.finish();
        // Interrupted before the first chunk ended: an empty report, still printed.
        let mut r = report.unwrap_or_else(|| judge(&args.func, row, build, &[], &[], (k, m), 0));
        r.planned = n;
        r.interrupted = done < n;
        Ok(r)
    };
    let t0 = std::time::Instant::now();
    if args.reference_only {
        let build = Build { flags, cc: Cc::new(9, 0) };
        let mut r = checked(format!("math-check {} (reference)", args.func), &build, &mut |inputs| {
            // On every core, as the judge: an exhaustive check is 2^32 evaluations.
            use rayon::prelude::*;
            let outs: Vec<_> = inputs.par_chunks_exact(k).map(|x| mathlib::fast::eval(&row.op, x)).collect();
            let mut bits = Vec::with_capacity(outs.len() * m);
            for out in outs {
                match out {
                    Ok(out) => bits.extend(out.iter().map(|v| v.bits())),
                    // An input the reference cannot compute (jn/yn of huge order): said, and
                    // judged as unbounded (NaN results; the judge finds no reference either).
                    Err(e @ mathlib::MathError::BeyondReference { .. }) => {
                        eprintln!("math-check: skipped: {e}");
                        bits.extend(row.op.result_types().iter().map(|_| u64::MAX));
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Ok(bits)
        })?;
        r.exhaustive = args.exhaustive && !r.interrupted;
        r.device = "no GPU: the correctly rounded reference judged against itself".into();
        r.flags = flags_text(&flags);
        r.seconds = t0.elapsed().as_secs_f64();
        print_report(&r, args.json)?;
        if r.mismatches > 0 {
            bail!("{} correctly rounded result(s) outside their own allowed set: a bug in mathlib's bounds", r.mismatches);
        }
        if let Some(c) = client {
            crate::sweep::post::post(&c, &server::server_report(&r, "reference", None, &flags))?;
        }
        return exit_if_interrupted(&r);
    }
    // cudarc panics on first use without the libraries: check them first.
    // SAFETY: these only try to dlopen the libraries.
    let (driver, nvrtc) = unsafe { (cudarc::driver::sys::is_culib_present(), cudarc::nvrtc::sys::is_culib_present()) };
    if !driver {
        bail!("{NO_GPU}");
    }
    if !nvrtc {
        bail!("the NVIDIA driver is here but NVRTC (libnvrtc.so) is not: install the CUDA toolkit's NVRTC (pip install nvidia-cuda-nvrtc-cu12) and put it on LD_LIBRARY_PATH");
    }
    let mut filter = None;
    let mut gpu = gpu::Gpu::open(
        args.gpu,
        &flags,
        |cc| {
            filter = filter_for(cc);
            source(filter.as_ref())
        },
        args.exhaustive && !args.no_prefilter,
    )?;
    let build = Build { flags, cc: gpu.cc };
    if let Some(f) = &filter {
        return run_filtered(&args, &mut gpu, &build, f, client, (t0, &stop));
    }
    let mut r = checked(format!("math-check {}", args.func), &build, &mut |inputs| gpu.run(inputs, k, m))?;
    r.device = gpu.name.clone();
    r.flags = flags_text(&flags);
    r.exhaustive = args.exhaustive && !r.interrupted;
    r.seconds = t0.elapsed().as_secs_f64();
    print_report(&r, args.json)?;
    if let Some(c) = client {
        crate::sweep::post::post(&c, &server::server_report(&r, &format!("cuda:{}", args.gpu), Some(&gpu.name), &flags))?;
    }
    exit_if_interrupted(&r)
}

/// After an interrupted check's report is printed (and posted): say so and exit 130
/// ([`crate::interrupt::exit_interrupted`]).
fn exit_if_interrupted(r: &Report) -> Result<()> {
    if !r.interrupted {
        return Ok(());
    }
    crate::interrupt::exit_interrupted(&format!(
        "math-check: interrupted after {} of {} inputs ({:#x} of {:#x}): the report above covers those only; run again without interrupting for all",
        r.inputs, r.planned, r.inputs, r.planned
    ))
}

/// The pre-filtered exhaustive check: 2^26 inputs per launch, tallies accumulated, then one
/// judgement of everything kept.
fn run_filtered(
    args: &MathCheckArgs,
    gpu: &mut gpu::Gpu,
    build: &Build,
    filter: &Filter,
    client: Option<crate::server::client::Client>,
    (t0, stop): (std::time::Instant, &std::sync::atomic::AtomicBool),
) -> Result<()> {
    let n: u64 = 1 << 32;
    let chunk: u64 = 1 << 26;
    let mut tallies = Tallies::new();
    let mut done = 0;
    let mut progress = Progress::new(format!("math-check {}", args.func), n as u128);
    while done < n && !stop.load(Ordering::Relaxed) {
        progress.update(done as u128);
        tallies.absorb(gpu.run_filtered(done, chunk, filter.rel, filter.bound)?);
        done += chunk;
    }
    progress.finish();
    // The GPU appends in no fixed order: examples come out in input order.
    tallies.kept.sort_unstable();
    let mut r = judge_filtered(&args.func, build, filter, &tallies, args.examples);
    if let Some(x) = r.prefilter.as_ref().and_then(|p| p.max_input) {
        let y = gpu.run(&[x as u64], 1, 1)?;
        r.max_at = Some(report::show_case(&args.func, build, &[x as u64], &y));
    }
    r.device = gpu.name.clone();
    r.flags = flags_text(&build.flags);
    r.planned = n;
    r.interrupted = done < n;
    r.exhaustive = !r.interrupted;
    r.seconds = t0.elapsed().as_secs_f64();
    print_report(&r, args.json)?;
    if let Some(c) = client {
        crate::sweep::post::post(&c, &server::server_report(&r, &format!("cuda:{}", args.gpu), Some(&gpu.name), &build.flags))?;
    }
    let failures = r.prefilter.as_ref().map_or(0, |p| p.audit_failures);
    if failures > 0 {
        bail!(
            "the GPU pre-filter decided {failures} audited input(s) that the judge of record bins differently or rejects              (listed above): a pre-filter bug, or the GPU's double {} outside its documented bound. The report above is              not to be trusted; rerun with --no-prefilter",
            filter.reference.name
        );
    }
    exit_if_interrupted(&r)
}

mod gpu;
mod kernel;
pub mod prefilter;
mod report;
pub mod server;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_fit_their_types_and_include_specials() {
        let mut rng = Rng::new(3);
        let f: Vec<u64> = (0..4000).map(|_| sample(&mut rng, Ty::F32)).collect();
        assert!(f.iter().all(|&v| v >> 32 == 0));
        assert!(f.contains(&0x7f80_0000) || f.contains(&0xff80_0000));
        assert!(f.iter().any(|&v| (v >> 23) & 0xff == 127));
        let i: Vec<u64> = (0..1000).map(|_| sample(&mut rng, Ty::Int)).collect();
        assert!(i.iter().all(|&v| v as i64 == v as i32 as i64));
    }

}
