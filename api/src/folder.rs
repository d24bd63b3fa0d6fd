//! A campaign's finding folders (`--out/SIGNATURE/repro.json`, `repro.ptx`) read back as
//! ingest reports, so that `ptxfuzz deliver --findings` and `ptxfuzz-server serve --import`
//! read them one way.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::findings::FindingReport;
use crate::repro::Reproducer;

/// Why a finding folder could not be read; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("cannot read {path}: {cause}")]
    Io {
        path: PathBuf,
        // `cause`, not `source`: quoted in the message, so an error chain printed with `{:#}`
        // names it once.
        cause: std::io::Error,
    },
    #[error(
        "{path} is not a valid file of its kind: {cause} (is it a ptxfuzz campaign's output?)"
    )]
    Json {
        path: PathBuf,
        cause: serde_json::Error,
    },
}

impl FolderError {
    /// The file (or folder) it is about.
    pub fn path(&self) -> &Path {
        match self {
            FolderError::Io { path, .. } | FolderError::Json { path, .. } => path,
        }
    }
}

fn read(path: &Path) -> Result<String, FolderError> {
    std::fs::read_to_string(path).map_err(|cause| FolderError::Io {
        path: path.into(),
        cause,
    })
}

/// Hits per signature key from the campaign's `summary.json` (`findings[].key`, `.hits`), when
/// the campaign wrote one.
pub fn summary_hits(out: &Path) -> Result<HashMap<String, u64>, FolderError> {
    let path = out.join("summary.json");
    if !path.exists() {
        return Ok(HashMap::new());
    }
    let v: serde_json::Value =
        serde_json::from_str(&read(&path)?).map_err(|cause| FolderError::Json {
            path: path.clone(),
            cause,
        })?;
    let mut hits = HashMap::new();
    for f in v
        .get("findings")
        .and_then(|f| f.as_array())
        .into_iter()
        .flatten()
    {
        if let (Some(k), Some(h)) = (
            f.get("key").and_then(|k| k.as_str()),
            f.get("hits").and_then(|h| h.as_u64()),
        ) {
            hits.insert(k.to_string(), h.max(1));
        }
    }
    Ok(hits)
}

/// One finding folder as a report; `hits` is the campaign's count for it (1 when unknown).
pub fn read_folder(dir: &Path, hits: u64) -> Result<FindingReport, FolderError> {
    let path = dir.join("repro.json");
    let reproducer: Reproducer =
        serde_json::from_str(&read(&path)?).map_err(|cause| FolderError::Json { path, cause })?;
    let ptx_path = dir.join("repro.ptx");
    let ptx = if ptx_path.exists() {
        Some(read(&ptx_path)?)
    } else {
        None
    };
    Ok(FindingReport {
        reproducer,
        hits: hits.max(1),
        ptx,
        sass: None,
    })
}

/// Every finding folder of a campaign's `--out` dir (each subfolder holding a `repro.json`;
/// hidden ones such as `.spool` skipped), sorted by folder name; the first folder (or a
/// summary.json) that does not read is the error. [`read_campaign_each`] goes on past them.
pub fn read_campaign(out: &Path) -> Result<Vec<FindingReport>, FolderError> {
    let all = read_campaign_each(out)?;
    if let Some(e) = all.summary.into_iter().chain(all.bad).next() {
        return Err(e);
    }
    Ok(all.reports.into_iter().map(|(_, r)| r).collect())
}

/// What to do about a finding folder that does not read, for the commands that name it and
/// go on (`ptxfuzz explain`, `deliver --findings`, `ptxfuzz-server serve --import`).
pub const REPAIR_ADVICE: &str = "A damaged finding folder is rewritten by the next campaign on its --out that finds \
     the same signature (`ptxfuzz campaign --out DIR` names it at its start); or restore it from a copy, or remove it.";

/// A campaign's `--out` read folder by folder ([`read_campaign_each`]).
#[derive(Debug, Default)]
pub struct CampaignFolders {
    /// The folders that read, each with its path, sorted by folder name.
    pub reports: Vec<(PathBuf, FindingReport)>,
    /// The folders that did not (a truncated repro.json, an unreadable repro.ptx): each error
    /// names its file.
    pub bad: Vec<FolderError>,
    /// Why `summary.json` did not read, if it did not: every hit count is then 1.
    pub summary: Option<FolderError>,
}

