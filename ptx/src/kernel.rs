//! PTX kernel emission: one module holding an `.entry` per program, each running its program
//! once per thread on a batch of cases.
//!
//! # Layout
//!
//! Entry `pN` runs program N of the module (several programs share a module to amortise the
//! JIT). Its parameters are `.param .u64 pN_in, .param .u64 pN_out, .param .u32 pN_n`: global
//! pointers to the input and output buffers and the number of cases. Thread
//! `i = ctaid.x * ntid.x + tid.x` handles case `i` (threads with `i >= n` do nothing):
//!
//! - inputs: case `i` owns `K` 64-bit slots at `in + 8*K*i` (`K` = the program's inputs);
//!   input `j` sits in the low bits of slot `j` (little-endian, upper bits ignored);
//! - outputs: case `i` owns `M` 64-bit slots at `out + 8*M*i`: slot `j` is output `j`,
//!   zero-extended (a predicate stores 0 or 1). In [`Mode::Trace`] the outputs are followed by
//!   every instruction's destination, in program order: `M = outputs + instructions`.
//!
//! [`Layout`] gives `K` and `M`. `.version` is the lowest PTX ISA version that the target and
//! every instruction need ([`min_ptx_for_sm`]); `.target` is the chosen sm.

use std::borrow::Borrow;
use std::fmt::Write;

use crate::isa::{Arch, PtxVersion, Target, Variant};
use crate::program::{Program, ProgramError, Reg, RegClass, RegName};

/// What a kernel stores per case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The program's outputs.
    Outputs,
    /// The outputs, then every instruction's result.
    Trace,
}

/// Slots per case of one program's kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// 64-bit input slots per case.
    pub inputs: usize,
    /// 64-bit output slots per case.
    pub outputs: usize,
}

impl Layout {
    pub fn of(p: &Program, mode: Mode) -> Layout {
        let traced = if mode == Mode::Trace { p.body().len() } else { 0 };
        Layout { inputs: p.inputs().len(), outputs: p.outputs().len() + traced }
    }
}

/// The lowest PTX ISA version that knows `sm_XX` (each row checked with ptxas 13.5: a module
/// with the next lower version is rejected for that target).
pub fn min_ptx_for_sm(sm: u32) -> Option<PtxVersion> {
    SM_TABLE.iter().find(|r| r.0 == sm).map(|&(_, major, minor)| PtxVersion::new(major, minor))
}

/// Whether `arch`'s suffix exists for its sm: `a` for sm_90 and sm_100 on, `f` for sm_100 on
/// (PTX ISA 9.0, "Target ISA Notes"; ptxas 13.5 assembles an empty module for exactly these
/// of the known sms, and refuses `sm_75a` or `sm_90f` with "Value ... is not defined").
fn has_variant(arch: Arch) -> bool {
    match arch.variant {
        Variant::Plain => true,
        Variant::A => arch.sm == 90 || arch.sm >= 100,
        Variant::F => arch.sm >= 100,
    }
}

/// The lowest target that runs every instruction of `p`: a plain `sm_XX` where one does,
/// else an `sm_XXa`/`sm_XXf` (the architecture-specific `cvt`s of 9.7.9.21); `None` when no
/// known target has them all.
pub fn lowest_arch(p: &Program) -> Option<Arch> {
    [Variant::Plain, Variant::A, Variant::F]
        .into_iter()
        .flat_map(|variant| known_sms().map(move |sm| Arch { sm, variant }))
        .find(|&arch| module_version(&[p], arch).is_ok_and(|ptx| p.check_target(Target::of(arch, ptx)).is_ok()))
}

/// Every target the emitter knows, in ascending order.
pub fn known_sms() -> impl Iterator<Item = u32> {
    SM_TABLE.iter().map(|r| r.0)
}

/// (sm, minimum PTX ISA major, minor), ascending by sm.
const SM_TABLE: &[(u32, u8, u8)] = &[
    (75, 6, 3),
    (80, 7, 0),
    (86, 7, 1),
    (87, 7, 4),
    (88, 9, 0),
    (89, 7, 8),
    (90, 7, 8),
    (100, 8, 6),
    (103, 8, 8),
    (110, 9, 0),
    (120, 8, 7),
    (121, 8, 8),
];

