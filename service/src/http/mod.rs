//! The HTTP API: `/api/v1` (one module per resource), `/api/openapi.json` (derived from the
//! handlers by utoipa), `/healthz` and `/metrics` (ops). Every handler returns
//! `Result<_, Problem>`; request bodies go through [`Json`], which turns axum's rejections into
//! problem+json responses.

pub mod campaigns;
pub mod clusters;
pub mod findings;
pub mod known;
mod nul;
pub mod ops;
pub mod regressions;
pub mod sweeps;

use axum::body::Bytes;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Request};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde::de::DeserializeOwned;
use serde::Serialize;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::problem::{MaxBody, Problem};
use crate::state::AppState;

/// A JSON body (request or response) whose rejections are [`Problem`]s.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = Problem;

    /// Reads the body once (within the body limit), lets axum check the content type and
    /// deserialize it, then refuses any string holding a NUL character with a 422 naming where
    /// it is: PostgreSQL text cannot store NUL, and checking here means no endpoint can forget
    /// it (a NUL reaching an INSERT was a 500).
    async fn from_request(req: Request, state: &S) -> Result<Self, Problem> {
        let (parts, body) = req.into_parts();
        // A compressed body would reach serde as bytes that are not JSON (a 400 that blames the
        // JSON); say what is wrong before reading it.
        if let Some(enc) = parts.headers.get(header::CONTENT_ENCODING) {
            let enc = enc.to_str().unwrap_or("(not ASCII)").trim();
            if !enc.is_empty() && !enc.eq_ignore_ascii_case("identity") {
                return Err(Problem::unsupported_encoding(enc));
            }
        }
        let limit = parts.extensions.get::<MaxBody>().map(|m| m.0);
        let bytes = Bytes::from_request(Request::from_parts(parts.clone(), body), state).await.map_err(|e| {
            match JsonRejection::from(e) {
                r if r.status() == StatusCode::PAYLOAD_TOO_LARGE => Problem::too_large(limit),
                r => Problem::from(r),
            }
        })?;
        let again = Request::from_parts(parts, axum::body::Body::from(bytes.clone()));
        let axum::Json(v) = axum::Json::<T>::from_request(again, state).await.map_err(Problem::from)?;
        if let Some(at) = nul::find(&bytes) {
            return Err(Problem::unprocessable(format!(
                "{at}: contains a NUL character (\\u0000), which cannot be stored; remove it"
            )));
        }
        Ok(Json(v))
    }
}

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

#[derive(OpenApi)]
#[openapi(
    info(title = "ptxfuzz-server", description = "Findings, triage and regressions of ptxfuzz (docs/service.md)"),
    modifiers(&BearerAuth)
)]
struct ApiDoc;

struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let c = openapi.components.get_or_insert_with(Default::default);
        c.add_security_scheme("bearer", SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()));
    }
}

/// The API routes and their OpenAPI document.
pub fn api() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let v1 = OpenApiRouter::new()
        .merge(campaigns::routes())
        .merge(clusters::routes())
        .merge(findings::routes())
        .merge(known::routes())
        .merge(regressions::routes())
        .merge(sweeps::routes());
    OpenApiRouter::with_openapi(ApiDoc::openapi()).nest("/api/v1", v1).split_for_parts()
}

/// The whole application: API, OpenAPI document, ops endpoints, body limit (and [`MaxBody`],
/// so that a 413 can name it), bodies for axum's bare error answers, metrics counting.
pub fn app(state: AppState, max_body: usize) -> Router {
    let (api, doc) = api();
    let doc = std::sync::Arc::new(doc);
    let routes = api
        .merge(ops::routes(doc))
        .merge(crate::web::routes(&state))
        .fallback(|| async { Problem::not_found("no such endpoint; the API is described at /api/openapi.json") })
        .layer(axum::middleware::from_fn_with_state(state.clone(), ops::count))
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::Extension(MaxBody(max_body)))
        .with_state(state.clone());
    // axum adds a 405's Allow header outside the layers of the route that answered it, so the
    // middleware that names the allowed methods wraps the whole router, as its only service.
    Router::new()
        .fallback_service(routes)
        .layer(axum::middleware::from_fn_with_state(state, ops::explain_bare_errors))
}
