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
use ptx::form::Form;
use ptx::gen::form_case::{exhaustive, form_case_into, nth_case};
use ptx::gen::{GenConfig, Generator};
use ptx::isa::Instr;
use ptx::program::{Program, ValType};
use worker::cli_values::count_in;
use worker::campaign::source::{random_cases, Bits, Rng};
use worker::campaign::{MAX_TIMEOUT_S, MAX_TIMEOUT_WHY};
use worker::oracles::diff_replay::program_of;
use worker::oracles::{default_target, open_spec, Engine, EngineOptions, EngineSpec, Job};

/// Record every legal form's results on a target as a capture file (cases.txt format).
#[derive(Args, Debug)]
#[command(after_help = "Each line: `INSTR 0xOPERAND... -> 0xRESULT` (register-width hex, packed \
lanes in one word, lane 0 low; testp results 0/1; setp results p + 2q, 0 to 3), grouped by \
form. --forms adds the cvt, setp, set, selp and mixed-precision forms (issue 16); a form whose \
operands span at most --cases-per-form values (an 8- or 16-bit source) is recorded for every \
input. A FILE ending in .gz is \
written gzip-compressed. capture-info.json beside FILE says what recorded it. The file is \
written under FILE.partial and renamed at the end, so an interrupted capture leaves no \
half file, and one that records nothing (exit 1) leaves no file at all.\n\n\
Examples:\n  ptxfuzz capture --out sm_80.cases.txt.gz                       # the first GPU\n  \
ptxfuzz capture --target interp --families add,testp --out /tmp/c.txt\n  \
ptxfuzz capture --forms cvt,setp,set,selp --out sm_90.cvt.txt.gz        # conversions and comparisons\n  \
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
    /// 1 to 2^24 (16,777,216: every input of an 8-bit three-operand form).
    #[arg(long, default_value_t = 4096, value_parser = count_in::<usize>(1, MAX_CASES_PER_FORM, MAX_CASES_WHY))]
    pub cases_per_form: usize,
    /// Seed of the cases: the same seed records the same operands.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Opcodes to record (comma-separated PTX names). Default: all, unless --forms is given.
    #[arg(long, value_delimiter = ',')]
    pub families: Vec<String>,
    /// Also record the forms outside the instruction table: `cvt`, `setp`, `set`, `selp` and
    /// the mixed-precision add/sub/fma, by spelling prefix at a `.` (`cvt`, `cvt.rn.bf16`,
    /// `setp.ltu`, `fma.rn.f32.bf16`) or `all`. With --forms and no --families, only these.
    #[arg(long, value_delimiter = ',')]
    pub forms: Vec<String>,
    /// Seconds an engine may take for one form before it is a timeout fault.
    /// 1 to 1e9.
    #[arg(long, default_value_t = 60, value_parser = count_in::<u64>(1, MAX_TIMEOUT_S, MAX_TIMEOUT_WHY))]
    pub timeout: u64,
}

/// The most `--cases-per-form`: 2^24. A form's cases are held whole (one engine job): its
/// operands as u64 words (up to 3 per case) and a result word, at most 32 bytes a case, so
/// 2^24 keeps a form under 512 MiB, and it still records every input of a form whose operands
/// span up to 2^24 values (one 16-bit operand, or two or three 8-bit ones).
/// `--cases-per-form 99999999999` asked for 400 GB and aborted with a backtrace, leaving an
/// empty FILE.partial.
pub const MAX_CASES_PER_FORM: u64 = 1 << 24;
const MAX_CASES_WHY: &str = "a form's cases are held in memory at once (up to 32 bytes each), so 2^24 keeps one form under 512 MiB";

pub fn run(args: CaptureArgs) -> Result<()> {
    let spec: EngineSpec = match &args.target {
        Some(t) => t.parse()?,
        None => default_target(),
    };
    let opts = EngineOptions { timeout: Duration::from_secs(args.timeout), sm: args.sm, ..EngineOptions::default() };
    let mut target = open_spec(&spec, &opts).with_context(|| format!("cannot open target '{spec}'"))?;
    let sm = args.sm.or(target.info().sm).unwrap_or(90);
    let mut cfg = GenConfig { approximate: true, sm, ..GenConfig::default() };
    cfg.ptx = cfg.ptx.max(ptx::kernel::min_ptx_for_sm(sm).with_context(|| ptx::kernel::KernelError::UnknownSm(sm).to_string())?);
    if !args.families.is_empty() {
        cfg.opcodes = args
            .families
            .iter()
            .map(|f| worker::cli_values::family(f).map_err(anyhow::Error::msg))
            .collect::<Result<_>>()?;
    }
    let gen = Generator::new(cfg)?;
    let forms: Vec<Instr> = if args.families.is_empty() && !args.forms.is_empty() { Vec::new() } else { gen.forms().collect() };
    let (others, off_sm) = select_forms(&args.forms, sm)?;
    if forms.is_empty() && others.is_empty() {
        // Say so before any file is made (`--forms add.rn.f32` picks the mixed-precision
        // add.rn.f32.f16 and .bf16, which sm_90 lacks; the table's add is --families add).
        let needs: Vec<String> = off_sm.iter().take(4).map(|f| format!("{f} (sm_{}+)", f.needs().sm)).collect();
        bail!(
            "--forms {} selects {} form(s), none of them on sm_{sm}: {}{}; record them with --sm N (an sm named), or the instruction table's forms with --families (add, fma, rcp, ...)",
            args.forms.join(","),
            off_sm.len(),
            needs.join(", "),
            if off_sm.len() > needs.len() { ", ..." } else { "" }
        );
    }
    eprintln!(
        "capture: target {}; sm_{sm}; {} form(s) x {} cases -> {}",
        target.info(),
        forms.len() + others.len(),
        args.cases_per_form,
        args.out.display()
    );
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
    let (n, s) = record_others(&mut *target, &others, &args, &mut rng, &mut out, &mut faults)?;
    recorded += n;
    skipped += s;
    // Flush through the gzip encoder and the file before the rename makes it visible.
    drop(out);
    if recorded == 0 {
        // Nothing to keep: no empty capture at --out for a later `replay:` to read as a
        // record of nothing (and no partial one either).
        let _ = std::fs::remove_file(&partial);
        for f in &faults {
            println!("  fault: {f}");
        }
        if faults.is_empty() {
            bail!("nothing was recorded, so {} was not written: {} runs none of the selected forms (interp runs every form; cvt/setp/set/selp forms need interp, replay: or cuda)", args.out.display(), target.info().name);
        }
        bail!("the target faulted on every form, so {} was not written (the faults are above)", args.out.display());
    }
    File::open(&partial)?.sync_all()?;
    std::fs::rename(&partial, &args.out).with_context(|| format!("cannot rename {} to {}", partial.display(), args.out.display()))?;
    write_info(&args.out, target.info(), sm)?;
    let total = forms.len() + others.len();
    println!("capture: {recorded} cases of {} forms in {}", total - skipped - faults.len(), args.out.display());
    if skipped > 0 {
        println!("  {skipped} form(s) the target does not support were skipped");
    }
    if !off_sm.is_empty() {
        println!("  {} selected form(s) need another sm than sm_{sm} and were left out (--sm chooses)", off_sm.len());
    }

    for f in &faults {
        println!("  fault: {f}");
    }
    Ok(())
}

