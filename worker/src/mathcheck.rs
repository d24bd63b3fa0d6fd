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
//! Without a GPU nothing runs on one: the command says so. `--print-source` shows the kernel
//! and `--reference-only` runs the reference side alone (it must accept its own correctly
//! rounded results), both without a GPU. The GPU path has NOT run in this project's CI (no
//! GPU there); `scripts/gpu-check` is where it runs on hardware.

use std::fmt::Write as _;

use anyhow::{bail, Context, Result};
use clap::Args;
use mathlib::op::{Args as ArgShape, Kernel, Ty};
use mathlib::{Accept, Build, Cc, Flags, MathFn};
use rayon::prelude::*;
use serde::Serialize;

use crate::campaign::source::Rng;
use crate::sweep::{bucket, bucket_label, BUCKETS};

/// Check a CUDA math function on the GPU against the correctly rounded result and its bound.
#[derive(Args, Debug, Clone)]
#[command(after_help = "FUNC is a name of the appendix tables (`ptxfuzz math list` where available): \
sinf, expf, __sinf, __fadd_rz, sin, pow, ... ; the operators of Tables 7 and 8 are fadd, fmul, \
fdiv, frcp (x+y, x*y, x/y, 1/x in float) and dadd, dmul, ddiv, drcp (double); 1/sqrtf is \
Table 7's 1/sqrtf(x).\n\n\
Needs an NVIDIA GPU and driver (NVRTC too): without them it says so and runs nothing; \
--print-source and --reference-only work anywhere.\n\n\
Examples:\n  ptxfuzz math-check sinf --samples 10000000\n  ptxfuzz math-check __expf --exhaustive\n  \
ptxfuzz math-check sinf --fast-math       (Table 9: sinf becomes __sinf)")]
pub struct MathCheckArgs {
    /// The function (see below).
    pub func: String,
    /// Random inputs (about one in eight a special value: zeros, infinities, NaN, subnormal and
    /// normal bounds, 1, 2, 0.5).
    #[arg(long, default_value_t = 1_000_000)]
    pub samples: u64,
    /// Every input (one-argument single-precision functions only: 2^32 inputs).
    #[arg(long)]
    pub exhaustive: bool,
    #[arg(long, default_value_t = 1)]
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
    /// Elements passed to norm/normf/rnorm/rnormf(dim, arr).
    #[arg(long, default_value_t = 3)]
    pub dim: usize,
    /// Print the kernel source and exit (no GPU needed).
    #[arg(long)]
    pub print_source: bool,
    /// No GPU: compute the references and allowed sets of the sampled inputs and check that
    /// each allowed set holds its correctly rounded result.
    #[arg(long)]
    pub reference_only: bool,
    /// Mismatching inputs printed.
    #[arg(long, default_value_t = 10)]
    pub examples: usize,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub post: crate::sweep::post::PostArgs,
}

/// The C type of an argument or result.
fn c_type(t: Ty) -> &'static str {
    match t {
        Ty::F32 => "float",
        Ty::F64 => "double",
        Ty::Int => "int",
        Ty::Long => "long",
    }
}

fn load(t: Ty, slot: &str) -> String {
    match t {
        Ty::F32 => format!("__uint_as_float((unsigned int){slot})"),
        Ty::F64 => format!("__longlong_as_double((long long){slot})"),
        Ty::Int => format!("(int)(long long){slot}"),
        Ty::Long => format!("(long){slot}"),
    }
}

fn store(t: Ty, v: &str) -> String {
    match t {
        Ty::F32 => format!("(unsigned long long)__float_as_uint({v})"),
        Ty::F64 => format!("(unsigned long long)__double_as_longlong({v})"),
        Ty::Int | Ty::Long => format!("(unsigned long long)(long long){v}"),
    }
}

/// Whether the row is one of Tables 7/8's operators (`x+y`, `1/x`, `1/sqrtf(x)`) rather than a
/// function call.
fn is_operator(row: &MathFn) -> bool {
    !row.name.starts_with("__") && !row.entry.starts_with(&format!("{}(", row.name))
}

