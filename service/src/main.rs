//! `ptxfuzz-server`: serve the API, apply migrations, create tokens.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use service::auth::{self, Role};
use service::config::{Config, LogFormat};
use service::{db, http, AppState};

/// The ptxfuzz findings server: stores what workers find, groups it by signature, keeps triage
/// history and regressions (docs/service.md). PostgreSQL is its only state.
#[derive(Parser)]
#[command(name = "ptxfuzz-server", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Apply migrations, then serve the API (`/api/v1`, `/api/openapi.json`, `/metrics`, `/healthz`).
    Serve(Config),
    /// Apply pending migrations and exit (the Kubernetes migration Job runs this).
    Migrate {
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
    },
    /// Manage API tokens.
    #[command(subcommand)]
    Token(TokenCommand),
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create a token and print its secret (shown once; only its SHA-256 is stored).
    Create {
        /// worker: ingest, lease, heartbeat; triager: triage, regressions, known divergences;
        /// admin: everything.
        #[arg(long, value_enum)]
        role: Role,
        /// A name for the token, recorded in triage history (default: the role).
        #[arg(long)]
        name: Option<String>,
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
    },
}

#[tokio::main]
async fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Serve(cfg) => serve(cfg).await,
        Command::Migrate { database_url } => {
            db::connect(&database_url, 2).await?;
            println!("migrations applied");
            Ok(())
        }
        Command::Token(TokenCommand::Create { role, name, database_url }) => {
            let pool = db::connect(&database_url, 2).await?;
            let name = name.unwrap_or_else(|| role.name().to_string());
            let secret = auth::create_token(&pool, &name, role).await.context("cannot store the token")?;
            println!("{secret}");
            eprintln!("created {role} token '{name}'; keep the secret above: it is not shown again");
            Ok(())
        }
    }
}

async fn serve(cfg: Config) -> Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    match cfg.log_format {
        LogFormat::Text => tracing_subscriber::fmt().with_env_filter(filter).init(),
        LogFormat::Json => tracing_subscriber::fmt().json().with_env_filter(filter).init(),
    }
    let pool = db::connect(&cfg.database_url, cfg.db_connections).await?;
    let app = http::app(AppState::new(pool, cfg.private).with_secure_cookies(cfg.secure_cookies), cfg.max_body);
    let listener = tokio::net::TcpListener::bind(cfg.bind).await.with_context(|| format!("cannot listen on {}", cfg.bind))?;
    tracing::info!(addr = %listener.local_addr()?, "ptxfuzz-server listening");
    axum::serve(listener, app).with_graceful_shutdown(shutdown()).await?;
    Ok(())
}

/// SIGINT or SIGTERM: stop accepting, finish requests in flight.
async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            s.recv().await;
        }
    };
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}
