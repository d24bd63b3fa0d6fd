//! What `ptxfuzz sweep` checks before it runs: where it writes, `--start` and `--sm`. A 2^32 sweep on
//! the CPU takes minutes: a bad `--sm`, a `--start` outside the space or a path it cannot
//! write should stop it before, not after (the probe of 2026-12 found `--save /proc/x` failing
//! only once the sweep had run, and `--save .` leaving a stray temporary file).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Result};
use ptx::isa::{Arch, Requirement, Variant};

use crate::oracles::EngineOptions;

/// The engine options of `--timeout` and `--sm`. An sm the kernel emitter does not know is
/// refused with the emitter's own message, as `campaign` and `gen` refuse it. A suffix is
/// refused: an instruction's forms are plain (its GPU sweep module is `.target sm_XX`), and a
/// cvt form's kernel takes the suffix its table needs on that sm by itself (`form_target` of
/// the cuda engine), so `--sm 100a` would only restrict where the modules load.
pub fn engine_options(timeout: u64, sm: Option<Arch>) -> Result<EngineOptions> {
    if let Some(arch) = sm {
        ptx::kernel::min_ptx_for_arch(arch).map_err(|e| anyhow::anyhow!("--sm {}: {e}", arch.to_string().trim_start_matches("sm_")))?;
        if arch.variant != Variant::Plain {
            bail!(
                "--sm {0}{1}: a sweep takes the plain sm; give --sm {0} (an instruction's forms are plain, and a cvt form's kernel gets the suffix its table needs on sm_{0} by itself)",
                arch.sm,
                arch.variant
            );
        }
    }
    Ok(EngineOptions { timeout: Duration::from_secs(timeout), sm: sm.map(|a| a.sm), variant: Variant::Plain })
}

/// Why the target named `target` cannot sweep `what`, which needs `needs`: one message for an
/// instruction's sweep, a spelled form's and `--dump`, with the targets that can. `defaulted`:
/// no --target was given, so a machine without a GPU picked host (`oracles::default_target`),
/// whose FPU runs few forms (`oracles::diff_host`); the user did not choose it, so the message
/// says what it runs.
pub fn not_run_on(target: &str, what: &dyn std::fmt::Display, needs: Requirement, defaulted: bool) -> anyhow::Error {
    let gpu = match needs.variant {
        Variant::Plain => format!("an NVIDIA GPU of sm_{} or later", needs.sm),
        Variant::A => format!("an sm_{} GPU", needs.sm),
        Variant::F => format!("an sm_{} GPU or a later one of its family", needs.sm),
    };
    let why_host = match (target, defaulted) {
        ("host", true) => {
            ". Without --target a machine with no GPU sweeps on host, this CPU's FPU, which runs only the scalar f32 and f64 \
             add, sub, mul, fma, mad, div, rcp and sqrt with a rounding mode (no .ftz, no .sat)"
        }
        _ => "",
    };
    anyhow::anyhow!(
        "{target} does not run {what}; pick another with --target: interp (the reference interpreter), cuda ({gpu}) or exec:COMMAND{why_host}"
    )
}

/// `--start` must number an input of the space: past it, the input numbers wrapped modulo the
/// space and the sweep silently ran other inputs than asked.
pub fn check_start(start: u64, bits: u32, what: &str) -> Result<()> {
    if bits < 64 && start >> bits != 0 {
        let space = 1u64 << bits;
        bail!(
            "--start {start:#x} ({start}) is past the input space of {what}: 2^{bits} = {space:#x} ({space}) inputs, numbered 0 to {:#x} ({}); give a --start below {space:#x}",
            space - 1,
            space - 1
        );
    }
    Ok(())
}

