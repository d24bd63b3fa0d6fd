//! `ptxfuzz gen` and `ptxfuzz sass`: write generated programs as PTX modules and JSON, and show
//! the SASS that ptxas makes of a module.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};
use arbitrary::Unstructured;
use clap::Args;
use ptx::gen::Generator;
use ptx::kernel::{self, Mode};

use crate::genargs::GenArgs;
use crate::toolkit;

/// Write generated programs: NAME.ptx (a module with one entry, `p0`) and NAME.json (the
/// program's canonical JSON) per program.
#[derive(Args, Debug)]
pub struct GenCmd {
    /// Seed: the same seed and options give the same programs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of programs.
    #[arg(long, default_value_t = 10)]
    count: usize,
    /// Output folder (created if missing).
    #[arg(long, default_value = "programs")]
    out: PathBuf,
    /// Store every intermediate result too (trace kernels).
    #[arg(long)]
    trace: bool,
    #[command(flatten)]
    gen: GenArgs,
}

pub fn gen(args: GenCmd) -> Result<()> {
    let cfg = args.gen.to_config()?;
    let arch = cfg.arch();
    let generator = Generator::new(cfg).context("generator config")?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let mode = if args.trace { Mode::Trace } else { Mode::Outputs };
    let mut rng = SplitMix(args.seed);
    let mut bytes = vec![0u8; 4096];
    for i in 0..args.count {
        bytes.iter_mut().for_each(|b| *b = rng.next() as u8);
        let program = generator.program(&mut Unstructured::new(&bytes)).context("generating a program")?;
        let name = format!("s{}_{i:06}", args.seed);
        let module = kernel::module(&[&program], arch, mode)?;
        std::fs::write(args.out.join(format!("{name}.ptx")), module)?;
        std::fs::write(args.out.join(format!("{name}.json")), program.to_json() + "\n")?;
    }
    eprintln!("wrote {} programs ({arch}) to {}", args.count, args.out.display());
    Ok(())
}

/// Print the SASS that ptxas makes of a PTX file (ptxas, then nvdisasm or cuobjdump).
#[derive(Args, Debug)]
pub struct SassCmd {
    /// The PTX file.
    file: PathBuf,
    /// Target architecture: 90 for sm_90, 100a for sm_100a (the file's `.target` must allow it).
    #[arg(long, default_value = "90")]
    sm: ptx::isa::Arch,
}

pub fn sass(args: SassCmd) -> Result<()> {
    let ptxas = toolkit::find("ptxas")?;
    let dir = tempdir()?;
    let cubin = dir.join("module.cubin");
    let out = Command::new(&ptxas)
        .arg(format!("-arch={}", args.sm))
        .arg(&args.file)
        .arg("-o")
        .arg(&cubin)
        .output()
        .with_context(|| format!("running {}", ptxas.display()))?;
    if !out.status.success() {
        bail!("ptxas rejected {}:\n{}", args.file.display(), String::from_utf8_lossy(&out.stderr).trim_end());
    }
    // nvdisasm prints cleaner SASS; cuobjdump is the fallback.
    let (tool, flags): (_, &[&str]) = match toolkit::find("nvdisasm") {
        Ok(p) => (p, &["-c"]),
        Err(_) => (toolkit::find("cuobjdump").context("neither nvdisasm nor cuobjdump found")?, &["-sass"]),
    };
    let dis = Command::new(&tool).args(flags).arg(&cubin).output().with_context(|| format!("running {}", tool.display()))?;
    let _ = std::fs::remove_dir_all(&dir);
    if !dis.status.success() {
        bail!("{} failed:\n{}", tool.display(), String::from_utf8_lossy(&dis.stderr).trim_end());
    }
    print!("{}", String::from_utf8_lossy(&dis.stdout));
    Ok(())
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
