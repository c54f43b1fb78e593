-- Solescope catalogue schema, version 3 (PRAGMA user_version = 3).
--
-- This file creates a fresh catalogue. Files written by an older version are brought up to date
-- by the steps in `migrate.rs`, one version at a time, each in its own transaction.
--
-- Conventions:
--   * `pk` columns are internal integer keys; the interface only ever shows `id` (a UUID) and `slug`.
--   * Money is stored as integers in minor units (`*_cents`), so sums and `gmv = orders x aov` are
--     exact; the service turns them into plain numbers with two decimals on the wire.
--   * The US and FR datasets hold the same products: every price exists in USD and in EUR.
--   * Dates are ISO 8601 text: `YYYY-MM-DD`, or `YYYY` where only the year is known.

-- Facts about the file itself: `built_at`, `generator`, `seed`, `as_of`, `kind` (`demo` or `import`).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE products (
    pk             INTEGER PRIMARY KEY,
    id             TEXT NOT NULL,          -- UUID, lower case
    slug           TEXT NOT NULL,          -- kebab-case title + style code, unique
    sku            TEXT NOT NULL,          -- style code as the brand writes it (`DZ5485-612`)
    sku_norm       TEXT NOT NULL,          -- upper case, without dashes and spaces (`DZ5485612`)
    title          TEXT NOT NULL,
    brand          TEXT NOT NULL,
    model          TEXT NOT NULL,          -- silhouette, `metadata.model` of variants
    category       TEXT NOT NULL,          -- category path (`Sneakers > Basketball > Air Jordan 1`)
    color          TEXT NOT NULL,          -- colorway string (`Black/White-Gum Light Brown`)
    gender         TEXT NOT NULL,
    age_group      TEXT NOT NULL,
    size_system    TEXT NOT NULL,          -- may be empty
    condition      TEXT NOT NULL,
    availability   TEXT NOT NULL,
    description    TEXT,                   -- NULL when the source had none; may hold `<br>` tags
    image          TEXT NOT NULL,
    link           TEXT NOT NULL,
    release_date   TEXT NOT NULL,          -- `YYYY-MM-DD`, or '' when only the year is known
    retail_usd_cents INTEGER NOT NULL,     -- 0 when unknown
    retail_eur_cents INTEGER NOT NULL,
    -- Prices of the variants per dataset: min <= avg <= max.
    min_usd_cents  INTEGER NOT NULL,
    avg_usd_cents  INTEGER NOT NULL,
    max_usd_cents  INTEGER NOT NULL,
    base_usd_cents INTEGER NOT NULL,       -- price of the reference size (US M 9, W 7, 5Y, 7C)
    min_eur_cents  INTEGER NOT NULL,
    avg_eur_cents  INTEGER NOT NULL,
    max_eur_cents  INTEGER NOT NULL,
    base_eur_cents INTEGER NOT NULL,
    is_bundle      INTEGER NOT NULL DEFAULT 0,
    trending       INTEGER NOT NULL DEFAULT 0,
    labels         TEXT NOT NULL DEFAULT '[]',  -- JSON array of strings
    inserted_at    TEXT NOT NULL,
    popularity     INTEGER NOT NULL DEFAULT 0   -- orders of the newest 4 weeks (added in version 2)
);

CREATE TABLE variants (
    pk               INTEGER PRIMARY KEY,
    id               BLOB NOT NULL,        -- UUID, 16 bytes (half the size of its text form)
    product_pk       INTEGER NOT NULL REFERENCES products(pk) ON DELETE CASCADE,
    position         INTEGER NOT NULL,     -- order within the size run, smallest size first
    size             TEXT NOT NULL,        -- US label (`9`, `5.5Y`, `7C`)
    size_uk          TEXT NOT NULL DEFAULT '',
    size_eu          TEXT NOT NULL DEFAULT '',
    gtin             TEXT,                 -- UPC-A or EAN-13; NULL when unknown
    link             TEXT,                 -- NULL: derived from the product link and the size
    price_usd_cents  INTEGER NOT NULL,
    price_eur_cents  INTEGER NOT NULL,
    asks_usd         INTEGER,              -- asks open for the size, when a live source says (3)
    asks_eur         INTEGER
);

CREATE TABLE release_dates (
    product_pk    INTEGER NOT NULL REFERENCES products(pk) ON DELETE CASCADE,
    release_date  TEXT NOT NULL,           -- `YYYY` or `YYYY-MM-DD`
    source        TEXT NOT NULL            -- `resale_b_yyyy` or `resale_b_yyyy_mm_dd`
);

CREATE TABLE retail_prices (
    product_pk   INTEGER NOT NULL REFERENCES products(pk) ON DELETE CASCADE,
    price_cents  INTEGER NOT NULL,
    currency     TEXT NOT NULL,
    source       TEXT NOT NULL             -- `srp` or `extracting`
);

CREATE TABLE links (
    product_pk       INTEGER NOT NULL REFERENCES products(pk) ON DELETE CASCADE,
    link             TEXT NOT NULL,
    target           TEXT NOT NULL,        -- `resale_b`
    min_price_cents  INTEGER NOT NULL      -- USD
);

-- 52 weeks per product; `week_start` is the Monday of the week at 00:00:00Z, in seconds since the
-- Unix epoch (`datetime(week_start, 'unixepoch')` reads it).
-- `position` ranks all products of that week by orders (1 = most orders; ties by `pk`); 0 when
-- the rank is unknown (a live source gives none): read as null, never invented.
CREATE TABLE weekly_orders (
    product_pk  INTEGER NOT NULL REFERENCES products(pk) ON DELETE CASCADE,
    week_start  INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    orders      INTEGER NOT NULL,
    aov_cents   INTEGER NOT NULL,          -- USD
    gmv_cents   INTEGER,                   -- USD, exact (sum of orders x price) when a live source gave it (3); NULL: orders x aov
    PRIMARY KEY (product_pk, week_start)
) WITHOUT ROWID;

-- Products mirrored from a live source (version 3): which source and when they were fetched.
-- Products of a generated or imported catalogue have no row.
CREATE TABLE product_sources (
    product_pk        INTEGER PRIMARY KEY REFERENCES products(pk) ON DELETE CASCADE,
    source            TEXT NOT NULL,       -- `kicksdb`
    fetched_at        TEXT NOT NULL,       -- RFC 3339 UTC, the product and its sizes
    weeks_fetched_at  TEXT                 -- RFC 3339 UTC, its weekly figures; NULL: never
);

-- API keys are stored only as SHA-256 hex digests; the key itself is shown once when created.
CREATE TABLE api_keys (
    key_hash    TEXT PRIMARY KEY,
    tier        TEXT NOT NULL CHECK (tier IN ('free', 'pro', 'ultra')),
    label       TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    revoked_at  TEXT                       -- NULL while the key is valid
) WITHOUT ROWID;

-- Indexes for every lookup the interface makes (created after bulk loads by the generator).
CREATE UNIQUE INDEX products_id ON products(id);
CREATE UNIQUE INDEX products_slug ON products(slug);
CREATE INDEX products_sku ON products(sku_norm);
CREATE INDEX products_popularity ON products(popularity DESC, pk);
CREATE INDEX variants_product ON variants(product_pk, position);
CREATE UNIQUE INDEX variants_gtin ON variants(gtin) WHERE gtin IS NOT NULL;
CREATE INDEX release_dates_product ON release_dates(product_pk);
CREATE INDEX retail_prices_product ON retail_prices(product_pk);
CREATE INDEX links_product ON links(product_pk);
