//! `ptxfuzz gen` and `ptxfuzz sass`: write generated programs as PTX modules and JSON, and show
//! the SASS that ptxas makes of a module or of one instruction form.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};
use arbitrary::Unstructured;
use clap::Args;
use ptx::gen::Generator;
use ptx::kernel::{self, Mode};

use crate::genargs::GenArgs;
use crate::toolkit;

/// The most `--count`: 10^6 programs, two files each (NAME.ptx, NAME.json: a few KiB), so
/// 2 M files and some GiB; a larger count was written until the disk filled.
const MAX_COUNT: u64 = 1_000_000;
const MAX_COUNT_WHY: &str = "each program is two files of a few KiB, so 10^6 is 2 M files; to run more programs, use `ptxfuzz campaign`";

/// Write generated programs: NAME.ptx (a module with one entry, `p0`) and NAME.json (the
/// program's canonical JSON) per program.
#[derive(Args, Debug)]
pub struct GenCmd {
    /// Seed (decimal or 0x hex): the same seed and options give the same programs.
    #[arg(long, default_value_t = 1, value_parser = worker::cli_values::seed)]
    seed: u64,
    /// Number of programs (1 to 10^6).
    #[arg(long, default_value_t = 10, value_parser = worker::cli_values::count_in::<usize>(1, MAX_COUNT, MAX_COUNT_WHY))]
    count: usize,
    /// Output folder (created if missing).
    #[arg(long, default_value = "programs")]
    out: PathBuf,
    /// Store every intermediate result too (trace kernels).
    #[arg(long)]
    trace: bool,
    /// Write the random programs `campaign --seed SEED` runs as its programs I, I+1, ...
    /// (numbered from 0 as drawn; a finding `found after N cases` came from about program
    /// N / --cases-per-program), named cSEED_I, instead of gen's own programs. The generator is
    /// the campaign's default (approximate forms on, undocumented ones off) unless --config is
    /// given; give the campaign's other generator flags (and --sm: the GPU's) as it ran.
    #[arg(long, value_name = "I")]
    campaign_from: Option<u64>,
    #[command(flatten)]
    gen: GenArgs,
}

pub fn gen(args: GenCmd) -> Result<()> {
    let cfg = match args.campaign_from {
        // The campaign's own default generator, so that program I is the campaign's.
        Some(_) => args.gen.to_config_over(worker::campaign::default_generator())?,
        None => args.gen.to_config()?,
    };
    let arch = cfg.arch();
    let generator = Generator::new(cfg).context("generator config")?;
    anyhow::ensure!(!args.out.exists() || args.out.is_dir(), "--out {} is a file: give a folder (created if missing)", args.out.display());
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let mode = if args.trace { Mode::Trace } else { Mode::Outputs };
    let mut rng = SplitMix(args.seed);
    let mut bytes = vec![0u8; 4096];
    let mut written = 0;
    // Progress on stderr (a million programs take minutes); Ctrl-C ends between programs,
    // so every file pair written is whole.
    let stop = worker::interrupt::stop_flag()?;
    let mut progress = worker::progress::Progress::new("gen", args.count as u128).counting("programs");
    for i in 0..args.count {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            progress.finish();
            worker::interrupt::exit_interrupted(&format!(
                "gen: interrupted: wrote {written} of {} programs ({arch}) to {}, each whole",
                args.count,
                args.out.display()
            ));
        }
        progress.update(i as u128);
        let (program, name) = match args.campaign_from {
            Some(from) => {
                let n = from.checked_add(i as u64).context("--campaign-from plus --count is past the last program number")?;
                // Program n's own stream, as the campaign draws it; no cases.
                let Some(item) = worker::campaign::source::random_item(&generator, args.seed, n, 0) else {
                    // The campaign skips a number whose bytes the generator rejects.
                    eprintln!("campaign program {n} of seed {}: the generator rejects its bytes; the campaign skipped it too", args.seed);
                    continue;
                };
                (item.program, format!("c{}_{n:06}", args.seed))
            }
            None => {
                bytes.iter_mut().for_each(|b| *b = rng.next() as u8);
                (generator.program(&mut Unstructured::new(&bytes)).context("generating a program")?, format!("s{}_{i:06}", args.seed))
            }
        };
        let module = kernel::module(&[&program], arch, mode)?;
        std::fs::write(args.out.join(format!("{name}.ptx")), module)?;
        std::fs::write(args.out.join(format!("{name}.json")), program.to_json() + "\n")?;
        written += 1;
    }
    progress.finish();
    eprintln!("wrote {written} programs ({arch}) to {}", args.out.display());
    Ok(())
}

