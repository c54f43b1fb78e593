//! The wire types of the Sneaker Market Data Service interface.
//!
//! Plain serde structs with no I/O: the service serializes them and the client
//! deserializes them, so both sides agree on the JSON shape by construction.
//! Field names follow the specification tables exactly; types the
//! specification leaves "not shown" live in [`service`].
//!
//! Unknown JSON keys are tolerated on purpose (no `deny_unknown_fields`), so a
//! client keeps working when a server adds fields.

pub mod alerts;
pub mod budget;
pub mod flip_prefs;
pub mod flips;
pub mod origin;
pub mod portfolio;
pub mod prices;
pub mod realtime;
pub mod releases;
pub mod search;
pub mod service;
pub mod sizes;
pub mod sources;
pub mod stores;
#[cfg(test)]
pub(crate) mod test_time;
pub mod tiers;
pub mod v2;

pub use alerts::*;
pub use realtime::*;
pub use search::*;
pub use service::*;
pub use sources::*;
pub use stores::{RetailerStores, StoreHealth, StoreUrl, StoreUrlError};
pub use tiers::Feature;
pub use v2::*;