/// Why a module cannot be emitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    #[error(
        "sm_{0} is not a target this emitter knows: use one of sm_75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121"
    )]
    UnknownSm(u32),
    #[error("{0} is not a target: the `a` suffix exists for sm_90 and sm_100 on, `f` for sm_100 on; write sm_{sm}", sm = .0.sm)]
    UnknownVariant(Arch),
    #[error("program {index} cannot run on {arch}: {cause}")]
    Target { index: usize, arch: Arch, cause: ProgramError },
    #[error("no programs to emit")]
    Empty,
}

/// The `.version` of a module for `arch` (`sm_XX`, or `sm_XXa`/`f`) holding `programs`.
pub fn module_version<P: Borrow<Program>>(programs: &[P], arch: impl Into<Arch>) -> Result<PtxVersion, KernelError> {
    let base = min_ptx_for_arch(arch.into())?;
    Ok(programs.iter().fold(base, |v, p| v.max(p.borrow().requirement().1)))
}

/// The lowest PTX ISA version that knows a target with its suffix: the sm's, and at least 8.0
/// for an `a` target and 8.8 for an `f` one (ptxas 13.5 refuses `sm_90a` with 7.8 and
/// `sm_100f` with 8.7).
pub fn min_ptx_for_arch(arch: Arch) -> Result<PtxVersion, KernelError> {
    let plain = min_ptx_for_sm(arch.sm).ok_or(KernelError::UnknownSm(arch.sm))?;
    if !has_variant(arch) {
        return Err(KernelError::UnknownVariant(arch));
    }
    Ok(match arch.variant {
        Variant::Plain => plain,
        Variant::A => plain.max(PtxVersion::new(8, 0)),
        Variant::F => plain.max(PtxVersion::new(8, 8)),
    })
}

/// A module with entry `pN` for `programs[N]`, for `sm_XX` (a `u32`) or an [`Arch`] such as
/// `sm_100a`.
pub fn module<P: Borrow<Program>>(programs: &[P], arch: impl Into<Arch>, mode: Mode) -> Result<String, KernelError> {
    let mut out = String::with_capacity(1200 * programs.len() + 64);
    write_module(&mut out, programs, arch, mode)?;
    Ok(out)
}

/// As [`module`], appending to `out`.
pub fn write_module<P: Borrow<Program>>(
    out: &mut String,
    programs: &[P],
    arch: impl Into<Arch>,
    mode: Mode,
) -> Result<(), KernelError> {
    if programs.is_empty() {
        return Err(KernelError::Empty);
    }
    let arch = arch.into();
    let ptx = module_version(programs, arch)?;
    let target = Target::of(arch, ptx);
    for (index, p) in programs.iter().enumerate() {
        p.borrow().check_target(target).map_err(|cause| KernelError::Target { index, arch, cause })?;
    }
    let _ = writeln!(out, ".version {ptx}\n.target {arch}\n.address_size 64");
    for (index, p) in programs.iter().enumerate() {
        out.push('\n');
        write_entry(out, &format!("p{index}"), p.borrow(), mode);
    }
    Ok(())
}

