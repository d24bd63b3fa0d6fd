//! The private PostgreSQL cluster `ptxfuzz-server serve` runs when given no `--database-url`:
//! created with `initdb` on first use in `DATA_DIR/pgdata`, started with `pg_ctl` listening on a
//! Unix socket in `DATA_DIR/run` only (no TCP port, nothing shared with a system cluster), and
//! stopped when the server stops (docs/service.md, "The private cluster").
//!
//! Faults it survives: a server killed with -9 leaves its postmaster running (pg_ctl detaches
//! it) or a stale `postmaster.pid`; the next start stops the orphan (found by its pid file and
//! its working directory) or leaves the stale file to PostgreSQL, whose crash recovery replays
//! its WAL. A second server on the same directory is refused by an flock on
//! `DATA_DIR/ptxfuzz-server.lock`, held for as long as the server runs.

pub mod bin;

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use sqlx::postgres::PgConnectOptions;

/// The cluster's database superuser (trust authentication; only the socket's owner can reach it).
pub const DB_USER: &str = "ptxfuzz";
/// The port number in the socket's name (`.s.PGSQL.5432`); no TCP port is opened.
const PORT: u16 = 5432;
/// Longest Unix socket path (sun_path is 108 bytes with its NUL).
const MAX_SOCKET_PATH: usize = 107;

/// Why the private cluster could not be set up; every message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("no PostgreSQL server binaries (initdb, pg_ctl, postgres) on PATH, from pg_config --bindir or in /usr/lib/postgresql/*/bin: install PostgreSQL (Debian/Ubuntu: `apt-get install postgresql`), or pass --database-url to use a database elsewhere")]
    NotInstalled,
    #[error("cannot run {program}: {cause}")]
    Run { program: String, cause: std::io::Error },
    #[error("{what} failed: {output}{}", log.as_ref().map(|l| format!(" (the server log is {})", l.display())).unwrap_or_default())]
    Failed { what: String, output: String, log: Option<PathBuf> },
    #[error("{path}: {cause}")]
    Io { path: PathBuf, cause: std::io::Error },
    #[error("the data directory {dir} is in use by another ptxfuzz-server{}: stop that one first, or pass another --data-dir", pid.as_ref().map(|p| format!(" (pid {p})")).unwrap_or_default())]
    InUse { dir: PathBuf, pid: Option<String> },
    #[error("{pgdata} was made by PostgreSQL {data}, but the binaries found are PostgreSQL {bin} ({bindir}): install PostgreSQL {data} (Debian: `apt-get install postgresql-{data}`) to use it, move it aside (upgrade it with pg_upgrade), or pass another --data-dir")]
    WrongVersion { pgdata: PathBuf, data: String, bin: String, bindir: PathBuf },
    #[error("PostgreSQL refuses to run as root and there is no user '{user}' to run it as: create one (`useradd --system --no-create-home {user}`), pass --pg-user with an existing unprivileged user, run ptxfuzz-server as a normal user, or pass --database-url")]
    NoUser { user: String },
    #[error("user '{user}' (who runs PostgreSQL, since it refuses root) cannot reach {dir}: a parent folder is closed to it (/root is 0700): pass a --data-dir it can reach, such as /var/lib/ptxfuzz, or pass --pg-user")]
    Unreachable { user: String, dir: PathBuf },
    #[error("the socket path {path} is longer than the {MAX_SOCKET_PATH} bytes Unix allows: pass a shorter --data-dir")]
    SocketPathTooLong { path: PathBuf },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ClusterError + '_ {
    move |cause| ClusterError::Io { path: path.to_path_buf(), cause }
}

/// The unprivileged account PostgreSQL runs as when the server runs as root.
#[derive(Clone, Debug)]
struct RunAs {
    name: String,
    uid: u32,
    gid: u32,
}

