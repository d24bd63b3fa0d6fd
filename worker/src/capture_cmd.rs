//! `ptxfuzz capture`: record a target's results as a hardware capture, the format of
//! `../shared/hw/h100-sm90/cases.txt.gz` (`INSTR OPERAND... -> RESULT`), so that a user with
//! another GPU (sm_80, sm_100, ...) records the evidence of a new profile, and any machine
//! replays it afterwards (`campaign --target replay:FILE`).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::gen::{GenConfig, Generator};
use ptx::isa::{Instr, Opcode};
use ptx::program::{Program, ValType};
use worker::campaign::source::{random_cases, Rng};
use worker::oracles::diff_replay::program_of;
use worker::oracles::{default_target, open_spec, EngineOptions, EngineSpec, Job};

/// Record every legal form's results on a target as a capture file (cases.txt format).
#[derive(Args, Debug)]
#[command(after_help = "Each line: `INSTR 0xOPERAND... -> 0xRESULT` (register-width hex, packed \
lanes in one word, lane 0 low; testp results 0/1), grouped by form. A FILE ending in .gz is \
written gzip-compressed. capture-info.json beside FILE says what recorded it. The file is \
written under FILE.partial and renamed at the end, so an interrupted capture leaves no \
half file.\n\n\
Examples:\n  ptxfuzz capture --out sm_80.cases.txt.gz                       # the first GPU\n  \
ptxfuzz capture --target interp --families add,testp --out /tmp/c.txt\n  \
ptxfuzz campaign --target replay:sm_80.cases.txt.gz --judge spec   # replay it anywhere")]
pub struct CaptureArgs {
    /// Engine to record: cuda, cuda:N, host, interp or exec:COMMAND. Default: the first GPU if
    /// there is one, else the host FPU.
    #[arg(long)]
    pub target: Option<String>,
    /// sm_XX whose legal forms are recorded (and, on cuda, compiled for). Default: the GPU's
    /// own, else 90.
    #[arg(long)]
    pub sm: Option<u32>,
    /// The capture file (`.gz`: gzip).
    #[arg(long)]
    pub out: PathBuf,
    /// Cases per form: the generator's biased cases (special values, boundaries, their
    /// neighbours, relations between operands), as a campaign draws them.
    #[arg(long, default_value_t = 4096)]
    pub cases_per_form: usize,
    /// Seed of the cases: the same seed records the same operands.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Opcodes to record (comma-separated PTX names). Default: all.
    #[arg(long, value_delimiter = ',')]
    pub families: Vec<String>,
    /// Seconds an engine may take for one form before it is a timeout fault.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
}

pub fn run(args: CaptureArgs) -> Result<()> {
    let spec: EngineSpec = match &args.target {
        Some(t) => t.parse()?,
        None => default_target(),
    };
    let opts = EngineOptions { timeout: Duration::from_secs(args.timeout), sm: args.sm };
    let mut target = open_spec(&spec, &opts).with_context(|| format!("cannot open target '{spec}'"))?;
    let sm = args.sm.or(target.info().sm).unwrap_or(90);
    let mut cfg = GenConfig { approximate: true, sm, ..GenConfig::default() };
    cfg.ptx = cfg.ptx.max(ptx::kernel::min_ptx_for_sm(sm).with_context(|| format!("sm_{sm} is not a target ptxfuzz knows"))?);
    if !args.families.is_empty() {
        cfg.opcodes = args
            .families
            .iter()
            .map(|f| Opcode::from_name(f).with_context(|| format!("unknown family '{f}': use PTX opcode names such as add, fma, testp")))
            .collect::<Result<_>>()?;
    }
    let gen = Generator::new(cfg)?;
    let forms: Vec<Instr> = gen.forms().collect();
    eprintln!("capture: target {}; sm_{sm}; {} form(s) x {} cases -> {}", target.info(), forms.len(), args.cases_per_form, args.out.display());
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let partial = PathBuf::from(format!("{}.partial", args.out.display()));
    let file = File::create(&partial).with_context(|| format!("cannot create {}", partial.display()))?;
    let gz = args.out.extension().is_some_and(|e| e == "gz");
    let mut out: Box<dyn Write> = if gz {
        Box::new(BufWriter::new(flate2::write::GzEncoder::new(file, flate2::Compression::default())))
    } else {
        Box::new(BufWriter::new(file))
    };
    let mut rng = Rng::new(args.seed);
    let (mut recorded, mut skipped, mut faults) = (0u64, 0usize, Vec::new());
    for (k, instr) in forms.iter().enumerate() {
        let p = program_of(instr)?;
        if !target.supports(&p) {
            skipped += 1;
            continue;
        }
        let mut cases = Vec::new();
        random_cases(&gen, &mut rng, &p, args.cases_per_form.max(1), &mut cases);
        match target.run(&[Job::new(&p, &cases, false)]).pop() {
            Some(Ok(o)) => {
                write_form(&mut out, instr, &p, &cases, &o.values)?;
                recorded += o.values.len() as u64;
            }
            Some(Err(f)) => faults.push(format!("{instr}: {f}")),
            None => faults.push(format!("{instr}: no result")),
        }
        if (k + 1) % 50 == 0 {
            eprintln!("capture: {}/{} forms, {recorded} cases", k + 1, forms.len());
        }
    }
    // Flush through the gzip encoder and the file before the rename makes it visible.
    drop(out);
    File::open(&partial)?.sync_all()?;
    std::fs::rename(&partial, &args.out).with_context(|| format!("cannot rename {} to {}", partial.display(), args.out.display()))?;
    write_info(&args.out, target.info(), sm)?;
    println!("capture: {recorded} cases of {} forms in {}", forms.len() - skipped - faults.len(), args.out.display());
    if skipped > 0 {
        println!("  {skipped} form(s) the target does not support were skipped");
    }
    for f in &faults {
        println!("  fault: {f}");
    }
    if !faults.is_empty() && recorded == 0 {
        bail!("the target faulted on every form");
    }
    Ok(())
}

/// The lines of one form: operands and result in register-width hex, testp results 0/1.
fn write_form(out: &mut dyn Write, instr: &Instr, p: &Program, cases: &[u64], results: &[u64]) -> Result<()> {
    let n = p.inputs().len();
    let digits = |bits: u32| (bits as usize).div_ceil(4);
    let dst = p.reg_type(p.dst(0));
    for (case, &r) in cases.chunks_exact(n).zip(results) {
        write!(out, "{instr}")?;
        for (&v, t) in case.iter().zip(p.inputs()) {
            write!(out, " 0x{v:0w$x}", w = digits(t.bits()))?;
        }
        match dst {
            ValType::Pred => writeln!(out, " -> {r}")?,
            t => writeln!(out, " -> 0x{r:0w$x}", w = digits(t.bits()))?,
        }
    }
    Ok(())
}

/// `capture-info.json` beside the capture: what recorded it (read back by `replay:`).
fn write_info(capture: &Path, info: &worker::oracles::EngineInfo, sm: u32) -> Result<()> {
    let path = capture.parent().unwrap_or(Path::new(".")).join("capture-info.json");
    let json = serde_json::json!({
        "gpu": info.device,
        "sm": sm,
        "target": info.name,
        "driver": info.driver,
        "ptxfuzz": env!("CARGO_PKG_VERSION"),
    });
    std::fs::write(&path, serde_json::to_string_pretty(&json)? + "\n").with_context(|| format!("cannot write {}", path.display()))
}
