//! The instruction VM: one precompiled PTX module per target (`sm_90`, `sm_100a`, ...) that
//! runs any program as bytecode.
//!
//! A [`Program`](crate::program::Program) becomes [`Bytecode`] ([`bytecode`]): one 64-bit word
//! per instruction naming an *arm* (one legal instruction form at the sm, numbered by [`arms`])
//! and the register-file slots of its destination and sources. The module ([`emit`]) has one
//! `.entry`, `ptxfuzz_vm`, whose threads run a program's bytecode over many cases: a loop that
//! fetches a word and jumps through a `brx.idx` table to the arm of its form, where the form's
//! text is exactly what [`crate::kernel`] emits for it. [`exec`] runs the same bytecode on the
//! CPU with the interpreter's primary results, which proves encoding and decoding.
//!
//! The memory layout the GPU engine fills is documented on [`emit`] and in docs/engines.md
//! ("The instruction VM").

pub mod bytecode;
pub mod emit;
pub mod exec;
pub mod sweep;

use crate::gen::legal_forms;
use crate::isa::{Arch, Instr, PtxVersion, Target};
use crate::kernel::min_ptx_for_arch;

pub use bytecode::{Bytecode, Decoded, Encoder, Op};
pub use emit::{module, slot_shift, ENTRY, PROG_WORDS};

/// Slots of the per-thread register file (64 bits each, 2 KiB per thread in local memory).
/// A program has one register per input and per instruction (SSA), so programs of up to 256
/// registers run on the VM; longer ones are the whole-program JIT's (`kernel`). 256 keeps the
/// local memory a resident H100 grid reserves (132 SMs x 2048 threads x 2 KiB = 528 MiB) small.
pub const REG_SLOTS: usize = 256;

/// Why a program or bytecode cannot be encoded, decoded or run by the VM.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VmError {
    #[error(
        "sm_{0} is not a target the VM knows: use one of sm_75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121"
    )]
    UnknownSm(u32),
    #[error("{0} is not a target: the `a` suffix exists for sm_90 and sm_100 on, `f` for sm_100 on; write sm_{sm}", sm = .0.sm)]
    UnknownVariant(Arch),
    #[error("instruction {index} (`{form}`, {inputs} inputs) has no arm in the {arch} VM: the form is not legal on {arch} (encode for a newer sm, or for the sm_XXa/f target the form needs, e.g. --sm 100a)")]
    NotCovered { index: usize, form: String, inputs: u8, arch: Arch },
    #[error("the program has {regs} registers, the VM's register file {max}: run it with the whole-program kernel (ptx::kernel) or shorten it")]
    TooManyRegisters { regs: usize, max: usize },
    #[error("bytecode of {words} words is too short: its header announces {need} words")]
    Truncated { words: usize, need: usize },
    #[error("bytecode format tag 0x{found:x} ({found}): expected 0x{expected:x} ({expected}); re-encode with this version of ptxfuzz")]
    Format { found: u64, expected: u64 },
    #[error("bytecode word {word} names arm 0x{arm:x} ({arm}), but the {arch} VM has {arms} arms (0..{arms}): encode for {arch}")]
    UnknownArm { word: usize, arm: u64, arms: usize, arch: Arch },
    #[error("bytecode word {word} names register slot 0x{slot:x} ({slot}), outside the register file (0..{REG_SLOTS})")]
    Slot { word: usize, slot: u64 },
    #[error("bytecode word {word}: operand field {field} is 0x{value:x} ({value}) but `{form}` takes only {inputs} source(s); unused fields must be 0")]
    UnusedField { word: usize, field: usize, value: u64, form: String, inputs: u8 },
    #[error("bytecode word {word}: bits 0x{bits:x} ({bits}) above the output's register slot must be 0")]
    OutputWord { word: usize, bits: u64 },
    #[error("the bytecode takes {expected} input(s) per case, got {got}")]
    InputCount { expected: usize, got: usize },
    #[error("{form} has no GPU sweep module: {why}; sweep it with `--no-gpu-kernel` (every input through the engine's job path)")]
    NoSweepModule { form: String, why: String },
    #[error("instruction {index} (`{form}`): {cause}")]
    Eval { index: usize, form: String, cause: crate::interp::EvalError },
}

