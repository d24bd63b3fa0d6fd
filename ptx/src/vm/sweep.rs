//! The GPU sweep module for one form (issue 12, point 4): every input of a sweep is made,
//! run and fingerprinted on the GPU, and only the (input, output) pairs the CPU must judge come
//! back, so no input crosses PCIe and most outputs do not either.
//!
//! # Entry and memory
//!
//! `ptxfuzz_sweep(.u64 start, .u64 stride, .u64 count, .u64 acc, .u64 kept)`, a 1-D grid whose
//! threads take `k = 0..count` in a grid-stride loop. Input number `u = (start + k * stride)
//! mod 2^space` (`space` = lane bits x operands) gives operand `j` the bits `(u >> (j * w)) &
//! lane_mask`, copied into both lanes of a packed type: `worker::sweep::operands`' numbering.
//! The form's instruction line is [`super::emit::arm_text`]'s, as in the VM and `kernel`.
//!
//! - `acc[0]` (u64) gains the sum, modulo 2^64, of `mix((u << out_bits) | out)` over the
//!   launch's inputs: the fingerprint of `../shared/hw/h100-sm90/README.md` (`sweeps.jsonl`),
//!   whose terms do not depend on the order inputs run in.
//! - [`Judging::Dense`]: `kept[k] = (u << 32) | out` for every `k`; the CPU judges all.
//! - [`Judging::Filtered`]: the pre-filter ([`crate::approx::prefilter`], its PTX twin) decides.
//!   A pair it keeps (maybe outside the allowed set) is appended from the bottom,
//!   `kept[atom.add(acc[1], 1)]`; a pair it passes that is audited is appended from the top,
//!   `kept[count - 1 - atom.add(acc[2], 1)]`, so the CPU knows which the GPU passed; the
//!   other passes stay on the GPU. Both ends are in no particular order; together they hold at
//!   most `count` pairs, so they never meet.
//!
//! The caller zeroes `acc` (3 words) before each launch. The module assembles with ptxas 13.5
//! for sm_80/90/100 for every form it supports (`ptx/tests/ptxas.rs`), the worker's tests run
//! these semantics on the CPU (`worker::sweep::gpu`), and on an H200 the dense and the
//! approximate-filtered kernels gave the H100's fingerprints (docs/hardware/), and so did the
//! rounded pre-filter's (add.rn.f16 and mul.rn.bf16 in 2.3 s each, 2026-11-29).

use std::fmt::Write;

use super::emit::arm_text;
use super::VmError;
use crate::approx::prefilter::{Prefilter, PTX_REGS, PTX_REG_DECLS};
use crate::isa::{Instr, Target};
use crate::kernel::min_ptx_for_sm;
use crate::program::{RegClass, ValType};

/// The name of the sweep module's `.entry`.
pub const SWEEP_ENTRY: &str = "ptxfuzz_sweep";

/// What comes back to the CPU.
#[derive(Clone, Copy, Debug)]
pub enum Judging<'a> {
    /// Every (input, output) pair, in input order.
    Dense,
    /// Only the pairs this pre-filter keeps (and its audited passes).
    Filtered(&'a Prefilter),
}

/// Why `form` has no sweep module, or `None` if it has one: at most 32 bits of input (the
/// fingerprint's numbering) and a result of at most 32 bits that is not a predicate.
pub fn unsupported(form: &Instr) -> Option<&'static str> {
    let own = ValType::Float(form.ty);
    let reads_own = (0..usize::from(form.inputs)).all(|k| ValType::of_operand(form, k) == own);
    let writes_own = matches!(ValType::of_result(form), ValType::Pred) || ValType::of_result(form) == own;
    if !(reads_own && writes_own) {
        // `cvt`, `set` and `selp`: the module numbers inputs in lanes of the result's format
        // and keeps the result in a register of that format (a float-integer `cvt` and an
        // integer `set` have one float type, but their other end is an integer; a tf32 needs a
        // `.b32` register; an fp8 `cvt`'s other end is a pair of 8-bit elements).
        Some("sources of another type than the result (a conversion, set or selp); sweep it as a form (ptx::form)")
    } else if form.ty.scalar().bits() * form.inputs as u32 > 32 {
        Some("more than 32 bits of input: the GPU sweep numbers inputs in 32 bits")
    } else if form.ty.bits() > 32 {
        Some("a result wider than 32 bits")
    } else if form.dest_is_predicate() {
        Some("a predicate result")
    } else {
        None
    }
}

