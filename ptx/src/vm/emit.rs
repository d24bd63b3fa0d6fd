//! The VM's PTX module for one sm: entry [`ENTRY`], a fetch-dispatch loop over bytecode with one
//! arm per legal form, each form's text written by the same code as [`crate::kernel`]'s.
//!
//! # Parameters and memory (all global, 64-bit little-endian words)
//!
//! `ptxfuzz_vm(.u64 code, .u64 progs, .u64 in, .u64 out)`; grid `(x, y)`: blocks with
//! `ctaid.y = p` run program `p`, and their threads take its cases in a grid-stride loop over
//! `ctaid.x`. `progs` holds [`PROG_WORDS`] words per program: the word offset of its
//! [`super::Bytecode`] in `code`, the byte offset of its inputs in `in`, the byte offset of its
//! outputs in `out`, its number of cases, and the log2 of its input and of its output slot
//! width in bytes (1, 2 or 3: 2-, 4- or 8-byte slots; [`slot_shift`]). Case `i` of a program
//! with `K` inputs and `M` outputs reads input slot `K*i + j` (little-endian, zero-extended, as
//! `Program::run` takes values) into register slot `j` and writes register slot `outputs[o]`
//! to output slot `M*i + o` (its low bytes: a value fits its type's width; a predicate is 0 or
//! 1). With 8-byte slots this is [`crate::kernel`]'s `Mode::Outputs` layout; a program whose
//! inputs are all 16-bit moves a quarter of the bytes over PCIe (issue 12, point 3). The
//! register file is a `.local` array of [`super::REG_SLOTS`] 64-bit slots per thread.
//!
//! # Dispatch
//!
//! `brx.idx` through a `.branchtargets` table of every arm: one indirect jump per instruction,
//! whatever the number of arms (a compare chain costs up to ~420 compares at sm_100). Every
//! thread of a block runs the same program, so the index is warp-uniform and the jump never
//! diverges. An arm loads its sources from their slots into fixed registers, executes its form,
//! stores the destination zero-extended to 64 bits, and jumps back to the fetch. An arm index
//! beyond the table traps (bytecode is checked on encoding; a trap makes corruption loud).

use std::fmt::Write;

use super::{arms, module_version, VmError, REG_SLOTS};
use crate::isa::{Arch, Instr};
use crate::kernel::Widening;
use crate::program::text::write_line;
use crate::program::{Reg, RegClass, RegName, ValType};

/// The name of the VM's `.entry`.
pub const ENTRY: &str = "ptxfuzz_vm";

/// Words per program in `progs`: code offset, input byte offset, output byte offset, cases,
/// input slot shift, output slot shift.
pub const PROG_WORDS: usize = 6;

/// The slot shift (log2 of bytes) that holds values of `bits` bits: at least 2 bytes (16-bit
/// values and predicates), 4 for 32-bit, 8 for 64-bit.
pub fn slot_shift(bits: u32) -> u32 {
    match bits {
        0..=16 => 1,
        17..=32 => 2,
        _ => 3,
    }
}