/// The arms of the VM for `arch` (an sm number for the plain `sm_XX`, or an [`Arch`] such as
/// `sm_100a`), in arm order: every legal form (all of [`legal_forms`], the approximate,
/// ptxas-only and `cvt` ones included) that the target has at some PTX ISA version, in
/// [`Instr`]'s order. An arm's index is its opcode in bytecode. A plain module loads on every
/// later GPU and has no arm for the forms that need `sm_100a`/`sm_100f`
/// ([`VmError::NotCovered`]); the `sm_100a` module has them and loads on an sm_100 GPU alone
/// (PTX ISA "Target ISA Notes"), the `sm_100f` one on its family.
pub fn arms(arch: impl Into<Arch>) -> Result<Vec<Instr>, VmError> {
    let arch = arch.into();
    let floor = floor_of(arch)?;
    Ok(legal_forms()
        .iter()
        .copied()
        .filter(|f| {
            let t = Target::of(arch, floor.max(f.requirement().ptx));
            f.check_target(t).is_ok() && (!f.is_bits_selp() || crate::gen::computed_at(f.ty, t))
        })
        .collect())
}

/// The lowest PTX ISA version that knows `arch` (`kernel::min_ptx_for_arch`), its error as the
/// VM's.
fn floor_of(arch: Arch) -> Result<PtxVersion, VmError> {
    min_ptx_for_arch(arch).map_err(|e| match e {
        crate::kernel::KernelError::UnknownVariant(a) => VmError::UnknownVariant(a),
        _ => VmError::UnknownSm(arch.sm),
    })
}

/// The `.version` of the `arch` VM module: the target's floor or the newest that an arm needs.
pub fn module_version(arch: impl Into<Arch>) -> Result<PtxVersion, VmError> {
    let arch = arch.into();
    let floor = floor_of(arch)?;
    Ok(arms(arch)?.iter().fold(floor, |v, f| v.max(f.requirement().ptx)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{GenConfig, Generator};
    use std::collections::BTreeSet;

    /// The generator's forms for `arch` with every kind of form switched on.
    fn generator_forms(arch: Arch) -> BTreeSet<Instr> {
        let cfg = GenConfig {
            approximate: true,
            contraction: true,
            undocumented: true,
            variant: arch.variant,
            ..GenConfig::for_target(arch.sm, module_version(arch).unwrap())
        };
        Generator::new(cfg).unwrap().forms().collect()
    }

    #[test]
    fn arms_are_exactly_the_forms_the_generator_can_emit() {
        use crate::isa::Variant;
        let suffixed = [Variant::A, Variant::F].map(|variant| Arch { sm: 100, variant });
        for arch in crate::kernel::known_sms().map(Arch::from).chain(suffixed) {
            let arms: BTreeSet<Instr> = arms(arch).unwrap().into_iter().collect();
            let gen = generator_forms(arch);
            let missing: Vec<String> = gen.difference(&arms).map(|f| format!("{f} ({})", f.inputs)).collect();
            let extra: Vec<String> = arms.difference(&gen).map(|f| format!("{f} ({})", f.inputs)).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{arch}: forms without an arm: {missing:?}; arms the generator never emits: {extra:?}"
            );
        }
    }

    #[test]
    fn newer_sms_have_more_arms_and_unknown_sms_are_errors() {
        let n = |sm| arms(sm).unwrap().len();
        assert!(n(80) < n(90) && n(90) < n(100), "{} {} {}", n(80), n(90), n(100));
        // sm_100 has every form but the 37 narrow `cvt`s that need sm_100a or sm_100f (8 of
        // them e2m1x2) and the 8 `cvt.rs` of sm_100a: the VM module is a plain `.target sm_100`.
        let arch_specific = legal_forms().iter().filter(|f| f.requirement().variant != crate::isa::Variant::Plain).count();
        assert_eq!((n(100), arch_specific), (legal_forms().len() - 45, 37 + 8));
        assert_eq!(arms(91).unwrap_err(), VmError::UnknownSm(91));
        assert_eq!(module_version(100).unwrap(), PtxVersion::new(8, 8));
        // Not sm_80's floor (7.0): its `cvt...satfinite` arms need PTX 8.1 (9.7.9.21).
        assert_eq!(module_version(80).unwrap(), PtxVersion::new(8, 1));
        // sm_100a has them all (the f forms run on the family, `a` included), sm_100f all but
        // the `a`-only ones; the sm_100a module's newest arm needs PTX 9.1.
        let (a, f) = (Arch { sm: 100, variant: crate::isa::Variant::A }, Arch { sm: 100, variant: crate::isa::Variant::F });
        let a_only = legal_forms().iter().filter(|f| f.requirement().variant == crate::isa::Variant::A).count();
        assert_eq!((arms(a).unwrap().len(), arms(f).unwrap().len()), (legal_forms().len(), legal_forms().len() - a_only));
        assert_eq!(module_version(a).unwrap(), PtxVersion::new(9, 1));
    }
}
