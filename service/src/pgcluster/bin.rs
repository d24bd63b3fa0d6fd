//! Finding the PostgreSQL server binaries (`initdb`, `pg_ctl`, `postgres`) and their major
//! version: on `PATH`, then through `pg_config --bindir`, then in `/usr/lib/postgresql/*/bin`
//! (Debian's layout, newest version first).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::ClusterError;

/// The programs a private cluster needs, all in one directory.
pub const PROGRAMS: [&str; 3] = ["initdb", "pg_ctl", "postgres"];

/// Where the PostgreSQL binaries live, and their major version (`15`, or `9.6` before 10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binaries {
    pub dir: PathBuf,
    pub major: String,
}

impl Binaries {
    pub fn program(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

fn complete(dir: &Path) -> bool {
    PROGRAMS.iter().all(|p| dir.join(p).is_file())
}

/// The major version `postgres --version` names: `postgres (PostgreSQL) 15.14 (Debian ...)`
/// gives `15`; `9.6.24` gives `9.6` (before 10 the major version had two parts).
pub fn parse_major(version_output: &str) -> Option<String> {
    let rest = version_output.split(')').nth(1).unwrap_or(version_output);
    let number = rest.split_whitespace().next()?;
    let mut parts = number.split(|c: char| !c.is_ascii_digit());
    let first: u32 = parts.next()?.parse().ok()?;
    if first >= 10 {
        Some(first.to_string())
    } else {
        let second: u32 = parts.next()?.parse().ok()?;
        Some(format!("{first}.{second}"))
    }
}

/// The directories that may hold the binaries, in the order they are tried: each `PATH` entry
/// holding all of [`PROGRAMS`] (symlinks resolved, so `pg_ctl` finds its own `postgres`), the
/// `pg_config --bindir` answer, then `lib_root/*/bin` newest version first.
pub fn candidates(path_var: Option<&OsStr>, pg_config_bindir: Option<PathBuf>, lib_root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in path_var.map(std::env::split_paths).into_iter().flatten() {
        if complete(&dir) {
            // /usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb: use the real folder.
            let real = std::fs::canonicalize(dir.join("initdb")).ok().and_then(|p| p.parent().map(Path::to_path_buf));
            out.push(real.filter(|r| complete(r)).unwrap_or(dir));
        }
    }
    out.extend(pg_config_bindir.filter(|d| complete(d)));
    let mut versions: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir(lib_root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let key: Vec<u32> = name.split('.').map(|p| p.parse().ok()).collect::<Option<_>>()?;
            let bin = e.path().join("bin");
            complete(&bin).then_some((key, bin))
        })
        .collect();
    versions.sort_by(|a, b| b.0.cmp(&a.0));
    out.extend(versions.into_iter().map(|v| v.1));
    out.dedup();
    out
}

/// `pg_config --bindir`, when a `pg_config` runs.
fn pg_config_bindir() -> Option<PathBuf> {
    let out = Command::new("pg_config").arg("--bindir").output().ok()?;
    let s = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !s.trim().is_empty()).then(|| PathBuf::from(s.trim()))
}

/// The major version of the `postgres` in `dir`.
pub fn major_of(dir: &Path) -> Result<String, ClusterError> {
    let postgres = dir.join("postgres");
    let out = Command::new(&postgres)
        .arg("--version")
        .output()
        .map_err(|e| ClusterError::Run { program: postgres.display().to_string(), cause: e })?;
    let text = String::from_utf8_lossy(&out.stdout);
    parse_major(&text).ok_or_else(|| ClusterError::Failed {
        what: format!("{} --version", postgres.display()),
        output: text.trim().to_string(),
        log: None,
    })
}

/// The binaries to run a data directory with: the first candidate of `wanted` major version
/// when given (an existing data directory's `PG_VERSION`), else the first candidate.
pub fn find(wanted: Option<&str>) -> Result<Binaries, ClusterError> {
    let dirs = candidates(std::env::var_os("PATH").as_deref(), pg_config_bindir(), Path::new("/usr/lib/postgresql"));
    choose(&dirs, wanted, major_of)
}

