//! `ptxfuzz-server`: serve the API, apply migrations, create tokens.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use service::auth::{self, Role};
use service::config::{Config, LogFormat};
use service::pgcluster::{self, Cluster};
use service::state::LoginLink;
use service::{db, http, import, AppState};

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
    /// Apply migrations, import --import folders, then serve the API (`/api/v1`,
    /// `/api/openapi.json`, `/metrics`, `/healthz`) and the dashboard. Without --database-url,
    /// on a private PostgreSQL cluster of its own (--data-dir), with a one-click login link.
    Serve(Config),
    /// Apply pending migrations and exit (the Kubernetes migration Job runs this).
    Migrate {
        #[arg(long, env = "DATABASE_URL")]
        database_url: String,
    },
    /// Recompute every finding's root-cause cluster (after an upgrade whose explanation
    /// catalogue changed); prints progress and the clusters before and after.
    Recluster {
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
async fn main() -> ExitCode {
    match run(Cli::parse().command).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line with the whole chain, as `ptxfuzz` prints it ("error: cannot connect to
            // the database at URL; is PostgreSQL running...: pool timed out..."), not Rust's
            // `Error: ... Caused by:` block.
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> Result<()> {
    match command {
        Command::Serve(cfg) => serve(cfg).await,
        Command::Migrate { database_url } => {
            db::connect(&database_url, 2).await?;
            println!("migrations applied");
            Ok(())
        }
        Command::Recluster { database_url } => {
            let pool = db::connect(&database_url, 2).await?;
            let p = db::clusters::recluster::recluster(&pool, db::clusters::recluster::BATCH, |p| {
                eprintln!("reclustered {} finding(s), {} moved", p.findings, p.moved);
            })
            .await
            .context("reclustering failed; nothing half-done is lost: run it again")?;
            println!(
                "{} finding(s) reclustered, {} moved; clusters: {} before, {} after ({} empty removed)",
                p.findings, p.moved, p.clusters_before, p.clusters_after, p.removed
            );
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
    // The private cluster lives as long as this function: dropped (stopped) on every way out.
    let mut cluster = None;
    let pool = match &cfg.database_url {
        Some(url) => db::connect(url, cfg.db_connections).await?,
        None => {
            let dir = cfg.data_dir.clone().unwrap_or_else(pgcluster::default_data_dir);
            let c = tokio::task::block_in_place(|| Cluster::start(&dir, cfg.pg_user.as_deref()))?;
            tracing::info!(data_dir = %c.layout().dir.display(), "private PostgreSQL cluster started");
            let what = format!("the private PostgreSQL cluster in {} (its log: {})", c.layout().dir.display(), c.layout().log.display());
            let options = c.connect_options();
            cluster = Some(c);
            db::connect_with(options, cfg.db_connections, &what).await?
        }
    };
    for dir in &cfg.import {
        let n = import::import(&pool, dir).await?;
        println!("imported {}: {} finding folder(s), {} new, {} already present", dir.display(), n.folders, n.new, n.present);
    }
    let default_bind = if cluster.is_some() { "127.0.0.1:0" } else { "127.0.0.1:8080" };
    let bind = cfg.bind.unwrap_or_else(|| default_bind.parse().expect("a socket address"));
    let mut state = AppState::new(pool.clone(), cfg.private).with_secure_cookies(cfg.secure_cookies);
    let listener = tokio::net::TcpListener::bind(bind).await.with_context(|| format!("cannot listen on {bind}"))?;
    let addr = listener.local_addr()?;
    // Only on loopback: a link on a shared interface would hand admin to whoever reads it first.
    if cluster.is_some() && addr.ip().is_loopback() {
        let token_id = auth::login_link_token(&pool).await.context("cannot create the login link's token")?;
        let secret = auth::link_secret();
        state = state.with_login_link(LoginLink::new(token_id, secret.clone()));
        println!("dashboard: http://{addr}/?login={secret}");
    } else {
        println!("dashboard: http://{addr}/");
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let app = http::app(state, cfg.max_body);
    tracing::info!(addr = %addr, "ptxfuzz-server listening");
    axum::serve(listener, app).with_graceful_shutdown(shutdown()).await?;
    drop(pool);
    if let Some(mut c) = cluster {
        tokio::task::block_in_place(|| c.stop())?;
        tracing::info!("private PostgreSQL cluster stopped");
    }
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