/// The VM module's PTX for `arch` (an sm number for the plain `sm_XX`, or e.g. `sm_100a`).
pub fn module(arch: impl Into<Arch>) -> Result<String, VmError> {
    let arch = arch.into();
    let arms = arms(arch)?;
    let v = module_version(arch)?;
    let mut o = String::with_capacity(400 * arms.len() + 4096);
    let _ = writeln!(o, ".version {v}\n.target {arch}\n.address_size 64\n");
    let _ = writeln!(o, "// ptxfuzz instruction VM for {arch}: {} arms, one per legal form (ptx::vm).", arms.len());
    let _ = write!(
        o,
        ".visible .entry {ENTRY}(\n\t.param .u64 vm_code,\n\t.param .u64 vm_progs,\n\t.param .u64 vm_in,\n\t.param .u64 vm_out\n)\n{{\n\
         \t.local .align 8 .b64 vm_regs[{REG_SLOTS}];\n\t.reg .pred %v_p;\n\t.reg .b32 %v_i<8>;\n\t.reg .b64 %v_a<20>;\n\
         \t.reg .b64 %v_w;\n\t.reg .b64 %v_x;\n\t.reg .b32 %v_y;\n\t.reg .b32 %v_s<2>;\n\t.reg .b32 %v_z;\n\t.reg .b16 %v_zh;\n"
    );
    // The arms' own registers: sources 0..3 and the destination (index = source count), named
    // as the one-instruction programs of `arm_text` name them.
    for class in RegClass::ALL {
        let _ = writeln!(o, "\t.reg {} {}<4>;", class.ptx_type(), class.prefix());
    }
    o.push_str(PROLOGUE);
    let targets: Vec<String> = (0..arms.len()).map(|k| format!("VM_A{k}")).collect();
    let _ = write!(
        o,
        "\tsetp.ge.u32 %v_p, %v_i6, {n};\n\t@%v_p trap;\n\tvm_arms: .branchtargets {};\n\tbrx.idx %v_i6, vm_arms;\n",
        targets.join(", "),
        n = arms.len()
    );
    for (k, f) in arms.iter().enumerate() {
        write_arm(&mut o, k, f);
    }
    o.push_str(EPILOGUE);
    Ok(o)
}

