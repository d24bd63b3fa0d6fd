//! Test harness: a real server on a fresh PostgreSQL database per test.
//!
//! The base URL comes from `PTXFUZZ_TEST_DATABASE_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`, the local server `scripts/test` uses); each
//! [`TestServer`] creates its own database `ptxfuzz_t_<uuid>`, applies the migrations, creates
//! one token per role and serves the app on an ephemeral port of 127.0.0.1.
#![allow(dead_code)]

pub mod reports;

use service::auth::{create_token, Role};
use service::{db, http, AppState};
use sqlx::PgPool;

pub fn base_url() -> String {
    std::env::var("PTXFUZZ_TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// A fresh, migrated database; returns its URL.
pub async fn fresh_database() -> String {
    let base = base_url();
    let name = format!("ptxfuzz_t_{}", uuid::Uuid::new_v4().simple());
    let admin = PgPool::connect(&base).await.expect("PostgreSQL must run locally (scripts/test starts it); set PTXFUZZ_TEST_DATABASE_URL");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"))).execute(&admin).await.expect("create test database");
    admin.close().await;
    let cut = base.rfind('/').expect("URL has a database");
    format!("{}/{name}", &base[..cut])
}

pub struct TestServer {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    pub database_url: String,
    pub pool: PgPool,
    pub worker: String,
    pub triager: String,
    pub admin: String,
    pub http: reqwest::Client,
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::start_with(false).await
    }

    /// `private`: reads need a token too.
    pub async fn start_with(private: bool) -> TestServer {
        let database_url = fresh_database().await;
        let pool = db::connect(&database_url, 16).await.expect("connect + migrate");
        let worker = create_token(&pool, "test-worker", Role::Worker).await.unwrap();
        let triager = create_token(&pool, "test-triager", Role::Triager).await.unwrap();
        let admin = create_token(&pool, "test-admin", Role::Admin).await.unwrap();
        let app = http::app(AppState::new(pool.clone(), private), 32 << 20);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        TestServer { url, database_url, pool, worker, triager, admin, http: reqwest::Client::new() }
    }

    pub fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.http.get(format!("{}{path}", self.url))
    }

    pub fn post(&self, path: &str, token: &str) -> reqwest::RequestBuilder {
        self.http.post(format!("{}{path}", self.url)).bearer_auth(token)
    }

    pub fn put(&self, path: &str, token: &str) -> reqwest::RequestBuilder {
        self.http.put(format!("{}{path}", self.url)).bearer_auth(token)
    }
}

/// Assert a problem+json response with `status`; returns its `detail`.
pub async fn expect_problem(r: reqwest::Response, status: u16) -> String {
    assert_eq!(r.status().as_u16(), status, "expected {status}");
    let ct = r.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    assert_eq!(ct, "application/problem+json");
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["status"], status);
    body["detail"].as_str().unwrap().to_string()
}

/// The names of the parameters the OpenAPI document `doc` gives `GET path`.
pub fn get_parameters<'a>(doc: &'a serde_json::Value, path: &str) -> Vec<&'a str> {
    doc["paths"][path]["get"]["parameters"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect()
}
