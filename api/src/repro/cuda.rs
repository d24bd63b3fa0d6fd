//! The `repro.cu` of a finding: a standalone CUDA C++ program that runs the reproducer's
//! program twice on the GPU, checks every output against the allowed set, and says whether
//! the finding reproduces (exit status 1) or not (0); 2 is a CUDA error.
//!
//! 1. A kernel with one inline `asm volatile` statement per instruction. Inputs come from
//!    global memory, never immediates: ptxas would fold constant operands at compile time and
//!    test its own arithmetic instead of the GPU's.
//! 2. The `repro.ptx` module (ptx::kernel layout, embedded as a string) loaded with
//!    `cudaLibraryLoadData` (CUDA 12+) and launched on the same inputs: the exact PTX a
//!    campaign runs, through the driver's JIT.
//!
//! The allowed set is compiled into C: per lane the exact bits, any NaN, a value range (with
//! `.ftz` excluding subnormals) or a mask of bits that must be zero, as `ptx::interp`'s
//! `Expectation::accepts` checks them.

use std::fmt::Write;

use ptx::interp::{Expectation, Outcome};
use ptx::isa::Ftz;
use ptx::program::{Program, Reg, RegClass};
use ptx::Scalar;

use super::files::{self, ReproError};
use super::Reproducer;

/// A program with the input bits it runs on.
struct Case {
    program: Program,
    inputs: Vec<u64>,
}

/// The `.cu` source for `r`.
pub fn source(r: &Reproducer) -> Result<String, ReproError> {
    let (program, inputs) = files::case(r)?;
    let case = Case { program, inputs };
    let expected = case.program.run(&case.inputs)?;
    let ptx = files::ptx_file(r)?;
    let mut s = String::new();
    let _ = write!(
        s,
        "// ptxfuzz reproducer: {sig}\n// target {target} ({device})\n//\n\
         // Build and run on a GPU of {on}:\n\
         //   nvcc {nvcc} -o repro repro.cu && ./repro\n\
         // Exit status: 1 the finding reproduces (some output is not allowed), 0 every output\n\
         // is allowed, 2 a CUDA error.\n//\n",
        sig = r.signature,
        target = r.target,
        device = r.device,
        nvcc = r.nvcc_arch(),
        // An architecture-specific module loads on that sm (a) or its family (f) alone.
        on = match r.variant {
            ptx::isa::Variant::Plain => format!("sm_{} or newer", r.sm),
            ptx::isa::Variant::A => format!("sm_{} (sm_{}a code runs there only)", r.sm, r.sm),
            ptx::isa::Variant::F => format!("the sm_{} family (sm_{}f)", r.sm, r.sm),
        },
    );
    for line in r.program_text.lines() {
        let _ = writeln!(s, "// program: {line}");
    }
    s.push_str(
        "\n#include <cstdio>\n#include <cuda_runtime.h>\n\n\
         #define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \\\n\
         \tfprintf(stderr, \"%s failed: %s\\n\", #x, cudaGetErrorString(e_)); return 2; } } while (0)\n\n",
    );
    s.push_str(HELPERS);
    kernel(&mut s, &case.program);
    for (k, e) in expected.iter().enumerate() {
        accept_fn(&mut s, k, e);
    }
    report_fn(&mut s, &case, &expected);
    let _ = write!(s, "\nstatic const char ptx_module[] = R\"PTXFUZZ(\n{ptx})PTXFUZZ\";\n");
    main_fn(&mut s, &case);
    Ok(s)
}

const HELPERS: &str = "\
// Lane helpers: w is the lane width in bits, inf the infinity's bits.
inline bool lane_is_nan(unsigned long long v, int w, unsigned long long inf) {
\treturn (v & ((1ULL << (w - 1)) - 1)) > inf;
}
inline bool lane_is_subnormal(unsigned long long v, int w, unsigned long long min_normal) {
\tunsigned long long a = v & ((1ULL << (w - 1)) - 1);
\treturn a != 0 && a < min_normal;
}
// Total order of non-NaN values, -0 just below +0.
inline long long lane_key(unsigned long long v, int w) {
\tunsigned long long sign = 1ULL << (w - 1);
\tlong long a = (long long)(v & (sign - 1));
\treturn (v & sign) ? -a - 1 : a;
}

";

