//! The panels of the window: one `*_ui(ui, ...)` function per panel, one file each. They draw
//! what they are given and return what the user asked for; the app does the fetching.

pub mod alerts;
pub mod budget;
pub mod chart_text;
pub mod detail;
pub mod drops;
pub mod fetched;
pub mod flips;
pub mod format;
pub mod images;
pub mod market;
pub mod orders;
pub mod portfolio;
pub mod realtime;
pub mod search;
pub mod settings;
pub mod source_badge;
pub mod state;
pub mod stores;
pub mod watchlist;
pub mod widgets;
