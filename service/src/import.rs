//! `ptxfuzz-server serve --import DIR`: the finding folders of a campaign that ran without a
//! server, stored before the server serves. `api::folder` reads them (as `ptxfuzz deliver
//! --findings` does) and `db::findings::ingest` stores them (as `POST /api/v1/findings/batch`
//! does), so a folder imported twice, or imported and delivered, is stored once.

use std::path::{Path, PathBuf};

use api::findings::{IngestBatch, MAX_BATCH};
use api::folder::FolderError;
use sqlx::PgPool;

use crate::db::findings::ingest::{self, Rejected};

/// What one import did, in finding folders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    pub folders: u64,
    /// Folders new to the database.
    pub new: u64,
    /// Folders it already held.
    pub present: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("--import {dir}: {cause}")]
    Read { dir: PathBuf, cause: FolderError },
    #[error("--import {dir}: no finding folder (SIGNATURE/repro.json) in it; pass a campaign's --out folder")]
    Empty { dir: PathBuf },
    #[error("--import {dir}: the server refused a finding folder: {why}")]
    Refused { dir: PathBuf, why: String },
    #[error("--import {dir}: the database failed: {cause}")]
    Db { dir: PathBuf, cause: sqlx::Error },
}

/// Store every finding folder of `dir` (a campaign's `--out`).
pub async fn import(pool: &PgPool, dir: &Path) -> Result<Imported, ImportError> {
    let owned = dir.to_path_buf();
    let reports = tokio::task::spawn_blocking(move || api::folder::read_campaign(&owned))
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
        .map_err(|cause| ImportError::Read { dir: dir.into(), cause })?;
    if reports.is_empty() {
        return Err(ImportError::Empty { dir: dir.into() });
    }
    let mut done = Imported::default();
    for chunk in reports.chunks(MAX_BATCH) {
        let batch = IngestBatch { campaign_id: None, findings: chunk.to_vec() };
        let r = ingest::ingest(pool, batch).await.map_err(|cause| ImportError::Db { dir: dir.into(), cause })?;
        let r = r.map_err(|rejected| ImportError::Refused {
            dir: dir.into(),
            why: match rejected {
                Rejected::Invalid(why) => why,
                other => format!("{other:?}"),
            },
        })?;
        done.folders += r.received;
        done.new += r.inserted;
        done.present += r.duplicates;
    }
    Ok(done)
}
