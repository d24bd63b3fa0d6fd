//! ptxas for the integration tests: finding it, assembling a module, running many assemblies
//! on a few threads, and checking that ptxas and a legality table agree on every job.
//!
//! ptxas is found through env `PTXAS`, else the `nvidia` Python package (`pip install
//! nvidia-cuda-nvcc`), else `PATH`. Without it these tests fail, unless `PTXFUZZ_SKIP_PTXAS=1`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

pub fn ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        let p = PathBuf::from(p);
        assert!(p.is_file(), "PTXAS={} is not a file", p.display());
        return Some(p);
    }
    let py = Command::new("python3")
        .args(["-c", "import nvidia\nfor p in nvidia.__path__: print(p)"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(o) = py {
        for dir in String::from_utf8_lossy(&o.stdout).lines() {
            for sub in ["cu13", "cuda_nvcc", "cu12"] {
                let p = Path::new(dir).join(sub).join("bin").join("ptxas");
                if p.is_file() {
                    return Some(p);
                }
            }
        }
    }
    std::env::var_os("PATH").iter().flat_map(std::env::split_paths).map(|d| d.join("ptxas")).find(|p| p.is_file())
}

/// ptxas, or `None` when the user asked to skip; panics with the install command otherwise.
pub fn ptxas_or_skip(test: &str) -> Option<PathBuf> {
    if let Some(p) = ptxas() {
        return Some(p);
    }
    if std::env::var("PTXFUZZ_SKIP_PTXAS").as_deref() == Ok("1") {
        eprintln!("{test}: SKIPPED, ptxas not found and PTXFUZZ_SKIP_PTXAS=1");
        return None;
    }
    panic!(
        "ptxas not found: install it with `pip install nvidia-cuda-nvcc` (or set PTXAS=/path/to/ptxas); \
         set PTXFUZZ_SKIP_PTXAS=1 to skip these tests"
    );
}

/// Assemble `ptx` for `sm_XX`; `Err(ptxas's message)` when it is rejected.
pub fn assemble(ptxas: &Path, ptx: &str, sm: impl std::fmt::Display, tag: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{tag}.ptx"));
    std::fs::write(&file, ptx).unwrap();
    let out = Command::new(ptxas)
        .arg(format!("-arch=sm_{sm}"))
        .arg(&file)
        .args(["-o", "/dev/null"])
        .output()
        .expect("ptxas runs");
    let _ = std::fs::remove_file(&file);
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The SASS (`cuobjdump -sass`, found beside ptxas) of `ptx` assembled for `sm_{sm}`;
/// `Err` with ptxas's message, or with how to install cuobjdump.
pub fn sass(ptxas: &Path, ptx: &str, sm: impl std::fmt::Display, tag: &str) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-sass-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, cubin) = (dir.join(format!("{tag}.ptx")), dir.join(format!("{tag}.cubin")));
    std::fs::write(&src, ptx).unwrap();
    let out = Command::new(ptxas).arg(format!("-arch=sm_{sm}")).arg(&src).arg("-o").arg(&cubin).output().expect("ptxas runs");
    if !out.status.success() {
        let _ = std::fs::remove_file(&src);
        return Err(format!("{tag}: ptxas: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let cuobjdump = ptxas.with_file_name("cuobjdump");
    let sass = Command::new(&cuobjdump).arg("-sass").arg(&cubin).output().map_err(|e| {
        format!("{}: {e} (pip install nvidia-cuda-cuobjdump puts it beside ptxas)", cuobjdump.display())
    });
    let _ = (std::fs::remove_file(&src), std::fs::remove_file(&cubin));
    Ok(String::from_utf8_lossy(&sass?.stdout).into_owned())
}

/// The instructions of a `cuobjdump -sass` listing, one per line as `OPCODE operands` (the
/// address comment and the encoding after the `;` left out).
pub fn instructions(sass: &str) -> Vec<String> {
    sass.lines()
        .filter_map(|l| l.split("*/").nth(1).and_then(|s| s.split(';').next()).map(|s| s.trim().to_string()))
        .filter(|s| !s.is_empty())
        .collect()
}

/// The SASS instructions (as [`instructions`] gives them) of the kernel ptxfuzz emits for `p`
/// in `mode`, assembled for `sm_{sm}`; panics with ptxas's or cuobjdump's message.
pub fn kernel_instructions(ptxas: &Path, p: &ptx::program::Program, sm: &str, mode: ptx::kernel::Mode, tag: &str) -> Vec<String> {
    let module = ptx::kernel::module(&[p], ptx::isa::Arch::parse(sm).unwrap(), mode).unwrap();
    instructions(&sass(ptxas, &module, sm, tag).unwrap_or_else(|e| panic!("{e}")))
}

/// Run `jobs` on a few threads; collect the failures.
pub fn parallel<T: Sync>(jobs: &[T], f: impl Fn(&T) -> Option<String> + Sync) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut fails = Vec::new();
                    while let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        fails.extend(f(job));
                    }
                    fails
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    })
}

/// ptxas's error lines with the PTX line each names, for a readable failure.
pub fn explain(ptx: &str, err: &str) -> String {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut out = String::new();
    for e in err.lines().take(8) {
        out.push_str(e);
        let n =
            e.split(", line ").nth(1).and_then(|r| r.split(';').next()).and_then(|n| n.trim().parse::<usize>().ok());
        if let Some(l) = n.and_then(|n| lines.get(n.wrapping_sub(1))) {
            out.push_str(&format!("\n    > {}", l.trim()));
        }
        out.push('\n');
    }
    out
}

/// One assembly check: `module` for `target` (`90`, `100a`), and whether the form's table says
/// that target may run it.
pub struct Job {
    pub target: String,
    pub form: String,
    pub module: String,
    pub legal: bool,
}

impl Job {
    pub fn new(target: impl std::fmt::Display, form: impl std::fmt::Display, module: String, legal: bool) -> Job {
        Job { target: target.to_string(), form: form.to_string(), module, legal }
    }
}

/// Assemble every job; fail, listing the first few, where ptxas and the table disagree.
pub fn assert_ptxas_agrees(ptxas: &Path, tag: &str, jobs: &[Job]) {
    let fails = parallel(jobs, |j| {
        let got = assemble(ptxas, &j.module, &j.target, &format!("{tag}-{}-{}", j.target, j.form.replace('.', "-"))).map_err(|e| explain(&j.module, &e));
        match (j.legal, got) {
            (true, Err(e)) => Some(format!("{} on sm_{}: documented and allowed, but ptxas refuses it:\n{e}", j.form, j.target)),
            (false, Ok(())) => Some(format!("{} on sm_{}: the table says it needs a later target, but ptxas accepts it", j.form, j.target)),
            _ => None,
        }
    });
    assert!(fails.is_empty(), "{} of {} failed; first: {}", fails.len(), jobs.len(), fails.iter().take(5).cloned().collect::<Vec<_>>().join("\n"));
}
