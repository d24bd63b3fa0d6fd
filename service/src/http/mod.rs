//! The HTTP API: `/api/v1` (one module per resource), `/api/openapi.json` (derived from the
//! handlers by utoipa), `/healthz` and `/metrics` (ops). Every handler returns
//! `Result<_, Problem>`; request bodies go through [`Json`], which turns axum's rejections into
//! problem+json responses.

pub mod campaigns;
pub mod clusters;
pub mod findings;
pub mod known;
pub mod ops;
pub mod regressions;
pub mod sweeps;

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Request};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde::de::DeserializeOwned;
use serde::Serialize;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::problem::Problem;
use crate::state::AppState;

/// A JSON body (request or response) whose rejections are [`Problem`]s.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Problem> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(Json(v)),
            Err(e) => Err(Problem::from(e as JsonRejection)),
        }
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

/// The whole application: API, OpenAPI document, ops endpoints, body limit, metrics counting.
pub fn app(state: AppState, max_body: usize) -> Router {
    let (api, doc) = api();
    let doc = std::sync::Arc::new(doc);
    api.merge(ops::routes(doc))
        .merge(crate::web::routes())
        .fallback(|| async { Problem::not_found("no such endpoint; the API is described at /api/openapi.json") })
        .layer(axum::middleware::from_fn_with_state(state.clone(), ops::count))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state)
}
