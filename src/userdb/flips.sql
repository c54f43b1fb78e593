-- Flips: the user's costs, fees and thresholds for the flip list (one row), each store's own
-- shipping and tax, and what the flip alerts have seen and notified, so that a restart (or the
-- window and `solescope monitor` in turn) never notifies the same thing twice.
CREATE TABLE flip_settings (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    seller_level INTEGER NOT NULL DEFAULT 1 CHECK (seller_level BETWEEN 1 AND 5),
    fee_commission_percent REAL,            -- the user's own rates (all three or none);
    fee_processing_percent REAL,            -- NULL: the seller level's schedule
    fee_fixed_cents INTEGER,
    min_profit_cents INTEGER,               -- NULL: every row that pays
    min_roi REAL,                           -- NULL: any
    shipping_cents INTEGER,                 -- NULL: the service's default
    tax_percent REAL,                       -- NULL: the service's default
    alerts INTEGER NOT NULL DEFAULT 0,
    rise_percent INTEGER NOT NULL DEFAULT 20
) STRICT;
CREATE TABLE flip_store_costs (
    store TEXT PRIMARY KEY NOT NULL,        -- the store's host, as the flip list names it
    shipping_cents INTEGER,                 -- NULL: the default
    tax_percent REAL                        -- NULL: the default
) STRICT;
-- Each flip (a size at a store) the alerts have seen above the thresholds.
CREATE TABLE flip_watch (
    store TEXT NOT NULL,
    style_code TEXT NOT NULL,
    size TEXT NOT NULL,
    present INTEGER NOT NULL,               -- in the last complete reading of the list
    gone_since_notice INTEGER NOT NULL,     -- absent from a complete reading since it notified
    notified_profit_cents INTEGER,          -- its profit when it last notified (NULL: never)
    first_seen_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    PRIMARY KEY (store, style_code, size)
) STRICT;
-- Every notification sent: never twice for the same size at the same store and prices.
CREATE TABLE flip_notices (
    store TEXT NOT NULL,
    style_code TEXT NOT NULL,
    size TEXT NOT NULL,
    currency TEXT NOT NULL,
    buy_price_cents INTEGER NOT NULL,
    sell_price_cents INTEGER NOT NULL,
    reason TEXT NOT NULL,                   -- new, back, rose
    notified_at INTEGER NOT NULL,
    flip TEXT NOT NULL,                     -- the row as notified (JSON)
    PRIMARY KEY (store, style_code, size, currency, buy_price_cents, sell_price_cents)
) STRICT;
CREATE INDEX flip_notices_by_time ON flip_notices (notified_at);
