//! Ops endpoints and the behaviour every endpoint shares: health, metrics, the OpenAPI
//! document, problem+json for unknown paths, the bearer-token challenge of every write and the
//! body limit (on every documented route, and on the extractors themselves); the binary's one-line
//! errors.

use crate::common::*;

#[tokio::test]
async fn healthz_answers_ok_when_the_database_does() {
    let s = TestServer::start().await;
    let r = s.get("/healthz").send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "ok\n");
}

#[tokio::test]
async fn unknown_path_is_a_problem_404() {
    let s = TestServer::start().await;
    let r = s.get("/api/v1/nope").send().await.unwrap();
    let detail = expect_problem(r, 404).await;
    assert!(detail.contains("openapi.json"), "{detail}");
}

#[tokio::test]
async fn metrics_are_prometheus_text() {
    let s = TestServer::start().await;
    let _ = s.get("/healthz").send().await.unwrap();
    let r = s.get("/metrics").send().await.unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    assert!(text.contains("# TYPE ptxfuzz_http_requests_total counter"), "{text}");
    assert!(text.contains("ptxfuzz_reproducers 0"), "{text}");
}

#[tokio::test]
async fn openapi_document_is_served() {
    let s = TestServer::start().await;
    let doc: serde_json::Value = s.get("/api/openapi.json").send().await.unwrap().json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."), "{doc}");
    assert_eq!(doc["info"]["title"], "ptxfuzz-server");
    // A reproducer names its execution mode, a heartbeat its cases per mode (issue 12).
    let schemas = &doc["components"]["schemas"];
    assert_eq!(schemas["Exec"]["enum"], serde_json::json!(["compiled", "isa"]), "{}", schemas["Exec"]);
    assert!(schemas["Reproducer"]["properties"]["exec"].is_object(), "{}", schemas["Reproducer"]);
    assert!(schemas["Counters"]["properties"]["cases_isa"].is_object(), "{}", schemas["Counters"]);
}

/// The value of one un-labelled sample of the `/metrics` text.
async fn metric(s: &TestServer, name: &str) -> u64 {
    let text = s.get("/metrics").send().await.unwrap().text().await.unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("no sample {name} in:\n{text}"))
}

#[tokio::test]
async fn metrics_count_a_client_error() {
    let s = TestServer::start().await;
    let before = metric(&s, "ptxfuzz_http_client_errors_total").await;
    let requests = metric(&s, "ptxfuzz_http_requests_total").await;
    expect_problem(s.get("/api/v1/nope").send().await.unwrap(), 404).await;
    assert_eq!(metric(&s, "ptxfuzz_http_client_errors_total").await, before + 1);
    // A request is counted once answered: the read that gave `requests`, the 404 and the
    // client-error read since.
    assert_eq!(metric(&s, "ptxfuzz_http_requests_total").await, requests + 3);
    assert_eq!(metric(&s, "ptxfuzz_http_server_errors_total").await, 0);
}

#[tokio::test]
async fn probes_and_the_api_document_stay_public_on_a_private_server() {
    // `--private` guards the /api/v1 reads; load balancers and Prometheus carry no token.
    let s = TestServer::start_with(true).await;
    for path in ["/healthz", "/metrics", "/api/openapi.json"] {
        let r = s.get(path).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
    }
}

/// A server of `http::app` with the given body limit on a fresh database; (URL, admin token).
async fn serve_app(max_body: usize) -> (String, String) {
    let pool = service::db::connect(&fresh_database().await, 4).await.unwrap();
    let admin = service::auth::create_token(&pool, "ops-admin", service::auth::Role::Admin).await.unwrap();
    serve(service::http::app(service::AppState::new(pool, false), max_body)).await.map(|u| (u, admin)).unwrap()
}

async fn serve(app: axum::Router) -> Option<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.ok()?;
    let url = format!("http://{}", listener.local_addr().ok()?);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Some(url)
}

/// Every operation of the OpenAPI document with `method` in `methods`, as (METHOD, concrete
/// path, takes a body): path parameters become `1`, or a UUID where the schema says so.
fn documented(methods: &[&str]) -> Vec<(reqwest::Method, String, bool)> {
    let doc = serde_json::to_value(service::http::api().1).unwrap();
    let mut out = vec![];
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if !methods.contains(&method.as_str()) {
                continue;
            }
            let mut concrete = path.clone();
            for p in op["parameters"].as_array().into_iter().flatten().filter(|p| p["in"] == "path") {
                let v = if p["schema"]["format"] == "uuid" { "00000000-0000-4000-8000-000000000001" } else { "1" };
                concrete = concrete.replace(&format!("{{{}}}", p["name"].as_str().unwrap()), v);
            }
            out.push((method.to_uppercase().parse().unwrap(), concrete, op.get("requestBody").is_some()));
        }
    }
    out
}

