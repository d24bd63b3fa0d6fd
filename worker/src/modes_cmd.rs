//! `ptxfuzz modes-check`: generated programs on a GPU's instruction VM and as whole-program
//! kernels, compared output by output (`worker::modes`).

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::gen::Generator;
use worker::campaign::source::random_item;
use worker::modes::compare_modes;
use worker::oracles::{default_target, open_spec, EngineOptions, EngineSpec};

use crate::genargs::GenArgs;

/// Run generated programs in both execution modes of a GPU (isa: the instruction VM; compiled:
/// one JIT-compiled kernel) and compare every output bit for bit.
#[derive(Args, Debug)]
#[command(after_help = "A difference is a compiler effect (contraction, constant folding, the bf16 \
fma lowering: ../shared/hw/h100-sm90/findings/) or a bug in one of the two paths; \
`ptxfuzz explain` on the program says which effect fits. Prints the count and the first \
disagreements; --differ PATH writes every one as a JSON line (program text, inputs, both \
outputs). Exits 1 if the modes disagree or an engine faults.\n\n\
Example:\n  ptxfuzz modes-check --target cuda --programs 10000 --differ modes.jsonl")]
pub struct ModesCheckArgs {
    /// Engine with both modes: cuda or cuda:N (default: the first GPU).
    #[arg(long)]
    pub target: Option<String>,
    /// Programs to generate.
    #[arg(long, default_value_t = 10_000)]
    pub programs: u64,
    /// Cases per program: the campaign's biased cases (special values, boundaries).
    #[arg(long, default_value_t = 64)]
    pub cases: usize,
    /// Seed: the same seed generates the same programs and cases.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write every disagreement (one JSON line each) to this file.
    #[arg(long)]
    pub differ: Option<PathBuf>,
    /// Seconds an engine may take for one batch before it is a timeout fault.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    #[command(flatten)]
    pub gen: GenArgs,
}

/// Programs per batch: a module of this many programs is what a campaign's compiled mode loads.
const BATCH: u64 = 512;

pub fn run(args: ModesCheckArgs) -> Result<()> {
    let t0 = Instant::now();
    let spec: EngineSpec = match &args.target {
        Some(t) => t.parse()?,
        None => default_target(),
    };
    let opts = EngineOptions { timeout: Duration::from_secs(args.timeout), sm: args.gen.sm };
    let mut target = open_spec(&spec, &opts).with_context(|| format!("cannot open target '{spec}'"))?;
    let mut cfg = args.gen.to_config()?;
    // Approximate forms too: the VM and a kernel must agree on them as on the rest.
    cfg.approximate = true;
    if let (None, Some(sm)) = (args.gen.sm, target.info().sm) {
        cfg.sm = sm;
        cfg.ptx = cfg.ptx.max(ptx::kernel::min_ptx_for_sm(sm).with_context(|| format!("sm_{sm} is not a target ptxfuzz knows"))?);
    }
    let gen = Generator::new(cfg)?;
    eprintln!("modes-check: {} programs x {} cases on {}", args.programs, args.cases, target.info());
    let mut differ = match &args.differ {
        Some(p) => Some(std::io::BufWriter::new(std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?)),
        None => None,
    };
    let (mut programs, mut cases, mut skipped, mut faults, mut disagreements) = (0u64, 0u64, 0u64, Vec::new(), Vec::new());
    let mut next = 0u64;
    while next < args.programs {
        let end = (next + BATCH).min(args.programs);
        let items: Vec<_> = (next..end).filter_map(|i| random_item(&gen, args.seed, i, args.cases.max(1))).collect();
        next = end;
        let r = compare_modes(target.as_mut(), &items)?;
        programs += r.programs;
        cases += r.cases;
        skipped += r.skipped;
        faults.extend(r.faults);
        if let Some(w) = differ.as_mut() {
            for d in &r.disagreements {
                writeln!(w, "{}", serde_json::to_string(d)?)?;
            }
        }
        disagreements.extend(r.disagreements);
        eprintln!("modes-check: {next}/{} programs, {} disagree so far ({:.0} programs/s)", args.programs, disagreements.len(), next as f64 / t0.elapsed().as_secs_f64());
    }
    if let Some(mut w) = differ {
        w.flush()?;
    }
    for d in disagreements.iter().take(10) {
        println!("  {} of {} cases differ, e.g. inputs {} -> isa {} compiled {}:", d.differing_cases, d.cases, d.inputs.join(" "), d.isa.join(" "), d.compiled.join(" "));
        for line in d.program.lines() {
            println!("      {line}");
        }
    }
    for f in faults.iter().take(10) {
        println!("  fault: {f}");
    }
    println!(
        "modes-check: {programs} programs ({cases} cases) in both modes: {} disagree, {skipped} skipped, {} fault(s), in {:.1} s",
        disagreements.len(),
        faults.len(),
        t0.elapsed().as_secs_f64()
    );
    if !disagreements.is_empty() || !faults.is_empty() {
        bail!("the modes disagree on {} program(s) and faulted {} time(s): triage with ptxfuzz explain", disagreements.len(), faults.len());
    }
    Ok(())
}