/// The sweep module of `form` for sm_`sm`.
pub fn module(form: &Instr, sm: u32, judging: Judging) -> Result<String, VmError> {
    let floor = min_ptx_for_sm(sm).ok_or(VmError::UnknownSm(sm))?;
    let version = floor.max(form.requirement().ptx);
    if let Some(why) = unsupported(form) {
        return Err(VmError::NoSweepModule { form: form.to_string(), why: why.into() });
    }
    if form.check_target(Target::new(sm, version)).is_err() {
        return Err(VmError::NoSweepModule { form: form.to_string(), why: format!("not legal on sm_{sm}") });
    }
    let n = form.inputs as usize;
    let s = form.ty.scalar();
    let w = s.bits();
    let space = w * n as u32;
    let class = RegClass::of(form.ty);
    let mut o = String::with_capacity(8192);
    let _ = writeln!(o, ".version {version}\n.target sm_{sm}\n.address_size 64\n");
    let _ = writeln!(o, "// ptxfuzz GPU sweep of {form} ({space}-bit input space; ptx::vm::sweep), {judging:?}.");
    let _ = write!(
        o,
        ".visible .entry {SWEEP_ENTRY}(\n\t.param .u64 sw_start,\n\t.param .u64 sw_stride,\n\t.param .u64 sw_count,\n\
         \t.param .u64 sw_acc,\n\t.param .u64 sw_kept\n)\n{{\n\t.reg .pred %sw_p;\n\t.reg .b32 %sw_i<4>;\n\
         \t.reg .b64 %sw_a<8>;\n\t.reg .b64 %sw_u;\n\t.reg .b64 %sw_v;\n\t.reg .b64 %sw_o;\n\t.reg .b64 %sw_m;\n\
         \t.reg .b64 %sw_t;\n\t.reg .b64 %sw_sum;\n\t.reg .b32 %sw_y;\n"
    );
    for c in RegClass::ALL {
        let _ = writeln!(o, "\t.reg {} {}<4>;", c.ptx_type(), c.prefix());
    }
    if matches!(judging, Judging::Filtered(_)) {
        o.push_str(PTX_REG_DECLS);
    }
    // a0 start, a1 stride, a2 count, a3 acc, a4 kept, a5 k, a6 the grid's stride.
    o.push_str(
        "\tld.param.u64 %sw_a0, [sw_start];\n\tld.param.u64 %sw_a1, [sw_stride];\n\tld.param.u64 %sw_a2, [sw_count];\n\
         \tld.param.u64 %sw_a3, [sw_acc];\n\tld.param.u64 %sw_a4, [sw_kept];\n\tcvta.to.global.u64 %sw_a3, %sw_a3;\n\
         \tcvta.to.global.u64 %sw_a4, %sw_a4;\n\tmov.u32 %sw_i0, %ctaid.x;\n\tmov.u32 %sw_i1, %ntid.x;\n\
         \tmul.wide.u32 %sw_a5, %sw_i0, %sw_i1;\n\tmov.u32 %sw_i2, %tid.x;\n\tcvt.u64.u32 %sw_t, %sw_i2;\n\
         \tadd.s64 %sw_a5, %sw_a5, %sw_t;\n\tmov.u32 %sw_i2, %nctaid.x;\n\tmul.wide.u32 %sw_a6, %sw_i2, %sw_i1;\n\
         \tmov.u64 %sw_sum, 0;\nSW_LOOP:\n\tsetp.ge.u64 %sw_p, %sw_a5, %sw_a2;\n\t@%sw_p bra SW_DONE;\n\
         \tmul.lo.u64 %sw_u, %sw_a5, %sw_a1;\n\tadd.s64 %sw_u, %sw_u, %sw_a0;\n",
    );
    let _ = writeln!(o, "\tand.b64 %sw_u, %sw_u, {};", (1u64 << space) - 1);
    // Operands: lane bits of u, both lanes alike for packed types.
    for j in 0..n {
        let _ = writeln!(o, "\tbfe.u64 %sw_v, %sw_u, {}, {w};", j as u32 * w);
        if form.ty.lanes() == 2 {
            let _ = writeln!(o, "\tshl.b64 %sw_t, %sw_v, {w};\n\tor.b64 %sw_v, %sw_v, %sw_t;");
        }
        let r = format!("{}{j}", class.prefix());
        match class {
            RegClass::B16 => writeln!(o, "\tcvt.u16.u64 {r}, %sw_v;"),
            RegClass::B32 => writeln!(o, "\tcvt.u32.u64 {r}, %sw_v;"),
            RegClass::F32 => writeln!(o, "\tcvt.u32.u64 %sw_y, %sw_v;\n\tmov.b32 {r}, %sw_y;"),
            // `unsupported` admits only results and inputs of at most 32 bits.
            RegClass::F64 | RegClass::B64 | RegClass::B8 | RegClass::Pred | RegClass::PredPair => {
                unreachable!("{form} passed `unsupported`")
            }
        }
        .expect("writing to a String");
    }
    let _ = writeln!(o, "\t{}", arm_text(form));
    let d = format!("{}{n}", class.prefix());
    match class {
        RegClass::B16 => writeln!(o, "\tcvt.u64.u16 %sw_o, {d};"),
        RegClass::B32 => writeln!(o, "\tcvt.u64.u32 %sw_o, {d};"),
        RegClass::F32 => writeln!(o, "\tmov.b32 %sw_y, {d};\n\tcvt.u64.u32 %sw_o, %sw_y;"),
        RegClass::F64 | RegClass::B64 | RegClass::B8 | RegClass::Pred | RegClass::PredPair => {
            unreachable!("{form} passed `unsupported`")
        }
    }
    .expect("writing to a String");
    // The fingerprint term: splitmix64's finalizer of (u << out_bits) | out.
    let _ = writeln!(o, "\tshl.b64 %sw_m, %sw_u, {};\n\tor.b64 %sw_m, %sw_m, %sw_o;", form.ty.bits());
    o.push_str(
        "\tshr.u64 %sw_t, %sw_m, 30;\n\txor.b64 %sw_m, %sw_m, %sw_t;\n\tmul.lo.u64 %sw_m, %sw_m, 0xBF58476D1CE4E5B9;\n\
         \tshr.u64 %sw_t, %sw_m, 27;\n\txor.b64 %sw_m, %sw_m, %sw_t;\n\tmul.lo.u64 %sw_m, %sw_m, 0x94D049BB133111EB;\n\
         \tshr.u64 %sw_t, %sw_m, 31;\n\txor.b64 %sw_m, %sw_m, %sw_t;\n\tadd.u64 %sw_sum, %sw_sum, %sw_m;\n\
         \tshl.b64 %sw_m, %sw_u, 32;\n\tor.b64 %sw_m, %sw_m, %sw_o;\n",
    );
    match judging {
        Judging::Dense => o.push_str("\tshl.b64 %sw_t, %sw_a5, 3;\n"),
        Judging::Filtered(pf) => {
            let [x, h, keep, aud] = PTX_REGS;
            let _ = writeln!(o, "\tmov.b64 {x}, %sw_u;\n\tmov.b64 {h}, %sw_o;");
            o.push_str(&pf.ptx_keep("SW_PF"));
            // Kept: from the bottom (acc[1]); passed and audited: from the top (acc[2]).
            let _ = writeln!(o, "\t@{keep} bra SW_KEEP;\n\t@!{aud} bra SW_NEXT;");
            o.push_str(
                "\tatom.global.add.u64 %sw_t, [%sw_a3+16], 1;\n\tsub.s64 %sw_t, %sw_a2, %sw_t;\n\tsub.s64 %sw_t, %sw_t, 1;\n\
                 \tbra.uni SW_STORE;\nSW_KEEP:\n\tatom.global.add.u64 %sw_t, [%sw_a3+8], 1;\nSW_STORE:\n\tshl.b64 %sw_t, %sw_t, 3;\n",
            );
        }
    }
    o.push_str(
        "\tadd.s64 %sw_t, %sw_a4, %sw_t;\n\tst.global.u64 [%sw_t], %sw_m;\nSW_NEXT:\n\tadd.s64 %sw_a5, %sw_a5, %sw_a6;\n\
         \tbra.uni SW_LOOP;\nSW_DONE:\n\tred.global.add.u64 [%sw_a3], %sw_sum;\n\tret;\n}\n",
    );
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approx::Form;

    #[test]
    fn a_filtered_module_runs_the_form_then_the_prefilter_and_appends_kept_pairs() {
        let rcp = Instr::parse_default("rcp.approx.f32").unwrap();
        let pf = Prefilter::new(&Form::of(&rcp).unwrap()).unwrap();
        let m = module(&rcp, 90, Judging::Filtered(&pf)).unwrap();
        assert!(m.starts_with(".version 7.8\n.target sm_90\n"), "{}", &m[..200]);
        let form = m.find("\trcp.approx.f32 %f1, %f0;\n").expect("the form's line");
        let filter = m.find("// pre-filter").unwrap();
        let append = m.find("atom.global.add.u64 %sw_t, [%sw_a3+8], 1;").unwrap();
        assert!(form < filter && filter < append);
        assert!(m.contains("\t@%pf_keep bra SW_KEEP;\n\t@!%pf_aud bra SW_NEXT;\n\tatom.global.add.u64 %sw_t, [%sw_a3+16], 1;\n"));
        assert!(m.contains("\tand.b64 %sw_u, %sw_u, 4294967295;\n"));
    }

    #[test]
    fn a_dense_module_of_a_packed_binary_half_form_splits_u_and_copies_lanes() {
        let add = Instr::parse_default("add.rn.f16x2").unwrap();
        assert_eq!(add.inputs, 2);
        let m = module(&add, 80, Judging::Dense).unwrap();
        assert!(m.contains("\tbfe.u64 %sw_v, %sw_u, 16, 16;\n\tshl.b64 %sw_t, %sw_v, 16;\n\tor.b64 %sw_v, %sw_v, %sw_t;\n\tcvt.u32.u64 %r1, %sw_v;\n"), "{m}");
        // The fingerprint's shift is the result's width (32 for f16x2).
        assert!(m.contains("\tshl.b64 %sw_m, %sw_u, 32;\n\tor.b64 %sw_m, %sw_m, %sw_o;\n\tshr.u64"));
        assert!(!m.contains("atom.global"));
    }

    #[test]
    fn forms_beyond_32_bits_or_illegal_on_the_sm_have_no_module() {
        let f = |s: &str| Instr::parse_default(s).unwrap();
        for (form, sm, why) in [
            ("add.rn.f32", 90, "32 bits of input"),
            ("rcp.rn.f64", 90, "32 bits of input"),
            ("testp.finite.f32", 90, "predicate"),
            ("add.rn.bf16", 80, "not legal"),
            // One float type, but an integer or tf32 result (its own register class).
            ("set.lt.s32.f32", 90, "sweep it as a form"),
            ("cvt.rna.tf32.f32", 90, "sweep it as a form"),
            ("cvt.rzi.s32.f32", 90, "sweep it as a form"),
            // An fp8 pair at one end (a .b16 of two 8-bit elements).
            ("cvt.rn.f16x2.e4m3x2", 90, "sweep it as a form"),
        ] {
            let e = module(&f(form), sm, Judging::Dense).unwrap_err().to_string();
            assert!(e.contains(why), "{form}: {e}");
        }
    }
}
