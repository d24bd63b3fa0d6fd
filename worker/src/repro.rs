//! Reproducers: one finding as files a person (or `ptxfuzz repro`) can re-run.
//!
//! A finding folder holds
//! - `repro.json`: the [`Reproducer`] (program JSON, inputs, the expectation, the target's
//!   bits, the target and signature; `ptxfuzz repro` reads it);
//! - `repro.ptx`: the program as a `ptx::kernel` module (entry `p0`, layout in its header
//!   comment) with the case to launch it on;
//! - `repro.cu`: CUDA C++ running each instruction through inline asm, and the `.ptx` module
//!   through the runtime's library API, then checking both results against the allowed set
//!   (`nvcc -arch=sm_XX -o repro repro.cu && ./repro`; see [`cuda`]).
//!
//! Folders are written to a temporary name, fsync'ed and renamed into place ([`write_dir`]),
//! so a crash leaves either a whole finding or none.

pub mod cli;
pub mod cuda;
mod load;

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use ptx::interp::Expectation;
use ptx::isa::Arch;
use ptx::kernel::{self, Mode};
use ptx::profile::Profile;
use ptx::program::Program;

use crate::minimize::Case;
use crate::oracles::Exec;

pub use api::repro::{OriginalCase, Reproducer, FORMAT};

/// Where a finding came from, besides its case.
#[derive(Clone, Debug, Default)]
pub struct Provenance {
    pub signature: String,
    pub class: String,
    pub target: String,
    pub device: String,
    pub sm: u32,
    pub found_after_cases: u64,
    pub original: Option<Case>,
    pub probes: usize,
    pub steps: usize,
    /// The mode the target ran the program in (a re-run uses it).
    pub exec: Exec,
}

/// What the worker does with a [`Reproducer`] (the type is shared with the server, in `api`).
pub trait ReproducerExt: Sized {
    /// A reproducer for `case` on which the target returned `actual` (one value per output).
    fn new(case: &Case, actual: &[u64], meta: Provenance) -> Result<Self> {
        Self::judged(case, actual, meta, &Profile::Spec)
    }
    /// As [`ReproducerExt::new`], the expectation narrowed to `profile` (`campaign --judge`).
    fn judged(case: &Case, actual: &[u64], meta: Provenance, profile: &Profile) -> Result<Self>;
    /// The program and inputs back from the stored form.
    fn case(&self) -> Result<Case>;
    /// The target's recorded bits per output.
    fn actual_bits(&self) -> Result<Vec<u64>>;
    /// Read `repro.json`, or `DIR/repro.json` when given a finding folder.
    fn load(path: &Path) -> Result<Self>;
    /// The `.ptx` file: the kernel module with a header saying how to launch it.
    fn ptx_file(&self) -> Result<String>;
}

impl ReproducerExt for Reproducer {
    fn judged(case: &Case, actual: &[u64], meta: Provenance, profile: &Profile) -> Result<Reproducer> {
        let p = &case.program;
        let expected =
            crate::compare::expected_outputs(profile, p, &case.inputs).context("the reference cannot run the reproducer")?;
        if actual.len() != expected.len() {
            bail!("{} result(s) for a program with {} output(s)", actual.len(), expected.len());
        }
        let failing_outputs = (0..expected.len()).filter(|&k| !expected[k].accepts(actual[k])).collect();
        let hex_inputs = |c: &Case| {
            c.program.inputs().iter().zip(&c.inputs).map(|(&t, &v)| t.format_hex(v)).collect()
        };
        let arch = ptx_arch(p, meta.sm);
        Ok(Reproducer {
            ptxfuzz_repro: FORMAT,
            signature: meta.signature,
            class: meta.class,
            target: meta.target,
            device: meta.device,
            sm: arch.sm,
            variant: arch.variant,
            program: serde_json::from_str(&p.to_json()).expect("program JSON is JSON"),
            program_text: p.to_string(),
            inputs: hex_inputs(case),
            inputs_decimal: p.inputs().iter().zip(&case.inputs).map(|(&t, &v)| t.format_decimal(v)).collect(),
            expected: expected.iter().map(|e| e.to_string()).collect(),
            actual: expected.iter().zip(actual).map(|(e, &v)| output_hex(e, v)).collect(),
            failing_outputs,
            found_after_cases: meta.found_after_cases,
            original: meta.original.as_ref().map(|c| OriginalCase { program_text: c.program.to_string(), inputs: hex_inputs(c) }),
            probes: meta.probes,
            steps: meta.steps,
            judge: profile.name().to_string(),
            exec: meta.exec,
            found_at: Some(chrono::Utc::now()),
        })
    }

    /// The program and inputs back from the stored form.
    fn case(&self) -> Result<Case> {
        let (program, inputs) = api::repro::files::case(self)?;
        Ok(Case { program, inputs })
    }

    /// The target's recorded bits per output.
    fn actual_bits(&self) -> Result<Vec<u64>> {
        Ok(api::repro::files::actual_bits(self)?)
    }