/// Argument types of a call of `row` (`dim` elements for the array forms).
pub fn arg_types(row: &MathFn, dim: usize) -> Vec<Ty> {
    row.op.arg_types(dim)
}

/// The CUDA C++ source of kernel `kernel(in, out, n)`: thread `i` reads its arguments from
/// `in[K*i + j]` (raw bits, integers two's complement), calls the function once and writes
/// each result's bits to `out[M*i + j]` (the ptx::kernel layout).
pub fn kernel_source(row: &MathFn, kernel: &str, dim: usize) -> String {
    let args = arg_types(row, dim);
    let results = row.op.result_types();
    let (k, m) = (args.len(), results.len());
    let mut s = String::new();
    let _ = writeln!(s, "// {} ({}): {}", row.entry, row.table, row.citation());
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void {kernel}(const unsigned long long* in, unsigned long long* out, unsigned int n) {{"
    );
    s.push_str("\tunsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i >= n) return;\n");
    let _ = writeln!(s, "\tconst unsigned long long* a = in + (unsigned long long){k} * i;");
    let _ = writeln!(s, "\tunsigned long long* o = out + (unsigned long long){m} * i;");
    for (j, &t) in args.iter().enumerate() {
        let _ = writeln!(s, "\t{} a{j} = {};", c_type(t), load(t, &format!("a[{j}]")));
    }
    for (j, &t) in results.iter().enumerate() {
        let _ = writeln!(s, "\t{} r{j};", c_type(t));
    }
    let list = |r: std::ops::Range<usize>| r.map(|j| format!("a{j}")).collect::<Vec<_>>().join(", ");
    let call = if is_operator(row) {
        // The operator as the table writes it, over x, y.
        for (j, v) in ["x", "y"].iter().enumerate().take(k) {
            let _ = writeln!(s, "\tconst {} {v} = a{j};", c_type(args[j]));
        }
        format!("r0 = {};", row.entry)
    } else {
        let name = row.name;
        match (row.op.kernel, row.op.kernel.args()) {
            (Kernel::Sincos | Kernel::Sincospi, _) => format!("{name}(a0, &r0, &r1);"),
            (Kernel::Modf | Kernel::Frexp, _) => format!("r0 = {name}(a0, &r1);"),
            (Kernel::Remquo, _) => format!("r0 = {name}(a0, a1, &r1);"),
            (_, ArgShape::Array) => {
                let _ = writeln!(s, "\t{} arr[{k}] = {{{}}};", c_type(args[0]), list(0..k));
                format!("r0 = {name}({k}, arr);")
            }
            _ => format!("r0 = {name}({});", list(0..k)),
        }
    };
    let _ = writeln!(s, "\t{call}");
    for (j, &t) in results.iter().enumerate() {
        let _ = writeln!(s, "\to[{j}] = {};", store(t, &format!("r{j}")));
    }
    s.push_str("}\n");
    s
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

/// Tallies of one check.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub func: String,
    pub device: String,
    pub flags: String,
    pub inputs: u64,
    pub exhaustive: bool,
    /// Inputs whose row documents a bound.
    pub bounded: u64,
    /// Results outside the documented bound.
    pub mismatches: u64,
    /// Max ulp error of result 0 against the correctly rounded result (floats), over all
    /// inputs and over those with a documented bound.
    pub max_ulps: u64,
    pub max_ulps_bounded: u64,
    pub max_at: Option<String>,
    /// Cases per ulp bucket (`sweep::bucket_label`), trailing zeros dropped.
    pub histogram: Vec<u64>,
    /// The documented bounds of the function's rows.
    pub bounds: Vec<String>,
    pub examples: Vec<String>,
    pub seconds: f64,
}

/// Judge `results` (M per input) against the reference for `inputs` (K per input).
/// `shape` is (K arguments, M results) per input.
pub fn judge(name: &str, row: &MathFn, build: &Build, inputs: &[u64], results: &[u64], shape: (usize, usize), keep: usize) -> Report {
    let (k, m) = shape;
    let rtypes = row.op.result_types();
    let fmt_scalar = match row.op.fmt {
        mathlib::Fmt::F32 => ptx::Scalar::F32,
        mathlib::Fmt::F64 => ptx::Scalar::F64,
    };
    let n = inputs.len() / k.max(1);
    let per: Vec<(bool, bool, Option<u64>)> = (0..n)
        .into_par_iter()
        .map(|i| {
            let args = &inputs[i * k..(i + 1) * k];
            let got = &results[i * m..(i + 1) * m];
            let allowed = mathlib::allowed_for(name, build, args).ok().flatten();
            let bounded = allowed.as_ref().is_some_and(|a| a.is_bounded());
            let ok = allowed.as_ref().is_none_or(|a| a.accepts(got));
            let reference = match &allowed {
                Some(a) => a.reference.first().map(|v| v.bits()),
                None => mathlib::fast::eval(&row.op, args).ok().and_then(|o| o.first().map(|v| v.bits())),
            };
            let ulps = match (rtypes[0], reference) {
                (Ty::F32 | Ty::F64, Some(r)) => crate::sweep::ulps(fmt_scalar, got[0], r),
                _ => None,
            };
            (bounded, ok, ulps)
        })
        .collect();
    let mut r = Report {
        func: name.to_string(),
        device: String::new(),
        flags: String::new(),
        inputs: n as u64,
        exhaustive: false,
        bounded: 0,
        mismatches: 0,
        max_ulps: 0,
        max_ulps_bounded: 0,
        max_at: None,
        histogram: vec![0; BUCKETS],
        bounds: mathlib::table::rows_named(mathlib::table::effective_name(name, &build.flags))
            .map(|row| format!("{} [{}]: {}", mathlib::cli::bound_text(&row.bound), row.table, row.text))
            .collect(),
        examples: Vec::new(),
        seconds: 0.0,
    };
    let show = |i: usize| {
        let args: Vec<String> = inputs[i * k..(i + 1) * k].iter().map(|a| format!("0x{a:x}")).collect();
        let got: Vec<String> = results[i * m..(i + 1) * m].iter().map(|v| format!("0x{v:x}")).collect();
        let allowed = mathlib::allowed_for(name, build, &inputs[i * k..(i + 1) * k])
            .ok()
            .flatten()
            .map_or("no bound".to_string(), |a| a.outputs.iter().map(|o: &Accept| o.to_string()).collect::<Vec<_>>().join("; "));
        format!("{name}({}) = {}, allowed {allowed}", args.join(", "), got.join(", "))
    };
    for (i, &(bounded, ok, ulps)) in per.iter().enumerate() {
        r.bounded += bounded as u64;
        if !ok {
            r.mismatches += 1;
            if r.examples.len() < keep {
                r.examples.push(show(i));
            }
        }
        if let Some(u) = ulps {
            r.histogram[bucket(u)] += 1;
            if u > r.max_ulps {
                r.max_ulps = u;
                r.max_at = Some(show(i));
            }
            if bounded {
                r.max_ulps_bounded = r.max_ulps_bounded.max(u);
            }
        }
    }
    while r.histogram.len() > 1 && r.histogram.last() == Some(&0) {
        r.histogram.pop();
    }
    r
}

impl Report {
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "math-check {} on {} ({}): {} inputs{}, {:.1} s",
            self.func,
            self.device,
            self.flags,
            self.inputs,
            if self.exhaustive { " (all)" } else { "" },
            self.seconds
        );
        for b in &self.bounds {
            let _ = writeln!(s, "  documented: {b}");
        }
        let _ = writeln!(s, "  {} inputs with a documented bound; {} results outside it", self.bounded, self.mismatches);
        let _ = writeln!(
            s,
            "  max error: {} ulp ({} ulp where a bound is documented){}",
            self.max_ulps,
            self.max_ulps_bounded,
            self.max_at.as_ref().map_or(String::new(), |m| format!(" at {m}"))
        );
        for (b, &n) in self.histogram.iter().enumerate() {
            if n > 0 {
                let _ = writeln!(s, "    {:>12} ulp  {n:>12}", bucket_label(b));
            }
        }
        for e in &self.examples {
            let _ = writeln!(s, "  outside the bound: {e}");
        }
        s
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

pub fn run(args: MathCheckArgs) -> Result<()> {
    let row = mathlib::reference::row(&args.func)?;
    let client = args.post.client()?;
    let src = kernel_source(row, "check", args.dim);
    if args.print_source {
        print!("{src}");
        return Ok(());
    }
    let types = arg_types(row, args.dim);
    if args.exhaustive && types != [Ty::F32] {
        bail!("--exhaustive needs a one-argument single-precision function ({} takes {:?}); use --samples", args.func, types);
    }
    let flags = build_flags(&args);
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
    let t0 = std::time::Instant::now();
    if args.reference_only {
        let build = Build { flags, cc: Cc::new(9, 0) };
        let inputs = gen_inputs(0, n, &mut rng);
        let mut results = Vec::with_capacity(n as usize * m);
        for i in 0..n as usize {
            let out = mathlib::fast::eval(&row.op, &inputs[i * k..(i + 1) * k])?;
            results.extend(out.iter().map(|v| v.bits()));
        }
        let mut r = judge(&args.func, row, &build, &inputs, &results, (k, m), args.examples);
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
        return Ok(());
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
    let mut gpu = gpu::Gpu::open(args.gpu, &src, &flags)?;
    let build = Build { flags, cc: gpu.cc };
    let mut report: Option<Report> = None;
    let chunk: u64 = 1 << 22;
    let mut done = 0;
    let mut last = std::time::Instant::now();
    while done < n {
        // Long work shows progress (an exhaustive check is 1024 chunks): on stderr, at most
        // every 2 s, so `--json` on stdout stays clean.
        if done > 0 && last.elapsed().as_secs_f64() >= 2.0 {
            last = std::time::Instant::now();
            eprintln!("{}", progress_line(&args.func, done, n, t0.elapsed().as_secs_f64()));
        }
        let count = chunk.min(n - done);
        let inputs = gen_inputs(done, count, &mut rng);
        let results = gpu.run(&inputs, k, m)?;
        let r = judge(&args.func, row, &build, &inputs, &results, (k, m), args.examples);
        report = Some(match report {
            None => r,
            Some(acc) => merge(acc, r, args.examples),
        });
        done += count;
    }
    let mut r = report.context("no inputs")?;
    r.device = gpu.name.clone();
    r.flags = flags_text(&flags);
    r.exhaustive = args.exhaustive;
    r.seconds = t0.elapsed().as_secs_f64();
    print_report(&r, args.json)?;
    match client {
        Some(c) => crate::sweep::post::post(&c, &server::server_report(&r, &format!("cuda:{}", args.gpu), Some(&gpu.name), &flags)),
        None => Ok(()),
    }
}

/// `math-check expf: 1.07 G of 4.29 G inputs (25%), 53.69 M/s, about 60 s left`.
fn progress_line(func: &str, done: u64, n: u64, secs: f64) -> String {
    let si = |v: f64| crate::campaign::stats::si(v).trim_end().to_string();
    let rate = done as f64 / secs.max(1e-9);
    let left = (n - done.min(n)) as f64 / rate.max(1e-9);
    format!(
        "math-check {func}: {} of {} inputs ({:.0}%), {}/s, about {left:.0} s left",
        si(done as f64),
        si(n as f64),
        100.0 * done as f64 / n.max(1) as f64,
        si(rate)
    )
}

fn merge(mut a: Report, b: Report, keep: usize) -> Report {
    a.inputs += b.inputs;
    a.bounded += b.bounded;
    a.mismatches += b.mismatches;
    if b.max_ulps > a.max_ulps {
        a.max_ulps = b.max_ulps;
        a.max_at = b.max_at;
    }
    a.max_ulps_bounded = a.max_ulps_bounded.max(b.max_ulps_bounded);
    if a.histogram.len() < b.histogram.len() {
        a.histogram.resize(b.histogram.len(), 0);
    }
    for (x, y) in a.histogram.iter_mut().zip(b.histogram) {
        *x += y;
    }
    let room = keep.saturating_sub(a.examples.len());
    a.examples.extend(b.examples.into_iter().take(room));
    a
}

fn print_report(r: &Report, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(r)?);
    } else {
        print!("{}", r.text());
    }
    Ok(())
}

