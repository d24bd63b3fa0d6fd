//! ptxfuzz-server: where the findings of every worker meet (docs/service.md).
//!
//! `db` is storage (one module per table family, SQL checked at compile time by sqlx against
//! the committed `.sqlx` data); `http` is the API (one module per resource); `auth` the bearer
//! tokens and roles; `problem` the one error type every handler returns; `pgcluster` the private
//! PostgreSQL cluster `serve` runs without --database-url; `import` stores a campaign's finding
//! folders at start (`serve --import`).

pub mod auth;
pub mod config;
pub mod db;
pub mod http;
pub mod import;
pub mod pgcluster;
pub mod problem;
pub mod state;
pub mod validate;
pub mod web;

pub use config::Config;
pub use state::AppState;

/// Migrations of the top-level `migrations/` folder, applied at start.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations");