    /// Read `repro.json`, or `DIR/repro.json` when given a finding folder.
    fn load(path: &Path) -> Result<Reproducer> {
        if !path.exists() {
            bail!(
                "{} does not exist: give a finding folder (`ptxfuzz campaign` writes one per signature under its --out) or its repro.json",
                path.display()
            );
        }
        let file = if path.is_dir() { path.join("repro.json") } else { path.to_path_buf() };
        if path.is_dir() && !file.exists() {
            // A campaign's --out (or ../shared/hw/h100-sm90/findings) holds findings, one a folder.
            let inner = findings_in(path);
            if let Some(first) = inner.first() {
                bail!(
                    "{} holds {} finding folder(s), not one finding: give one, e.g. {}; `ptxfuzz explain {}` takes them all",
                    path.display(),
                    inner.len(),
                    first.display(),
                    path.display()
                );
            }
            bail!(
                "{} is not a finding folder: it has no repro.json and no finding folder inside; give a folder \
                 `ptxfuzz campaign` wrote under its --out (SIGNATURE/), or its repro.json",
                path.display()
            );
        }
        let text = crate::input_file::read_text(&file, crate::input_file::JSON_CAP, "a reproducer")?;
        let r = load::parse(&file, &text)?;
        Ok(r)
    }

    /// The `.ptx` file: the kernel module with a header saying how to launch it.
    fn ptx_file(&self) -> Result<String> {
        Ok(api::repro::files::ptx_file(self)?)
    }
}

/// The subfolders of `dir` that hold a repro.json, in name order.
fn findings_in(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("repro.json").is_file())
        .collect();
    found.sort();
    found
}

/// An output value in hex at the expectation's width (a predicate as 0x0/0x1).
fn output_hex(e: &Expectation, v: u64) -> String {
    let digits = (e.width() as usize).div_ceil(4);
    format!("0x{v:0digits$x}")
}

/// The target to write PTX for: plain sm_`preferred` when the program runs there, else the
/// lowest known target that has every instruction (`sm_100a` for the f6/ue8m0 `cvt`s).
pub fn ptx_arch(p: &Program, preferred: u32) -> Arch {
    if kernel::module(&[p], preferred, Mode::Outputs).is_ok() {
        return Arch::from(preferred);
    }
    kernel::lowest_arch(p).unwrap_or(Arch::from(preferred))
}

/// Write a finding folder `dir` with `repro.json`, `repro.ptx` and `repro.cu`, atomically:
/// everything goes to a temporary sibling that is fsync'ed and renamed. Fails if `dir` exists.
pub fn write_dir(dir: &Path, r: &Reproducer) -> Result<()> {
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    if dir.exists() {
        bail!("{} already exists", dir.display());
    }
    let name = dir.file_name().context("a finding folder needs a name")?.to_string_lossy();
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let json = serde_json::to_string_pretty(r).expect("a reproducer serialises") + "\n";
    write_synced(&tmp.join("repro.json"), json.as_bytes())?;
    write_synced(&tmp.join("repro.ptx"), r.ptx_file()?.as_bytes())?;
    write_synced(&tmp.join("repro.cu"), cuda::source(r)?.as_bytes())?;
    sync_dir(&tmp);
    fs::rename(&tmp, dir).with_context(|| format!("cannot rename {} to {}", tmp.display(), dir.display()))?;
    sync_dir(parent);
    Ok(())
}

/// Write `bytes` to `path` and fsync it.
pub fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    f.write_all(bytes).and_then(|_| f.sync_all()).with_context(|| format!("cannot write {}", path.display()))
}

/// Replace `path` atomically with `bytes` (temporary sibling, fsync, rename). On a failure the
/// temporary sibling is removed: nothing but `path` is ever left behind.
pub fn replace_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let written = write_synced(&tmp, bytes)
        .and_then(|()| fs::rename(&tmp, path).with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display())));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written?;
    if let Some(parent) = path.parent() {
        sync_dir(parent);
    }
    Ok(())
}

