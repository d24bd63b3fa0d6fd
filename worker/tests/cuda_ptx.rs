//! The PTX the cuda engine would load, assembled by NVIDIA's ptxas (no GPU needed): for a few
//! hundred generated programs per target (sm_80, sm_90, sm_100), every batch module exactly
//! as `diff_cuda::module_for` builds it, in both modes.
//!
//! ptxas is found through env `PTXAS`, else the `nvidia` Python package (`pip install
//! nvidia-cuda-nvcc`), else `PATH`. Without it this test fails, unless `PTXFUZZ_SKIP_PTXAS=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

use arbitrary::Unstructured;
use ptx::gen::{GenConfig, Generator};
use ptx::kernel::Mode;
use ptx::program::Program;
use worker::oracles::diff_cuda::module_for;

const PROGRAMS_PER_SM: usize = 300;
/// Programs per module, as a campaign batch might hold.
const PER_MODULE: usize = 100;

fn ptxas() -> Option<PathBuf> {
    // env PTXAS, the pip wheels, PATH: one lookup for the binary and the tests.
    worker::toolkit::find("ptxas").ok()
}

fn assemble(ptxas: &Path, text: &str, sm: u32, tag: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cuda-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{tag}.ptx"));
    std::fs::write(&file, text).unwrap();
    let out = Command::new(ptxas).arg(format!("-arch=sm_{sm}")).arg(&file).args(["-o", "/dev/null"]).output().unwrap();
    if out.status.success() {
        let _ = std::fs::remove_file(&file);
        Ok(())
    } else {
        Err(format!("{} (kept at {})", String::from_utf8_lossy(&out.stderr), file.display()))
    }
}

#[test]
fn ptxas_assembles_every_module_the_cuda_engine_would_load() {
    let Some(ptxas) = ptxas() else {
        if std::env::var("PTXFUZZ_SKIP_PTXAS").as_deref() == Ok("1") {
            eprintln!("SKIPPED: ptxas not found and PTXFUZZ_SKIP_PTXAS=1");
            return;
        }
        panic!("ptxas not found: install it with `pip install nvidia-cuda-nvcc` (or set PTXAS=/path/to/ptxas); set PTXFUZZ_SKIP_PTXAS=1 to skip");
    };
    let mut assembled = 0;
    for sm in [80, 90, 100] {
        let cfg = GenConfig { sm, approximate: true, contraction: true, ..GenConfig::default() };
        let gen = Generator::new(cfg).unwrap();
        let bytes: Vec<u8> = (0..2_000_000u32).map(|i| (i.wrapping_mul(0x9e37_79b9).rotate_left(sm) >> 11) as u8).collect();
        let mut u = Unstructured::new(&bytes);
        let programs: Vec<Program> = (0..PROGRAMS_PER_SM).map(|_| gen.program(&mut u).unwrap()).collect();
        for (b, batch) in programs.chunks(PER_MODULE).enumerate() {
            let refs: Vec<&Program> = batch.iter().collect();
            for mode in [Mode::Outputs, Mode::Trace] {
                let text = module_for(&refs, sm, mode).unwrap();
                assemble(&ptxas, &text, sm, &format!("sm{sm}-{b}-{mode:?}")).unwrap_or_else(|e| panic!("sm_{sm}: {e}"));
                assembled += refs.len();
            }
        }
    }
    assert_eq!(assembled, 3 * 2 * PROGRAMS_PER_SM);
}
