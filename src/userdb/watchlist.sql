-- The watchlist, moved here from the window's eframe storage (once, on first start: the
-- `meta` key `watchlist_migrated` records it). `position` keeps the user's order.
CREATE TABLE watchlist (
    product_id TEXT PRIMARY KEY NOT NULL,
    position INTEGER NOT NULL,
    title TEXT NOT NULL,
    sku TEXT NOT NULL,
    country TEXT NOT NULL,
    currency TEXT NOT NULL,
    price_when_starred_cents INTEGER
) STRICT;