/// fsync a directory so that renames in it are durable (best effort: not every filesystem
/// allows opening a directory).
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(if dir.as_os_str().is_empty() { Path::new(".") } else { dir }) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> Reproducer {
        let program = Program::parse(
            "// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\ntestp.finite.f32 %p3, %f2;\n// outputs: %f2, %p3\n",
        )
        .unwrap();
        let case = Case { program, inputs: vec![0x3f00_0000, 0x3304_0000] };
        // add.rz(0.5, tiny) is 0.5; a target rounding to nearest would say 0x3f000001.
        let meta = Provenance {
            signature: "add.rz.f32~rounding~normal.normal~sm90".into(),
            class: "rounding".into(),
            target: "exec:planted rz-as-rn".into(),
            device: "test".into(),
            sm: 90,
            found_after_cases: 1234,
            original: Some(case.clone()),
            probes: 10,
            steps: 2,
            exec: Exec::Isa,
        };
        Reproducer::new(&case, &[0x3f00_0001, 1], meta).unwrap()
    }

    #[test]
    fn reproducer_records_expectation_and_failing_outputs() {
        let r = sample();
        assert_eq!(r.expected, ["0x3f000000", "1"]);
        assert_eq!(r.actual, ["0x3f000001", "0x1"]);
        assert_eq!(r.failing_outputs, [0]);
        assert_eq!(r.inputs, ["0x3f000000", "0x33040000"]);
        assert_eq!(r.inputs_decimal[0], "0.5");
        assert_eq!(r.program["body"][0], "add.rz.f32 %f2, %f0, %f1;");
    }

    #[test]
    fn json_round_trips_to_the_same_case() {
        let r = sample();
        let text = serde_json::to_string(&r).unwrap();
        let back: Reproducer = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
        let c = back.case().unwrap();
        assert_eq!(c.inputs, vec![0x3f00_0000, 0x3304_0000]);
        assert_eq!(c.program.to_string(), r.program_text);
        assert_eq!(back.actual_bits().unwrap(), vec![0x3f00_0001, 1]);
    }

    #[test]
    fn ptx_file_has_the_entry_and_the_case() {
        let ptx = sample().ptx_file().unwrap();
        assert!(ptx.contains(".target sm_90"), "{ptx}");
        assert!(ptx.contains(".visible .entry p0("), "{ptx}");
        assert!(ptx.contains("add.rz.f32 %f2, %f0, %f1;"), "{ptx}");
        assert!(ptx.contains("//   in[1]  = 0x33040000"), "{ptx}");
    }

    #[test]
    fn sm_is_raised_to_what_the_program_needs() {
        let p = Program::parse("// inputs: %rd0:f32x2\nadd.rn.f32x2 %rd1, %rd0, %rd0;\n// outputs: %rd1\n").unwrap();
        assert_eq!(ptx_arch(&p, 90), Arch::from(100));
        assert_eq!(ptx_arch(&p, 120), Arch::from(120));
    }

    #[test]
    fn an_f6_cvt_gets_an_sm_100a_reproducer_whose_files_name_it() {
        let program = Program::parse("// inputs: %f0:f32, %f1:f32\ncvt.rn.satfinite.e2m3x2.f32 %h2, %f0, %f1;\n// outputs: %h2\n").unwrap();
        assert_eq!(ptx_arch(&program, 90).to_string(), "sm_100a");
        let case = Case { program, inputs: vec![0x3f80_0000, 0x4040_0000] };
        // The e2m3 pair of (1.0, 3.0) is 0x0814; a target that gave 0x0815 is a finding.
        let meta = Provenance { signature: "s".into(), sm: 90, ..Provenance::default() };
        let r = Reproducer::new(&case, &[0x0815], meta).unwrap();
        assert_eq!((r.sm, r.variant, r.failing_outputs.clone()), (100, ptx::isa::Variant::A, vec![0]));
        assert!(r.ptx_file().unwrap().contains(".target sm_100a\n"));
        let cu = api::repro::cuda::source(&r).unwrap();
        assert!(cu.contains("nvcc -gencode arch=compute_100a,code=sm_100a -o repro") && cu.contains("sm_100a code runs there only"), "{cu}");
        // The suffix survives the JSON; a plain reproducer's JSON has no "variant".
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<Reproducer>(&json).unwrap(), r);
        assert!(json.contains(r#""variant":"a""#) && !serde_json::to_string(&sample()).unwrap().contains("variant"));
    }

    #[test]
    fn folder_is_written_whole_and_never_overwritten() {
        let base = std::env::temp_dir().join(format!("ptxfuzz-repro-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        let r = sample();
        let dir = base.join("add.rz.f32~rounding~normal.normal~sm90");
        write_dir(&dir, &r).unwrap();
        for f in ["repro.json", "repro.ptx", "repro.cu"] {
            assert!(dir.join(f).is_file(), "{f}");
        }
        assert_eq!(Reproducer::load(&dir).unwrap(), r);
        assert!(write_dir(&dir, &r).is_err());
        let leftovers: Vec<_> = fs::read_dir(&base).unwrap().filter_map(|e| e.ok()).collect();
        assert_eq!(leftovers.len(), 1, "no temporary folder left behind");
        // The parent holds one finding folder: named, not "cannot read repro.json".
        let e = Reproducer::load(&base).unwrap_err().to_string();
        assert!(e.contains("holds 1 finding folder(s), not one finding"), "{e}");
        // A folder with neither is said to be no finding folder, with what to give instead.
        let empty = base.join("empty");
        fs::create_dir(&empty).unwrap();
        let e = Reproducer::load(&empty).unwrap_err().to_string();
        assert!(e.contains("is not a finding folder: it has no repro.json") && e.contains("or its repro.json"), "{e}");
        // A mistyped path is said not to exist, with what to give: not the OS's "os error 2".
        let e = Reproducer::load(&base.join("typo")).unwrap_err().to_string();
        fs::remove_dir_all(&base).unwrap();
        assert!(e.ends_with("typo does not exist: give a finding folder (`ptxfuzz campaign` writes one per signature under its --out) or its repro.json"), "{e}");
    }
}
