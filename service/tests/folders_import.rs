//! `serve --import` on a campaign folder with damaged finding folders: the readable ones are
//! imported, each damaged one (a truncated repro.json, one ingest refuses) is named and
//! skipped, a 0-byte summary.json is a warning, and a missing folder says it does not exist.

use std::path::{Path, PathBuf};

use crate::common::*;
use service::import::{import, ImportError};

/// The H100's eight finding folders (read-only).
const H100: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/findings");
const TRUNCATED: &str = "abs.f64~nan-payload~nan~sm90";
const REFUSED: &str = "cos.approx.f32~bound-exceeded~normal~sm90";

/// A writable copy of the H100 findings: `TRUNCATED`'s repro.json cut in half, `REFUSED`'s
/// class changed (it parses; ingest refuses it), summary.json empty.
fn damaged_copy() -> PathBuf {
    let out = std::env::temp_dir().join(format!("ptxfuzz-folders-import-{}", uuid::Uuid::new_v4().simple()));
    for e in std::fs::read_dir(H100).unwrap().map(|e| e.unwrap()) {
        let to = out.join(e.file_name());
        std::fs::create_dir_all(&to).unwrap();
        for f in std::fs::read_dir(e.path()).unwrap().map(|f| f.unwrap()) {
            std::fs::write(to.join(f.file_name()), std::fs::read(f.path()).unwrap()).unwrap();
        }
    }
    let cut = out.join(TRUNCATED).join("repro.json");
    let text = std::fs::read(&cut).unwrap();
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let bad = out.join(REFUSED).join("repro.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&bad).unwrap()).unwrap();
    v["class"] = "rounding".into();
    std::fs::write(&bad, serde_json::to_vec(&v).unwrap()).unwrap();
    std::fs::write(out.join("summary.json"), "").unwrap();
    out
}

#[tokio::test]
async fn import_stores_the_readable_folders_and_names_each_damaged_one() {
    let s = TestServer::start().await;
    let out = damaged_copy();
    let n = import(&s.pool, &out).await.unwrap();
    assert_eq!((n.folders, n.new), (6, 6), "{n:?}");
    assert_eq!(n.skipped.len(), 2, "{n:?}");
    let named = |folder: &str| n.skipped.iter().find(|l| l.starts_with(&out.join(folder).display().to_string())).cloned();
    assert!(named(TRUNCATED).is_some_and(|l| l.contains("repro.json is not a valid file of its kind: EOF while parsing")), "{n:?}");
    assert!(named(REFUSED).is_some_and(|l| l.contains("refused: findings[0].reproducer.class")), "{n:?}");
    assert!(n.summary.as_deref().is_some_and(|e| e.contains("summary.json")), "{n:?}");
    // What `serve` prints: the count, each folder, what to do, the summary's warning.
    assert!(n.line(&out).ends_with("6 finding folder(s), 6 new, 0 already present, 2 SKIPPED (named below)"), "{}", n.line(&out));
    let w = n.warnings().join("\n");
    assert!(w.contains("skipped ") && w.contains("rewritten by the next campaign") && w.contains("import again"), "{w}");
    assert!(w.contains("imported with 1 hit"), "{w}");
    // Repaired, the same import adds just the repaired folder.
    for f in [TRUNCATED, REFUSED] {
        let from = Path::new(H100).join(f).join("repro.json");
        std::fs::write(out.join(f).join("repro.json"), std::fs::read(from).unwrap()).unwrap();
    }
    let again = import(&s.pool, &out).await.unwrap();
    assert_eq!((again.new, again.present, again.skipped.len()), (2, 6, 0), "{again:?}");
    let _ = std::fs::remove_dir_all(&out);
}

#[tokio::test]
async fn import_of_a_missing_folder_says_it_does_not_exist() {
    let s = TestServer::start().await;
    let e = import(&s.pool, Path::new("/nonexistent/ptxfuzz-out")).await.unwrap_err();
    assert!(matches!(e, ImportError::NotAFolder { .. }), "{e}");
    assert!(e.to_string().contains("/nonexistent/ptxfuzz-out: does not exist"), "{e}");
}