/// 401 problem+json that asks for a bearer token.
async fn expect_bearer_challenge(r: reqwest::Response, what: &str) {
    let challenge = r.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_string());
    assert_eq!(challenge.as_deref(), Some("Bearer"), "{what}");
    expect_problem(r, 401).await;
}

#[tokio::test]
async fn every_documented_write_needs_a_token() {
    let s = TestServer::start().await;
    for (method, path, _) in documented(&["post", "put", "patch", "delete"]) {
        let r = s.http.request(method.clone(), format!("{}{path}", s.url)).json(&serde_json::json!({})).send().await.unwrap();
        expect_bearer_challenge(r, &format!("{method} {path}")).await;
    }
}

#[tokio::test]
async fn every_documented_body_over_the_limit_is_a_413_problem() {
    let (url, admin) = serve_app(1024).await;
    let big = serde_json::json!({ "padding": "x".repeat(4096) });
    for (method, path, _) in documented(&["post", "put", "patch"]).into_iter().filter(|d| d.2) {
        let r = reqwest::Client::new().request(method.clone(), format!("{url}{path}")).bearer_auth(&admin).json(&big).send().await.unwrap();
        expect_problem(r, 413).await;
    }
}

mod extractors {
    //! The auth and body extractors every write handler uses, on a router of their own, so that
    //! they are tested whatever routes the API has.

    use super::*;
    use axum::extract::DefaultBodyLimit;
    use axum::routing::{get, post};
    use service::auth::{Caller, Reader, Role};
    use service::http::Json;

    async fn write(caller: Caller) -> Result<String, service::problem::Problem> {
        caller.require(Role::Triager)?;
        Ok(caller.name)
    }

    async fn read(Reader(caller): Reader) -> String {
        caller.map(|c| c.name).unwrap_or_else(|| "anonymous".into())
    }

    async fn echo(_: Caller, Json(v): Json<serde_json::Value>) -> Json<serde_json::Value> {
        Json(v)
    }

    /// (URL, worker token, triager token) of a router of the extractors.
    async fn start(private: bool) -> (String, String, String) {
        let pool = service::db::connect(&fresh_database().await, 4).await.unwrap();
        let worker = service::auth::create_token(&pool, "w", Role::Worker).await.unwrap();
        let triager = service::auth::create_token(&pool, "t", Role::Triager).await.unwrap();
        let app = axum::Router::new()
            .route("/write", post(write))
            .route("/read", get(read))
            .route("/echo", post(echo))
            .layer(DefaultBodyLimit::max(1024))
            .with_state(service::AppState::new(pool, private));
        (serve(app).await.unwrap(), worker, triager)
    }

    #[tokio::test]
    async fn a_write_without_a_usable_token_is_a_bearer_challenge() {
        let (url, _, _) = start(false).await;
        let c = reqwest::Client::new();
        expect_bearer_challenge(c.post(format!("{url}/write")).send().await.unwrap(), "no header").await;
        let basic = c.post(format!("{url}/write")).header("authorization", "Basic dTpw").send().await.unwrap();
        expect_bearer_challenge(basic, "basic auth").await;
        let unknown = c.post(format!("{url}/write")).bearer_auth("ptxf_00").send().await.unwrap();
        expect_bearer_challenge(unknown, "unknown token").await;
    }

    #[tokio::test]
    async fn a_token_of_the_wrong_role_is_forbidden_and_the_right_one_passes() {
        let (url, worker, triager) = start(false).await;
        let c = reqwest::Client::new();
        let detail = expect_problem(c.post(format!("{url}/write")).bearer_auth(&worker).send().await.unwrap(), 403).await;
        assert!(detail.contains("token create --role triager"), "{detail}");
        let r = c.post(format!("{url}/write")).bearer_auth(&triager).send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.text().await.unwrap(), "t");
    }

    #[tokio::test]
    async fn reads_are_public_unless_private() {
        let c = reqwest::Client::new();
        let (public, _, _) = start(false).await;
        assert_eq!(c.get(format!("{public}/read")).send().await.unwrap().text().await.unwrap(), "anonymous");
        let (private, worker, _) = start(true).await;
        expect_bearer_challenge(c.get(format!("{private}/read")).send().await.unwrap(), "private read").await;
        let r = c.get(format!("{private}/read")).bearer_auth(&worker).send().await.unwrap();
        assert_eq!(r.text().await.unwrap(), "w");
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_a_413_problem() {
        let (url, worker, _) = start(false).await;
        let c = reqwest::Client::new();
        let small = serde_json::json!({ "a": "x".repeat(100) });
        let r = c.post(format!("{url}/echo")).bearer_auth(&worker).json(&small).send().await.unwrap();
        assert_eq!(r.json::<serde_json::Value>().await.unwrap(), small);
        let big = serde_json::json!({ "a": "x".repeat(2048) });
        let r = c.post(format!("{url}/echo")).bearer_auth(&worker).json(&big).send().await.unwrap();
        expect_problem(r, 413).await;
    }
}

