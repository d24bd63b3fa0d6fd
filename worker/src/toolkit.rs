//! Finding NVIDIA's command-line tools (ptxas, cuobjdump, nvdisasm) without a CUDA install.
//!
//! Order: the environment variable named after the tool in capitals (`PTXAS=/path/to/ptxas`),
//! then the `nvidia` Python wheels (`pip install nvidia-cuda-nvcc nvidia-cuda-cuobjdump
//! nvidia-cuda-nvdisasm` put them under `site-packages/nvidia/cu13/bin`), then `PATH`.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Result};

/// The pip package that ships each tool.
fn wheel_of(tool: &str) -> &'static str {
    match tool {
        "cuobjdump" => "nvidia-cuda-cuobjdump",
        "nvdisasm" => "nvidia-cuda-nvdisasm",
        _ => "nvidia-cuda-nvcc",
    }
}

/// Locate `tool`, or an error that says how to install it.
pub fn find(tool: &str) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(tool.to_ascii_uppercase()) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        bail!("{}={} is not a file", tool.to_ascii_uppercase(), p.display());
    }
    for dir in wheel_bin_dirs() {
        let p = dir.join(tool);
        if p.is_file() {
            return Ok(p);
        }
    }
    if let Some(p) = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
    {
        return Ok(p);
    }
    bail!(
        "{tool} not found: install it with `pip install {}` (or set {}=/path/to/{tool})",
        wheel_of(tool),
        tool.to_ascii_uppercase()
    )
}

/// `site-packages/nvidia/cu*/bin` of the Python on PATH, if it has the `nvidia` namespace package.
fn wheel_bin_dirs() -> Vec<PathBuf> {
    let out = Command::new("python3")
        .args(["-c", "import nvidia, os; print('\\n'.join(nvidia.__path__))"])
        .output();
    let Ok(out) = out else { return Vec::new() };
    let mut dirs = Vec::new();
    for root in String::from_utf8_lossy(&out.stdout).lines() {
        if let Ok(entries) = std::fs::read_dir(root) {
            for e in entries.flatten() {
                let bin = e.path().join("bin");
                if bin.is_dir() {
                    dirs.push(bin);
                }
            }
        }
    }
    dirs.sort();
    dirs.reverse(); // the newest cuNN first
    dirs
}
