//! Solescope: a desktop market dashboard for sneakers, with the Sneaker Market Data Service of
//! `shared/spec/interface.md` built in.
//!
//! Modules, in layering order (each uses only those before it; `.ci/layering.sh` checks it):
//! - [`model`]: the wire types of the interface and the tier rule, plain serde structs.
//! - [`durable`]: replacing a whole file so that a crash never tears it.
//! - [`catalogue`]: the SQLite catalogue: schema, migrations, generator, importer, demo file.
//! - [`search`]: the search index over the catalogue, kept in a file beside it.
//! - [`upstream`]: the HTTP plumbing every outside source shares (body caps, timeouts,
//!   same-origin redirects, `Retry-After`, JSON or an HTML page): the client and the
//!   service's upstreams use it.
//! - [`figures`]: pure market arithmetic over the wire types (the views draw it; the service's
//!   premium estimates use it).
//! - [`service`]: the HTTP service over the catalogue and the index, and the sources behind it.
//! - [`client`]: the typed HTTP client the window talks through (to the local or a remote
//!   service).
//! - [`ui`]: the views, `*_ui` functions drawing what they are given.
//! - [`userdb`]: the user's own SQLite file (watchlist, portfolio, alerts, history), migrated
//!   step by step, served from its own thread.
//! - [`app`]: the eframe application: runtime, fetches, persisted state, window wiring.

pub mod app;
pub mod catalogue;
pub mod client;
pub mod durable;
pub mod figures;
pub mod model;
pub mod search;
pub mod service;
pub mod ui;
pub mod upstream;
pub mod userdb;