/// One `.entry` named `name` (the module header is the caller's).
pub fn write_entry(out: &mut String, name: &str, p: &Program, mode: Mode) {
    let layout = Layout::of(p, mode);
    // Kernel-internal registers are %k_*, which no canonical program register name can be.
    let _ = write!(
        out,
        ".visible .entry {name}(\n\t.param .u64 {name}_in,\n\t.param .u64 {name}_out,\n\t.param .u32 {name}_n\n)\n{{\n\
         \t.reg .pred %k_p;\n\t.reg .b32 %k_i<4>;\n\t.reg .b64 %k_a<4>;\n\t.reg .b32 %k_w;\n\t.reg .b64 %k_x;\n\
         \t.reg .b32 %k_z;\n\t.reg .b16 %k_zh;\n"
    );
    let mut present = [false; RegClass::ALL.len()];
    for i in 0..p.reg_count() {
        present[p.reg_type(Reg(i as u16)).class().index()] = true;
    }
    // A predicate pair `%pN|%qN` takes its `%pN` from the predicates' declaration.
    present[RegClass::Pred.index()] |= present[RegClass::PredPair.index()];
    for class in RegClass::ALL {
        if present[class.index()] {
            let _ = writeln!(out, "\t.reg {} {}<{}>;", class.ptx_type(), class.prefix(), p.reg_count());
        }
    }
    let _ = write!(
        out,
        "\tld.param.u64 %k_a0, [{name}_in];\n\tld.param.u64 %k_a1, [{name}_out];\n\tld.param.u32 %k_i0, [{name}_n];\n\
         \tmov.b32 %k_z, 0;\n\tmov.b16 %k_zh, 0;\n\
         \tmov.u32 %k_i1, %ctaid.x;\n\tmov.u32 %k_i2, %ntid.x;\n\tmov.u32 %k_i3, %tid.x;\n\
         \tmad.lo.s32 %k_i1, %k_i1, %k_i2, %k_i3;\n\tsetp.ge.u32 %k_p, %k_i1, %k_i0;\n\t@%k_p ret;\n\
         \tcvta.to.global.u64 %k_a0, %k_a0;\n\tcvta.to.global.u64 %k_a1, %k_a1;\n\
         \tmul.wide.u32 %k_a2, %k_i1, {};\n\tadd.s64 %k_a0, %k_a0, %k_a2;\n\
         \tmul.wide.u32 %k_a3, %k_i1, {};\n\tadd.s64 %k_a1, %k_a1, %k_a3;\n",
        8 * layout.inputs,
        8 * layout.outputs
    );
    for (j, ty) in p.inputs().iter().enumerate() {
        let _ = writeln!(out, "\tld.global.b{} {}, [%k_a0+{}];", ty.bits(), p.name(Reg(j as u16)), 8 * j);
    }
    for j in 0..p.body().len() {
        out.push('\t');
        let _ = p.write_stmt(out, j);
        out.push('\n');
    }
    let traced = if mode == Mode::Trace { p.body().len() } else { 0 };
    let stored = p.outputs().iter().copied().chain((0..traced).map(|j| p.dst(j)));
    for (slot, r) in stored.enumerate() {
        store(out, p, r, 8 * slot);
    }
    out.push_str("\tret;\n}\n");
}

/// Store register `r` zero-extended into the 64-bit slot at byte `offset` of the case's output.
fn store(out: &mut String, p: &Program, r: Reg, offset: usize) {
    let name = p.name(r);
    if let RegClass::F64 | RegClass::B64 = name.class {
        let _ = writeln!(out, "\tst.global.b64 [%k_a1+{offset}], {name};");
        return;
    }
    let scratch = Widening { x: "%k_x", w: "%k_w", zero32: "%k_z", zero16: "%k_zh" };
    out.push_str(&scratch.widen(name, r));
    let _ = writeln!(out, "\tst.global.b64 [%k_a1+{offset}], %k_x;");
}

/// The scratch registers that zero-extend a result into a 64-bit slot: `x` (.b64) receives it,
/// `w` (.b32) is scratch, `zero32` (.b32) and `zero16` (.b16) hold 0. Shared by the kernels
/// here and the instruction VM's arms (`vm::emit`), so both store a result the same way.
pub(crate) struct Widening<'a> {
    pub x: &'a str,
    pub w: &'a str,
    pub zero32: &'a str,
    pub zero16: &'a str,
}

