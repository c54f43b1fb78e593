//! Solescope: a desktop market dashboard for sneakers, with the Sneaker Market Data Service of
//! `shared/spec/interface.md` built in.
//!
//! Modules, in layering order (each uses only those before it):
//! - [`model`]: the wire types of the interface, plain serde structs.
//! - [`catalogue`]: the SQLite catalogue: schema, migrations, generator, importer, demo file.
//! - [`app`]: the eframe application.

pub mod app;
pub mod catalogue;
pub mod client;
pub mod figures;
pub mod model;
pub mod search;
pub mod service;
pub mod ui;