/// The C type, asm constraint, load and store expressions of a register class.
fn c_reg(class: RegClass) -> (&'static str, &'static str, &'static str, &'static str) {
    match class {
        RegClass::F32 => ("float", "f", "__uint_as_float((unsigned int)(X))", "(unsigned long long)__float_as_uint(X)"),
        RegClass::F64 => ("double", "d", "__longlong_as_double((long long)(X))", "(unsigned long long)__double_as_longlong(X)"),
        // No asm constraint binds a `.b8`: `kernel` moves it through a short.
        RegClass::B16 | RegClass::B8 => ("unsigned short", "h", "(unsigned short)(X)", "(unsigned long long)(X)"),
        RegClass::B32 => ("unsigned int", "r", "(unsigned int)(X)", "(unsigned long long)(X)"),
        RegClass::B64 => ("unsigned long long", "l", "(X)", "(X)"),
        RegClass::Pred | RegClass::PredPair => ("unsigned int", "r", "(unsigned int)(X)", "(unsigned long long)(X)"),
    }
}

fn kernel(s: &mut String, p: &Program) {
    s.push_str("// One inline asm statement per instruction; operands from global memory.\n");
    s.push_str("__global__ void repro_asm(const unsigned long long* in, unsigned long long* out) {\n");
    for j in 0..p.inputs().len() {
        let (ty, _, load, _) = c_reg(p.name(Reg(j as u16)).class);
        let _ = writeln!(s, "\t{ty} r{j} = {};", load.replace('X', &format!("in[{j}]")));
    }
    for (j, stmt) in p.body().iter().enumerate() {
        let d = p.dst(j);
        let class = p.name(d).class;
        let (ty, con, _, _) = c_reg(class);
        // Neither a predicate nor a `.b8` register can be an asm operand (no constraint
        // binds them): such a source comes in as an unsigned int (0/1) or short and becomes
        // the block's own `q` or `b{i}` register; such a result is written to `p` or `b` and
        // handed out the same way.
        let (mut decls, mut pre) = (Vec::new(), String::new());
        let ops: Vec<String> = stmt
            .srcs()
            .iter()
            .enumerate()
            .map(|(i, &r)| match p.name(r).class {
                RegClass::Pred => {
                    decls.push(".reg .pred q;".to_string());
                    pre += &format!("setp.ne.u32 q, %{}, 0; ", i + 1);
                    "q".to_string()
                }
                RegClass::B8 => {
                    decls.push(format!(".reg .b8 b{i};"));
                    pre += &format!("cvt.u8.u16 b{i}, %{}; ", i + 1);
                    format!("b{i}")
                }
                _ => format!("%{}", i + 1),
            })
            .collect();
        let inputs: Vec<String> = stmt
            .srcs()
            .iter()
            .map(|&r| format!("\"{}\"(r{})", c_reg(p.name(r).class).1, r.0))
            .collect();
        let (dst, post) = match class {
            RegClass::Pred => {
                decls.push(".reg .pred p;".to_string());
                ("p", " selp.u32 %0, 1, 0, p;")
            }
            RegClass::B8 => {
                decls.push(".reg .b8 b;".to_string());
                ("b", " cvt.u16.u8 %0, b;")
            }
            // A packed setp's `p|q` as p + 2q (`ptx::kernel`'s stores).
            RegClass::PredPair => {
                decls.push(".reg .pred p, pq;".to_string());
                ("p|pq", " selp.u32 %0, 1, 0, p; @pq or.b32 %0, %0, 2;")
            }
            _ => ("%0", ""),
        };
        let body = format!("{pre}{} {dst}, {};{post}", stmt.instr, ops.join(", "));
        let text = if decls.is_empty() { body } else { format!("{{ {} {body} }}", decls.join(" ")) };
        let _ = writeln!(s, "\t{ty} r{};", d.0);
        let _ = writeln!(s, "\tasm volatile(\"{text}\" : \"={con}\"(r{}) : {});", d.0, inputs.join(", "));
    }
    for (k, &r) in p.outputs().iter().enumerate() {
        let (_, _, _, store) = c_reg(p.name(r).class);
        let _ = writeln!(s, "\tout[{k}] = {};", store.replace('X', &format!("r{}", r.0)));
    }
    s.push_str("}\n\n");
}

/// Layout constants of a lane format: width, infinity, smallest normal.
fn lane_consts(sc: Scalar) -> (u32, u64, u64) {
    let (eb, fb) = fields(sc);
    (sc.bits(), ((1u64 << eb) - 1) << fb, 1u64 << fb)
}