/// The forms outside `Instr` that `--forms` selects and that sm_`sm` has (each documented
/// form's table: `Form::target_on`), and the selected ones it lacks.
fn select_forms(prefixes: &[String], sm: u32) -> Result<(Vec<Form>, Vec<Form>)> {
    let all = Form::all();
    let mut chosen = Vec::new();
    for p in prefixes {
        let picked: Vec<Form> = all.iter().copied().filter(|f| p == "all" || f.matches(p)).collect();
        if picked.is_empty() {
            bail!("no documented form starts with '{p}': give a prefix such as cvt, cvt.rn.bf16, setp, set, selp or fma.rn.f32.bf16, or all");
        }
        for f in picked {
            if !chosen.contains(&f) {
                chosen.push(f);
            }
        }
    }
    Ok(chosen.into_iter().partition(|f| f.target_on(sm).is_some()))
}

/// The operands of `n` cases of `form`: every input where the operand space has at most `n`
/// values, else `n` drawn as the generator draws (`ptx::gen::form_case`: half special values,
/// ties of the narrower formats, one case in eight repeating or negating an operand).
pub fn form_cases(form: &Form, n: usize, rng: &mut Rng) -> Vec<u64> {
    let kinds = form.operands();
    let mut out = Vec::with_capacity(n * kinds.len());
    if let Some(all) = exhaustive(&kinds, n as u64) {
        (0..all).for_each(|i| nth_case(&kinds, i, &mut out));
        return out;
    }
    let mut bits = Bits::new(rng);
    for _ in 0..n {
        // `Bits` never runs dry: this cannot fail.
        let _ = form_case_into(&mut bits, &kinds, 1 << 15, 1 << 13, &mut out);
    }
    out
}

/// Record every form of `others` the target runs; returns (cases recorded, forms skipped).
fn record_others(
    target: &mut dyn Engine,
    others: &[Form],
    args: &CaptureArgs,
    rng: &mut Rng,
    out: &mut dyn Write,
    faults: &mut Vec<String>,
) -> Result<(u64, usize)> {
    let (mut recorded, mut skipped) = (0u64, 0usize);
    for (k, form) in others.iter().enumerate() {
        if !target.supports_form(form) {
            skipped += 1;
            continue;
        }
        let cases = form_cases(form, args.cases_per_form.max(1), rng);
        match target.run_forms(form, &cases) {
            Ok(results) => {
                write_other(out, form, &cases, &results)?;
                recorded += results.len() as u64;
            }
            Err(f) => faults.push(format!("{form}: {f}")),
        }
        if (k + 1) % 200 == 0 {
            eprintln!("capture: {}/{} cvt/comparison/mixed forms, {recorded} cases", k + 1, others.len());
        }
    }
    Ok((recorded, skipped))
}

/// The lines of one form outside `Instr`: operands at their widths in hex, the result word
/// at the destination's width (`setp`: p + 2q in decimal, as testp's 0/1).
fn write_other(out: &mut dyn Write, form: &Form, cases: &[u64], results: &[u64]) -> Result<()> {
    let kinds = form.operands();
    let digits = |bits: u32| (bits as usize).div_ceil(4);
    for (case, &r) in cases.chunks_exact(kinds.len()).zip(results) {
        write!(out, "{form}")?;
        for (&v, k) in case.iter().zip(&kinds) {
            write!(out, " 0x{v:0w$x}", w = digits(k.bits()))?;
        }
        match form.writes_predicates() {
            true => writeln!(out, " -> {r}")?,
            false => writeln!(out, " -> 0x{r:0w$x}", w = digits(form.result_bits()))?,
        }
    }
    Ok(())
}

/// The lines of one form: operands and result in register-width hex, testp and setp results
/// 0/1 (a packed setp's p + 2q).
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
            // A packed setp's pair as p + 2q, as `write_other` writes every setp.
            ValType::Pred | ValType::PredPair => writeln!(out, " -> {r}")?,
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
