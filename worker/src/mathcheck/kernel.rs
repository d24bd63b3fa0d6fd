//! math-check's CUDA C kernels: [`kernel_source`] calls the function once per input (inputs
//! and results through memory, as `ptx::kernel` lays them out); [`filtered_kernel_source`]
//! walks a range of f32 inputs itself and keeps only what the pre-filter cannot decide
//! (`prefilter`).

use std::fmt::Write as _;

use mathlib::op::{Args as ArgShape, Kernel, Ty};
use mathlib::MathFn;

use super::prefilter::{Filter, BINS};

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
    let call = if row.is_operator() {
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

/// `call` for a one-argument float function: the C that sets `out` from `arg` (`sinf(a0)`,
/// or an operator such as Table 7's `1/sqrtf(x)` over `x`).
fn unary_call(row: &MathFn, ty: &str, arg: &str, out: &str) -> String {
    if row.is_operator() {
        format!("{{ const {ty} x = {arg}; {out} = {}; }}", row.entry)
    } else {
        format!("{out} = {}({arg});", row.name)
    }
}

/// The pre-filtered exhaustive kernel `kernel(start, n, kept, nkept, bins, bin_input, rel,
/// bound)`, to follow `prefilter::DECIDE_C` in the module: thread-strided over inputs `start .. start + n` (f32 bits), it computes the
/// function and the filter's double reference, runs `pf_decide` (`prefilter::DECIDE_C`) and
/// either bins the input (per-block shared counters, then one atomic per bin and block) or
/// appends `(x, y, verdict)` to `kept` (audited passes too, with their bin). `kept` must hold
/// 3n words: each input is written at most once.
pub fn filtered_kernel_source(f: &Filter, kernel: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "// {} ({}): pre-filtered against {}", f.row.entry, f.row.citation(), f.reference_text());
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void {kernel}(unsigned long long start, unsigned long long n, unsigned int* kept,\n\
         \tunsigned long long* nkept, unsigned long long* bins, unsigned int* bin_input, double rel, unsigned int bound) {{"
    );
    let _ = writeln!(s, "\t__shared__ unsigned int sh_n[{BINS}];\n\t__shared__ unsigned int sh_x[{BINS}];");
    let _ = writeln!(s, "\tfor (unsigned int t = threadIdx.x; t < {BINS}; t += blockDim.x) {{ sh_n[t] = 0; sh_x[t] = 0; }}");
    s.push_str("\t__syncthreads();\n");
    s.push_str(
        "\tfor (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n\
         \t     i += (unsigned long long)gridDim.x * blockDim.x) {\n\
         \t\tunsigned int xb = (unsigned int)(start + i);\n\
         \t\tfloat a0 = __uint_as_float(xb);\n\
         \t\tfloat r0;\n",
    );
    let _ = writeln!(s, "\t\t{}", unary_call(f.row, "float", "a0", "r0"));
    s.push_str("\t\tunsigned int y = __float_as_uint(r0);\n\t\tdouble rr;\n\t\tconst double xd = pf_f2d(a0);\n");
    let _ = writeln!(s, "\t\t{}", unary_call(f.reference, "double", "xd", "rr"));
    s.push_str(
        "\t\tunsigned int v = pf_decide(y, rr, rel, bound);\n\
         \t\t/* ptx::approx::prefilter::audited: one passed input in 1024 goes to the CPU too. */\n\
         \t\tif (v == PF_KEEP || (((unsigned long long)xb * 0x9e3779b97f4a7c15ull) >> 54) == 0) {\n\
         \t\t\tunsigned long long k = atomicAdd(nkept, 1ull);\n\
         \t\t\tkept[3 * k] = xb; kept[3 * k + 1] = y; kept[3 * k + 2] = v;\n\
         \t\t} else {\n\
         \t\t\tatomicAdd(&sh_n[v], 1u);\n\
         \t\t\tatomicMax(&sh_x[v], xb);\n\
         \t\t}\n\
         \t}\n\
         \t__syncthreads();\n",
    );
    let _ = writeln!(
        s,
        "\tfor (unsigned int t = threadIdx.x; t < {BINS}; t += blockDim.x)\n\
         \t\tif (sh_n[t]) {{ atomicAdd(&bins[t], (unsigned long long)sh_n[t]); atomicMax(&bin_input[t], sh_x[t]); }}\n}}"
    );
    s
}

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
    fn the_filtered_kernel_computes_the_function_and_its_double_reference() {
        let build = mathlib::Build::default();
        let s = filtered_kernel_source(&Filter::of("expf", &build).unwrap(), "check_filtered");
        assert!(s.contains("r0 = expf(a0);") && s.contains("rr = exp(xd);"), "{s}");
        assert!(s.contains("pf_decide(y, rr, rel, bound)") && s.contains("__global__ void check_filtered"), "{s}");
        let s = filtered_kernel_source(&Filter::of("1/sqrtf", &build).unwrap(), "k");
        assert!(s.contains("r0 = 1/sqrtf(a0);") && s.contains("rr = rsqrt(xd);"), "{s}");
        // An operator row is C over x: Table 7's x/y has no one-argument form, Table 8's 1/x does.
        let s = filtered_kernel_source(&Filter::of("frcp", &build).unwrap(), "k");
        assert!(s.contains("{ const float x = a0; r0 = 1/x; }") && s.contains("{ const double x = xd; rr = 1/x; }"), "{s}");
    }
}