/// Registers of the prologue: a0 code (header of the program), a2/a3 the case's first input and
/// output slot pointers' bases, a7 cases, a8 case index, a9 stride, a10 register file, i1 K,
/// i2 N, i3 M, a13 the fetch pointer, i5 the instruction counter, i6 the arm, a14..a17 the
/// destination and source slot addresses, s0/s1 the input and output slot shifts and a18/a19
/// their slot widths in bytes.
const PROLOGUE: &str = "\
\tmov.b32 %v_z, 0;
\tmov.b16 %v_zh, 0;
\tld.param.u64 %v_a0, [vm_code];
\tld.param.u64 %v_a1, [vm_progs];
\tld.param.u64 %v_a2, [vm_in];
\tld.param.u64 %v_a3, [vm_out];
\tcvta.to.global.u64 %v_a0, %v_a0;
\tcvta.to.global.u64 %v_a1, %v_a1;
\tcvta.to.global.u64 %v_a2, %v_a2;
\tcvta.to.global.u64 %v_a3, %v_a3;
\tmov.u32 %v_i0, %ctaid.y;
\tmul.wide.u32 %v_a4, %v_i0, 48;
\tadd.s64 %v_a1, %v_a1, %v_a4;
\tld.global.u64 %v_a4, [%v_a1];
\tshl.b64 %v_a4, %v_a4, 3;
\tadd.s64 %v_a0, %v_a0, %v_a4;
\tld.global.u64 %v_a5, [%v_a1+8];
\tadd.s64 %v_a2, %v_a2, %v_a5;
\tld.global.u64 %v_a6, [%v_a1+16];
\tadd.s64 %v_a3, %v_a3, %v_a6;
\tld.global.u64 %v_a7, [%v_a1+24];
\tld.global.u64 %v_x, [%v_a1+32];
\tcvt.u32.u64 %v_s0, %v_x;
\tld.global.u64 %v_x, [%v_a1+40];
\tcvt.u32.u64 %v_s1, %v_x;
\tmov.u64 %v_a18, 1;
\tshl.b64 %v_a18, %v_a18, %v_s0;
\tmov.u64 %v_a19, 1;
\tshl.b64 %v_a19, %v_a19, %v_s1;
\tld.global.u64 %v_w, [%v_a0];
\tcvt.u32.u64 %v_i1, %v_w;
\tand.b32 %v_i1, %v_i1, 65535;
\tshr.u64 %v_x, %v_w, 16;
\tcvt.u32.u64 %v_i2, %v_x;
\tand.b32 %v_i2, %v_i2, 65535;
\tshr.u64 %v_x, %v_w, 32;
\tcvt.u32.u64 %v_i3, %v_x;
\tand.b32 %v_i3, %v_i3, 65535;
\tmov.u32 %v_i4, %ctaid.x;
\tmov.u32 %v_i5, %ntid.x;
\tmul.wide.u32 %v_a8, %v_i4, %v_i5;
\tmov.u32 %v_i4, %tid.x;
\tcvt.u64.u32 %v_x, %v_i4;
\tadd.s64 %v_a8, %v_a8, %v_x;
\tmov.u32 %v_i4, %nctaid.x;
\tmul.wide.u32 %v_a9, %v_i4, %v_i5;
\tmov.u64 %v_a10, vm_regs;
VM_CASE:
\tsetp.ge.u64 %v_p, %v_a8, %v_a7;
\t@%v_p bra VM_END;
\tcvt.u64.u32 %v_x, %v_i1;
\tmul.lo.u64 %v_a11, %v_a8, %v_x;
\tshl.b64 %v_a11, %v_a11, %v_s0;
\tadd.s64 %v_a11, %v_a2, %v_a11;
\tmov.u64 %v_a12, %v_a10;
\tmov.u32 %v_i4, 0;
VM_IN:
\tsetp.ge.u32 %v_p, %v_i4, %v_i1;
\t@%v_p bra VM_RUN;
\tsetp.eq.u32 %v_p, %v_s0, 1;
\t@%v_p bra VM_IN2;
\tsetp.eq.u32 %v_p, %v_s0, 2;
\t@%v_p bra VM_IN4;
\tld.global.u64 %v_x, [%v_a11];
\tbra.uni VM_IN_SET;
VM_IN2:
\tld.global.u16 %v_y, [%v_a11];
\tcvt.u64.u32 %v_x, %v_y;
\tbra.uni VM_IN_SET;
VM_IN4:
\tld.global.u32 %v_y, [%v_a11];
\tcvt.u64.u32 %v_x, %v_y;
VM_IN_SET:
\tst.local.u64 [%v_a12], %v_x;
\tadd.s64 %v_a11, %v_a11, %v_a18;
\tadd.s64 %v_a12, %v_a12, 8;
\tadd.u32 %v_i4, %v_i4, 1;
\tbra.uni VM_IN;
VM_RUN:
\tadd.s64 %v_a13, %v_a0, 8;
\tmov.u32 %v_i5, 0;
VM_FETCH:
\tsetp.ge.u32 %v_p, %v_i5, %v_i2;
\t@%v_p bra VM_STORE;
\tld.global.u64 %v_w, [%v_a13];
\tadd.s64 %v_a13, %v_a13, 8;
\tadd.u32 %v_i5, %v_i5, 1;
\tcvt.u32.u64 %v_i6, %v_w;
\tand.b32 %v_i6, %v_i6, 65535;
\tbfe.u64 %v_x, %v_w, 16, 12;
\tshl.b64 %v_x, %v_x, 3;
\tadd.s64 %v_a14, %v_a10, %v_x;
\tbfe.u64 %v_x, %v_w, 28, 12;
\tshl.b64 %v_x, %v_x, 3;
\tadd.s64 %v_a15, %v_a10, %v_x;
\tbfe.u64 %v_x, %v_w, 40, 12;
\tshl.b64 %v_x, %v_x, 3;
\tadd.s64 %v_a16, %v_a10, %v_x;
\tbfe.u64 %v_x, %v_w, 52, 12;
\tshl.b64 %v_x, %v_x, 3;
\tadd.s64 %v_a17, %v_a10, %v_x;
";

