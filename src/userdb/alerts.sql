-- Alerts, their firings and per-size price history. One migration step.
-- Products are kept by identity (catalogue id, style code, title snapshot), sizes by size key.

CREATE TABLE alert (
    id INTEGER PRIMARY KEY,
    product_id TEXT NOT NULL,
    style_code TEXT NOT NULL,
    title TEXT NOT NULL,
    size TEXT,                        -- size key; NULL for any size
    kind TEXT NOT NULL CHECK (kind IN ('ask_at_or_below', 'bid_at_or_above', 'back_in_stock')),
    price_cents INTEGER CHECK (price_cents IS NULL OR price_cents > 0),
    currency TEXT NOT NULL,
    armed INTEGER NOT NULL DEFAULT 1 CHECK (armed IN (0, 1)),
    created_at INTEGER NOT NULL,
    CHECK ((kind = 'back_in_stock') = (price_cents IS NULL))
) STRICT;

CREATE TABLE alert_firing (
    id INTEGER PRIMARY KEY,
    alert_id INTEGER REFERENCES alert (id) ON DELETE SET NULL,
    product_id TEXT NOT NULL,
    style_code TEXT NOT NULL,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    size TEXT NOT NULL,
    source TEXT NOT NULL,
    price_cents INTEGER,
    currency TEXT NOT NULL,
    fired_at INTEGER NOT NULL
) STRICT;
CREATE INDEX alert_firing_by_time ON alert_firing (fired_at DESC);

-- At most one row per product, size and source per 15-minute slot (slot = at / 900): a later
-- answer in the same slot replaces the earlier one.
-- product_key: the style code, or the catalogue id when a product has none.
CREATE TABLE price_history (
    product_key TEXT NOT NULL,
    size TEXT NOT NULL,
    source TEXT NOT NULL,
    slot INTEGER NOT NULL,
    at INTEGER NOT NULL,
    lowest_ask_cents INTEGER,
    highest_bid_cents INTEGER,
    last_sale_cents INTEGER,
    currency TEXT NOT NULL,
    PRIMARY KEY (product_key, size, source, slot)
) STRICT, WITHOUT ROWID;
CREATE INDEX price_history_by_time ON price_history (slot);