impl Widening<'_> {
    /// The PTX that leaves register `name` (number `r`) zero-extended in `x`.
    ///
    /// 32- and 16-bit values are packed with `mov.b64 x, {lo, 0}`, not widened with
    /// `cvt.u64.u32`/`cvt.u64.u16`: ptxas 13.5 (sm_80 to sm_90) and the r580 driver's JIT
    /// compile a float-typed `set` (`set.geu.f32.f64`, `set.nan.bf16.f16`) whose result is
    /// widened by `cvt` in a kernel that also holds a `div`/`rcp`/`sqrt` slow path to the
    /// integer 1 instead of 1.0 (`SEL R, RZ, 0x1` for `FSEL R, RZ, 1`): the H200 VM gave 0x1
    /// for 1.0 (docs/hardware, 2026-11-29). With the packing ptxas keeps the 1.0
    /// (`tests/ptxas_set_widening.rs` checks the SASS).
    pub fn widen(&self, name: RegName, r: Reg) -> String {
        let Widening { x, w, zero32: z, zero16: zh } = self;
        match name.class {
            RegClass::F64 | RegClass::B64 => format!("\tmov.b64 {x}, {name};\n"),
            RegClass::B32 => format!("\tmov.b64 {x}, {{{name}, {z}}};\n"),
            // A .f32 register feeds no integer instruction: move its bits to a .b32 one first.
            RegClass::F32 => format!("\tmov.b32 {w}, {name};\n\tmov.b64 {x}, {{{w}, {z}}};\n"),
            RegClass::B16 => format!("\tmov.b32 {w}, {{{name}, {zh}}};\n\tmov.b64 {x}, {{{w}, {z}}};\n"),
            RegClass::B8 => format!("\tcvt.u64.u8 {x}, {name};\n"),
            RegClass::Pred => format!("\tselp.u64 {x}, 1, 0, {name};\n"),
            // p in bit 0, q in bit 1 (`Expectation::predicate_pair`).
            RegClass::PredPair => format!("\tselp.u64 {x}, 1, 0, %p{r};\n\t@%q{r} or.b64 {x}, {x}, 2;\n", r = r.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prog(text: &str) -> Program {
        Program::parse(text).unwrap()
    }

    #[test]
    fn a_suffix_is_a_target_only_where_ptxas_defines_it() {
        // `ptxas -arch=sm_XX{a,f}` of an empty module, ptxas 13.5, every known sm: these pass.
        let defined = ["90a", "100a", "100f", "103a", "103f", "110a", "110f", "120a", "120f", "121a", "121f"];
        for sm in known_sms() {
            for v in [Variant::A, Variant::F] {
                let arch = Arch { sm, variant: v };
                let name = format!("{sm}{v}");
                match min_ptx_for_arch(arch) {
                    Ok(_) => assert!(defined.contains(&name.as_str()), "{arch} accepted"),
                    Err(e) => {
                        assert!(!defined.contains(&name.as_str()), "{arch} refused: {e}");
                        assert_eq!(e, KernelError::UnknownVariant(arch));
                        assert!(e.to_string().contains(&format!("write sm_{sm}")), "{e}");
                    }
                }
            }
        }
        let p = prog("// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n");
        assert!(matches!(module(&[&p], Arch::parse("75a").unwrap(), Mode::Outputs), Err(KernelError::UnknownVariant(_))));
    }

    #[test]
    fn version_is_the_targets_floor_or_what_the_instructions_need() {
        let p = prog("// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n");
        let m = module(&[&p], 80, Mode::Outputs).unwrap();
        assert!(m.starts_with(".version 7.0\n.target sm_80\n.address_size 64\n"), "{m}");
        let m = module(&[&p], 100, Mode::Outputs).unwrap();
        assert!(m.starts_with(".version 8.6\n.target sm_100\n"), "{m}");
        // 9.7.3.11: min.xorsign.abs needs PTX ISA 7.2 (sm_86 itself needs only 7.1).
        let x = prog("// inputs: %f0:f32, %f1:f32\nmin.xorsign.abs.f32 %f2, %f0, %f1;\n// outputs: %f2\n");
        let m = module(&[&p, &x], 86, Mode::Outputs).unwrap();
        assert!(m.starts_with(".version 7.2\n.target sm_86\n"), "{m}");
    }

    #[test]
    fn form_the_target_lacks_is_an_error() {
        let p = prog("// inputs: %rd0:f32x2\nadd.rn.f32x2 %rd1, %rd0, %rd0;\n// outputs: %rd1\n");
        let e = module(&[&p], 90, Mode::Outputs).unwrap_err();
        assert!(matches!(e, KernelError::Target { index: 0, arch: Arch { sm: 90, .. }, .. }), "{e}");
        assert!(module(&[&p], 100, Mode::Outputs).is_ok());
        assert_eq!(module(&[&p], 91, Mode::Outputs).unwrap_err(), KernelError::UnknownSm(91));
        assert_eq!(module::<Program>(&[], 90, Mode::Outputs).unwrap_err(), KernelError::Empty);
    }

    #[test]
    fn an_arch_specific_target_names_its_suffix_and_its_floor() {
        let p = prog("// inputs: %f0:f32, %f1:f32\ncvt.rn.satfinite.e2m3x2.f32 %h2, %f0, %f1;\n// outputs: %h2\n");
        let a = Arch { sm: 100, variant: Variant::A };
        let m = module(&[&p], a, Mode::Outputs).unwrap();
        assert!(m.starts_with(".version 8.6\n.target sm_100a\n"), "{m}");
        // The plain sm lacks the form; an f target starts at PTX 8.8 whatever it holds.
        let e = module(&[&p], 100, Mode::Outputs).unwrap_err();
        assert!(e.to_string().contains("sm_100a") && e.to_string().contains("cannot run on sm_100:"), "{e}");
        let add = prog("// inputs: %f0:f32\nadd.rn.f32 %f1, %f0, %f0;\n// outputs: %f1\n");
        let f = module(&[&add], Arch { sm: 100, variant: Variant::F }, Mode::Outputs).unwrap();
        assert!(f.starts_with(".version 8.8\n.target sm_100f\n"), "{f}");
        assert_eq!(min_ptx_for_arch(Arch { sm: 90, variant: Variant::A }), Ok(PtxVersion::new(8, 0)));
        // The lowest target of each: sm_100a for the f32-sourced e2m3 form, plain for add.
        assert_eq!(lowest_arch(&p), Some(a));
        assert_eq!(lowest_arch(&add), Some(Arch::from(75)));
    }

    #[test]
    fn entries_load_inputs_run_the_body_and_store_every_slot() {
        let p = prog(
            "// inputs: %f0:f32, %h1:f16\nadd.rz.ftz.f32 %f2, %f0, %f0;\ntestp.finite.f32 %p3, %f2;\nneg.f16 %h4, %h1;\n// outputs: %p3, %h4\n",
        );
        let m = module(&[&p, &p], 90, Mode::Trace).unwrap();
        assert!(m.contains(".visible .entry p0(") && m.contains(".visible .entry p1("), "{m}");
        assert!(m.contains("\tld.global.b32 %f0, [%k_a0+0];\n\tld.global.b16 %h1, [%k_a0+8];\n"), "{m}");
        assert!(
            m.contains("\tadd.rz.ftz.f32 %f2, %f0, %f0;\n\ttestp.finite.f32 %p3, %f2;\n\tneg.f16 %h4, %h1;\n"),
            "{m}"
        );
        // 2 outputs + 3 traced instructions, 8 bytes each.
        assert!(m.contains("mul.wide.u32 %k_a3, %k_i1, 40;"), "{m}");
        assert!(m.contains("\tselp.u64 %k_x, 1, 0, %p3;\n\tst.global.b64 [%k_a1+0], %k_x;\n"), "{m}");
        assert!(m.contains("[%k_a1+32], %k_x;"), "{m}");
        assert_eq!(Layout::of(&p, Mode::Trace), Layout { inputs: 2, outputs: 5 });
        assert_eq!(Layout::of(&p, Mode::Outputs), Layout { inputs: 2, outputs: 2 });
    }

    #[test]
    fn min_ptx_table_knows_the_issue_targets() {
        let v = |sm| min_ptx_for_sm(sm).map(|v| (v.major, v.minor));
        assert_eq!(v(80), Some((7, 0)));
        assert_eq!(v(86), Some((7, 1)));
        assert_eq!(v(89), Some((7, 8)));
        assert_eq!(v(90), Some((7, 8)));
        assert_eq!(v(100), Some((8, 6)));
        assert_eq!(v(120), Some((8, 7)));
        assert_eq!(v(70), None);
    }
}
