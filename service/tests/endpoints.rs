//! The service's integration tests that can share the machine: each starts its own server on
//! loopback with a fresh database (`common::TestServer`) and runs beside the others. One binary
//! for all of them (Cargo.toml says why); the tests live one module per area, in the files
//! named below.

mod common;
mod support {
    pub mod private_server;
    pub mod reports;
    pub mod web;
}

mod auth;
mod body_checks;
mod campaigns;
mod clusters;
mod findings;
mod folders_import;
mod http_errors;
mod known;
mod leases;
mod nul;
mod ops;
mod query_errors;
mod regressions;
mod sweeps;
mod web_findings;
mod web_overview;
mod web_session;
