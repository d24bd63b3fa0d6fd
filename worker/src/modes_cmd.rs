//! `ptxfuzz modes-check`: generated programs on a GPU's instruction VM and as whole-program
//! kernels, compared output by output (`worker::modes`).

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::gen::Generator;
use worker::campaign::source::random_item;
use worker::modes::{classify, compare_modes, Disagreement, NO_STATEMENT_DIFFERS};
use worker::oracles::{default_target, open_spec, EngineOptions, EngineSpec};

use crate::genargs::GenArgs;

/// Run generated programs in both execution modes of a GPU (isa: the instruction VM; compiled:
/// one JIT-compiled kernel) and compare every output bit for bit.
#[derive(Args, Debug)]
#[command(after_help = "A difference is a compiler effect (contraction, constant folding, the bf16 \
fma lowering: ../shared/hw/h100-sm90/findings/) or a bug in one of the two paths. Prints \
the disagreements by cause and every unexplained one; --differ PATH writes every one as a \
JSON line (program text, inputs, both \
outputs, causes). Each differing output is classified: `allowed` (the PTX ISA accepts the \
compiled result on the operands the VM gave the instruction), a ptx::explain catalogue id (a \
compiler effect such as folded-to-operand), a ptxas effect seen in the whole program \
(half-conversions-fused, neg-folded-into-set, set-converted-by-value: docs/triage.md), or unexplained. Exits 1 if a disagreement is \
unexplained or an engine faults.\n\n\
Example:\n  ptxfuzz modes-check --target cuda --programs 10000 --differ modes.jsonl")]
pub struct ModesCheckArgs {
    /// Engine with both modes: cuda or cuda:N (default: the first GPU).
    #[arg(long)]
    pub target: Option<String>,
    /// Programs to generate, at least 1.
    #[arg(long, default_value_t = 10_000, value_parser = worker::cli_values::at_least_one::<u64>)]
    pub programs: u64,
    /// Cases per program, 1 to 65536: the campaign's biased cases (special values,
    /// boundaries).
    #[arg(long, default_value_t = 64, value_parser = worker::cli_values::count_in::<usize>(1, MAX_CASES, MAX_CASES_WHY))]
    pub cases: usize,
    /// Seed (decimal or 0x hex): the same seed generates the same programs and cases.
    #[arg(long, default_value_t = 1, value_parser = worker::cli_values::seed)]
    pub seed: u64,
    /// Write every disagreement (one JSON line each) to this file.
    #[arg(long)]
    pub differ: Option<PathBuf>,
    /// Classify the disagreements of an earlier --differ file again instead of generating
    /// programs: the target gives the isa trace (on a machine without a GPU,
    /// 'exec:ptxfuzz exec-reference --profile sm_90', whose results are the H100's on every
    /// recorded case), so a GPU run's disagreements are triaged anywhere.
    #[arg(long, value_name = "FILE", conflicts_with = "differ")]
    pub reclassify: Option<PathBuf>,
    /// Seconds an engine may take for one batch before it is a timeout fault.
    #[arg(long, default_value_t = 120, value_parser = worker::cli_values::at_least_one::<u64>)]
    pub timeout: u64,
    #[command(flatten)]
    pub gen: GenArgs,
}

/// Programs per batch: a module of this many programs is what a campaign's compiled mode loads.
const BATCH: u64 = 512;

/// The largest `--cases`: a batch's programs hold their cases at once, both modes' results
/// beside them; 512 programs x 2^16 cases x 3 operands is 768 MiB of operands. A larger
/// count once aborted allocating.
const MAX_CASES: u64 = 1 << 16;
const MAX_CASES_WHY: &str = "a batch of 512 programs holds its cases and both modes' results in memory at once";

pub fn run(args: ModesCheckArgs) -> Result<()> {
    let t0 = Instant::now();
    let spec: EngineSpec = match &args.target {
        Some(t) => t.parse()?,
        None => default_target(),
    };
    // `--sm 100a`: the VM and the kernels are both `.target sm_100a` (they load on an sm_100 GPU).
    let variant = args.gen.sm.map_or(ptx::isa::Variant::Plain, |a| a.variant);
    let opts = EngineOptions { timeout: Duration::from_secs(args.timeout), sm: args.gen.sm.map(|a| a.sm), variant };
    let mut target = open_spec(&spec, &opts).with_context(|| format!("cannot open target '{spec}'"))?;
    if let Some(path) = &args.reclassify {
        return reclassify(target.as_mut(), path, t0);
    }
    let mut cfg = args.gen.to_config()?;
    // Approximate forms too: the VM and a kernel must agree on them as on the rest.
    cfg.approximate = true;
    if let (None, Some(sm)) = (args.gen.sm, target.info().sm) {
        // The GPU's own sm, plain.
        cfg.sm = sm;
        cfg.ptx = cfg.ptx.max(ptx::kernel::min_ptx_for_sm(sm).with_context(|| ptx::kernel::KernelError::UnknownSm(sm).to_string())?);
    }
    let gen = Generator::new(cfg)?;
    // Before --differ is created: a target with one mode must not truncate an earlier file.
    worker::modes::both_modes(target.as_ref())?;
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
    let unexplained = report(&disagreements, &faults);
    println!(
        "modes-check: {programs} programs ({cases} cases) in both modes: {} disagree ({} explained by a compiler effect or an allowed result, {unexplained} unexplained), {skipped} skipped, {} fault(s), in {:.1} s",
        disagreements.len(),
        disagreements.len() - unexplained,
        faults.len(),
        t0.elapsed().as_secs_f64()
    );
    if let Some(split) = target.stage_times().filter(|s| !s.is_empty()) {
        println!("  engine split: {}", split.line());
    }
    verdict(unexplained, &faults, args.differ.is_some())
}

