//! The worker against the real server: `ptxfuzz-server`'s app in process, on a fresh database
//! of the local PostgreSQL, as in the service's own tests. Needs PostgreSQL
//! (PTXFUZZ_TEST_DATABASE_URL, default the local server; scripts/test has it). One test binary
//! for both modules: each binary that links the service takes ~100 s of CPU to build under thin
//! LTO (service/Cargo.toml says more).

mod campaign;
mod sweep;

pub const PTXFUZZ: &str = env!("CARGO_BIN_EXE_ptxfuzz");

/// A running server: its URL and a worker's and a triager's token. Dropping it stops the
/// server (its runtime goes with it).
pub struct Server {
    pub url: String,
    pub worker: String,
    pub triager: String,
    _rt: tokio::runtime::Runtime,
}

pub fn start_server() -> Server {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (url, worker, triager) = rt.block_on(async {
        let base = std::env::var("PTXFUZZ_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let name = format!("ptxfuzz_t_{}", uuid::Uuid::new_v4().simple());
        let admin = sqlx::PgPool::connect(&base).await.expect("PostgreSQL must run locally (scripts/test); set PTXFUZZ_TEST_DATABASE_URL");
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"))).execute(&admin).await.unwrap();
        let db_url = format!("{}/{name}", &base[..base.rfind('/').unwrap()]);
        let pool = service::db::connect(&db_url, 8).await.unwrap();
        let worker = service::auth::create_token(&pool, "test-worker", service::auth::Role::Worker).await.unwrap();
        let triager = service::auth::create_token(&pool, "test-triager", service::auth::Role::Triager).await.unwrap();
        let app = service::http::app(service::AppState::new(pool, false), 32 << 20);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (url, worker, triager)
    });
    Server { url, worker, triager, _rt: rt }
}

