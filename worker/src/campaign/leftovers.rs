//! What a killed campaign leaves in `--out`, and tidying it when the next one opens the folder.
//!
//! Finding folders are written through hidden siblings (`repro::write_dir`: `.KEY.tmp-PID`,
//! renamed to `KEY` when whole; `findings::rewrite_dir`: a damaged `KEY` moved to
//! `.KEY.damaged-PID` while it is rewritten). A writer killed in between leaves the hidden
//! folder behind. No reader takes it for a finding (hidden folders are skipped), but it
//! would stay forever: each campaign that opens `--out` removes those of writers that are gone.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A leftover younger than this is left alone whatever its process: a writer makes and renames
/// its hidden folder within milliseconds, so one a minute old is not being written, even by a
/// campaign whose process id this machine cannot see (another container on the same volume).
const MIN_AGE: Duration = Duration::from_secs(60);

/// A hidden folder a finding writer makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `.KEY.tmp-PID`: a finding folder being written; unfinished if its writer is gone (the
    /// campaign finds the signature again and writes it whole).
    Unfinished,
    /// `.KEY.damaged-PID`: a damaged `KEY` moved aside to be rewritten. Removed once `KEY`
    /// reads again (it was rewritten); kept otherwise, since it is all there is of that finding.
    DamagedAside,
}

/// What [`tidy`] did with one leftover (ordered as reported: the kept first).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tidied {
    /// A damaged copy whose finding was not rewritten: kept, for the user to restore or remove.
    Kept(PathBuf),
    Removed(PathBuf),
}

impl Tidied {
    /// The line a campaign prints for it.
    pub fn message(&self) -> String {
        match self {
            Tidied::Removed(p) => format!("campaign: removed {}, left unfinished by a campaign that was killed", p.display()),
            Tidied::Kept(p) => format!(
                "campaign: {} is a damaged finding folder a killed campaign had moved aside to rewrite it; \
                 restore it from a copy under its name without the leading dot and the -PID, or remove it",
                p.display()
            ),
        }
    }
}

/// The key, kind and writer's process id of a hidden folder name a finding writer makes.
fn parse(name: &str) -> Option<(&str, Kind, u32)> {
    let rest = name.strip_prefix('.')?;
    let (head, pid) = rest.rsplit_once('-')?;
    let pid: u32 = pid.parse().ok()?;
    if let Some(key) = head.strip_suffix(".tmp") {
        return Some((key, Kind::Unfinished, pid));
    }
    head.strip_suffix(".damaged").map(|key| (key, Kind::DamagedAside, pid))
}

/// Whether process `pid` may still be writing: this process, or one this machine shows alive.
/// Where there is no `/proc` to ask, every process may be.
fn may_be_alive(pid: u32) -> bool {
    pid == std::process::id() || !Path::new("/proc/self").exists() || Path::new(&format!("/proc/{pid}")).exists()
}

fn old_enough(path: &Path, now: SystemTime) -> bool {
    fs::metadata(path).and_then(|m| m.modified()).is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age >= MIN_AGE))
}

/// Remove the leftovers of gone writers in `out`; `reads(KEY)` says whether the finding folder
/// `KEY` is whole. Best effort: a leftover that cannot be removed is left (and not reported).
pub fn tidy(out: &Path, reads: &dyn Fn(&str) -> bool) -> Vec<Tidied> {
    tidy_at(out, reads, SystemTime::now())
}

fn tidy_at(out: &Path, reads: &dyn Fn(&str) -> bool, now: SystemTime) -> Vec<Tidied> {
    let Ok(entries) = fs::read_dir(out) else { return Vec::new() };
    let mut done = Vec::new();
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((key, kind, pid)) = parse(&name) else { continue };
        let path = entry.path();
        if !path.is_dir() || may_be_alive(pid) || !old_enough(&path, now) {
            continue;
        }
        if kind == Kind::DamagedAside && !reads(key) {
            done.push(Tidied::Kept(path));
        } else if fs::remove_dir_all(&path).is_ok() {
            done.push(Tidied::Removed(path));
        }
    }
    done.sort();
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_a_finding_writer_makes_are_leftovers() {
        assert_eq!(parse(".add.f32~rounding~sm90.tmp-123"), Some(("add.f32~rounding~sm90", Kind::Unfinished, 123)));
        assert_eq!(parse(".k.damaged-7"), Some(("k", Kind::DamagedAside, 7)));
        for other in [".spool", "k.tmp-1", ".k.tmp-", ".k.tmp-x", ".k.old-12", "summary.json.tmp-5"] {
            assert_eq!(parse(other), None, "{other}");
        }
    }

    /// A process id no process has: above Linux's largest (2^22).
    const GONE: u32 = 4_194_305;

    #[test]
    fn a_gone_writers_unfinished_folder_is_removed_a_live_or_young_one_is_not() {
        let out = std::env::temp_dir().join(format!("ptxfuzz-leftovers-{}", std::process::id()));
        let _ = fs::remove_dir_all(&out);
        let mine = out.join(format!(".a.tmp-{}", std::process::id()));
        let gone = out.join(format!(".b.tmp-{GONE}"));
        let kept = out.join(format!(".c.damaged-{GONE}"));
        let rewritten = out.join(format!(".d.damaged-{GONE}"));
        for d in [&mine, &gone, &kept, &rewritten, &out.join(".spool")] {
            fs::create_dir_all(d).unwrap();
        }
        let reads = |key: &str| key == "d";
        // Just made: a writer on another machine could be renaming it now.
        assert_eq!(tidy_at(&out, &reads, SystemTime::now()), []);
        let later = SystemTime::now() + MIN_AGE;
        let done = tidy_at(&out, &reads, later);
        let still: Vec<bool> = [&mine, &gone, &kept, &rewritten, &out.join(".spool")].iter().map(|d| d.exists()).collect();
        let _ = fs::remove_dir_all(&out);
        assert_eq!(done, [Tidied::Kept(kept.clone()), Tidied::Removed(gone.clone()), Tidied::Removed(rewritten.clone())]);
        assert_eq!(still, [true, false, true, false, true], "this process's own, the damaged copy of an unrewritten finding and .spool stay");
        assert!(done[0].message().contains("restore it from a copy") && done[1].message().contains("left unfinished"));
    }
}
