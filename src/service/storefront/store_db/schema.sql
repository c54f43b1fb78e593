-- What the catalogue crawl read from each store, schema version 2
-- (PRAGMA user_version = 2). `stores.sqlite` in the user's data directory, beside `user.sqlite`.
--
-- Everything here can be read again from the stores, so a damaged file, or one of another
-- version, is moved aside and this schema created afresh (`store_db.rs`). Times are Unix
-- seconds (UTC).

-- One row per store ever crawled.
CREATE TABLE store (
    store_id      INTEGER PRIMARY KEY,
    url           TEXT NOT NULL UNIQUE,     -- the store's origin (`https://kith.com`)
    shop_name     TEXT,                     -- `/meta.json` `name`
    currency      TEXT,                     -- `/meta.json` `currency`: the feed's prices are in it
    feed          TEXT NOT NULL DEFAULT 'unknown'
                  CHECK (feed IN ('unknown', 'read', 'refused')),
    feed_detail   TEXT,                     -- why the feed is refused, in a sentence
    next_pass_at  INTEGER                   -- no pass before this time; NULL: at once
) STRICT;

-- One row per pass over a store's feed; written at its start, after each page, and at its end.
CREATE TABLE pass (
    pass_id           INTEGER PRIMARY KEY,
    store_id          INTEGER NOT NULL REFERENCES store ON DELETE CASCADE,
    started_at        INTEGER NOT NULL,
    finished_at       INTEGER,              -- NULL while it runs (or when it was cut off)
    requests          INTEGER NOT NULL DEFAULT 0,
    pages_read        INTEGER NOT NULL DEFAULT 0,
    products_seen     INTEGER NOT NULL DEFAULT 0,
    products_written  INTEGER NOT NULL DEFAULT 0,   -- new or with a changed `updated_at`
    products_removed  INTEGER NOT NULL DEFAULT 0,   -- gone from the store (complete passes only)
    expected_products INTEGER,                      -- `/meta.json` `published_products_count`
    outcome           TEXT CHECK (outcome IN ('complete', 'partial', 'refused', 'failed', 'interrupted')),
    detail            TEXT                          -- why partial, refused or failed; pages skipped
) STRICT;
CREATE INDEX pass_store ON pass(store_id, pass_id);

-- A store's product as its feed last wrote it.
CREATE TABLE product (
    store_id      INTEGER NOT NULL REFERENCES store ON DELETE CASCADE,
    product_id    INTEGER NOT NULL,         -- the store's id
    handle        TEXT NOT NULL,
    title         TEXT NOT NULL,
    vendor        TEXT NOT NULL,
    product_type  TEXT NOT NULL,
    tags          TEXT NOT NULL,            -- JSON array of strings
    images        TEXT NOT NULL,            -- JSON array of absolute URLs
    updated_at    TEXT NOT NULL,            -- as the store wrote it; the row is rewritten only when it changes
    published_at  TEXT NOT NULL DEFAULT '', -- as the store wrote it ('' when none); ahead of now: a coming drop
    written_pass  INTEGER NOT NULL,         -- the pass that last wrote the row
    first_pass    INTEGER NOT NULL,         -- the pass that first wrote it (a product new to the store
                                            -- came after the store's first pass)
    first_seen    INTEGER NOT NULL,         -- when that pass started (Unix seconds)
    barcodes_for  TEXT,                     -- `updated_at` when the barcodes were read from `/products/{handle}.json`; NULL: never
    PRIMARY KEY (store_id, product_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX product_handle ON product(store_id, handle);

-- Its sizes.
CREATE TABLE variant (
    store_id    INTEGER NOT NULL,
    product_id  INTEGER NOT NULL,
    position    INTEGER NOT NULL,           -- order in the feed, from 0
    variant_id  INTEGER NOT NULL,
    size        TEXT NOT NULL,              -- the value of the option named Size
    sku         TEXT NOT NULL,
    price       TEXT NOT NULL,              -- major units of the store's currency, as written ('110.00'); '' when none
    available   INTEGER NOT NULL,           -- 0 or 1
    barcode     TEXT,                       -- from `/products/{handle}.json`; NULL: not read
    PRIMARY KEY (store_id, product_id, position),
    FOREIGN KEY (store_id, product_id) REFERENCES product ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
