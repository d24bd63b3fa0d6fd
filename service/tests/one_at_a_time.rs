//! The service's integration tests that must have the machine to themselves: a real headless
//! Chromium (browser, browser_first_run), a kill -9 of the server mid-ingest (crash), eight
//! workers' concurrent load (concurrency) and private PostgreSQL clusters started by the real
//! binary (private_cluster). Each had a binary of its own, so nothing else ran beside it; here
//! every such test first takes [`alone`], which keeps that: a browser waiting 10 s for a page
//! or a first run promised within 30 s is not measured against a neighbour's load. Tests that
//! only compute (no server, no browser) skip the lock.

use tokio::sync::{Mutex, MutexGuard};

mod common;
mod support {
    pub mod private_server;
    pub mod reports;
    pub mod webdriver;
}

mod browser;
mod browser_first_run;
mod concurrency;
mod crash;
mod private_cluster;

static ALONE: Mutex<()> = Mutex::const_new(());

/// Held for a whole test: no other test of this binary that takes it runs meanwhile.
pub async fn alone() -> MutexGuard<'static, ()> {
    ALONE.lock().await
}
