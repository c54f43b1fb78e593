//! The badge in the top bar that always says where the prices on screen come from: the demo,
//! a Solescope server, KicksDB live, or KicksDB's answers kept in the mirror as of a time.

/// Where the prices on screen come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PriceSource {
    /// The generated demo catalogue and the simulator.
    Demo,
    /// A Solescope server (its own sources, named when it says).
    Server {
        /// The server's base URL.
        base_url: String,
        /// The source it named for its newest answer, when it did.
        upstream: Option<String>,
    },
    /// The window's own service, before it said where its prices come from.
    Connecting,
    /// KicksDB, before its first answer.
    KicksdbConnecting,
    /// KicksDB answered live.
    KicksdbLive,
    /// The mirror answered in KicksDB's place.
    KicksdbCached {
        /// When its figures were fetched (RFC 3339), when known.
        as_of: Option<String>,
        /// Why KicksDB did not answer, when known.
        reason: Option<String>,
    },
}

/// Where the prices on screen come from, from what the service said: a remote server's
/// `base_url` (`None`: the window's own service), the catalogue's source it reports
/// (`GET /api/v2/sources`), and the source named by its newest answer of market prices. An
/// answer from what the service kept (`kicksdb-mirror`) is never shown as live.
#[must_use]
pub fn price_source(
    remote: Option<&str>,
    catalogue: Option<&str>,
    newest: Option<&crate::client::DataOrigin>,
) -> PriceSource {
    if let Some(base_url) = remote {
        return PriceSource::Server {
            base_url: base_url.to_owned(),
            upstream: newest.map(|o| o.source.clone()),
        };
    }
    match (newest.map(|o| o.source.as_str()), catalogue) {
        (Some("kicksdb-mirror"), _) => PriceSource::KicksdbCached {
            as_of: newest.and_then(|o| o.as_of.clone()),
            reason: newest.and_then(|o| o.stale_reason.clone()),
        },
        (Some("kicksdb"), _) => PriceSource::KicksdbLive,
        (Some("catalogue" | "simulator"), _) | (None, Some("catalogue")) => PriceSource::Demo,
        // No answer yet, or a source this window does not know: said as not yet known.
        (_, Some("kicksdb")) => PriceSource::KicksdbConnecting,
        (_, _) => PriceSource::Connecting,
    }
}

/// `2026-11-25T10:42:07Z` as `2026-11-25 10:42 UTC`; anything else as it is.
#[must_use]
pub fn as_of_text(at: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(at).map_or_else(
        |_| at.to_owned(),
        |t| {
            t.with_timezone(&chrono::Utc)
                .format("%Y-%m-%d %H:%M UTC")
                .to_string()
        },
    )
}

/// The badge's text.
#[must_use]
pub fn badge_text(source: &PriceSource) -> String {
    match source {
        PriceSource::Demo => "demo data".to_owned(),
        PriceSource::Server {
            upstream: Some(upstream),
            ..
        } => match upstream.as_str() {
            "kicksdb" => "server · KicksDB live".to_owned(),
            "kicksdb-mirror" => "server · KicksDB cached".to_owned(),
            _ => "Solescope server".to_owned(),
        },
        PriceSource::Server { .. } => "Solescope server".to_owned(),
        PriceSource::Connecting => "connecting".to_owned(),
        PriceSource::KicksdbConnecting => "KicksDB · connecting".to_owned(),
        PriceSource::KicksdbLive => "KicksDB live".to_owned(),
        PriceSource::KicksdbCached {
            as_of: Some(at), ..
        } => {
            format!("KicksDB cached as of {}", as_of_text(at))
        }
        PriceSource::KicksdbCached { as_of: None, .. } => "KicksDB cached".to_owned(),
    }
}

/// Draws the badge; its hover says more.
pub fn source_badge_ui(ui: &mut egui::Ui, source: &PriceSource) {
    let visuals = ui.visuals();
    let background = match source {
        PriceSource::Demo | PriceSource::KicksdbCached { .. } => visuals.warn_fg_color,
        PriceSource::KicksdbLive => egui::Color32::from_rgb(0x2e, 0x7d, 0x32),
        _ => visuals.weak_text_color(),
    };
    let hover = match source {
        PriceSource::Demo => "Generated demo catalogue and simulated marketplaces, served by the app itself: no price here is real".to_owned(),
        PriceSource::Server { base_url, .. } => format!("Prices from the Solescope server at {base_url}"),
        PriceSource::Connecting => "Asking the service where its prices come from".to_owned(),
        PriceSource::KicksdbConnecting => "Starting the KicksDB source".to_owned(),
        PriceSource::KicksdbLive => "Prices fetched live from KicksDB with your key".to_owned(),
        PriceSource::KicksdbCached {
            reason: Some(reason),
            ..
        } => format!(
            "KicksDB did not answer, so these prices come from the copy kept on this computer: {reason}"
        ),
        PriceSource::KicksdbCached { reason: None, .. } => "KicksDB's answer from the time shown, kept to save calls of your monthly quota; it is asked again once that answer is a few minutes old".to_owned(),
    };
    ui.label(
        egui::RichText::new(format!(" {} ", badge_text(source)))
            .background_color(background)
            .color(visuals.extreme_bg_color),
    )
    .on_hover_text(hover);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(source: &str, as_of: Option<&str>) -> crate::client::DataOrigin {
        crate::client::DataOrigin {
            source: source.into(),
            as_of: as_of.map(str::to_owned),
            stale_reason: None,
        }
    }

    /// An answer kept by the service (its mirror, or a real-time answer reused) never reads as
    /// live, whatever the catalogue's source; a live one does; a name this window does not know
    /// is not guessed at.
    #[test]
    fn the_badge_never_says_live_for_an_answer_from_the_mirror() {
        let kept = origin("kicksdb-mirror", Some("2026-11-25T10:42:07Z"));
        for catalogue in [None, Some("kicksdb"), Some("catalogue")] {
            let badge = price_source(None, catalogue, Some(&kept));
            assert_eq!(
                badge_text(&badge),
                "KicksDB cached as of 2026-11-25 10:42 UTC"
            );
            assert_ne!(badge, PriceSource::KicksdbLive);
        }
        let live = origin("kicksdb", None);
        assert_eq!(
            price_source(None, Some("kicksdb"), Some(&live)),
            PriceSource::KicksdbLive
        );
        assert_eq!(
            price_source(None, Some("catalogue"), Some(&origin("simulator", None))),
            PriceSource::Demo
        );
        assert_eq!(
            price_source(None, Some("kicksdb"), Some(&origin("somewhere-new", None))),
            PriceSource::KicksdbConnecting
        );
        assert_eq!(
            badge_text(&price_source(Some("https://api"), None, Some(&kept))),
            "server · KicksDB cached"
        );
    }

    #[test]
    fn the_badge_names_the_source_and_the_age_of_cached_prices() {
        assert_eq!(badge_text(&PriceSource::Demo), "demo data");
        assert_eq!(badge_text(&PriceSource::KicksdbLive), "KicksDB live");
        assert_eq!(
            badge_text(&PriceSource::KicksdbCached {
                as_of: Some("2026-11-25T10:42:07Z".into()),
                reason: None
            }),
            "KicksDB cached as of 2026-11-25 10:42 UTC"
        );
    }
}
