//! `GET /api/v2/sources`: what the service's sources answer (not in the specification; see
//! `model::sources`), so a client never asks which mode the service was started in.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use crate::model::{ErrorBody, ServiceSources, V2Envelope};
use crate::service::ServiceState;

/// `GET /api/v2/sources`: any key.
#[utoipa::path(get, path = "/api/v2/sources", tag = "v2",
    responses((status = 200, body = V2Envelope<ServiceSources>, description = "Where each answer comes from here, and what each source answers for: the catalogue's source (live or not, whether it keeps a copy, its datasets, whether weekly figures carry a rank), and per real-time lookup its source with the countries, currencies and markets it answers for and the storefronts read (absent: nothing answers that lookup here)"),
        (status = 401, body = ErrorBody)),
    security(("api_key" = [])))]
pub(crate) async fn sources(
    State(state): State<Arc<ServiceState>>,
) -> Json<V2Envelope<ServiceSources>> {
    Json(V2Envelope::success(state.sources()))
}