fn lookup_user(name: &str) -> Option<RunAs> {
    let c = std::ffi::CString::new(name).ok()?;
    // SAFETY: getpwnam returns a pointer into static storage or null; read it at once.
    unsafe {
        let pw = libc::getpwnam(c.as_ptr());
        (!pw.is_null()).then(|| RunAs { name: name.to_string(), uid: (*pw).pw_uid, gid: (*pw).pw_gid })
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The account to run PostgreSQL as: none when not root; else `--pg-user`, default `postgres`.
fn run_as(pg_user: Option<&str>) -> Result<Option<RunAs>, ClusterError> {
    if !is_root() {
        if let Some(u) = pg_user {
            tracing::warn!(user = u, "--pg-user is only used when ptxfuzz-server runs as root; PostgreSQL runs as this user");
        }
        return Ok(None);
    }
    let name = pg_user.unwrap_or("postgres");
    match lookup_user(name) {
        Some(u) if u.uid != 0 => Ok(Some(u)),
        _ => Err(ClusterError::NoUser { user: name.to_string() }),
    }
}

/// Where a cluster's files live.
#[derive(Clone, Debug)]
pub struct Layout {
    pub dir: PathBuf,
    pub pgdata: PathBuf,
    pub run: PathBuf,
    pub log: PathBuf,
    pub lock: PathBuf,
}

impl Layout {
    pub fn new(dir: &Path) -> Layout {
        Layout {
            dir: dir.to_path_buf(),
            pgdata: dir.join("pgdata"),
            run: dir.join("run"),
            log: dir.join("postgres.log"),
            lock: dir.join("ptxfuzz-server.lock"),
        }
    }

    /// How to connect to the cluster of this folder while it runs (a `Cluster` of this process
    /// or of the server holding the lock): its socket, as the cluster's superuser.
    pub fn connect_options(&self) -> PgConnectOptions {
        PgConnectOptions::new().socket(&self.run).port(PORT).username(DB_USER).database("postgres")
    }
}

/// The default data directory: `$XDG_DATA_HOME/ptxfuzz`, or `~/.local/share/ptxfuzz`; for
/// root without `XDG_DATA_HOME`, `/var/lib/ptxfuzz`: the cluster then runs as `--pg-user`,
/// which cannot enter root's home (mode 0700 on Debian), and root is the usual user in
/// containers and CI, where the README's third command must work as written.
pub fn default_data_dir() -> PathBuf {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x).join("ptxfuzz"),
        None if root => PathBuf::from("/var/lib/ptxfuzz"),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/".into())).join(".local/share/ptxfuzz"),
    }
}

/// Take the data directory's lock (or say who holds it) and write this process's pid in it.
pub fn lock(layout: &Layout) -> Result<File, ClusterError> {
    let mut f = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&layout.lock).map_err(io(&layout.lock))?;
    match f.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let pid = std::fs::read_to_string(&layout.lock).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
            return Err(ClusterError::InUse { dir: layout.dir.clone(), pid });
        }
        Err(TryLockError::Error(e)) => return Err(io(&layout.lock)(e)),
    }
    f.set_len(0).map_err(io(&layout.lock))?;
    writeln!(f, "{}", std::process::id()).map_err(io(&layout.lock))?;
    Ok(f)
}

