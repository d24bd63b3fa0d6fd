//! `ptxfuzz deliver --findings` against a fake server (tests/fake_server): a busy or
//! unreachable server is retried for up to `--wait`, and an address with no ptxfuzz API or a
//! refused token ends the run blaming the address or the token, never the finding folders.

mod common;
mod fake_server;

use std::time::{Duration, Instant};

use common::{ptxfuzz_output, text};
use fake_server::{FakeServer, Fault};

/// The eight finding folders of the H100 (read-only: `deliver` only reads them).
const H100: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/findings");

#[test]
fn a_busy_server_is_retried_until_it_takes_the_findings() {
    let server = FakeServer::start();
    server.fail("/findings/batch", Fault::Status(503, "starting up"), 2);
    let o = ptxfuzz_output(&["deliver", "--findings", H100, "--server", &server.url(), "--wait", "30"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("server unreachable or busy (HTTP 503: starting up); retrying for up to"), "{t}");
    assert_eq!(server.stored_reports(), 8, "{t}");
}

#[test]
fn an_unreachable_server_is_retried_for_wait_seconds_then_named() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let t0 = Instant::now();
    let o = ptxfuzz_output(&["deliver", "--findings", H100, "--server", &format!("http://127.0.0.1:{port}"), "--wait", "2"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t0.elapsed() >= Duration::from_secs(2), "gave up after {:?}: {t}", t0.elapsed());
    assert!(t.contains("the server stayed unreachable") && t.contains("--wait"), "{t}");
    assert!(!t.contains("damaged"), "{t}");
}

#[test]
fn an_address_with_no_ptxfuzz_api_is_blamed_not_the_folders() {
    let server = FakeServer::start();
    server.fail("/findings/batch", Fault::Status(404, "no such page"), 1000);
    let o = ptxfuzz_output(&["deliver", "--findings", H100, "--server", &server.url()]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("no ptxfuzz API answers at") && t.contains("check --server"), "{t}");
    assert!(t.contains("The finding folders are unchanged"), "{t}");
    assert!(!t.contains("skipped") && !t.contains("damaged"), "{t}");
    // One batch was tried, not each report again one by one.
    let posts = server.requests().iter().filter(|r| r.path == "/api/v1/findings/batch").count();
    assert_eq!(posts, 1, "{t}");
}

#[test]
fn a_refused_token_is_named_with_what_to_give() {
    let server = FakeServer::start();
    server.require_token("right");
    let o = ptxfuzz_output(&["deliver", "--findings", H100, "--server", &server.url(), "--token", "s3cr3t-w0rd"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("the server refused the token: give --token"), "{t}");
    assert!(!t.contains("s3cr3t-w0rd"), "the token is never printed: {t}");
}

#[test]
fn a_wait_that_is_not_a_number_of_seconds_is_refused_before_anything_is_sent() {
    for bad in ["nan", "-1", "inf"] {
        let o = ptxfuzz_output(&["deliver", "--findings", H100, "--server", "http://127.0.0.1:1", "--wait", bad]);
        assert_eq!(o.status.code(), Some(2), "--wait {bad}: {}", text(&o));
        assert!(text(&o).contains("--wait"), "{}", text(&o));
    }
}