/// The sibling a file is written to before it is renamed over `path` (hidden, named by the
/// process, so that two sweeps into one folder do not share it).
fn tmp_of(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// The folder `path` is written into (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Where `option PATH` (`--save`, `--dump`) writes: PATH, or `name` inside it when PATH is a
/// folder; checked before the sweep. The folder must exist and take a new file: a probe file
/// is made there and removed, since a folder that exists may take none (`/proc`). An existing
/// PATH must be a plain file: the rename would replace `/dev/null` itself.
pub fn out_path(option: &str, given: &Path, name: &str) -> Result<PathBuf> {
    let shown = given.display();
    let path = if given.is_dir() {
        given.join(name)
    } else if given.as_os_str().to_string_lossy().ends_with('/') {
        bail!("{option} {shown}: the folder does not exist; create it first (the sweep writes {name} there when it ends)");
    } else {
        given.to_path_buf()
    };
    let dir = folder_of(&path);
    if !dir.is_dir() {
        bail!("{option} {shown}: the folder {} does not exist; create it first (the sweep writes there when it ends)", dir.display());
    }
    if let Ok(meta) = fs::metadata(&path) {
        if !meta.is_file() {
            bail!("{option} {shown}: {} exists and is not a plain file; give a new file name or a folder", path.display());
        }
    }
    let probe = tmp_of(&path);
    fs::File::create(&probe)
        .map_err(|e| anyhow::anyhow!("{option} {shown}: cannot create a file in {} ({e}); give a folder you can write to", dir.display()))?;
    let _ = fs::remove_file(&probe);
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repro::replace_synced;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ptxfuzz-sweep-checks-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn listing(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_folder_gets_the_named_file_and_the_checks_leave_nothing_behind() {
        let d = scratch("folder");
        let p = out_path("--save", &d, "rcp.approx.f32.sweep.json").unwrap();
        assert_eq!(p, d.join("rcp.approx.f32.sweep.json"));
        assert!(listing(&d).is_empty(), "the probe stays: {:?}", listing(&d));
        replace_synced(&p, b"{}\n").unwrap();
        assert_eq!(listing(&d), ["rcp.approx.f32.sweep.json"]);
        // A file in an existing folder is itself; replacing it keeps one file.
        assert_eq!(out_path("--save", &p, "x").unwrap(), p);
        replace_synced(&p, b"[]\n").unwrap();
        assert_eq!((listing(&d), fs::read(&p).unwrap()), (vec!["rcp.approx.f32.sweep.json".to_string()], b"[]\n".to_vec()));
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_unwritable_missing_or_special_path_is_refused_before_the_sweep() {
        let e = out_path("--save", Path::new("/proc/x"), "n").unwrap_err().to_string();
        assert!(e.contains("cannot create a file in /proc") && e.contains("give a folder you can write to"), "{e}");
        let e = out_path("--dump", Path::new("/nonexistent-ptxfuzz/r.json"), "n").unwrap_err().to_string();
        assert!(e.contains("does not exist; create it first"), "{e}");
        let e = out_path("--save", Path::new("/nonexistent-ptxfuzz/"), "n").unwrap_err().to_string();
        assert!(e.contains("does not exist; create it first"), "{e}");
        let e = out_path("--save", Path::new("/dev/null"), "n").unwrap_err().to_string();
        assert!(e.contains("is not a plain file"), "{e}");
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let d = scratch("fail");
        // A folder where the file should be: the rename fails after the temporary is written.
        let target = d.join("taken");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("inside"), b"x").unwrap();
        assert!(replace_synced(&target, b"data").is_err());
        assert_eq!(listing(&d), ["taken"]);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_start_past_the_space_is_refused_with_its_size_in_hex_and_decimal() {
        let e = check_start(0x10000, 16, "ex2.approx.f16").unwrap_err().to_string();
        assert!(e.contains("2^16 = 0x10000 (65536) inputs") && e.contains("0 to 0xffff (65535)"), "{e}");
        check_start(0xffff, 16, "x").unwrap();
        check_start(u64::MAX, 64, "x").unwrap();
    }

    #[test]
    fn a_target_that_cannot_run_a_form_names_the_targets_that_can_and_explains_a_default_host() {
        let needs = |sm, variant| Requirement { sm, variant, ..ptx::isa::requirements::requirement_of(&ptx::isa::Instr::parse("add.rn.f32", 2).unwrap()) };
        let e = not_run_on("host", &"add.rn.f16", needs(53, Variant::Plain), false).to_string();
        assert_eq!(e, "host does not run add.rn.f16; pick another with --target: interp (the reference interpreter), cuda (an NVIDIA GPU of sm_53 or later) or exec:COMMAND");
        // Picked without --target (no GPU here), host says what it runs.
        let e = not_run_on("host", &"add.rn.f16", needs(53, Variant::Plain), true).to_string();
        assert!(e.contains("Without --target a machine with no GPU sweeps on host") && e.contains("(no .ftz, no .sat)"), "{e}");
        // A default cuda target is what the user has: nothing to explain.
        assert!(!not_run_on("cuda:0", &"x", needs(90, Variant::Plain), true).to_string().contains("Without"));
        let e = not_run_on("cuda:0", &"cvt.rn.satfinite.e2m1x2.f32", needs(100, Variant::A), false).to_string();
        assert!(e.contains("cuda (an sm_100 GPU)"), "{e}");
        let e = not_run_on("cuda:0", &"x", needs(100, Variant::F), false).to_string();
        assert!(e.contains("cuda (an sm_100 GPU or a later one of its family)"), "{e}");
    }

    #[test]
    fn sm_spellings_are_taken_an_unknown_sm_and_a_suffix_refused() {
        for s in ["90", "sm_90"] {
            let o = engine_options(60, Some(s.parse().unwrap())).unwrap();
            assert_eq!((o.sm, o.variant), (Some(90), Variant::Plain));
        }
        let e = engine_options(60, Some("95".parse().unwrap())).unwrap_err().to_string();
        assert!(e.contains("sm_95 is not a target"), "{e}");
        let e = engine_options(60, Some("100a".parse().unwrap())).unwrap_err().to_string();
        assert!(e.contains("give --sm 100 "), "{e}");
        let e = engine_options(60, Some("90f".parse().unwrap())).unwrap_err().to_string();
        assert!(e.contains("is not a target"), "{e}");
    }
}