/// The `PG_VERSION` of an existing cluster, `None` before `initdb`.
pub fn data_version(pgdata: &Path) -> Result<Option<String>, ClusterError> {
    let p = pgdata.join("PG_VERSION");
    match std::fs::read_to_string(&p) {
        Ok(s) => Ok(Some(s.trim().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(&p)(e)),
    }
}

/// A running private cluster; stopped by [`Cluster::stop`] or on drop.
pub struct Cluster {
    layout: Layout,
    bins: bin::Binaries,
    user: Option<RunAs>,
    running: bool,
    _lock: File,
}

impl Cluster {
    /// Lock the data directory, create the cluster if new, recover from a killed server, start.
    pub fn start(data_dir: &Path, pg_user: Option<&str>) -> Result<Cluster, ClusterError> {
        std::fs::create_dir_all(data_dir).map_err(io(data_dir))?;
        let dir = std::fs::canonicalize(data_dir).map_err(io(data_dir))?;
        let layout = Layout::new(&dir);
        let lock = lock(&layout)?;
        let existing = data_version(&layout.pgdata)?;
        let bins = bin::find(existing.as_deref())?;
        if let Some(v) = &existing {
            if *v != bins.major {
                return Err(ClusterError::WrongVersion { pgdata: layout.pgdata.clone(), data: v.clone(), bin: bins.major.clone(), bindir: bins.dir.clone() });
            }
        }
        let socket = layout.run.join(format!(".s.PGSQL.{PORT}"));
        if socket.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(ClusterError::SocketPathTooLong { path: socket });
        }
        let user = run_as(pg_user)?;
        let mut c = Cluster { layout, bins, user, running: false, _lock: lock };
        c.prepare_dirs()?;
        if existing.is_none() {
            c.initdb()?;
        }
        c.write_conf()?;
        c.clear_previous_run()?;
        c.pg_ctl("start", &["-w", "-t", "120", "-l"], Some(&c.layout.log.clone()))?;
        c.running = true;
        Ok(c)
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// How to connect: the socket folder, as the cluster's superuser.
    pub fn connect_options(&self) -> PgConnectOptions {
        self.layout.connect_options()
    }

    /// A command running as the cluster's user (when root), in the data directory.
    fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.layout.dir).env_remove("PGDATA").env("LC_ALL", "C");
        if let Some(u) = &self.user {
            use std::os::unix::process::CommandExt;
            // std drops the supplementary groups when root changes uid.
            cmd.uid(u.uid).gid(u.gid);
        }
        cmd
    }

    fn run(&self, mut cmd: Command, what: String) -> Result<(), ClusterError> {
        let out = cmd.output().map_err(|e| ClusterError::Run { program: what.clone(), cause: e })?;
        if out.status.success() {
            return Ok(());
        }
        let output = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)).trim().to_string();
        Err(ClusterError::Failed { what, output, log: self.layout.log.exists().then(|| self.layout.log.clone()) })
    }

    /// The folders PostgreSQL writes, owned by its user; the data directory reachable by it.
    fn prepare_dirs(&self) -> Result<(), ClusterError> {
        use std::os::unix::fs::PermissionsExt;
        for d in [&self.layout.pgdata, &self.layout.run] {
            std::fs::create_dir_all(d).map_err(io(d))?;
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700)).map_err(io(d))?;
        }
        if let Some(u) = &self.user {
            for p in [&self.layout.pgdata, &self.layout.run] {
                std::os::unix::fs::chown(p, Some(u.uid), Some(u.gid)).map_err(io(p))?;
            }
            if !self.layout.log.exists() {
                File::create(&self.layout.log).map_err(io(&self.layout.log))?;
            }
            std::os::unix::fs::chown(&self.layout.log, Some(u.uid), Some(u.gid)).map_err(io(&self.layout.log))?;
            let mut probe = self.command(Path::new("test"));
            probe.arg("-w").arg(&self.layout.pgdata);
            if !probe.status().map(|s| s.success()).unwrap_or(false) {
                return Err(ClusterError::Unreachable { user: u.name.clone(), dir: self.layout.dir.clone() });
            }
        }
        Ok(())
    }

    fn initdb(&self) -> Result<(), ClusterError> {
        let program = self.bins.program("initdb");
        let mut cmd = self.command(&program);
        cmd.arg("-D").arg(&self.layout.pgdata).args(["-U", DB_USER, "--auth=trust", "-E", "UTF8", "--no-locale"]);
        self.run(cmd, format!("{} -D {}", program.display(), self.layout.pgdata.display()))?;
        // The settings below come from ptxfuzz.conf, rewritten at every start (the paths in it
        // follow the data directory if it moves).
        let conf = self.layout.pgdata.join("postgresql.conf");
        let mut f = OpenOptions::new().append(true).open(&conf).map_err(io(&conf))?;
        writeln!(f, "\n# ptxfuzz-server's private cluster\ninclude_if_exists = 'ptxfuzz.conf'").map_err(io(&conf))
    }

    fn write_conf(&self) -> Result<(), ClusterError> {
        let run = self.layout.run.to_string_lossy().replace('\'', "''");
        let text = format!(
            "# Written by ptxfuzz-server at every start.\nlisten_addresses = ''\nport = {PORT}\nunix_socket_directories = '{run}'\nunix_socket_permissions = 0700\n"
        );
        let p = self.layout.pgdata.join("ptxfuzz.conf");
        std::fs::write(&p, text).map_err(io(&p))?;
        if let Some(u) = &self.user {
            std::os::unix::fs::chown(&p, Some(u.uid), Some(u.gid)).map_err(io(&p))?;
        }
        Ok(())
    }

    /// After a server killed with -9: stop its orphaned postmaster, or clear the files of a
    /// dead one. We hold the lock, so no other ptxfuzz-server uses this cluster.
    fn clear_previous_run(&self) -> Result<(), ClusterError> {
        let pidfile = self.layout.pgdata.join("postmaster.pid");
        let Ok(text) = std::fs::read_to_string(&pidfile) else { return Ok(()) };
        let pid = text.lines().next().and_then(|l| l.trim().parse::<u32>().ok());
        if pid.is_some_and(|p| postmaster_of(p, &self.layout.pgdata)) {
            tracing::warn!(pid, "a postmaster of an earlier ptxfuzz-server still runs on this data directory; stopping it");
            return self.pg_ctl("stop", &["-w", "-t", "120", "-m", "fast"], None);
        }
        if pid.is_some_and(|p| Path::new(&format!("/proc/{p}")).exists()) {
            // Its pid now belongs to another process: PostgreSQL would take that for a running
            // postmaster and refuse to start.
            tracing::warn!(pid, "the postmaster.pid of a killed server names a process that is no postmaster of it; removing the file");
            std::fs::remove_file(&pidfile).map_err(io(&pidfile))?;
            for f in [format!(".s.PGSQL.{PORT}"), format!(".s.PGSQL.{PORT}.lock")] {
                let _ = std::fs::remove_file(self.layout.run.join(f));
            }
        } else {
            // A dead pid: PostgreSQL itself replaces the stale file (after checking that no
            // backend of the dead postmaster still holds its shared memory) and recovers.
            tracing::warn!(pid, "stale postmaster.pid of a killed server; PostgreSQL recovers at start");
        }
        Ok(())
    }

    fn pg_ctl(&self, action: &str, args: &[&str], log: Option<&Path>) -> Result<(), ClusterError> {
        let program = self.bins.program("pg_ctl");
        let mut cmd = self.command(&program);
        cmd.arg(action).arg("-D").arg(&self.layout.pgdata).args(args);
        if let Some(l) = log {
            cmd.arg(l);
        }
        // pg_ctl start leaves the postmaster's output on pg_ctl's stdout open; keep it off our pipes.
        cmd.stdin(std::process::Stdio::null());
        self.run(cmd, format!("pg_ctl {action} -D {}", self.layout.pgdata.display()))
    }

    /// Stop the cluster (fast shutdown: sessions end, data is flushed).
    pub fn stop(&mut self) -> Result<(), ClusterError> {
        if !self.running {
            return Ok(());
        }
        self.running = false;
        self.pg_ctl("stop", &["-w", "-t", "120", "-m", "fast"], None)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            // Not eprintln!: a panic in drop (stderr closed) while unwinding would abort.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "ptxfuzz-server: stopping the private PostgreSQL cluster failed: {e}");
        }
    }
}