/// Every finding folder of `out` as [`read_campaign`] finds them, but one damaged folder (or
/// summary.json) does not hide the others: callers with hundreds of findings go on with the
/// good ones and name the bad. Only `out` itself not being readable is an error.
pub fn read_campaign_each(out: &Path) -> Result<CampaignFolders, FolderError> {
    let io = |cause| FolderError::Io {
        path: out.into(),
        cause,
    };
    let mut dirs = Vec::new();
    for e in std::fs::read_dir(out).map_err(io)? {
        let e = e.map_err(io)?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !e.path().join("repro.json").is_file() {
            continue;
        }
        dirs.push((name, e.path()));
    }
    dirs.sort();
    let mut all = CampaignFolders::default();
    let hits = summary_hits(out).unwrap_or_else(|e| {
        all.summary = Some(e);
        HashMap::new()
    });
    for (name, p) in dirs {
        match read_folder(&p, hits.get(&name).copied().unwrap_or(1)) {
            Ok(r) => all.reports.push((p, r)),
            Err(e) => all.bad.push(e),
        }
    }
    Ok(all)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn unpacked() -> Option<tempdir::Dir> {
        tempdir::unpack("../../shared/hw/h100-sm90/campaign-60s.tar.gz", "folder")
    }

    /// The tarball unpacked into a fresh temporary folder, removed on drop; `tag` keeps the
    /// folders of tests running at once apart.
    pub(crate) mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
        pub fn unpack(tar: &str, tag: &str) -> Option<Dir> {
            let tar = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(tar);
            let d = std::env::temp_dir().join(format!("ptxfuzz-{tag}-{}", std::process::id()));
            std::fs::create_dir_all(&d).ok()?;
            let ok = std::process::Command::new("tar")
                .arg("xzf")
                .arg(&tar)
                .arg("-C")
                .arg(&d)
                .status()
                .ok()?;
            assert!(ok.success(), "tar xzf {} failed", tar.display());
            Some(Dir(d))
        }
    }

    #[test]
    fn reads_every_finding_folder_of_the_h100_campaign_with_its_hits() {
        let d = unpacked().expect("unpack the campaign tarball");
        let out = d.0.join("campaign");
        let reports = read_campaign(&out).unwrap();
        assert_eq!(reports.len(), 281);
        let hits = summary_hits(&out).unwrap();
        let abs = reports
            .iter()
            .find(|r| r.ptx.as_deref().is_some_and(|p| p.contains("abs.f64")))
            .unwrap();
        assert!(abs.hits >= 1);
        assert_eq!(hits.get("abs.f64~nan-payload~nan~sm90"), Some(&716));
        assert!(reports.iter().any(|r| r.hits == 716));
    }

    #[test]
    fn one_damaged_folder_does_not_hide_the_others_read_one_by_one() {
        let d = std::env::temp_dir().join(format!("ptxfuzz-folder-each-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("bad~sig")).unwrap();
        std::fs::write(d.join("bad~sig/repro.json"), "{ \"ptxfuzz_repro\": 1,").unwrap();
        std::fs::write(d.join("summary.json"), "").unwrap();
        let all = read_campaign_each(&d).unwrap();
        let _ = std::fs::remove_dir_all(&d);
        assert!(all.reports.is_empty());
        assert_eq!(all.bad.len(), 1);
        assert!(all.bad[0].path().ends_with("bad~sig/repro.json"), "{}", all.bad[0]);
        assert!(all.summary.as_ref().unwrap().path().ends_with("summary.json"));
    }

    #[test]
    fn a_malformed_repro_json_names_the_file() {
        let d = std::env::temp_dir().join(format!("ptxfuzz-folder-bad-{}", std::process::id()));
        std::fs::create_dir_all(d.join("x~y")).unwrap();
        std::fs::write(d.join("x~y/repro.json"), "{ not json").unwrap();
        let e = read_campaign(&d).unwrap_err().to_string();
        let _ = std::fs::remove_dir_all(&d);
        assert!(e.contains("x~y/repro.json"), "{e}");
    }
}
