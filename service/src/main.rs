//! `ptxfuzz-server`: serve the API, apply migrations, manage tokens.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use service::auth::{self, Role, TokenSelector};
use service::config::{Config, Database, LogFormat};
use service::db::open::{Opened, Sharing};
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
        #[command(flatten)]
        db: Database,
    },
    /// Recompute every finding's root-cause cluster (after an upgrade whose explanation
    /// catalogue changed); prints progress and the clusters before and after.
    Recluster {
        #[command(flatten)]
        db: Database,
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
        #[command(flatten)]
        db: Database,
    },
    /// List every token: id, role, when created, live or when revoked, name (never a secret).
    List {
        #[command(flatten)]
        db: Database,
    },
    /// Revoke tokens: they answer 401 from then on.
    ///
    /// Dashboard sessions opened with them end too; triage history keeps their names. Prints
    /// the tokens revoked; exit status 1 when no live token matched.
    Revoke {
        #[command(flatten)]
        which: Which,
        #[command(flatten)]
        db: Database,
    },
}

/// The tokens `token revoke` ends (exactly one of these).
#[derive(clap::Args)]
#[group(required = true, multiple = false)]
struct Which {
    /// The token with this id (`token list` shows ids).
    #[arg(long)]
    id: Option<i64>,
    /// Every live token with this name.
    #[arg(long)]
    name: Option<String>,
    /// The token this secret opens (one that leaked into a log, say).
    #[arg(long)]
    secret: Option<String>,
}