/// `--reclassify FILE`: the causes of recorded disagreements, found again on `target`.
fn reclassify(target: &mut dyn worker::oracles::Engine, path: &std::path::Path, t0: Instant) -> Result<()> {
    let text = worker::input_file::read_text(path, 256 << 20, "a modes-check --differ file")?;
    let mut disagreements = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let bad = |why: String| anyhow::anyhow!("{}:{}: {why}; give a file written by modes-check --differ", path.display(), n + 1);
        let mut d: Disagreement = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        let program = ptx::program::Program::parse(&d.program).map_err(|e| bad(e.to_string()))?;
        let hex = |v: &[String]| v.iter().map(|x| x.strip_prefix("0x").and_then(ptx::value::parse_hex).ok_or_else(|| bad(format!("{x} is not 0x-hex")))).collect::<Result<Vec<u64>>>();
        let (inputs, compiled) = (hex(&d.inputs)?, hex(&d.compiled)?);
        // A line cut short (an edited file) is the file's error, not an unexplained disagreement.
        worker::modes::case_shape(&program, &inputs, &compiled).map_err(|why| bad(format!("{why} (the line does not fit its program)")))?;
        d.causes = classify(target, &program, &inputs, &compiled);
        for c in d.causes.iter_mut().filter(|c| c.instr == NO_STATEMENT_DIFFERS) {
            // This engine's isa run gives the compiled outputs: the recorded VM outputs are the
            // ones it does not reproduce (a VM bug, such as the H200's miscompiled float `set`,
            // docs/hardware/nvidia-h200-2026-11-29; the file holds no VM trace to say which
            // statement went wrong first).
            c.instr = VM_NOT_REPRODUCED.into();
        }
        disagreements.push(d);
    }
    let unexplained = report(&disagreements, &[]);
    println!(
        "modes-check: {} disagreement(s) of {} reclassified on {}: {} explained, {unexplained} unexplained, in {:.1} s",
        disagreements.len(),
        path.display(),
        target.info(),
        disagreements.len() - unexplained,
        t0.elapsed().as_secs_f64()
    );
    verdict(unexplained, &[], false)
}

/// The cause of a reclassified disagreement whose compiled outputs this engine's isa run gives.
const VM_NOT_REPRODUCED: &str = "the recorded VM outputs: this engine's isa run gives the compiled ones";

/// Print the disagreements by cause and every unexplained one in full (they are the bugs);
/// returns how many are unexplained.
fn report(disagreements: &[Disagreement], faults: &[String]) -> usize {
    let mut by_cause: std::collections::BTreeMap<String, u64> = Default::default();
    for d in disagreements {
        for c in &d.causes {
            *by_cause.entry(format!("{} ({})", c.by, c.instr)).or_default() += 1;
        }
    }
    for (cause, n) in &by_cause {
        println!("  {n:>6}  {cause}");
    }
    let unexplained: Vec<_> = disagreements.iter().filter(|d| !d.is_explained()).collect();
    for d in unexplained.iter().take(10) {
        println!("  unexplained: {} of {} cases differ, e.g. inputs {} -> isa {} compiled {}:", d.differing_cases, d.cases, d.inputs.join(" "), d.isa.join(" "), d.compiled.join(" "));
        for line in d.program.lines() {
            println!("      {line}");
        }
    }
    for f in faults.iter().take(10) {
        println!("  fault: {f}");
    }
    unexplained.len()
}

fn verdict(unexplained: usize, faults: &[String], differ: bool) -> Result<()> {
    if unexplained > 0 || !faults.is_empty() {
        bail!("the modes disagree without explanation on {unexplained} program(s) and faulted {} time(s): see above{}", faults.len(), if differ { " and --differ" } else { "" });
    }
    Ok(())
}
