//! Batched kernels for the forms outside [`crate::isa::Instr`]: every `cvt` family, `setp`,
//! `set`, `selp` and the mixed-precision arithmetic (issue 16). Thread `i` loads its operands
//! from 64-bit words, runs the form once and stores one 64-bit result word, so that a GPU can
//! record these forms in the capture format (`INSTR OPERAND... -> RESULT`) before programs hold
//! them. The register types are one table per family ([`Form::sources`], [`Form::dest`]); the
//! ptxas tests (`ptx/tests/ptxas_cvt.rs`) assemble these kernels for every documented form.
//!
//! Layout: `.entry forms(.param .u64 in, .param .u64 out, .param .u32 n)`; case `i` reads
//! `in[i * k + j]` for its `j`-th of `k` sources (the low bits of the word, little-endian, as
//! `ld` of the operand's width reads them; a predicate source is word != 0) and writes
//! `out[i]`: the destination's bits zero-extended, or for `setp` bit 0 = `p` and bit 1 = `q`.

use std::fmt::Write as _;

use crate::form::{Dest, Form, Reg};
use crate::isa::PtxVersion;

/// The instruction line, its operands named `%d` (or `%p|%q`, `%p`) and `%s0`, `%s1`, ...; an
/// x4 `cvt.rs` takes its four values as one vector operand, `{%s0, %s1, %s2, %s3}, %s4`.
fn instruction(form: &Form) -> String {
    let mut srcs: Vec<String> = (0..form.sources().len()).map(|j| format!("%s{j}")).collect();
    if let Form::Cvt(crate::cvt::AnyCvt::StochasticQuad(_)) = form {
        let rbits = srcs.split_off(4);
        srcs = vec![format!("{{{}}}", srcs.join(", ")), rbits.join("")];
    }
    let d = match form.dest() {
        Dest::Reg(_) => "%d",
        Dest::Predicates { q: true } => "%p|%q",
        Dest::Predicates { q: false } => "%p",
    };
    format!("{form} {d}, {};", srcs.join(", "))
}

/// The kernel `forms` that runs `form` once per case (module header for `target`, e.g.
/// `sm_90` or `sm_100a`, and PTX ISA `ptx`). The entry's layout is in the module docs.
pub fn module(form: &Form, target: &str, ptx: PtxVersion) -> String {
    let sources = form.sources();
    let k = sources.len() as u32;
    let mut s = String::new();
    let _ = write!(
        s,
        ".version {ptx}\n.target {target}\n.address_size 64\n\n\
         .visible .entry forms(.param .u64 forms_in, .param .u64 forms_out, .param .u32 forms_n)\n{{\n\
         \t.reg .u32 %i, %t, %n, %w, %w2;\n\t.reg .u64 %a, %o, %off, %z;\n\t.reg .pred %done;\n"
    );
    for (j, r) in sources.iter().enumerate() {
        let _ = writeln!(s, "\t.reg {r} %s{j};");
    }
    match form.dest() {
        Dest::Reg(r) => {
            let _ = writeln!(s, "\t.reg {r} %d;");
        }
        Dest::Predicates { .. } => s.push_str("\t.reg .pred %p, %q;\n"),
    }
    let _ = write!(
        s,
        "\tmov.u32 %i, %ctaid.x;\n\tmov.u32 %t, %ntid.x;\n\tmov.u32 %w, %tid.x;\n\tmad.lo.u32 %i, %i, %t, %w;\n\
         \tld.param.u32 %n, [forms_n];\n\tsetp.ge.u32 %done, %i, %n;\n\t@%done ret;\n\
         \tld.param.u64 %a, [forms_in];\n\tld.param.u64 %o, [forms_out];\n\
         \tmul.wide.u32 %off, %i, {};\n\tadd.u64 %a, %a, %off;\n\tmul.wide.u32 %off, %i, 8;\n\tadd.u64 %o, %o, %off;\n",
        8 * k
    );
    for (j, r) in sources.iter().enumerate() {
        let at = 8 * j;
        let _ = match r {
            Reg::Pred => writeln!(s, "\tld.global.u32 %w, [%a+{at}];\n\tsetp.ne.u32 %s{j}, %w, 0;"),
            r => writeln!(s, "\tld.global{r} %s{j}, [%a+{at}];"),
        };
    }
    let _ = writeln!(s, "\t{}", instruction(form));
    // The whole word first, then the destination's own width over its low bytes.
    s.push_str("\tmov.u64 %z, 0;\n\tst.global.u64 [%o], %z;\n");
    let _ = match form.dest() {
        Dest::Reg(r) => writeln!(s, "\tst.global{r} [%o], %d;"),
        Dest::Predicates { q } => {
            s.push_str("\tselp.u32 %w, 1, 0, %p;\n");
            if q {
                s.push_str("\tselp.u32 %w2, 2, 0, %q;\n\tor.b32 %w, %w, %w2;\n");
            }
            writeln!(s, "\tst.global.u32 [%o], %w;")
        }
    };
    s.push_str("\tret;\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(text: &str) -> Form {
        Form::parse(text).unwrap()
    }

    #[test]
    fn the_kernel_reads_k_words_per_case_and_stores_one() {
        let m = module(&form("cvt.rs.relu.satfinite.f16x2.f32"), "sm_100a", PtxVersion::new(8, 7));
        assert!(m.contains(".target sm_100a") && m.contains(".version 8.7"), "{m}");
        assert!(m.contains("mul.wide.u32 %off, %i, 24;"), "three words per case: {m}");
        assert!(m.contains("ld.global.b32 %s2, [%a+16];"), "{m}");
        assert!(m.contains("cvt.rs.relu.satfinite.f16x2.f32 %d, %s0, %s1, %s2;"), "{m}");
        let m = module(&form("cvt.rs.satfinite.e2m1x4.f32"), "sm_100a", PtxVersion::new(8, 7));
        assert!(m.contains("cvt.rs.satfinite.e2m1x4.f32 %d, {%s0, %s1, %s2, %s3}, %s4;"), "{m}");
        assert!(m.contains(".reg .b16 %d;") && m.contains("mul.wide.u32 %off, %i, 40;"), "{m}");
        let m = module(&form("setp.gtu.or.ftz.f32"), "sm_90", PtxVersion::new(7, 8));
        assert!(m.contains("setp.ne.u32 %s2, %w, 0;") && m.contains("or.b32 %w, %w, %w2;"), "{m}");
    }
}