/// After the arms: store the outputs of the case (words N+1.. of the bytecode name the slots)
/// in the program's output slot width, then the next case.
const EPILOGUE: &str = "\
VM_STORE:
\tcvt.u64.u32 %v_x, %v_i3;
\tmul.lo.u64 %v_a11, %v_a8, %v_x;
\tshl.b64 %v_a11, %v_a11, %v_s1;
\tadd.s64 %v_a11, %v_a3, %v_a11;
\tmov.u32 %v_i4, 0;
VM_OUT:
\tsetp.ge.u32 %v_p, %v_i4, %v_i3;
\t@%v_p bra VM_NEXT;
\tld.global.u64 %v_x, [%v_a13];
\tadd.s64 %v_a13, %v_a13, 8;
\tand.b64 %v_x, %v_x, 4095;
\tshl.b64 %v_x, %v_x, 3;
\tadd.s64 %v_a12, %v_a10, %v_x;
\tld.local.u64 %v_x, [%v_a12];
\tsetp.eq.u32 %v_p, %v_s1, 1;
\t@%v_p bra VM_OUT2;
\tsetp.eq.u32 %v_p, %v_s1, 2;
\t@%v_p bra VM_OUT4;
\tst.global.u64 [%v_a11], %v_x;
\tbra.uni VM_OUT_NEXT;
VM_OUT2:
\tcvt.u32.u64 %v_y, %v_x;
\tst.global.u16 [%v_a11], %v_y;
\tbra.uni VM_OUT_NEXT;
VM_OUT4:
\tcvt.u32.u64 %v_y, %v_x;
\tst.global.u32 [%v_a11], %v_y;
VM_OUT_NEXT:
\tadd.s64 %v_a11, %v_a11, %v_a19;
\tadd.u32 %v_i4, %v_i4, 1;
\tbra.uni VM_OUT;
VM_NEXT:
\tadd.s64 %v_a8, %v_a8, %v_a9;
\tbra.uni VM_CASE;
VM_END:
\tret;
}
";

/// The instruction line of `form` exactly as `ptx::kernel` writes it in a program where its
/// sources are registers 0.. and its destination register `form.inputs`
/// (`add.rn.f32 %f2, %f0, %f1;`, `selp.f32 %f3, %f0, %f1, %p2;`).
pub fn arm_text(form: &Instr) -> String {
    let n = form.inputs as usize;
    let name = |class: RegClass, i: usize| RegName { class, reg: Reg(i as u16) };
    let srcs = (0..n).map(|i| name(ValType::of_operand(form, i).class(), i));
    let mut s = String::new();
    write_line(&mut s, form, name(ValType::of_result(form).class(), n), srcs).expect("writing to a String cannot fail");
    s
}

/// The `ld.local` type that loads a register of `class` from a 64-bit slot.
fn load_type(class: RegClass) -> &'static str {
    match class {
        RegClass::F32 => "f32",
        RegClass::F64 => "f64",
        RegClass::B8 => "b8",
        RegClass::B16 => "b16",
        RegClass::B32 => "b32",
        RegClass::B64 | RegClass::Pred | RegClass::PredPair => "b64",
    }
}

/// Arm `k`: load sources from slots a15.., run the form, store the destination (slot a14).
fn write_arm(o: &mut String, k: usize, form: &Instr) {
    let n = form.inputs as usize;
    let _ = writeln!(o, "VM_A{k}: // arm {k}: {form} ({n} inputs)");
    for i in 0..n {
        let class = ValType::of_operand(form, i).class();
        let (p, slot) = (class.prefix(), 15 + i);
        if class == RegClass::Pred {
            // A predicate slot holds 0 or 1 (as the destination stores below write it).
            let _ = writeln!(o, "\tld.local.b64 %v_x, [%v_a{slot}];\n\tsetp.ne.b64 {p}{i}, %v_x, 0;");
        } else {
            let _ = writeln!(o, "\tld.local.{} {p}{i}, [%v_a{slot}];", load_type(class));
        }
    }
    let _ = writeln!(o, "\t{}", arm_text(form));
    let dst_class = ValType::of_result(form).class();
    let d = RegName { class: dst_class, reg: Reg(n as u16) };
    // Zero-extended to the 64-bit slot exactly as `kernel`'s output stores do (a predicate as
    // 0 or 1, a pair as p | q << 1): `kernel::Widening` says why it packs rather than `cvt`s.
    match dst_class {
        RegClass::F64 => {
            let _ = writeln!(o, "\tst.local.f64 [%v_a14], {d};");
        }
        RegClass::B64 => {
            let _ = writeln!(o, "\tst.local.b64 [%v_a14], {d};");
        }
        _ => {
            let scratch = Widening { x: "%v_x", w: "%v_y", zero32: "%v_z", zero16: "%v_zh" };
            let _ = writeln!(o, "{}\tst.local.b64 [%v_a14], %v_x;", scratch.widen(d, Reg(n as u16)));
        }
    }
    o.push_str("\tbra.uni VM_FETCH;\n");
}

