//! Decode raw fuzzer inputs (a corpus folder such as `fuzz/corpus/explore`) into the programs and
//! input cases the fuzz target ran, with `ptx::gen::from_bytes` and the target's config.
//!
//! ```sh
//! cargo run --release -p ptx --example fuzz_corpus -- fuzz/explore.json fuzz/corpus/explore > programs.jsonl
//! cargo run --release -p ptx --example fuzz_corpus -- fuzz/explore.json fuzz/corpus/explore --module corpus.ptx
//! ```
//!
//! Prints one JSON object per file, in file-name order:
//! `{"file":"<name>","program":{..program JSON..},"case":["0x3f800000",..]}`. With
//! `--module FILE`, also writes one PTX module (an entry `pN` per program, outputs only) for
//! the config's sm, e.g. to assemble with ptxas.

use std::io::Write;
use std::path::PathBuf;

use ptx::gen::{GenConfig, Generator};
use ptx::kernel::{self, Mode};

fn main() {
    if let Err(e) = run() {
        eprintln!("fuzz_corpus: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: fuzz_corpus CONFIG.json CORPUS_DIR [--module OUT.ptx]";
    let (config, dir) = match args.as_slice() {
        [c, d, ..] => (PathBuf::from(c), PathBuf::from(d)),
        _ => return Err(usage.into()),
    };
    let module = match &args[2..] {
        [] => None,
        [flag, out] if flag == "--module" => Some(PathBuf::from(out)),
        _ => return Err(usage.into()),
    };
    let text = std::fs::read_to_string(&config).map_err(|e| format!("{}: {e}", config.display()))?;
    let cfg: GenConfig = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", config.display()))?;
    let sm = cfg.sm;
    let g = Generator::new(cfg).map_err(|e| e.to_string())?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut programs = Vec::with_capacity(files.len());
    let mut stdout = std::io::stdout().lock();
    for f in &files {
        let data = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let (p, case) = g.from_bytes(&data);
        let case: Vec<String> = case.iter().map(|v| format!("{v:#x}")).collect();
        let name = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // Built by hand: serde_json's own map would sort the program's `types` by name.
        let (name, case) = (serde_json::to_string(&name).unwrap(), serde_json::to_string(&case).unwrap());
        // A closed stdout (`| head`) ends the listing quietly.
        if writeln!(stdout, "{{\"file\":{name},\"program\":{},\"case\":{case}}}", p.to_json()).is_err() {
            return Ok(());
        }
        programs.push(p);
    }
    if let Some(out) = module {
        let m = kernel::module(&programs, sm, Mode::Outputs).map_err(|e| e.to_string())?;
        std::fs::write(&out, m).map_err(|e| format!("{}: {e}", out.display()))?;
        eprintln!("fuzz_corpus: {} programs, module for sm_{sm} in {}", programs.len(), out.display());
    }
    Ok(())
}