/// Exponent and fraction bits of a lane format.
fn fields(s: Scalar) -> (u32, u32) {
    match s {
        Scalar::F16 => (5, 10),
        Scalar::BF16 => (8, 7),
        Scalar::F32 => (8, 23),
        Scalar::F64 => (11, 52),
    }
}

/// Order key of a lane value, as `lane_key` computes it in C.
fn key(w: u32, v: u64) -> i64 {
    let sign = 1u64 << (w - 1);
    let a = (v & (sign - 1)) as i64;
    if v & sign != 0 {
        -a - 1
    } else {
        a
    }
}

/// A C condition that lane value `l`, an element of an fp8 pair, is one of its format's NaNs
/// (its magnitude one of the table's NaN encodings, `ptx::narrow_format::LAYOUTS`).
fn narrow_nan_c(n: ptx::narrow_format::Narrow) -> String {
    let l = n.layout();
    let mag = (1u64 << (l.exp_bits + l.man_bits)) - 1;
    let any: Vec<String> = l.nans.iter().map(|m| format!("(l & 0x{mag:x}ULL) == 0x{m:x}ULL")).collect();
    if any.is_empty() {
        "false".into()
    } else {
        format!("({})", any.join(" || "))
    }
}

/// A C condition on lane value `l` for one outcome.
fn outcome_c(sc: Option<Scalar>, o: Outcome) -> String {
    let Some(sc) = sc else {
        // A predicate (only exact bits), or a narrow element: exact bits, or any value where
        // the section leaves it open (ue8m0 of zero); its NaNs are `narrow_nan_c`'s.
        return match o {
            Outcome::Bits(b) => format!("l == {b}ULL"),
            Outcome::Unbounded { zero_mask, .. } => format!("(l & 0x{zero_mask:x}ULL) == 0"),
            _ => "false".into(),
        };
    };
    let (w, inf, min_normal) = lane_consts(sc);
    match o {
        Outcome::Bits(b) => format!("l == 0x{b:x}ULL"),
        Outcome::AnyNan => format!("lane_is_nan(l, {w}, 0x{inf:x}ULL)"),
        Outcome::Range { lo, hi, ftz, .. } => {
            let mut c = format!(
                "(!lane_is_nan(l, {w}, 0x{inf:x}ULL) && lane_key(l, {w}) >= {}LL && lane_key(l, {w}) <= {}LL",
                key(w, lo),
                key(w, hi)
            );
            if ftz == Ftz::Flush {
                let _ = write!(c, " && !lane_is_subnormal(l, {w}, 0x{min_normal:x}ULL)");
            }
            c.push(')');
            c
        }
        Outcome::Unbounded { zero_mask, .. } => format!("(l & 0x{zero_mask:x}ULL) == 0"),
    }
}

fn accept_fn(s: &mut String, k: usize, e: &Expectation) {
    let _ = writeln!(s, "// Output {k}: {e}");
    let _ = writeln!(s, "static bool accepts_{k}(unsigned long long v) {{");
    let lane_bits = e.lane_bits();
    for (i, lane) in e.lanes.iter().enumerate() {
        let shift = i as u32 * lane_bits;
        let mask = if lane_bits == 64 { u64::MAX } else { (1u64 << lane_bits) - 1 };
        let _ = writeln!(s, "\t{{\n\t\tunsigned long long l = (v >> {shift}) & 0x{mask:x}ULL;");
        let conds: Vec<String> = std::iter::once(lane.primary)
            .chain(lane.alternatives.iter().map(|(o, _)| *o))
            .map(|o| match (e.narrow, o) {
                (Some(n), Outcome::AnyNan) => narrow_nan_c(n),
                _ => outcome_c(e.scalar, o),
            })
            .collect();
        let _ = writeln!(s, "\t\tif (!({})) return false;\n\t}}", conds.join(" || "));
    }
    s.push_str("\treturn true;\n}\n\n");
}

/// C string literal contents.
fn c_str(text: &str) -> String {
    text.chars()
        .flat_map(|c| match c {
            '"' => "\\\"".chars().collect::<Vec<_>>(),
            '\\' => "\\\\".chars().collect(),
            '%' => "%%".chars().collect(),
            c if c.is_ascii_graphic() || c == ' ' => vec![c],
            _ => vec!['?'],
        })
        .collect()
}