mod gpu;
pub mod server;

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str) -> &'static MathFn {
        mathlib::reference::row(name).unwrap()
    }

    #[test]
    fn kernels_call_functions_operators_and_pointer_forms() {
        let s = kernel_source(row("sinf"), "k", 3);
        assert!(s.contains("float a0 = __uint_as_float((unsigned int)a[0]);"), "{s}");
        assert!(s.contains("r0 = sinf(a0);") && s.contains("o[0] = (unsigned long long)__float_as_uint(r0);"), "{s}");
        let s = kernel_source(row("fadd"), "k", 3);
        assert!(s.contains("const float x = a0;") && s.contains("r0 = x+y;"), "{s}");
        let s = kernel_source(row("1/sqrtf"), "k", 3);
        assert!(s.contains("r0 = 1/sqrtf(a0);"), "{s}");
        let s = kernel_source(row("sincosf"), "k", 3);
        assert!(s.contains("sincosf(a0, &r0, &r1);") && s.contains("o[1] ="), "{s}");
        let s = kernel_source(row("remquof"), "k", 3);
        assert!(s.contains("int r1;") && s.contains("r0 = remquof(a0, a1, &r1);"), "{s}");
        let s = kernel_source(row("frexp"), "k", 3);
        assert!(s.contains("double a0 = __longlong_as_double") && s.contains("r0 = frexp(a0, &r1);"), "{s}");
        let s = kernel_source(row("jnf"), "k", 3);
        assert!(s.contains("int a0 = (int)(long long)a[0];") && s.contains("r0 = jnf(a0, a1);"), "{s}");
        let s = kernel_source(row("normf"), "k", 4);
        assert!(s.contains("float arr[4] = {a0, a1, a2, a3};") && s.contains("r0 = normf(4, arr);"), "{s}");
        let s = kernel_source(row("__fadd_rz"), "k", 3);
        assert!(s.contains("r0 = __fadd_rz(a0, a1);"), "{s}");
    }

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

    #[test]
    fn reference_judged_against_itself_has_no_mismatch_and_no_error() {
        for name in ["sinf", "__fadd_rz", "frexpf", "fdiv"] {
            let r = row(name);
            let types = arg_types(r, 3);
            let (k, m) = (types.len(), r.op.result_types().len());
            let mut rng = Rng::new(9);
            let inputs: Vec<u64> = (0..2000 * k).map(|j| sample(&mut rng, types[j % k])).collect();
            let results: Vec<u64> = inputs
                .chunks(k)
                .flat_map(|a| mathlib::fast::eval(&r.op, a).unwrap().iter().map(|v| v.bits()).collect::<Vec<_>>())
                .collect();
            let rep = judge(name, r, &Build::default(), &inputs, &results, (k, m), 3);
            assert_eq!(rep.mismatches, 0, "{name}: {:?}", rep.examples);
            assert_eq!(rep.max_ulps, 0, "{name}");
            assert!(rep.bounded > 0, "{name}");
            assert!(!rep.bounds.is_empty());
        }
    }

    #[test]
    fn the_progress_line_gives_done_total_share_rate_and_time_left() {
        let l = super::progress_line("expf", 1 << 30, 1 << 32, 20.0);
        assert_eq!(l, "math-check expf: 1.07 G of 4.29 G inputs (25%), 53.69 M/s, about 60 s left");
    }

    #[test]
    fn a_result_two_ulps_off_breaks_a_one_ulp_bound() {
        // expm1f: 1 ulp (Table 7).
        let r = row("expm1f");
        let inputs: Vec<u64> = [0.5f32, 1.5, -0.25].iter().map(|x| x.to_bits() as u64).collect();
        let results: Vec<u64> =
            inputs.iter().map(|&a| mathlib::fast::eval(&r.op, &[a]).unwrap()[0].bits() + 2).collect();
        let rep = judge("expm1f", r, &Build::default(), &inputs, &results, (1, 1), 5);
        assert_eq!(rep.mismatches, 3);
        assert_eq!(rep.max_ulps, 2);
        assert_eq!(rep.histogram[2], 3);
        assert!(rep.text().contains("outside the bound: expm1f(0x3f000000)"), "{}", rep.text());
    }
}
