//! `ptxfuzz vm-ptx`: print the instruction VM's PTX module for an sm, or the forms it covers.

use std::io::Write;

use anyhow::{Context, Result};
use clap::Args;

const AFTER: &str = "\
The instruction VM (docs/engines.md, \"The instruction VM\") is one PTX module per sm with one
.entry, ptxfuzz_vm, that runs any program encoded as bytecode (ptx::vm::Bytecode) over many
cases: one arm per legal instruction form at that sm, each form written exactly as the
per-program kernels write it. It assembles with ptxas for sm_80, sm_90, sm_100 and sm_100a (CI) and
ran on H200s (sm_90, docs/hardware/README.md: every recorded H100 case bit for bit; its cvt,
setp, set and selp arms in campaigns and modes-check on 2026-11-29).

Examples:
  ptxfuzz vm-ptx --sm 90 > vm_sm90.ptx && ptxas -arch=sm_90 vm_sm90.ptx -o vm_sm90.cubin
  ptxfuzz vm-ptx --sm 100 --list | grep '^min\\.'
  ptxfuzz vm-ptx --sm 90 --list | wc -l        (the number of arms)
  ptxfuzz vm-ptx --sm 100a --list | grep '^cvt\\.rs'  (arms only sm_100a has)
  ptxfuzz vm-ptx --sm 90 --sweep rcp.approx.f32 (the GPU sweep module `sweep` runs for a form)";

/// Print the instruction VM's PTX module for an sm (or, with --list, the forms it covers).
#[derive(Args, Debug)]
#[command(after_help = AFTER)]
pub struct VmPtxArgs {
    /// Target GPU, `sm_XX` as XX (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121), or with
    /// its suffix (100a, 100f: the module then has the forms only that target has, and loads
    /// on that sm, or its family for f, alone). The module's `.target`; its `.version` is the
    /// lowest PTX ISA version every arm needs.
    #[arg(long, default_value = "90")]
    sm: ptx::isa::Arch,

    /// Print the forms the module has an arm for instead of the PTX, one per line in arm order
    /// (the arm index is the line number minus 1): the mnemonic as `ptxfuzz eval` takes it, a
    /// tab, and the number of source operands `eval` then wants (min/max have 2- and 3-input
    /// forms under one mnemonic).
    #[arg(long)]
    list: bool,

    /// Print instead the GPU sweep module of this form (ptx::vm::sweep: inputs made, run and
    /// fingerprinted on the GPU; with the pre-filter where the form has one), as `ptxfuzz
    /// sweep --target cuda` runs it. Forms of at most 32 bits of input and of result.
    #[arg(long, value_name = "INSTR", conflicts_with = "list")]
    sweep: Option<String>,
}

pub fn run(args: VmPtxArgs) -> Result<()> {
    // Build first, so that a bad --sm is reported before anything is printed.
    let text = if let Some(form) = &args.sweep {
        anyhow::ensure!(args.sm.variant == ptx::isa::Variant::Plain, "--sweep builds a plain module (its forms are plain): give --sm {}", args.sm.sm);
        sweep_module(form, args.sm.sm)?
    } else if args.list {
        ptx::vm::arms(args.sm)?.iter().map(|f| format!("{f}\t{}\n", f.inputs)).collect::<String>()
    } else {
        ptx::vm::module(args.sm)?
    };
    // `vm-ptx --list | head` closes the pipe early: `output` ends ptxfuzz quietly then.
    crate::output::stdout().write_all(text.as_bytes()).context("writing to stdout")
}