/// Print the SASS that ptxas makes of a PTX file, or of one instruction form's kernel (ptxas,
/// then nvdisasm or cuobjdump).
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  ptxfuzz sass programs/s1_000000.ptx      (a module `ptxfuzz gen` wrote)\n  \
ptxfuzz sass fma.rz.bf16                  (the one-instruction kernel of a form, as `eval` spells it)\n  \
ptxfuzz sass cvt.rn.satfinite.e2m1x2.f32 --sm 100a")]
pub struct SassCmd {
    /// A PTX file, or an instruction form as `eval` and `vm-ptx --list` spell it (add.rn.f32,
    /// cvt.rn.f16.f32, setp.lt.f32): the kernel that runs that one instruction is assembled.
    input: String,
    /// Target architecture: 90 for sm_90, 100a for sm_100a (a file's `.target` must allow it;
    /// a form's kernel gets the suffix its table needs on that sm).
    #[arg(long, default_value = "90")]
    sm: ptx::isa::Arch,
}

/// The PTX `sass` assembles: the file's text, or the one-instruction kernel of a form (the
/// `cvt`/`setp`/`set`/`selp`/mixed forms through `ptx::form_kernel`, as `capture` runs them;
/// the others as a one-instruction program through `ptx::kernel`, as campaigns run them), and
/// the `-arch` to give ptxas (a form's own suffix on that sm: `sm_100a` for an f6 conversion).
fn sass_input(input: &str, arch: ptx::isa::Arch) -> Result<(String, String)> {
    let path = std::path::Path::new(input);
    if path.is_dir() {
        anyhow::bail!("{input} is a folder: give one PTX file in it (`ptxfuzz gen` writes NAME.ptx beside NAME.json) or a form such as add.rn.f32");
    }
    if path.exists() {
        let text = worker::input_file::read_text(path, worker::input_file::JSON_CAP, "a PTX file")?;
        return Ok((text, arch.to_string()));
    }
    // A path that is not there (a slash or a .ptx name: never a form) is named as a missing
    // file, not parsed as an instruction.
    if input.contains('/') || input.ends_with(".ptx") {
        anyhow::bail!("{input} does not exist: give a PTX file (`ptxfuzz gen --out DIR` writes some) or a form such as add.rn.f32");
    }
    match ptx::form::Form::parse(input) {
        Ok(form) => {
            let target = form.target_on(arch.sm).with_context(|| {
                format!("{form} does not run on {arch}: it needs {} ({}); give --sm for such a GPU", form.needs().target(), form.needs().section)
            })?;
            let ptx = form.needs().ptx.max(kernel::min_ptx_for_arch(arch)?);
            return Ok((ptx::form_kernel::module(&form, &target, ptx), target));
        }
        Err(ptx::form::FormError::Unknown(_)) => {}
        Err(e) => return Err(e.into()),
    }
    let instr = ptx::isa::Instr::parse_default(input).map_err(|e| {
        anyhow::anyhow!(
            "{input} is neither a file nor an instruction form ({e}); give a PTX file (`ptxfuzz gen` writes some) or a form such as add.rn.f32 (`ptxfuzz vm-ptx --list` lists them)"
        )
    })?;
    let program = crate::sweep::program_of(&instr)?;
    Ok((kernel::module(&[&program], arch, Mode::Outputs)?, arch.to_string()))
}

pub fn sass(args: SassCmd) -> Result<()> {
    let ptxas = toolkit::find("ptxas")?;
    let (module, target) = sass_input(&args.input, args.sm)?;
    let dir = tempdir()?;
    let result = assemble_and_disassemble(&ptxas, &dir, &module, &target, &args.input);
    // Removed on every way out, a failed ptxas included.
    let _ = std::fs::remove_dir_all(&dir);
    print!("{}", result?);
    Ok(())
}

/// The SASS of `module` (nvdisasm prints cleaner SASS; cuobjdump is the fallback).
fn assemble_and_disassemble(ptxas: &std::path::Path, dir: &std::path::Path, module: &str, target: &str, input: &str) -> Result<String> {
    let (ptx, cubin) = (dir.join("module.ptx"), dir.join("module.cubin"));
    std::fs::write(&ptx, module).with_context(|| format!("cannot write {}", ptx.display()))?;
    let out = Command::new(ptxas)
        .arg(format!("-arch={target}"))
        .arg(&ptx)
        .arg("-o")
        .arg(&cubin)
        .output()
        .with_context(|| format!("running {}", ptxas.display()))?;
    if !out.status.success() {
        bail!("ptxas rejected {input} for {target}:\n{}", String::from_utf8_lossy(&out.stderr).trim_end());
    }
    let (tool, flags): (_, &[&str]) = match toolkit::find("nvdisasm") {
        Ok(p) => (p, &["-c"]),
        Err(_) => (toolkit::find("cuobjdump").context("neither nvdisasm nor cuobjdump found")?, &["-sass"]),
    };
    let dis = Command::new(&tool).args(flags).arg(&cubin).output().with_context(|| format!("running {}", tool.display()))?;
    if !dis.status.success() {
        bail!("{} failed:\n{}", tool.display(), String::from_utf8_lossy(&dis.stderr).trim_end());
    }
    Ok(String::from_utf8_lossy(&dis.stdout).into_owned())
}

fn tempdir() -> Result<PathBuf> {
    let d = std::env::temp_dir().join(format!("ptxfuzz-sass-{}", std::process::id()));
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

/// A small deterministic generator for the bytes behind `--seed`.
pub struct SplitMix(pub u64);
impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}