impl Which {
    fn selector(self) -> TokenSelector {
        match (self.id, self.name, self.secret) {
            (Some(id), _, _) => TokenSelector::Id(id),
            (_, Some(name), _) => TokenSelector::Name(name),
            // clap's group makes exactly one present.
            (_, _, secret) => TokenSelector::Secret(secret.unwrap_or_default()),
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Cli::parse().command).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line with the whole chain, as `ptxfuzz` prints it ("error: cannot connect to
            // the database at URL; is PostgreSQL running...: pool timed out..."), not Rust's
            // `Error: ... Caused by:` block.
            note(&format!("error: {e:#}"));
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> Result<()> {
    match command {
        Command::Serve(cfg) => serve(cfg).await,
        Command::Migrate { db } => {
            let opened = maintain(&db).await?;
            say(&format!("migrations applied to {}", opened.what))?;
            opened.close().await
        }
        Command::Recluster { db } => {
            let opened = maintain(&db).await?;
            let pool = &opened.pool;
            let p = db::clusters::recluster::recluster(pool, db::clusters::recluster::BATCH, |p| {
                note(&format!("reclustered {} finding(s), {} moved", p.findings, p.moved));
            })
            .await
            .context("reclustering failed; nothing half-done is lost: run it again")?;
            say(&format!(
                "{} finding(s) reclustered, {} moved; clusters: {} before, {} after ({} empty removed)",
                p.findings, p.moved, p.clusters_before, p.clusters_after, p.removed
            ))?;
            opened.close().await
        }
        Command::Token(TokenCommand::Create { role, name, db }) => {
            let opened = maintain(&db).await?;
            let pool = &opened.pool;
            let name = name.unwrap_or_else(|| role.name().to_string());
            let secret = auth::create_token(pool, &name, role).await.context("cannot store the token")?;
            if let Err(e) = say(&secret) {
                // A secret nobody saw is a live token nobody can use or find: take it back.
                auth::revoke(pool, &TokenSelector::Secret(secret)).await.context("cannot revoke it again")?;
                bail!("cannot print the secret ({e}); the token was revoked again: run the command with a stdout that can be read");
            }
            note(&format!("created {role} token '{name}' in {}; keep the secret above: it is not shown again", opened.what));
            opened.close().await
        }
        Command::Token(TokenCommand::List { db }) => {
            let opened = maintain(&db).await?;
            let tokens = auth::list_tokens(&opened.pool).await.context("cannot read the tokens")?;
            if tokens.is_empty() {
                note("no tokens yet; create one with `ptxfuzz-server token create --role worker`");
            } else {
                say(&token_table(&tokens))?;
            }
            opened.close().await
        }
        Command::Token(TokenCommand::Revoke { which, db }) => {
            let opened = maintain(&db).await?;
            let pool = &opened.pool;
            let which = which.selector();
            let revoked = auth::revoke(pool, &which).await.context("cannot revoke")?;
            if revoked.is_empty() {
                let what = match &which {
                    TokenSelector::Id(id) => format!("with id {id}"),
                    TokenSelector::Name(n) => format!("named '{n}'"),
                    TokenSelector::Secret(_) => "with that secret".to_string(),
                };
                bail!("no live token {what}; `ptxfuzz-server token list` shows every token, revoked or not");
            }
            note(&format!("revoked {} token(s):", revoked.len()));
            say(&token_table(&revoked))?;
            opened.close().await
        }
    }
}

/// The database of a maintenance command (`migrate`, `recluster`, `token`): its URL, or the
/// private cluster of --data-dir, joined while a server runs it, else started for the command
/// (which says so: the cluster is stopped again when the command ends).
async fn maintain(db: &Database) -> Result<Opened> {
    let opened = db::open::open(db, 2, Sharing::Join).await?;
    if opened.cluster.is_some() {
        note(&format!("no server runs on {}: its private PostgreSQL cluster was started for this command, and stops when it ends", opened.what));
    }
    Ok(opened)
}

/// A line on stdout, its failure an error (a closed pipe must not panic as `println!` does).
fn say(line: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|()| out.flush()).context("cannot write to stdout")
}

/// A line on stderr for whoever watches (progress, a reminder, the final error): a closed or
/// full stderr loses the line and nothing else (the `eprintln!` macro would panic).
fn note(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Tokens as `token list` prints them: aligned columns, the name last (it may hold spaces).
fn token_table(tokens: &[auth::TokenInfo]) -> String {
    let time = |t: &chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%d %H:%M:%S").to_string();
    let rows: Vec<[String; 5]> = tokens
        .iter()
        .map(|t| {
            let state = t.revoked_at.as_ref().map_or_else(|| "live".to_string(), |r| format!("revoked {}", time(r)));
            [t.id.to_string(), t.role.to_string(), time(&t.created_at), state, t.name.clone()]
        })
        .collect();
    let header = ["ID", "ROLE", "CREATED (UTC)", "STATE", "NAME"].map(String::from);
    let width = |c: usize| std::iter::once(&header).chain(&rows).map(|r| r[c].len()).max().unwrap_or(0);
    let widths = [width(0), width(1), width(2), width(3)];
    std::iter::once(&header)
        .chain(&rows)
        .map(|r| format!("{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {}", r[0], r[1], r[2], r[3], r[4], w0 = widths[0], w1 = widths[1], w2 = widths[2], w3 = widths[3]))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn serve(cfg: Config) -> Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    match cfg.log_format {
        LogFormat::Text => tracing_subscriber::fmt().with_env_filter(filter).init(),
        LogFormat::Json => tracing_subscriber::fmt().json().with_env_filter(filter).init(),
    }
    // The private cluster lives as long as this function: dropped (stopped) on every way out,
    // after the pool (`Opened`'s field order).
    let opened = db::open::open(&cfg.database, cfg.db_connections, Sharing::Own).await?;
    let (pool, private) = (opened.pool.clone(), opened.cluster.is_some());
    for dir in &cfg.import {
        let n = import::import(&pool, dir).await?;
        // A server whose stdout nobody reads still serves: these lines are for a person.
        let _ = say(&n.line(dir));
        // Damaged folders are skipped, not the end of serving (service/src/import.rs).
        for w in n.warnings() {
            note(&w);
        }
    }
    let default_bind = if private { "127.0.0.1:0" } else { "127.0.0.1:8080" };
    let bind = cfg.bind.unwrap_or_else(|| default_bind.parse().expect("a socket address"));
    let mut state = AppState::new(pool.clone(), cfg.private).with_secure_cookies(cfg.secure_cookies);
    let listener = tokio::net::TcpListener::bind(bind).await.with_context(|| format!("cannot listen on {bind}"))?;
    let addr = listener.local_addr()?;
    // Only on loopback: a link on a shared interface would hand admin to whoever reads it first.
    if private && addr.ip().is_loopback() {
        let token_id = auth::login_link_token(&pool).await.context("cannot create the login link's token")?;
        let secret = auth::link_secret();
        state = state.with_login_link(LoginLink::new(token_id, secret.clone()));
        let _ = say(&format!("dashboard: http://{addr}/?login={secret}"));
    } else {
        let _ = say(&format!("dashboard: http://{addr}/"));
    }
    let app = http::app(state, cfg.max_body);
    tracing::info!(addr = %addr, "ptxfuzz-server listening");
    axum::serve(listener, app).with_graceful_shutdown(shutdown()).await?;
    drop(pool);
    opened.close().await?;
    if private {
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