/// Whether `pid` is a live postmaster of `pgdata` (its working directory is the data directory),
/// not an unrelated process that reuses a dead postmaster's pid.
fn postmaster_of(pid: u32, pgdata: &Path) -> bool {
    let cwd = std::fs::read_link(format!("/proc/{pid}/cwd"));
    match (cwd, std::fs::canonicalize(pgdata)) {
        (Ok(c), Ok(d)) => c == d,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ptxfuzz-pgcluster-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_lock_refuses_a_second_holder_and_names_the_first() {
        let d = tmp("lock");
        let l = Layout::new(&d);
        let first = lock(&l).unwrap();
        let e = lock(&l).unwrap_err().to_string();
        assert!(e.contains("in use by another ptxfuzz-server"), "{e}");
        assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
        drop(first);
        assert!(lock(&l).is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_missing_pg_version_means_a_new_cluster() {
        let d = tmp("version");
        assert_eq!(data_version(&d).unwrap(), None);
        std::fs::write(d.join("PG_VERSION"), "15\n").unwrap();
        assert_eq!(data_version(&d).unwrap().as_deref(), Some("15"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn the_pid_of_this_test_is_no_postmaster_of_a_data_directory() {
        let d = tmp("pid");
        assert!(!postmaster_of(std::process::id(), &d));
        assert!(postmaster_of(std::process::id(), &std::env::current_dir().unwrap()));
        let _ = std::fs::remove_dir_all(&d);
    }
}