/// The GPU sweep module of the form `text` on sm_`sm`; an unknown form, or one without a
/// module, is answered with the nearest forms that have one and how to list them all.
fn sweep_module(text: &str, sm: u32) -> Result<String> {
    // The sm first: forms of an sm that does not exist would be no advice.
    let arms = ptx::vm::arms(sm)?;
    let built = ptx::isa::Instr::parse_default(text).map_err(anyhow::Error::from).and_then(|instr| {
        let pf = ptx::approx::prefilter::Prefilter::of(&instr);
        let judging = pf.as_ref().map_or(ptx::vm::sweep::Judging::Dense, ptx::vm::sweep::Judging::Filtered);
        Ok(ptx::vm::sweep::module(&instr, sm, judging)?)
    });
    built.map_err(|e| {
        let mut swept: Vec<String> = arms.iter().filter(|f| ptx::vm::sweep::unsupported(f).is_none()).map(|f| f.to_string()).collect();
        // The same opcode first (`rcp.aprox.f32` means an rcp), then the fewest edits.
        let opcode = |f: &str| f.split('.').next().unwrap_or("").to_string();
        swept.sort_by_key(|f| (opcode(f) != opcode(text), distance(text, f), f.clone()));
        swept.dedup();
        swept.truncate(3);
        let e = advice(text, e);
        anyhow::anyhow!(
            "{e}\nthe nearest forms with a GPU sweep module on sm_{sm}: {}; `ptxfuzz vm-ptx --sm {sm} --list` lists every form of the VM (those of at most 32 bits of input and of result, read and written in one float type, have one)",
            swept.join(", ")
        )
    })
}

/// The error of a form without a GPU sweep module, with advice that works for it: the VM's
/// own message offers `sweep --no-gpu-kernel`, which `sweep` refuses for a form of more than
/// 64 bits of input (`add.rn.f64`); such a form is sampled by a campaign instead.
fn advice(text: &str, e: anyhow::Error) -> String {
    let Some(ptx::vm::VmError::NoSweepModule { form, why }) = e.downcast_ref::<ptx::vm::VmError>() else {
        return e.to_string();
    };
    let Ok(instr) = ptx::isa::Instr::parse_default(text) else { return e.to_string() };
    match worker::sweep::space_bits(&instr) {
        Ok(_) => format!(
            "{form} has no GPU sweep module: {why}; sweep it with `ptxfuzz sweep {form} --no-gpu-kernel` (every input through the engine's job path)"
        ),
        Err(too_many) => format!("{form} has no GPU sweep module: {why}; nor can `ptxfuzz sweep` take it: {too_many}"),
    }
}

/// Edit distance between two form names (insertions, deletions, substitutions of bytes).
fn distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.as_bytes().iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let next = (diag + usize::from(x != y)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_form_without_a_module_names_the_nearest_forms_and_the_list_command() {
        // A typo, an unknown form, and a legal form without a sweep module.
        for (form, near) in [("rcp.aprox.f32", "rcp.approx.f32"), ("ex2.approx.f8", "ex2.approx.f16"), ("fma.rn.f32", "")] {
            let e = format!("{:#}", sweep_module(form, 90).unwrap_err());
            assert!(e.contains("the nearest forms with a GPU sweep module on sm_90: ") && e.contains(near), "{form}: {e}");
            assert!(e.contains("`ptxfuzz vm-ptx --sm 90 --list`"), "{form}: {e}");
        }
        assert!(sweep_module("rcp.approx.f32", 90).unwrap().contains(".target sm_90"));
        // An unknown sm is said as such, not answered with forms.
        assert!(!format!("{:#}", sweep_module("rcp.approx.f32", 91).unwrap_err()).contains("nearest"));
    }

    #[test]
    fn a_form_without_a_module_gets_advice_that_works_for_it() {
        // 128 bits of input: sweep refuses it too, so it is not told to use sweep.
        let e = format!("{:#}", sweep_module("add.rn.f64", 90).unwrap_err());
        assert!(e.contains("nor can `ptxfuzz sweep` take it") && e.contains("too many to sweep") && !e.contains("--no-gpu-kernel"), "{e}");
        // 64 bits: sweep takes it through the job path.
        let e = format!("{:#}", sweep_module("add.rn.f32", 90).unwrap_err());
        assert!(e.contains("`ptxfuzz sweep add.rn.f32 --no-gpu-kernel`"), "{e}");
    }

    #[test]
    fn the_edit_distance_counts_single_byte_edits() {
        assert_eq!((distance("rcp", "rcp"), distance("rcp", "rsp"), distance("rcp.f32", "rcp"), distance("", "ab")), (0, 1, 4, 2));
    }
}
