//! How a store's crawl stands: not read yet, being read, read (with how many of its products
//! are catalogue products), looked up one by one, failed, or never read (the service keeps no
//! store catalogues); a sentence for Settings.

/// How a store's crawl stands, for Settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrawlStatus {
    /// No pass yet.
    NotYet,
    /// A pass is reading page `page`.
    Crawling {
        /// The page being read.
        page: u32,
    },
    /// Read: its products, how many are catalogue products, when, and why only in part.
    Read {
        /// When the pass ended (Unix seconds).
        at_unix: i64,
        /// Products kept.
        products: u32,
        /// Of them, catalogue products.
        matched: u32,
        /// Why the last pass read only part of the store.
        partial: Option<String>,
    },
    /// The store refuses its feed: its products are looked up one by one.
    Lookups {
        /// Why, in a sentence.
        why: String,
    },
    /// The last pass read nothing (the store was unreachable); what was read before stays.
    Failed {
        /// Why.
        why: String,
    },
    /// The service keeps no store catalogues: every store is looked up product by product, by
    /// the catalogue's slug.
    NotKept,
}

impl CrawlStatus {
    /// Whether the store's products are looked up one by one (its feed is refused, or the
    /// service keeps no store catalogues).
    #[must_use]
    pub fn uses_lookups(&self) -> bool {
        matches!(self, Self::Lookups { .. } | Self::NotKept)
    }

    /// The sentence Settings shows, `None` when the service keeps no store catalogues (there is
    /// no crawl to tell of).
    #[must_use]
    pub fn for_settings(&self) -> Option<String> {
        (*self != Self::NotKept).then(|| self.to_string())
    }
}

impl std::fmt::Display for CrawlStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotYet => f.write_str("its catalogue has not been read yet"),
            Self::Crawling { page } => write!(f, "reading its catalogue (page {page})"),
            Self::Read {
                at_unix,
                products,
                matched,
                partial,
            } => {
                let at = chrono::DateTime::from_timestamp(*at_unix, 0)
                    .map_or_else(String::new, |t| t.format("%Y-%m-%d %H:%M UTC").to_string());
                write!(
                    f,
                    "{products} products read at {at}, {matched} of them in the catalogue"
                )?;
                if let Some(why) = partial {
                    write!(f, "; {why}")?;
                }
                Ok(())
            }
            Self::Lookups { why } => {
                write!(f, "{why}: its products are looked up one by one instead")
            }
            Self::Failed { why } => write!(f, "the last reading failed: {why}"),
            Self::NotKept => f.write_str(
                "this service looks stores up product by product and keeps no store catalogue",
            ),
        }
    }
}
