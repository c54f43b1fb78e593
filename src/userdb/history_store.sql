-- The storefront a retail price was read at (its label, `kith.com`; '' for a single source),
-- part of the key: two stores' prices for a size in one slot are two rows, each drawn as a
-- line named by its store. SQLite cannot change a primary key in place: the table is made
-- again with the rows it had (each from no store).
CREATE TABLE price_history_by_store (
    product_key TEXT NOT NULL,
    size TEXT NOT NULL,
    source TEXT NOT NULL,
    store TEXT NOT NULL DEFAULT '',
    slot INTEGER NOT NULL,
    at INTEGER NOT NULL,
    lowest_ask_cents INTEGER,
    highest_bid_cents INTEGER,
    last_sale_cents INTEGER,
    currency TEXT NOT NULL,
    PRIMARY KEY (product_key, size, source, store, slot)
) STRICT, WITHOUT ROWID;
INSERT INTO price_history_by_store (product_key, size, source, store, slot, at,
        lowest_ask_cents, highest_bid_cents, last_sale_cents, currency)
    SELECT product_key, size, source, '', slot, at, lowest_ask_cents, highest_bid_cents,
           last_sale_cents, currency
    FROM price_history;
DROP TABLE price_history;
ALTER TABLE price_history_by_store RENAME TO price_history;
CREATE INDEX price_history_by_time ON price_history (slot);
