//! `ptxfuzz capture`: record a target's results as a hardware capture, the format of
//! `../shared/hw/h100-sm90/cases.txt.gz` (`INSTR OPERAND... -> RESULT`), so that a user with
//! another GPU (sm_80, sm_100, ...) records the evidence of a new profile, and any machine
//! replays it afterwards (`campaign --target replay:FILE`).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::form::Form;
use ptx::gen::form_case::{exhaustive, form_case_into, nth_case};
use ptx::gen::{GenConfig, Generator};
use ptx::isa::{Arch, Instr, Variant};
use ptx::program::{Program, ValType};
use worker::cli_values::count_in;
use worker::campaign::source::{random_cases, Bits, Rng};
use worker::campaign::{MAX_TIMEOUT_S, MAX_TIMEOUT_WHY};
use worker::oracles::diff_replay::info::{self, CaptureInfo};
use worker::oracles::diff_replay::program_of;
use worker::oracles::{default_target, open_spec, Engine, EngineOptions, EngineSpec, Job};

/// Record every legal form's results on a target as a capture file (cases.txt format).
#[derive(Args, Debug)]
#[command(after_help = "Each line: `INSTR 0xOPERAND... -> 0xRESULT` (register-width hex, packed \
lanes in one word, lane 0 low; testp results 0/1; setp results p + 2q, 0 to 3), grouped by \
form. --forms adds the cvt, setp, set, selp and mixed-precision forms (issue 16); a form whose \
operands span at most --cases-per-form values (an 8- or 16-bit source) is recorded for every \
input. A FILE ending in .gz is \
written gzip-compressed. FILE.info.json beside FILE says what recorded it (GPU, sm, target), \
one per capture, so several captures share a folder. The file is \
written under FILE.partial and renamed at the end, so an interrupted capture (Ctrl-C, an \
error) leaves no half file and no .partial, and one that records nothing (exit 1) leaves no \
file at all. FILE must not be a folder.\n\n\
Examples:\n  ptxfuzz capture --out sm_80.cases.txt.gz                       # the first GPU\n  \
ptxfuzz capture --target interp --families add,testp --out /tmp/c.txt\n  \
ptxfuzz capture --forms cvt,setp,set,selp --out sm_90.cvt.txt.gz        # conversions and comparisons\n  \
ptxfuzz campaign --target replay:sm_80.cases.txt.gz --judge spec   # replay it anywhere")]
pub struct CaptureArgs {
    /// Engine to record: cuda, cuda:N, host, interp or exec:COMMAND. Default: the first GPU if
    /// there is one, else the host FPU.
    #[arg(long)]
    pub target: Option<String>,
    /// sm_XX whose legal forms are recorded (and, on cuda, compiled for): 90, sm_90, or 100a /
    /// 100f for the architecture-specific targets, as campaign takes it. Default: the GPU's
    /// own, else 90.
    #[arg(long)]
    pub sm: Option<Arch>,
    /// The capture file (`.gz`: gzip).
    #[arg(long)]
    pub out: PathBuf,
    /// Cases per form: the generator's biased cases (special values, boundaries, their
    /// neighbours, relations between operands), as a campaign draws them.
    /// 1 to 2^24 (16,777,216: every input of an 8-bit three-operand form).
    #[arg(long, default_value_t = 4096, value_parser = count_in::<usize>(1, MAX_CASES_PER_FORM, MAX_CASES_WHY))]
    pub cases_per_form: usize,
    /// Seed of the cases (decimal or 0x hex): the same seed records the same operands.
    #[arg(long, default_value_t = 1, value_parser = worker::cli_values::seed)]
    pub seed: u64,
    /// Opcodes to record (comma-separated PTX names). Default: all, unless --forms is given.
    /// cvt, setp, set and selp record their spelled forms, as --forms cvt (and so on) does.
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
    // Before any work: the rename at the end cannot put a file where a folder is, and the
    // whole capture would be lost there.
    refuse_folder(&args.out)?;
    let variant = args.sm.map_or(Variant::Plain, |a| a.variant);
    // The sm and its suffix, checked against the known targets before a GPU is opened.
    if let Some(arch) = args.sm {
        ptx::kernel::min_ptx_for_arch(arch)?;
    }
    let opts = EngineOptions { timeout: Duration::from_secs(args.timeout), sm: args.sm.map(|a| a.sm), variant };
    let mut target = open_spec(&spec, &opts).with_context(|| format!("cannot open target '{spec}'"))?;
    let sm = args.sm.map(|a| a.sm).or(target.info().sm).unwrap_or(90);
    let arch = Arch { sm, variant };
    let mut cfg = GenConfig { approximate: true, sm, variant, ..GenConfig::default() };
    cfg.ptx = cfg.ptx.max(ptx::kernel::min_ptx_for_arch(arch)?);
    // `cvt`, `setp`, `set` and `selp` are families of the generator, but a capture records
    // them as spelled forms (`ptx::form`, what --forms records, with the registers each
    // needs): `--families cvt` is `--forms cvt`. Run as one-instruction table programs they
    // failed on their first form (`operand %h0 is a f16 register, but cvt.rn.f16.u32 needs u32`).
    let (mut table, mut prefixes) = (Vec::new(), args.forms.clone());
    for f in &args.families {
        let op = worker::cli_values::family(f).map_err(anyhow::Error::msg)?;
        match op.in_arith_table() {
            true => table.push(op),
            false => prefixes.push(op.name().to_string()),
        }
    }
    let only_spelled = table.is_empty() && !prefixes.is_empty();
    if !table.is_empty() {
        cfg.opcodes = table;
    }
    let gen = Generator::new(cfg)?;
    let forms: Vec<Instr> = if only_spelled { Vec::new() } else { gen.forms().collect() };
    let (others, off_sm) = select_forms(&prefixes, sm)?;
    if forms.is_empty() && others.is_empty() {
        // Say so before any file is made (`--forms add.rn.f32` picks the mixed-precision
        // add.rn.f32.f16 and .bf16, which sm_90 lacks; the table's add is --families add).
        let needs: Vec<String> = off_sm.iter().take(4).map(|f| format!("{f} (sm_{}+)", f.needs().sm)).collect();
        bail!(
            "--forms {} selects {} form(s), none of them on sm_{sm}: {}{}; record them with --sm N (an sm named), or the instruction table's forms with --families (add, fma, rcp, ...)",
            prefixes.join(","),
            off_sm.len(),
            needs.join(", "),
            if off_sm.len() > needs.len() { ", ..." } else { "" }
        );
    }
    eprintln!(
        "capture: target {}; {arch}; {} form(s) x {} cases -> {}",
        target.info(),
        forms.len() + others.len(),
        args.cases_per_form,
        args.out.display()
    );
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let partial = Partial(PathBuf::from(format!("{}.partial", args.out.display())));
    let file = File::create(&partial.0).with_context(|| format!("cannot create {}", partial.0.display()))?;
    let stop = worker::interrupt::stop_flag()?;
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
            Some(Err(f)) if f.is_fatal() => bail!("{}: {f}", target.info().name),
            Some(Err(f)) => faults.push(format!("{instr}: {f}")),
            None => faults.push(format!("{instr}: no result")),
        }
        if (k + 1) % 50 == 0 {
            eprintln!("capture: {}/{} forms, {recorded} cases", k + 1, forms.len());
        }
        if stop.load(Ordering::Relaxed) {
            bail!("interrupted: {} was not written (run the command again to record it)", args.out.display());
        }
    }
    let (n, s) = record_others(&mut *target, &others, &args, &mut rng, &mut out, &mut faults, &stop)?;
    recorded += n;
    skipped += s;
    // Flush through the gzip encoder and the file before the rename makes it visible.
    drop(out);
    if recorded == 0 {
        // Nothing to keep: no empty capture at --out for a later `replay:` to read as a
        // record of nothing (and no partial one either: `Partial` removes it).
        for f in &faults {
            println!("  fault: {f}");
        }
        if faults.is_empty() {
            bail!("nothing was recorded, so {} was not written: {} runs none of the selected forms (interp runs every form; cvt/setp/set/selp forms need interp, replay: or cuda)", args.out.display(), target.info().name);
        }
        bail!("the target faulted on every form, so {} was not written (the faults are above)", args.out.display());
    }
    File::open(&partial.0)?.sync_all()?;
    // The info first (under its own .partial), so that a capture never stands beside the info
    // of an earlier capture of the same name.
    let info = info_of(&args.out, target.info(), arch);
    let (info_partial, info_path) = info::write_partial(&args.out, &info).with_context(|| format!("cannot write {}", info::info_path(&args.out).display()))?;
    let info_partial = Partial(info_partial);
    // An earlier capture's info of this name goes first: were the info's rename to fail, the
    // capture would stand without info rather than beside another recording's.
    let _ = std::fs::remove_file(&info_path);
    partial.rename_to(&args.out)?;
    info_partial.rename_to(&info_path)?;
    let total = forms.len() + others.len();
    println!("capture: {recorded} case(s) of {} form(s) in {}", total - skipped - faults.len(), args.out.display());
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
    stop: &std::sync::atomic::AtomicBool,
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
        if stop.load(Ordering::Relaxed) {
            bail!("interrupted: {} was not written (run the command again to record it)", args.out.display());
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

/// What recorded the capture `out` (read back by `replay:` and `capture-check`), for
/// `FILE.info.json` (`worker::oracles::diff_replay::info`: one per capture file, where the
/// folder-wide `capture-info.json` of earlier versions was overwritten by the next capture).
fn info_of(out: &Path, info: &worker::oracles::EngineInfo, arch: Arch) -> CaptureInfo {
    CaptureInfo {
        gpu: Some(info.device.clone()),
        sm: Some(arch.sm),
        arch: (arch.variant != Variant::Plain).then(|| arch.to_string()),
        capture: out.file_name().map(|n| n.to_string_lossy().into_owned()),
        target: Some(info.name.clone()),
        driver: info.driver.clone(),
        ptxfuzz: Some(env!("CARGO_PKG_VERSION").into()),
        variants: None,
    }
}

/// `--out` naming a folder: refused before anything runs, with the file to give instead.
fn refuse_folder(out: &Path) -> Result<()> {
    if out.is_dir() {
        bail!(
            "--out {} is a folder; give the capture file's path, e.g. --out {}",
            out.display(),
            out.join("cases.txt.gz").display()
        );
    }
    Ok(())
}

/// A file written under a temporary name: removed when dropped unless renamed into place, so
/// that no error or interruption (a `?` anywhere in `run`) leaves a `.partial` behind.
struct Partial(PathBuf);

impl Partial {
    fn rename_to(self, to: &Path) -> Result<()> {
        std::fs::rename(&self.0, to).with_context(|| format!("cannot rename {} to {}", self.0.display(), to.display()))?;
        // In place: nothing left to remove.
        std::mem::forget(self);
        Ok(())
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_file_is_removed_unless_renamed_into_place() {
        let dir = std::env::temp_dir().join(format!("ptxfuzz-partial-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.partial"), dir.join("b.partial"));
        std::fs::write(&a, "x").unwrap();
        drop(Partial(a.clone()));
        assert!(!a.exists(), "a failed capture leaves no .partial");
        std::fs::write(&b, "x").unwrap();
        Partial(b.clone()).rename_to(&dir.join("b")).unwrap();
        assert!(dir.join("b").exists() && !b.exists());
        // A rename onto a folder fails, and the partial is still removed.
        std::fs::write(&a, "x").unwrap();
        assert!(Partial(a.clone()).rename_to(&dir).is_err());
        assert!(!a.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sm_takes_the_spellings_campaign_takes() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            c: CaptureArgs,
        }
        for (given, sm, variant) in [("90", 90, Variant::Plain), ("sm_90", 90, Variant::Plain), ("100a", 100, Variant::A), ("sm_100f", 100, Variant::F)] {
            let cli = Cli::try_parse_from(["capture", "--sm", given, "--out", "x.txt"]).unwrap();
            assert_eq!(cli.c.sm, Some(Arch { sm, variant }), "{given}");
        }
    }
}