fn report_fn(s: &mut String, case: &Case, expected: &[Expectation]) {
    let p = &case.program;
    s.push_str("// Print every output with its verdict; the number of outputs not allowed.\n");
    s.push_str("static int report(const char* how, const unsigned long long* out) {\n\tint bad = 0;\n");
    for (k, (&r, e)) in p.outputs().iter().zip(expected).enumerate() {
        let digits = (e.width() as usize).div_ceil(4);
        let _ = writeln!(
            s,
            "\tif (accepts_{k}(out[{k}])) printf(\"%s: output {k} ({name}) = 0x%0{digits}llx: allowed\\n\", how, out[{k}]);\n\
             \telse {{ bad++; printf(\"%s: output {k} ({name}) = 0x%0{digits}llx: NOT ALLOWED (allowed: {allowed})\\n\", how, out[{k}]); }}",
            name = c_str(&p.name(r).to_string()),
            allowed = c_str(&e.to_string()),
        );
    }
    s.push_str("\treturn bad;\n}\n");
}

fn main_fn(s: &mut String, case: &Case) {
    let k = case.inputs.len();
    let m = case.program.outputs().len();
    let values: Vec<String> = case.inputs.iter().map(|v| format!("0x{v:x}ULL")).collect();
    let _ = write!(
        s,
        "
int main() {{
\tconst unsigned long long in[{k}] = {{{values}}};
\tunsigned long long out_asm[{m}], out_ptx[{m}];
\tunsigned long long *d_in, *d_out;
\tCHECK(cudaMalloc(&d_in, sizeof in));
\tCHECK(cudaMalloc(&d_out, sizeof out_asm));
\tCHECK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));

\tCHECK(cudaMemset(d_out, 0, sizeof out_asm));
\trepro_asm<<<1, 1>>>(d_in, d_out);
\tCHECK(cudaGetLastError());
\tCHECK(cudaDeviceSynchronize());
\tCHECK(cudaMemcpy(out_asm, d_out, sizeof out_asm, cudaMemcpyDeviceToHost));

\t// The same program as a campaign runs it: the ptx::kernel module, entry p0, one case.
\tcudaLibrary_t lib;
\tcudaKernel_t p0;
\tCHECK(cudaLibraryLoadData(&lib, ptx_module, 0, 0, 0, 0, 0, 0));
\tCHECK(cudaLibraryGetKernel(&p0, lib, \"p0\"));
\tunsigned int n = 1;
\tvoid* args[] = {{&d_in, &d_out, &n}};
\tCHECK(cudaMemset(d_out, 0, sizeof out_ptx));
\tCHECK(cudaLaunchKernel((const void*)p0, dim3(1), dim3(1), args, 0, 0));
\tCHECK(cudaDeviceSynchronize());
\tCHECK(cudaMemcpy(out_ptx, d_out, sizeof out_ptx, cudaMemcpyDeviceToHost));

\tint bad = report(\"inline asm\", out_asm) + report(\"ptx module\", out_ptx);
\tif (bad) printf(\"REPRODUCED: %d output(s) not allowed\\n\", bad);
\telse printf(\"not reproduced: every output is allowed\\n\");
\treturn bad ? 1 : 0;
}}
",
        values = values.join(", "),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repro::files::tests::sample;

    #[test]
    fn predicate_sources_enter_the_asm_as_0_or_1_and_become_a_predicate_inside_it() {
        let p = Program::parse(
            "// inputs: %f0:f32, %f1:f32\nsetp.lt.f32 %p2, %f0, %f1;\nsetp.gt.and.f32 %p3, %f0, %f1, %p2;\n\
             selp.f32 %f4, %f0, %f1, %p3;\n// outputs: %f4\n",
        )
        .unwrap();
        let mut s = String::new();
        kernel(&mut s, &p);
        let and = "asm volatile(\"{ .reg .pred q; .reg .pred p; setp.ne.u32 q, %3, 0; setp.gt.and.f32 p, %1, %2, q; selp.u32 %0, 1, 0, p; }\" : \"=r\"(r3) : \"f\"(r0), \"f\"(r1), \"r\"(r2));";
        let selp = "asm volatile(\"{ .reg .pred q; setp.ne.u32 q, %3, 0; selp.f32 %0, %1, %2, q; }\" : \"=f\"(r4) : \"f\"(r0), \"f\"(r1), \"r\"(r3));";
        assert!(s.contains(and) && s.contains(selp), "{s}");
    }

    #[test]
    fn b8_registers_enter_and_leave_the_asm_as_shorts() {
        // e2m1x2 pairs live in .b8 registers (9.7.9.21), which no asm constraint binds.
        let p = Program::parse(
            "// inputs: %f0:f32, %f1:f32\ncvt.rn.satfinite.e2m1x2.f32 %rc2, %f0, %f1;\n\
             cvt.rn.f16x2.e2m1x2 %r3, %rc2;\n// outputs: %r3, %rc2\n",
        )
        .unwrap();
        let mut s = String::new();
        kernel(&mut s, &p);
        let down = "asm volatile(\"{ .reg .b8 b; cvt.rn.satfinite.e2m1x2.f32 b, %1, %2; cvt.u16.u8 %0, b; }\" : \"=h\"(r2) : \"f\"(r0), \"f\"(r1));";
        let up = "asm volatile(\"{ .reg .b8 b0; cvt.u8.u16 b0, %1; cvt.rn.f16x2.e2m1x2 %0, b0; }\" : \"=r\"(r3) : \"h\"(r2));";
        assert!(s.contains(down) && s.contains(up), "{s}");
        assert!(s.contains("unsigned short r2;") && s.contains("out[1] = (unsigned long long)(r2);"), "{s}");
    }

    #[test]
    fn kernel_reads_inputs_from_memory_and_runs_each_instruction_in_asm() {
        let src = source(&sample()).unwrap();
        assert!(src.contains("float r0 = __uint_as_float((unsigned int)(in[0]));"), "{src}");
        assert!(src.contains("asm volatile(\"add.rz.f32 %0, %1, %2;\" : \"=f\"(r2) : \"f\"(r0), \"f\"(r1));"), "{src}");
        assert!(src.contains("{ .reg .pred p; testp.finite.f32 p, %1; selp.u32 %0, 1, 0, p; }"), "{src}");
        assert!(src.contains("out[1] = (unsigned long long)(r3);"), "{src}");
        assert!(src.contains("const unsigned long long in[2] = {0x3f000000ULL, 0x33040000ULL};"), "{src}");
        assert!(src.contains("cudaLibraryGetKernel(&p0, lib, \"p0\")"), "{src}");
        assert!(src.contains(".visible .entry p0("), "{src}");
    }

    #[test]
    fn accept_conditions_follow_the_outcomes() {
        assert_eq!(outcome_c(Some(Scalar::F32), Outcome::Bits(0x3f80_0000)), "l == 0x3f800000ULL");
        assert_eq!(outcome_c(Some(Scalar::F16), Outcome::AnyNan), "lane_is_nan(l, 16, 0x7c00ULL)");
        let r = outcome_c(
            Some(Scalar::F32),
            Outcome::Range { lo: 0xbf80_0000, hi: 0x3f80_0000, reference: 0, ftz: Ftz::Flush },
        );
        assert!(r.contains(">= -1065353217LL") && r.contains("<= 1065353216LL"), "{r}");
        assert!(r.contains("lane_is_subnormal(l, 32, 0x800000ULL)"), "{r}");
        assert_eq!(outcome_c(None, Outcome::Bits(1)), "l == 1ULL");
        assert_eq!(narrow_nan_c(ptx::narrow_format::Narrow::E4m3), "((l & 0x7fULL) == 0x7fULL)");
        assert_eq!(narrow_nan_c(ptx::narrow_format::Narrow::E2m3), "false");
        // ue8m0 of zero is left open by the section: that element accepts anything, the other
        // (1.0, 127) its one value.
        let p = Program::parse("// inputs: %r0:bf16x2\ncvt.rz.ue8m0x2.bf16x2 %h1, %r0;\n// outputs: %h1\n").unwrap();
        let e = &p.run(&[0x3f80_0000]).unwrap()[0];
        let mut c = String::new();
        accept_fn(&mut c, 0, e);
        assert!(c.contains("if (!((l & 0x0ULL) == 0)) return false;") && c.contains("if (!(l == 127ULL)) return false;"), "{c}");
        assert!(!c.contains("!(false)"), "{c}");
    }

    #[test]
    fn c_order_key_matches_the_interpreter_order() {
        // -0 just below +0; negative values below both.
        assert_eq!(key(32, 0x8000_0000), -1);
        assert_eq!(key(32, 0), 0);
        assert!(key(32, 0xbf80_0000) < key(32, 0x8000_0001));
        assert!(key(64, 0x7ff0_0000_0000_0000) > key(64, 0x3ff0_0000_0000_0000));
    }

    #[test]
    fn strings_are_escaped_for_c_and_printf() {
        assert_eq!(c_str("a \"b\" 50% \\"), "a \\\"b\\\" 50%% \\\\");
    }
}
