//! What recorded a capture (the GPU, its sm, the target and driver), kept in a file of its own
//! beside the capture: `FILE.info.json` for `FILE` (`sm_80.cases.txt.gz.info.json`).
//!
//! Why a file per capture: a single `capture-info.json` per folder (what `capture` wrote
//! before) was overwritten by the next `capture --out` into the same folder, and replaying the
//! first capture then claimed the second one's GPU and sm. The full file name plus
//! `.info.json` is one per capture even where `c.txt` and `c.txt.gz` sit side by side, and a
//! `ls` shows the pair together. The info is not put into the capture's own lines: the recorded
//! captures (`../shared/hw/h100-sm90/cases.txt.gz`) are read by other tools as
//! `INSTR OPERAND... -> RESULT` lines only (cut to `eval --batch` input), and a header line
//! would be one more thing each of them has to skip.
//!
//! A folder-wide `capture-info.json` (the recorded captures have one, as had folders written
//! by an earlier ptxfuzz) is still read, but only where it can only be this capture's:
//! [`folder_info`].

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// The folder-wide info file of earlier ptxfuzz versions and of the recorded captures.
pub const FOLDER_INFO: &str = "capture-info.json";

/// What a capture was recorded on. Every field is optional: a malformed or partial info only
/// loses the GPU's name, the cases are what count.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct CaptureInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm: Option<u32>,
    /// `sm_100a` where the capture was recorded for an architecture-specific target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// The capture file's name: what ties the info to its capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptxfuzz: Option<String>,
    /// The recorded captures' count of instruction forms (`variants` in ../shared's file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variants: Option<usize>,
}

/// `FILE.info.json`: the info file of the capture `FILE`.
pub fn info_path(capture: &Path) -> PathBuf {
    let mut name = capture.file_name().unwrap_or_default().to_os_string();
    name.push(".info.json");
    capture.with_file_name(name)
}

/// Where a capture's info came from, and the info.
#[derive(Debug)]
pub struct Found {
    pub path: PathBuf,
    pub info: CaptureInfo,
}

/// The info of `capture`, which records `forms` distinct forms: its own `FILE.info.json`,
/// else a folder-wide `capture-info.json` that can only be its ([`folder_info`]).
pub fn find(capture: &Path, forms: usize) -> Option<Found> {
    let own = info_path(capture);
    if let Ok(text) = std::fs::read_to_string(&own) {
        return serde_json::from_str(&text).ok().map(|info| Found { path: own, info });
    }
    folder_info(capture, forms)
}

/// The folder-wide `capture-info.json` beside `capture`, if it is this capture's: it names
/// this file (`capture`), or counts as many forms as the capture records (`variants`, as
/// the recorded captures' file does), or it says neither and `capture` is the only capture in
/// the folder. A second capture there may have overwritten it (the bug the per-file info
/// fixes), so it is not trusted where another capture could be its owner.
pub fn folder_info(capture: &Path, forms: usize) -> Option<Found> {
    let dir = match capture.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let path = dir.join(FOLDER_INFO);
    let info: CaptureInfo = serde_json::from_str(&std::fs::read_to_string(&path).ok()?).ok()?;
    let name = capture.file_name()?.to_string_lossy().into_owned();
    let ours = match (&info.capture, info.variants) {
        (Some(c), _) => *c == name,
        (None, Some(v)) => v == forms,
        (None, None) => only_capture_in(dir, &name),
    };
    ours.then_some(Found { path, info })
}

/// Whether `name` is the only capture in `dir`: no other file there (but `.partial` ones)
/// starts with a capture line. A folder too big to look through is not vouched for.
fn only_capture_in(dir: &Path, name: &str) -> bool {
    const MOST_FILES: usize = 1000;
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    let mut seen = 0;
    for e in entries.flatten() {
        seen += 1;
        if seen > MOST_FILES {
            return false;
        }
        let other = e.file_name().to_string_lossy().into_owned();
        if other == name || other.ends_with(".partial") || other.ends_with(".json") || !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        if looks_like_capture(&e.path()) {
            return false;
        }
    }
    true
}

/// Whether the first line of `path` (plain or gzip) that is not blank or a `#` comment reads
/// `INSTR 0xOPERAND... -> RESULT`.
pub fn looks_like_capture(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else { return false };
    let mut file = BufReader::new(file);
    let gz = file.fill_buf().is_ok_and(|b| b.starts_with(&[0x1f, 0x8b]));
    let reader: Box<dyn Read> = if gz { Box::new(flate2::read::MultiGzDecoder::new(file)) } else { Box::new(file) };
    // A few KiB is enough for the first line, and bounds the cost of a big unrelated file.
    let mut head = Vec::new();
    if reader.take(4096).read_to_end(&mut head).is_err() && head.is_empty() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    let Some(line) = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')) else { return false };
    let Some((lhs, _)) = line.split_once("->") else { return false };
    let mut words = lhs.split_whitespace();
    words.next().is_some() && words.next().is_some_and(|w| w.starts_with("0x"))
}

/// Write `FILE.info.json` for the capture `capture` under a temporary name, returning it and
/// the final path, so that the caller renames it only once the capture is in place.
pub fn write_partial(capture: &Path, info: &CaptureInfo) -> std::io::Result<(PathBuf, PathBuf)> {
    let path = info_path(capture);
    let partial = PathBuf::from(format!("{}.partial", path.display()));
    let json = serde_json::to_string_pretty(info).map_err(std::io::Error::other)?;
    std::fs::write(&partial, json + "\n")?;
    Ok((partial, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ptxfuzz-capinfo-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_info_file_of_a_capture_is_its_full_name_plus_info_json() {
        assert_eq!(info_path(Path::new("/x/sm_80.cases.txt.gz")), Path::new("/x/sm_80.cases.txt.gz.info.json"));
        assert_eq!(info_path(Path::new("c.txt")), Path::new("c.txt.info.json"));
    }

    #[test]
    fn a_folder_wide_info_is_read_only_where_it_can_only_be_this_captures() {
        let d = scratch("folder");
        let a = d.join("a.txt");
        std::fs::write(&a, "add.f32 0x0 0x0 -> 0x0\n").unwrap();
        std::fs::write(d.join("notes.txt"), "not a capture\n").unwrap();
        std::fs::write(d.join(FOLDER_INFO), r#"{"gpu": "G", "sm": 80}"#).unwrap();
        assert_eq!(find(&a, 1).map(|f| f.info.sm), Some(Some(80)), "the only capture in the folder");
        // A second capture: the folder-wide info may be either one's, so it is nobody's.
        std::fs::write(d.join("b.txt"), "add.f32 0x0 0x1 -> 0x1\n").unwrap();
        assert!(find(&a, 1).is_none());
        // Unless it says whose it is, by name or by the number of forms.
        std::fs::write(d.join(FOLDER_INFO), r#"{"gpu": "G", "sm": 80, "capture": "b.txt"}"#).unwrap();
        assert!(find(&a, 1).is_none());
        assert_eq!(find(&d.join("b.txt"), 1).map(|f| f.info.sm), Some(Some(80)));
        std::fs::write(d.join(FOLDER_INFO), r#"{"gpu": "G", "sm": 90, "variants": 289}"#).unwrap();
        assert!(find(&a, 1).is_none());
        assert!(find(&a, 289).is_some());
        // Its own info wins over the folder's.
        std::fs::write(info_path(&a), r#"{"gpu": "Own", "sm": 100}"#).unwrap();
        assert_eq!(find(&a, 289).map(|f| f.info.gpu), Some(Some("Own".into())));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