/// [`find`] over given candidates, `major` reading each one's version.
pub fn choose(
    dirs: &[PathBuf],
    wanted: Option<&str>,
    major: impl Fn(&Path) -> Result<String, ClusterError>,
) -> Result<Binaries, ClusterError> {
    let Some(first) = dirs.first() else { return Err(ClusterError::NotInstalled) };
    if let Some(w) = wanted {
        for d in dirs {
            if major(d)? == w {
                return Ok(Binaries { dir: d.clone(), major: w.to_string() });
            }
        }
    }
    Ok(Binaries { dir: first.clone(), major: major(first)? })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tmp(PathBuf);
    impl Drop for Tmp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    fn tmp(name: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("ptxfuzz-pgbin-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }
    fn fake_bin(dir: &Path, programs: &[&str]) {
        std::fs::create_dir_all(dir).unwrap();
        for p in programs {
            std::fs::write(dir.join(p), "#!/bin/sh\n").unwrap();
        }
    }

    #[test]
    fn major_versions_from_postgres_version_output() {
        assert_eq!(parse_major("postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)\n").as_deref(), Some("15"));
        assert_eq!(parse_major("postgres (PostgreSQL) 17beta1").as_deref(), Some("17"));
        assert_eq!(parse_major("postgres (PostgreSQL) 9.6.24").as_deref(), Some("9.6"));
        assert_eq!(parse_major("no version here"), None);
    }

    #[test]
    fn no_binaries_anywhere_says_postgresql_is_not_installed_and_names_the_package() {
        let t = tmp("none");
        let dirs = candidates(Some(t.0.as_os_str()), None, &t.0.join("lib"));
        assert!(dirs.is_empty());
        let e = choose(&dirs, None, |_| Ok("15".into())).unwrap_err().to_string();
        assert!(e.contains("no PostgreSQL server"), "{e}");
        assert!(e.contains("apt-get install postgresql"), "{e}");
        assert!(e.contains("--database-url"), "{e}");
    }

    #[test]
    fn a_path_folder_missing_one_program_is_skipped() {
        let t = tmp("partial");
        fake_bin(&t.0.join("a"), &["initdb", "pg_ctl"]);
        fake_bin(&t.0.join("b"), &PROGRAMS);
        let path = std::env::join_paths([t.0.join("a"), t.0.join("b")]).unwrap();
        assert_eq!(candidates(Some(&path), None, &t.0.join("nolib")), vec![t.0.join("b")]);
    }

    #[test]
    fn debian_lib_folders_are_tried_newest_first_after_path_and_pg_config() {
        let t = tmp("lib");
        for v in ["9.6", "13", "16"] {
            fake_bin(&t.0.join("lib").join(v).join("bin"), &PROGRAMS);
        }
        fake_bin(&t.0.join("lib/notaversion/bin"), &PROGRAMS);
        fake_bin(&t.0.join("cfg"), &PROGRAMS);
        let dirs = candidates(None, Some(t.0.join("cfg")), &t.0.join("lib"));
        let lib = |v: &str| t.0.join("lib").join(v).join("bin");
        assert_eq!(dirs, vec![t.0.join("cfg"), lib("16"), lib("13"), lib("9.6")]);
    }

    #[test]
    fn an_existing_data_directory_picks_the_binaries_of_its_version() {
        let dirs = vec![PathBuf::from("/x/16/bin"), PathBuf::from("/x/15/bin")];
        let major = |d: &Path| Ok(d.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned());
        assert_eq!(choose(&dirs, Some("15"), major).unwrap().dir, PathBuf::from("/x/15/bin"));
        assert_eq!(choose(&dirs, None, major).unwrap().major, "16");
        // None of that version: the first, and the caller names the mismatch.
        assert_eq!(choose(&dirs, Some("12"), major).unwrap().major, "16");
    }
}