#[test]
fn command_line_errors_are_one_line_that_says_what_to_give() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxfuzz-server"))
        .args(["migrate", "--database-url", "notaurl"])
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: DATABASE_URL notaurl is not a PostgreSQL URL") && err.contains("give postgres://"), "{err}");
}

#[test]
fn a_database_that_does_not_exist_is_named_once_with_how_to_create_it() {
    let base = base_url();
    let cut = base.rfind('/').expect("URL has a database");
    let url = format!("{}/ptxfuzz_t_never_created", &base[..cut]);
    let (code, _, err) = server_cli(&url, &["migrate"]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // The server's message once, without sqlx's repeat and the server's source line.
    assert_eq!(err.matches("does not exist").count(), 1, "{err}");
    assert!(!err.contains("at line"), "{err}");
    assert!(err.contains(r#"database "ptxfuzz_t_never_created" does not exist: create it (`createdb NAME`"#), "{err}");
}

/// `ptxfuzz-server ARGS` against `url`; (exit status, stdout, stderr).
fn server_cli(url: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxfuzz-server")).args(args).env("DATABASE_URL", url).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test]
async fn tokens_are_created_listed_and_revoked_from_the_command_line() {
    let url = fresh_database().await;
    let (code, _, err) = server_cli(&url, &["token", "list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("no tokens yet") && err.contains("token create"), "{err}");
    let (code, secret, err) = server_cli(&url, &["token", "create", "--role", "worker", "--name", "gpu host 1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(secret.trim().starts_with("ptxf_"), "{secret}");
    let (code, list, _) = server_cli(&url, &["token", "list"]);
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = list.lines().collect();
    assert!(lines[0].starts_with("ID") && lines[0].ends_with("NAME"), "{list}");
    assert!(lines[1].starts_with("1 ") && lines[1].contains(" worker ") && lines[1].contains(" live ") && lines[1].ends_with("gpu host 1"), "{list}");
    assert!(!list.contains(secret.trim()), "a list never shows a secret");
    let (code, out, err) = server_cli(&url, &["token", "revoke", "--secret", secret.trim()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.starts_with("revoked 1 token(s)") && out.lines().nth(1).unwrap().contains(" revoked 20"), "{err}{out}");
    let (code, _, err) = server_cli(&url, &["token", "revoke", "--name", "gpu host 1"]);
    assert_eq!(code, Some(1));
    assert_eq!(err.trim(), "error: no live token named 'gpu host 1'; `ptxfuzz-server token list` shows every token, revoked or not");
    // Exactly one of --id, --name, --secret: anything else is a usage error.
    assert_eq!(server_cli(&url, &["token", "revoke"]).0, Some(2));
    assert_eq!(server_cli(&url, &["token", "revoke", "--id", "1", "--name", "x"]).0, Some(2));
}

/// `ptxfuzz-server token create --role ROLE` against `url`, stdout and stderr pipes the test
/// may close before the child writes.
fn token_create_piped(url: &str, role: &str) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_ptxfuzz-server"))
        .args(["token", "create", "--role", role])
        .env("DATABASE_URL", url)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

#[tokio::test]
async fn a_secret_that_cannot_be_printed_is_revoked_again() {
    let url = fresh_database().await;
    let mut child = token_create_piped(&url, "admin");
    // No reader: the secret's write fails (the child connects to PostgreSQL before it writes).
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: cannot print the secret") && err.contains("revoked again"), "{err}");
    let pool = service::db::connect(&url, 2).await.unwrap();
    let tokens = service::auth::list_tokens(&pool).await.unwrap();
    assert_eq!(tokens.len(), 1);
    assert!(tokens[0].revoked_at.is_some(), "{tokens:?}");
}

/// stderr carries only notes (the "keep the secret" reminder, progress): a closed one loses them
/// and nothing else; the secret is printed and its token stays live.
#[tokio::test]
async fn a_closed_stderr_loses_the_notes_not_the_token() {
    let url = fresh_database().await;
    let mut child = token_create_piped(&url, "worker");
    drop(child.stderr.take());
    let out = child.wait_with_output().unwrap();
    let secret = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "no panic on the reminder's write: {secret}");
    assert!(secret.trim().starts_with("ptxf_"), "{secret}");
    let pool = service::db::connect(&url, 2).await.unwrap();
    let tokens = service::auth::list_tokens(&pool).await.unwrap();
    assert!(tokens.len() == 1 && tokens[0].revoked_at.is_none(), "{tokens:?}");
}
