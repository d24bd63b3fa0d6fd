//! `ptxfuzz-server serve` without a database URL: the real binary runs a private PostgreSQL
//! cluster in a temporary --data-dir, imports the H100 campaign's finding folders
//! (../shared/hw/h100-sm90/campaign-60s.tar.gz), prints a single-use login link; survives
//! kill -9; refuses a second server on its directory and a cluster of another major version.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use api::findings::FindingPage;
use crate::support::private_server::{campaign, command, folder_signatures, Server, Tmp};

fn http() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// Every finding the API lists: signature -> (occurrences, reproducers).
async fn findings(base: &str) -> (usize, BTreeMap<String, (i64, i64)>) {
    let page: FindingPage = http().get(format!("{base}/api/v1/findings?limit=500")).send().await.unwrap().json().await.unwrap();
    assert!(page.next.is_none(), "more than one page");
    let n = page.items.len();
    (n, page.items.into_iter().map(|f| (f.signature, (f.occurrences, f.reproducers))).collect())
}

fn import_line(s: &Server) -> &str {
    s.lines.iter().find(|l| l.starts_with("imported ")).expect("an `imported` line")
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_without_a_database_imports_a_campaign_and_prints_a_single_use_login_link() {
    let _alone = crate::alone().await;
    let tmp = Tmp::new("serve");
    let out = campaign(&tmp);
    let signatures = folder_signatures(&out);
    assert_eq!(signatures.len(), 281);
    let s = Server::start(&tmp.0.join("data"), &[&out]);
    assert!(import_line(&s).ends_with("281 finding folder(s), 281 new, 0 already present"), "{}", import_line(&s));
    assert!(s.link.starts_with("http://127.0.0.1:") && s.link.contains("/?login="), "{}", s.link);

    let (n, listed) = findings(&s.base).await;
    assert_eq!(n, 281);
    assert_eq!(listed.keys().cloned().collect::<BTreeSet<_>>(), signatures);
    let overview = http().get(format!("{}/", s.base)).send().await.unwrap().text().await.unwrap();
    assert!(overview.contains("281 findings"), "the overview counts every folder");

    // Nobody is logged in without the link: no triage form.
    let page: FindingPage = http().get(format!("{}/api/v1/findings?limit=1", s.base)).send().await.unwrap().json().await.unwrap();
    let finding = format!("{}/findings/{}", s.base, page.items[0].id);
    let anonymous = http().get(&finding).send().await.unwrap().text().await.unwrap();
    assert!(!anonymous.contains("id=\"triage\""));

    let r = http().get(&s.link).send().await.unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/", "the redirect drops the secret");
    let cookie = r.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    assert!(cookie.starts_with("ptxfuzz_session=") && cookie.len() > "ptxfuzz_session=".len(), "{cookie}");
    let logged_in = http().get(&finding).header("cookie", &cookie).send().await.unwrap().text().await.unwrap();
    assert!(logged_in.contains("id=\"triage\""), "an admin session sees the triage form");

    let again = http().get(&s.link).send().await.unwrap();
    assert_eq!(again.status(), 403, "a login link works once");
    assert!(again.headers().get("set-cookie").is_none());
    assert!(again.text().await.unwrap().contains("used already"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_killed_with_sigkill_restarts_on_its_data_directory_with_every_finding_once() {
    let _alone = crate::alone().await;
    let tmp = Tmp::new("kill9");
    let out = campaign(&tmp);
    let data = tmp.0.join("data");
    let mut s = Server::start(&data, &[&out]);
    let (_, before) = findings(&s.base).await;
    assert_eq!(before.len(), 281);
    s.kill9();
    // pg_ctl detached the postmaster: it outlives the server, with its postmaster.pid.
    assert!(data.join("pgdata/postmaster.pid").exists());
    drop(s);

    restarts_with_every_finding_once(&data, &out, &before).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_and_its_postmaster_both_killed_restart_with_every_finding_once() {
    let _alone = crate::alone().await;
    let tmp = Tmp::new("kill9pm");
    let out = campaign(&tmp);
    let data = tmp.0.join("data");
    let mut s = Server::start(&data, &[&out]);
    let (_, before) = findings(&s.base).await;
    s.kill9();
    drop(s);
    let pidfile = data.join("pgdata/postmaster.pid");
    let pid = std::fs::read_to_string(&pidfile).unwrap().lines().next().unwrap().trim().to_string();
    assert!(Command::new("kill").args(["-KILL", &pid]).status().unwrap().success());
    // Its backends notice the postmaster's death and exit; the pid file stays behind, stale.
    let gone = Instant::now();
    while Path::new(&format!("/proc/{pid}")).exists() && gone.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(pidfile.exists());

    restarts_with_every_finding_once(&data, &out, &before).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_serve_on_a_running_data_directory_refuses() {
    let _alone = crate::alone().await;
    let tmp = Tmp::new("second");
    let data = tmp.0.join("data");
    let first = Server::start(&data, &[]);
    let second = command(&data, &[]).output().expect("run a second ptxfuzz-server");
    assert!(!second.status.success());
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("is in use by another ptxfuzz-server"), "{err}");
    assert!(err.contains(&format!("pid {}", first.child.id())), "{err}");
    assert!(err.contains("--data-dir"), "{err}");
    // The first one still serves.
    let r = http().get(format!("{}/healthz", first.base)).send().await.unwrap();
    assert!(r.status().is_success());
}

/// `ptxfuzz-server token ... --data-dir DATA`: no database URL, the private cluster's.
fn token_command(data: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptxfuzz-server"))
        .arg("token")
        .args(args)
        .arg("--data-dir")
        .arg(data)
        .env_remove("DATABASE_URL")
        .output()
        .expect("run ptxfuzz-server token");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A token for a worker of the private cluster's server needs no database URL: beside the
/// running server through its socket (the server then accepts it at once), and with no server
/// on a cluster started for the command and stopped after it (the next server still starts).
#[tokio::test(flavor = "multi_thread")]
async fn token_commands_reach_the_private_cluster_beside_its_server_and_without_it() {
    let _alone = crate::alone().await;
    let tmp = Tmp::new("tokens");
    let data = tmp.0.join("data");
    let mut s = Server::start(&data, &[]);
    let (ok, secret, err) = token_command(&data, &["create", "--role", "worker", "--name", "gpu-1"]);
    assert!(ok, "{err}");
    let secret = secret.trim();
    assert!(secret.starts_with("ptxf_"), "{secret}");
    assert!(!err.contains("was started for this command"), "the server's cluster is joined, not started: {err}");
    assert_eq!(with_base(&s.base, secret).await, 200, "the running server knows the new token");
    assert_eq!(with_base(&s.base, "ptxf_not_a_token").await, 401);
    assert!(s.stop().is_some_and(|st| st.success()), "the server stops on SIGTERM");
    assert!(!data.join("pgdata/postmaster.pid").exists(), "its cluster stopped with it");

    let (ok, table, err) = token_command(&data, &["list"]);
    assert!(ok, "{err}");
    assert!(table.lines().any(|l| l.contains("worker") && l.contains("live") && l.ends_with("gpu-1")), "{table}");
    assert!(err.contains("was started for this command"), "{err}");
    assert!(!data.join("pgdata/postmaster.pid").exists(), "the command stopped the cluster it started");
    let (ok, _, err) = token_command(&data, &["revoke", "--name", "gpu-1"]);
    assert!(ok, "{err}");
    let again = Server::start(&data, &[]);
    assert_eq!(with_base(&again.base, secret).await, 401, "revoked without a server, refused by the next one");
}

/// The status of a read with `token` (a public server refuses an unknown token all the same).
async fn with_base(base: &str, token: &str) -> u16 {
    http().get(format!("{base}/api/v1/findings?limit=1")).bearer_auth(token).send().await.unwrap().status().as_u16()
}

#[test]
fn a_data_directory_of_another_postgresql_major_version_is_named_in_the_error() {
    let tmp = Tmp::new("version");
    let data = tmp.0.join("data");
    std::fs::create_dir_all(data.join("pgdata")).unwrap();
    std::fs::write(data.join("pgdata/PG_VERSION"), "9.6\n").unwrap();
    let out = command(&data, &[]).output().expect("run ptxfuzz-server");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{} was made by PostgreSQL 9.6", data.join("pgdata").display())), "{err}");
    assert!(err.contains("apt-get install postgresql-9.6"), "{err}");
    assert!(err.contains("--data-dir"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A new server on `data` importing `out` again finds all 281 folders present, and the findings
/// are exactly `before`: none lost, none twice, counts unchanged.
async fn restarts_with_every_finding_once(data: &Path, out: &Path, before: &BTreeMap<String, (i64, i64)>) {
    let s = Server::start(data, &[out]);
    assert!(import_line(&s).ends_with("281 finding folder(s), 0 new, 281 already present"), "{}", import_line(&s));
    let (n, after) = findings(&s.base).await;
    assert_eq!(n, 281, "no finding twice");
    assert_eq!(&after, before, "every finding kept, its counts unchanged");
}
