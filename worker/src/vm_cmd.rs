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
        let instr = ptx::isa::Instr::parse_default(form)?;
        let pf = ptx::approx::prefilter::Prefilter::of(&instr);
        let judging = pf.as_ref().map_or(ptx::vm::sweep::Judging::Dense, ptx::vm::sweep::Judging::Filtered);
        anyhow::ensure!(args.sm.variant == ptx::isa::Variant::Plain, "--sweep builds a plain module (its forms are plain): give --sm {}", args.sm.sm);
        ptx::vm::sweep::module(&instr, args.sm.sm, judging)?
    } else if args.list {
        ptx::vm::arms(args.sm)?.iter().map(|f| format!("{f}\t{}\n", f.inputs)).collect::<String>()
    } else {
        ptx::vm::module(args.sm)?
    };
    // `vm-ptx --list | head` closes the pipe early: `output` ends ptxfuzz quietly then.
    crate::output::stdout().write_all(text.as_bytes()).context("writing to stdout")
}
