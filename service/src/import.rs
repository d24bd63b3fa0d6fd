//! `ptxfuzz-server serve --import DIR`: the finding folders of a campaign that ran without a
//! server, stored before the server serves. `api::folder` reads them (as `ptxfuzz deliver
//! --findings` does) and `db::findings::ingest` stores them (as `POST /api/v1/findings/batch`
//! does), so a folder imported twice, or imported and delivered, is stored once.
//!
//! A finding folder that does not read (a repro.json cut short) or that ingest refuses is
//! skipped and named ([`Imported::skipped`]), and the others are imported: the server then
//! serves. Refusing to start over one damaged folder of 300 would keep the 299 good ones out of
//! the dashboard, and importing again after the repair adds only the repaired one (ingest is
//! by content). `serve` prints each skipped folder and what to do about it.

use std::path::{Path, PathBuf};

use api::findings::{FindingReport, IngestBatch, MAX_BATCH};
use api::folder::{FolderError, REPAIR_ADVICE};
use sqlx::PgPool;

use crate::db::findings::ingest::{self, Rejected};

/// What one import did, in finding folders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    pub folders: u64,
    /// Folders new to the database.
    pub new: u64,
    /// Folders it already held.
    pub present: u64,
    /// Folders not imported, each `FOLDER: why`.
    pub skipped: Vec<String>,
    /// Why summary.json did not read, if it did not (every hit count is then 1).
    pub summary: Option<String>,
}

impl Imported {
    /// The line `serve` prints for `dir`.
    pub fn line(&self, dir: &Path) -> String {
        let skipped = match self.skipped.len() {
            0 => String::new(),
            n => format!(", {n} SKIPPED (named below)"),
        };
        format!("imported {}: {} finding folder(s), {} new, {} already present{skipped}", dir.display(), self.folders, self.new, self.present)
    }

    /// The warnings `serve` prints after [`Imported::line`]: each skipped folder, what to do,
    /// and an unreadable summary.json.
    pub fn warnings(&self) -> Vec<String> {
        let mut v: Vec<String> = self.skipped.iter().map(|s| format!("  skipped {s}")).collect();
        if !v.is_empty() {
            v.push(format!("  {REPAIR_ADVICE} Then import again: each finding is stored once."));
        }
        if let Some(e) = &self.summary {
            v.push(format!("  warning: {e}; hit counts are unknown, each finding was imported with 1 hit"));
        }
        v
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("--import {dir}: {cause}")]
    Read { dir: PathBuf, cause: FolderError },
    #[error("--import {dir}: no finding folder (SIGNATURE/repro.json) in it; pass a campaign's --out folder")]
    Empty { dir: PathBuf },
    #[error("--import {dir}: {what}; pass a campaign's --out folder")]
    NotAFolder { dir: PathBuf, what: &'static str },
    #[error("--import {dir}: the server refused a finding folder: {why}")]
    Refused { dir: PathBuf, why: String },
    #[error("--import {dir}: the database failed: {cause}")]
    Db { dir: PathBuf, cause: sqlx::Error },
}

/// Store every finding folder of `dir` (a campaign's `--out`).
pub async fn import(pool: &PgPool, dir: &Path) -> Result<Imported, ImportError> {
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ImportError::NotAFolder { dir: dir.into(), what: "does not exist" })
        }
        Ok(m) if !m.is_dir() => return Err(ImportError::NotAFolder { dir: dir.into(), what: "is a file, not a folder" }),
        _ => {}
    }
    let owned = dir.to_path_buf();
    let read = tokio::task::spawn_blocking(move || api::folder::read_campaign_each(&owned))
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
        .map_err(|cause| ImportError::Read { dir: dir.into(), cause })?;
    if read.reports.is_empty() && read.bad.is_empty() {
        return Err(ImportError::Empty { dir: dir.into() });
    }
    let mut done = Imported {
        skipped: read.bad.iter().map(|e| format!("{}: {e}", e.path().parent().unwrap_or(e.path()).display())).collect(),
        summary: read.summary.map(|e| e.to_string()),
        ..Imported::default()
    };
    for chunk in read.reports.chunks(MAX_BATCH) {
        let reports = chunk.iter().map(|(_, r)| r.clone()).collect();
        match store(pool, dir, reports).await? {
            Ok(r) => done.add(r),
            // One invalid report refuses its whole batch: store the batch's reports one by one,
            // so that the refused one is named and the others are stored.
            Err(Rejected::Invalid(_)) => {
                for (folder, report) in chunk {
                    match store(pool, dir, vec![report.clone()]).await? {
                        Ok(r) => done.add(r),
                        Err(Rejected::Invalid(why)) => done.skipped.push(format!("{}: refused: {why}", folder.display())),
                        Err(other) => return Err(ImportError::Refused { dir: dir.into(), why: format!("{other:?}") }),
                    }
                }
            }
            Err(other) => return Err(ImportError::Refused { dir: dir.into(), why: format!("{other:?}") }),
        }
    }
    Ok(done)
}

impl Imported {
    fn add(&mut self, r: api::findings::IngestResult) {
        self.folders += r.received;
        self.new += r.inserted;
        self.present += r.duplicates;
    }
}

async fn store(pool: &PgPool, dir: &Path, findings: Vec<FindingReport>) -> Result<Result<api::findings::IngestResult, Rejected>, ImportError> {
    ingest::ingest(pool, IngestBatch { campaign_id: None, findings })
        .await
        .map_err(|cause| ImportError::Db { dir: dir.into(), cause })
}