/// The forms of a module's arms, read back from its `// arm K: FORM (N inputs)` lines (for the
/// tests that compare a module with the arm list, and for tools that inspect a module).
pub fn arms_in_module(ptx: &str) -> Vec<(String, usize)> {
    ptx.lines()
        .filter_map(|l| {
            let rest = l.split_once(": // arm ")?.1;
            let (_, rest) = rest.split_once(": ")?;
            let (form, n) = rest.split_once(" (")?;
            Some((form.to_string(), n.strip_suffix(" inputs)")?.parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Program;

    #[test]
    fn every_arm_is_in_the_module_once_in_order_with_the_kernels_text() {
        let a100 = Arch { sm: 100, variant: crate::isa::Variant::A };
        for arch in [Arch::from(80), Arch::from(90), Arch::from(100), a100] {
            let m = module(arch).unwrap();
            assert!(m.contains(&format!(".target {arch}\n")), "{arch}");
            let arms = arms(arch).unwrap();
            let listed: Vec<(String, usize)> = arms.iter().map(|f| (f.to_string(), f.inputs as usize)).collect();
            assert_eq!(arms_in_module(&m), listed, "{arch}");
            let targets = m.lines().find(|l| l.contains(".branchtargets")).unwrap();
            assert_eq!(targets.matches("VM_A").count(), arms.len());
            // The text of each arm is the line `kernel` emits for the form in a program.
            let add = crate::isa::Instr::parse("add.rn.ftz.f32", 2).unwrap();
            assert_eq!(arm_text(&add), "add.rn.ftz.f32 %f2, %f0, %f1;");
            let p = Program::parse("// inputs: %f0:f32, %f1:f32\nadd.rn.ftz.f32 %f2, %f0, %f1;\n// outputs: %f2\n")
                .unwrap();
            let kernel = crate::kernel::module(&[&p], arch, crate::kernel::Mode::Outputs).unwrap();
            assert!(kernel.contains(&format!("\t{}\n", arm_text(&add))) && m.contains(&format!("\t{}\n", arm_text(&add))));
        }
    }

    #[test]
    fn a_predicate_source_is_loaded_from_its_0_or_1_slot() {
        let m = module(90).unwrap();
        let selp = "\tld.local.f32 %f0, [%v_a15];\n\tld.local.f32 %f1, [%v_a16];\n\
                    \tld.local.b64 %v_x, [%v_a17];\n\tsetp.ne.b64 %p2, %v_x, 0;\n\tselp.f32 %f3, %f0, %f1, %p2;\n";
        assert!(m.contains(selp), "{selp}");
        let and = crate::isa::Instr::parse("setp.lt.and.f32", 3).unwrap();
        assert_eq!(arm_text(&and), "setp.lt.and.f32 %p3, %f0, %f1, %p2;");
        let set = crate::isa::Instr::parse("set.lt.f16.f32", 2).unwrap();
        assert_eq!(arm_text(&set), "set.lt.f16.f32 %h2, %f0, %f1;");
    }

    #[test]
    fn testp_arm_stores_its_predicate_as_0_or_1() {
        let m = module(90).unwrap();
        assert!(
            m.contains("\ttestp.finite.f32 %p1, %f0;\n\tselp.u64 %v_x, 1, 0, %p1;\n\tst.local.b64 [%v_a14], %v_x;\n"),
            "{}",
            &m[..2000]
        );
        // PTX 8.1: the `cvt...satfinite` arms need it (9.7.9.21, PTX ISA notes).
        assert!(m.starts_with(".version 8.1\n.target sm_90\n"));
        assert_eq!(module(91).unwrap_err(), VmError::UnknownSm(91));
    }
}
